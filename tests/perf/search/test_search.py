"""The search policy (perf.search.policy) on hand-made levels: no server, no perf_analyzer."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from factories import run_result, variant_result

from clients.server import ServerOptions
from perf.analysis.saturation.rises import judge, knee
from perf.analysis.stats.points import aggregate
from perf.records.levels import LevelResult
from perf.records.search import SearchDecision, SearchRecord, SearchRules
from perf.report.sections.search import search_lines
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget, Search, best_point, ladder, next_step, order, resolve_mode
from perf.sweep.options import DEFAULT_CONCURRENCY, SweepOptions
from perf.sweep.resuming import resumed_options

RULES = SearchRules()
LADDER = ladder(AUTO, RULES)[0]


def lv(c: int, thr: float, p99: float = 1.0, spread_pct: float = 2.0, trial: int = 0, **kw) -> LevelResult:
    return LevelResult(
        concurrency=c,
        trial=trial,
        throughput_infer_per_s=thr,
        latency_p99_ms=p99,
        throughput_window_spread_pct=spread_pct,
        **kw,
    )


def series(name: str, levels: dict[int, tuple[float, float]], spread_pct: float = 2.0):
    return aggregate([lv(c, t, p, spread_pct) for c, (t, p) in levels.items()], name)


def test_the_ladder_the_mode_and_the_default_concurrency_come_from_the_rules():
    assert ladder(AUTO, RULES) == ((1, 2, 4, 8, 16, 32, 64), True)
    assert ladder(AUTO, SearchRules(start=2, growth=4, max_concurrency=40)) == ((2, 8, 32), True)
    assert ladder((8, 1, 4, 4), RULES) == ((1, 4, 8), False)
    assert DEFAULT_CONCURRENCY == LADDER
    assert resolve_mode(None, 5, RULES) == "prune" and resolve_mode(None, 4, RULES) == "brute"
    assert resolve_mode("brute", 16, RULES) == "brute" and resolve_mode("prune", 2, RULES) == "prune"


def test_order_puts_dynamic_batching_first_fewer_cpu_instances_and_more_gpu_instances_first():
    def cfg(count: int, kind: str = "KIND_CPU", delay: int | None = None, mbs: int = 8):
        c: dict = {"max_batch_size": mbs, "instance_group": [{"count": count, "kind": kind}]}
        if delay is not None:
            c["dynamic_batching"] = {"max_queue_delay_microseconds": str(delay)} if delay else {}
        return c

    configs = {
        "nodb_cpu1": cfg(1),
        "db500_cpu2": cfg(2, delay=500),
        "db500_cpu1": cfg(1, delay=500),
        "db0_cpu1_mbs64": cfg(1, delay=0, mbs=64),
        "db100_cpu1": cfg(1, delay=100),
        "db500_gpu1": cfg(1, "KIND_GPU", delay=500),
        "db500_gpu2": cfg(2, "KIND_GPU", delay=500),
        "unreadable": None,
    }
    got = order(configs)
    assert got[:3] == ["db500_gpu2", "db500_gpu1", "db0_cpu1_mbs64"]
    assert got.index("db100_cpu1") < got.index("db500_cpu1") < got.index("db500_cpu2") < got.index("nodb_cpu1")
    assert len(got) == len(configs)


def test_the_ladder_grows_while_throughput_rises_and_stops_one_level_past_the_knee():
    assert next_step("v", [], LADDER, True, RULES) == 1
    rising = series("v", {1: (100, 1.0), 2: (190, 1.1)})
    assert next_step("v", rising, LADDER, True, RULES) == 4
    flat = series("v", {1: (100, 1.0), 2: (190, 1.1), 4: (195, 2.0)})
    d = next_step("v", flat, LADDER, True, RULES)
    assert isinstance(d, SearchDecision) and d.rule == "knee" and d.concurrency == 4 and d.measured == [1, 2, 4]
    assert "past the knee" in d.reason and "+2.6 %" in d.reason
    assert knee(flat, judge(run_result())) == 2  # the report's knee is the level before the one the ladder stopped at


def test_a_step_pays_only_above_the_measured_spread_and_the_floor():
    gain8 = {1: (100, 1.0), 2: (108, 1.1)}
    assert next_step("v", series("v", gain8, spread_pct=2.0), LADDER, True, RULES) == 4  # 8 % > 5 % floor, > spread
    noisy = next_step("v", series("v", gain8, spread_pct=12.0), LADDER, True, RULES)
    assert isinstance(noisy, SearchDecision) and noisy.rule == "noise"  # 8 % is within 12 % window spread: no knee
    floor = next_step("v", series("v", {1: (100, 1.0), 2: (104, 1.1)}, spread_pct=0.5), LADDER, True, RULES)
    assert isinstance(floor, SearchDecision) and floor.rule == "knee"
    # two trials: their min-max spread counts as well
    trials = aggregate([lv(1, 100), lv(1, 100, trial=1), lv(2, 112), lv(2, 130, trial=1)], "v")
    assert next_step("v", trials, LADDER, True, RULES) == 4  # +21 infer/s > the 18 infer/s trial spread
    trials = aggregate([lv(1, 100), lv(1, 100, trial=1), lv(2, 105), lv(2, 140, trial=1)], "v")
    d = next_step("v", trials, LADDER, True, RULES)
    assert isinstance(d, SearchDecision) and d.rule == "noise"  # +22.5 infer/s < the 35 infer/s trial spread


def test_the_budget_stops_the_ladder_then_bisection_looks_for_its_edge():
    budget = Budget(10.0, 99, cores=None)
    pts = series("v", {1: (100, 5.0), 2: (190, 8.0), 4: (300, 30.0)})
    assert next_step("v", pts, LADDER, True, RULES, budget=budget) == 3
    pts = series("v", {1: (100, 5.0), 2: (190, 8.0), 3: (250, 12.0), 4: (300, 30.0)})
    d = next_step("v", pts, LADDER, True, RULES, budget=budget)
    assert isinstance(d, SearchDecision) and d.rule == "budget" and d.concurrency == 4 and d.latency_ms == 30.0
    assert "over the budget of 10.00 ms" in d.reason
    no_refine = next_step(
        "v", series("v", {1: (100, 5.0), 2: (190, 8.0), 8: (300, 30.0)}), LADDER, True, SearchRules(refine_steps=0), budget=budget
    )
    assert isinstance(no_refine, SearchDecision)
    p95 = Budget(10.0, 95, cores=None)
    pts95 = aggregate([lv(1, 100, 50.0, latency_p95_ms=5.0), lv(2, 190, 60.0, latency_p95_ms=6.0)], "v")
    assert next_step("v", pts95, LADDER, True, RULES, budget=p95) == 4  # the budget is on p95, not p99


def test_the_cap_a_failed_level_and_an_explicit_list():
    d = next_step("v", series("v", {1: (100, 1.0), 2: (190, 1.0)}), (1, 2), True, RULES)
    assert isinstance(d, SearchDecision) and d.rule == "cap"
    failed = aggregate([lv(1, 100), LevelResult(concurrency=2, error="boom")], "v")
    d = next_step("v", failed, LADDER, True, RULES)
    assert isinstance(d, SearchDecision) and d.rule == "failed" and "boom" in d.reason
    # an explicit list is measured whole, flat or not, failed or not
    assert next_step("v", failed, (1, 2, 4), False, RULES) == 4
    assert next_step("v", series("v", {1: (100, 1), 2: (100, 1), 4: (100, 1)}), (1, 2, 4), False, RULES) is None


def test_pruning_probes_at_the_best_level_and_drops_a_variant_behind_by_more_than_the_spread():
    best = series("lead", {1: (300, 1.0), 2: (550, 1.2), 4: (1000, 2.0), 8: (1010, 4.0)})
    top = best_point({"lead": best}, None, 10.0)
    assert top is not None and top.concurrency == 8
    assert next_step("v", [], LADDER, True, RULES, best=top) == 8  # the probe level
    d = next_step("v", series("v", {8: (500, 3.0)}), LADDER, True, RULES, best=top)
    assert isinstance(d, SearchDecision) and d.rule == "pruned" and d.best_variant == "lead" and d.best_concurrency == 8
    assert d.throughput_infer_per_s == 500 and d.best_throughput_infer_per_s == 1010
    assert d.spread_infer_per_s == pytest.approx(10.0) and d.best_spread_infer_per_s == pytest.approx(20.2)
    assert "below the best so far" in d.reason
    close = series("v", {8: (995, 3.0)})
    assert next_step("v", close, LADDER, True, RULES, best=top) == 16  # within the spreads: a contender goes on
    # still climbing when compared: not dropped although behind
    climbing = series("v", {8: (500, 3.0), 16: (900, 3.5)})
    assert next_step("v", climbing, LADDER, True, RULES, best=top) == 32
    # an explicit list: the levels above the probe first, then the ones below
    assert next_step("v", close, (1, 2, 4, 8), False, RULES, best=top) == 1
    assert next_step("v", series("v", {4: (999, 2.0)}), (1, 2, 4, 8), False, RULES, best=top) == 8


def test_a_probe_at_the_top_of_the_ladder_is_still_compared_with_the_best():
    """A later variant probed at the best's concurrency, which is the ladder's top, has no level
    above it: it is still pruned when it cannot win, and a contender's "cap" says that its
    lower levels were not measured (the bench_search run showed 11 of 16 variants "capped")."""
    top_c = LADDER[-1]
    best = series("lead", {c: (100.0 * i + 100, 1.0) for i, c in enumerate(LADDER)})
    top = best_point({"lead": best}, None, 10.0)
    assert top is not None and top.concurrency == top_c
    assert next_step("v", [], LADDER, True, RULES, best=top) == top_c  # the probe
    behind = next_step("v", series("v", {top_c: (200.0, 5.0)}), LADDER, True, RULES, best=top)
    assert isinstance(behind, SearchDecision) and behind.rule == "pruned" and "below the best so far" in behind.reason
    close = next_step("v", series("v", {top_c: (top.value("throughput_infer_per_s") * 0.99, 5.0)}), LADDER, True, RULES, best=top)
    assert isinstance(close, SearchDecision) and close.rule == "cap"
    assert "were not measured" in close.reason and str(LADDER[0]) in close.reason
    # a variant that climbed the whole ladder itself: no such remark
    own = series("v", {c: (100.0 * i + 100, 1.0) for i, c in enumerate(LADDER)})
    alone = next_step("v", own, LADDER, True, RULES)
    assert isinstance(alone, SearchDecision) and alone.rule == "cap" and "not measured" not in alone.reason


def test_a_host_busy_level_is_no_evidence_to_prune_on():
    """make demo on a loaded host pruned its best variant on one host-busy p99 over the budget:
    a level other processes moved never drops a variant; a ladder stop on it says so."""
    budget = Budget(5.0, cores=None)
    lead = series("lead", {1: (300, 1.0), 2: (550, 2.0), 4: (1000, 9.0)})
    top = best_point({"lead": lead}, budget, 10.0)
    busy = aggregate([lv(1, 100, 7.0, host_busy=True)], "v")
    assert busy[0].status == "host busy"
    assert next_step("v", busy, (1, 2, 4), False, RULES, best=top, budget=budget) == 2  # measured on, not pruned
    d = next_step("v", busy, LADDER, True, RULES, best=top, budget=budget)
    assert isinstance(d, SearchDecision) and d.rule == "budget" and "rerun on a quiet host" in d.reason
    behind = aggregate([lv(top.concurrency, 50.0, 1.0, host_busy=True)], "v")  # far behind, but on a busy host
    assert next_step("v", behind, LADDER, True, RULES, best=top) == LADDER[LADDER.index(top.concurrency) + 1]


def test_pruning_with_a_budget_compares_with_the_best_under_it_and_drops_a_variant_over_it_at_the_lowest_load():
    budget = Budget(5.0, cores=None)
    lead = series("lead", {1: (300, 1.0), 2: (550, 2.0), 4: (1000, 9.0)})
    top = best_point({"lead": lead}, budget, 10.0)
    assert top is not None and top.concurrency == 2
    slow = series("v", {1: (100, 7.0)})
    d = next_step("v", slow, (1, 2, 4), False, RULES, best=top, budget=budget)
    assert isinstance(d, SearchDecision) and d.rule == "pruned" and "lowest load" in d.reason
    d = next_step("v", slow, LADDER, True, RULES, best=top, budget=budget)  # the adaptive ladder ends there anyway
    assert isinstance(d, SearchDecision) and d.rule == "budget"
    # a probe over the budget goes down until a level meets it, unless it cannot win
    over = series("v", {2: (600, 6.0)})
    assert next_step("v", over, LADDER, True, RULES, best=top, budget=budget) == 1


def _plans(names, ladder_levels, **kw):
    return {
        n: plan_levels(n, 8, ladder_levels, kw.get("batch_sizes", (1,)), kw.get("rates", ()), kw.get("trials", 1)) for n in names
    }


def test_the_driver_expands_a_concurrency_to_every_batch_size_and_trial_and_keeps_prune_decisions():
    plans = _plans(["a", "b"], LADDER, batch_sizes=(1, 4), trials=2, rates=(50.0,))
    rec = SearchRecord("prune", True, RULES)
    search = Search(plans, rec, LADDER)
    run = run_result([variant_result("a", status="pending"), variant_result("b", status="pending")])
    assert search.next_keys(run.variants[0], run, set()) == [
        (1, 1, 0, None, None),
        (1, 1, 1, None, None),
        (1, 4, 0, None, None),
        (1, 4, 1, None, None),
    ]
    # a ends at its knee: then its request-rate levels, once
    a = run.variants[0]
    a.levels = [lv(c, t, trial=k, batch_size=b) for c, t in ((1, 100), (2, 200), (4, 205)) for b in (1, 4) for k in (0, 1)]
    rate_keys = search.next_keys(a, run, set())
    assert rate_keys == [(0, 1, 0, 50.0, None), (0, 1, 1, 50.0, None), (0, 4, 0, 50.0, None), (0, 4, 1, 50.0, None)]
    assert rec.decision("a").rule == "knee"
    assert search.next_keys(a, run, set(rate_keys)) == []
    # b is probed at a's best level, then dropped: no request-rate level for it
    b = run.variants[1]
    probe = search.next_keys(b, run, set())
    assert {k[0] for k in probe} == {4}
    b.levels = [lv(4, 20, trial=k, batch_size=bs) for bs in (1, 4) for k in (0, 1)]
    assert search.next_keys(b, run, set(probe)) == [] and rec.decision("b").rule == "pruned"
    # a resumed run keeps the prune decision even when the evidence would now say otherwise
    b.levels = [lv(4, 205, trial=k, batch_size=bs) for bs in (1, 4) for k in (0, 1)]
    assert search.next_keys(b, run, set()) == []


def test_a_failed_level_is_not_measured_again_in_the_same_session_but_is_on_resume():
    plans = _plans(["a"], (1, 2))
    search = Search(plans, SearchRecord("brute", True, RULES), (1, 2))
    run = run_result([variant_result("a", [lv(1, 100), LevelResult(concurrency=2, error="boom")], status="pending")])
    a = run.variants[0]
    assert search.next_keys(a, run, set()) == [(2, 1, 0, None, None)]  # resumed: failed levels again
    assert search.next_keys(a, run, {(2, 1, 0, None, None)}) == []
    assert search.record.decision("a").rule == "failed"
    brute = Search(plans, SearchRecord("brute", False, RULES), (1, 2))
    assert brute.next_keys(a, run, set()) == [(2, 1, 0, None, None)]
    assert brute.next_keys(a, run, {(2, 1, 0, None, None)}) == []


def test_the_report_section_says_why_each_variant_was_not_measured_further():
    run = run_result(
        [
            variant_result("lead", [lv(c, t) for c, t in ((1, 100), (2, 200), (4, 205))], status="pending"),
            variant_result("slow", [lv(4, 20)], status="pending"),
        ]
    )
    run.settings = {"concurrency": AUTO}
    assert search_lines(dataclasses.replace(run, search=SearchRecord("brute", False, RULES))) == []
    run.search = SearchRecord("prune", True, RULES, ["lead", "slow"])
    plans = _plans(["lead", "slow"], LADDER)
    search = Search(plans, run.search, LADDER)
    for v in run.variants:
        search.next_keys(v, run, set())
    text = " ".join("\n".join(search_lines(run)).split(" "))
    flat = " ".join(text.split())
    assert "## Search" in text and "`slow`: not measured further because at concurrency 4" in text
    # a paired verdict's reason ends in its own period (perf.analysis.stats.paired): the sentence keeps one
    run.search.decisions.append(SearchDecision("slow", "pruned", 4, "`lead` beats `slow`."))
    assert "because `lead` beats `slow`." in "\n".join(search_lines(run)) and ".." not in "\n".join(search_lines(run))
    assert "`lead`: its ladder went no higher than concurrency 4 because throughput +2.5 % from c=2 to c=4" in text  # a knee
    assert (
        "| `slow` | 4 | pruned |" in flat
        and "budget" not in text
        and "Measured 4 concurrency levels over 2 of the 2 variants" in text
    )


def test_a_resumed_run_keeps_auto_and_its_search_mode(tmp_path: Path):
    opts = SweepOptions(ServerOptions(tmp_path), concurrency=(1, 2), search="prune", given=frozenset({"concurrency"}))
    saved = {
        "repository": str(tmp_path),
        "variants": ["a"],
        "concurrency": AUTO,
        "batch_sizes": [1],
        "trials": 1,
        "search": "brute",
    }
    back = resumed_options(opts, saved)
    assert back.concurrency == AUTO and back.search == "brute"
    old = resumed_options(opts, {**saved, "concurrency": [1, 4]} | {"search": None})
    assert old.concurrency == (1, 4) and old.search == "brute"  # a run saved before the search measured everything


def test_the_cli_takes_auto_by_default_lists_and_the_search_mode_and_prints_each_decision(monkeypatch, tmp_path: Path):
    from click.testing import CliRunner

    import perf.sweep.run
    from perf.cli import main as perf_cli

    seen: list[SweepOptions] = []
    decision = SearchDecision("b", "pruned", 4, "at concurrency 4 it is behind")

    class Fake:
        nothing_to_measure = False  # as perf.sweep.context.SweepBase has it

        def __init__(self, opts: SweepOptions, progress=None):
            seen.append(opts)
            self.opts, self.progress, self.run_id = opts, progress, "r"
            self.run_dir = tmp_path / "r"
            self.plans: dict = {}  # no plan: no inputs line in the sweep's opening

        def level_counts(self):
            return 14, 0

        def run_all(self):
            self.progress({"event": "search_decision", "variant": "b", "decision": decision, "levels_left": 6})
            run = run_result(
                [variant_result("a", [lv(1, 100)], status="pending"), variant_result("b", [lv(4, 10)], status="pending")]
            )
            for v in run.variants:
                v.status = "ok"
            return run

    monkeypatch.setattr(perf.sweep.run, "Sweep", Fake)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report"])
    assert res.exit_code == 0, res.output
    assert seen[-1].concurrency == AUTO and seen[-1].search is None
    assert "b: not measured further because at concurrency 4 it is behind" in " ".join(res.output.split())
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", "--concurrency", "4,1:2", "--search", "brute"])
    assert res.exit_code == 0 and seen[-1].concurrency == (4, 1, 2) and seen[-1].search == "brute"
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", "--concurrency", "auto,4"])
    assert res.exit_code == 2 and "--concurrency auto grows its own levels" in res.output
    assert CliRunner().invoke(perf_cli.cli, ["sweep", "--search", "smart"]).exit_code == 2


def test_pruning_applies_to_the_auto_ladder_only() -> None:
    for asked in (None, "prune", "brute"):
        assert resolve_mode(asked, 16, RULES, adaptive=False) == "brute"
    assert resolve_mode("prune", 2, RULES, adaptive=True) == "prune"


def test_a_decision_that_ends_a_ladder_says_the_ladder_went_no_higher_not_that_the_variant_was_not_measured() -> None:
    # trial 9 F8: the pick read "not measured further because its p99 at concurrency 16 is ... over the budget",
    # then was measured at c=2 and c=8 (levels below its top join later)
    budget = SearchDecision("pick", "budget", 16, "its p99 at concurrency 16 is 29.23 ms, over the budget of 25.00 ms.")
    assert budget.words() == (
        "its ladder went no higher than concurrency 16 because its p99 at concurrency 16 is 29.23 ms, over the budget of 25.00 ms"
    )
    assert budget.words(past=False).startswith("its ladder goes no higher than concurrency 16 because ")  # the console
    knee = SearchDecision("v", "knee", 8, "from concurrency 4 to 8 throughput rose 2 %")
    assert knee.words().startswith("its ladder went no higher than concurrency 8 because ")
    pruned = SearchDecision("v", "pruned", 4, "`pick` beats `v`.")
    assert pruned.words() == "not measured further because `pick` beats `v`"  # dropped: no level of it is measured again
    failed = SearchDecision("v", "failed", 4, "its level at concurrency 4 failed")
    assert failed.words().startswith("not measured further because ")


def test_a_step_the_noise_does_not_tell_is_not_called_the_knee():
    """The sequential ladder ended "past the knee" on any step not beyond the levels' spread, though the one rule
    (perf.analysis.saturation.rises) calls a gain above min_gain_pct within the noise not told, and the report's
    knee (rises.knee) then found none. Its words now say the rule's: the knee only for a flat step."""
    gain = 2 * RULES.min_gain_pct  # % above the floor, within a window spread twice as wide
    told_not = next_step("v", series("v", {1: (100, 1.0), 2: (100 + gain, 1.1)}, spread_pct=2 * gain), LADDER, True, RULES)
    assert isinstance(told_not, SearchDecision) and told_not.rule == "noise"
    assert (
        "past the knee" not in told_not.reason and "not distinguishable from noise (within the levels' spread" in told_not.reason
    )
    assert f"+{gain:.1f} % from c=1 to c=2" in told_not.reason
    assert knee(series("v", {1: (100, 1.0), 2: (100 + gain, 1.1)}, spread_pct=2 * gain), judge(run_result())) is None
    flat = next_step("v", series("v", {1: (100, 1.0), 2: (100 + RULES.min_gain_pct / 2, 1.1)}), LADDER, True, RULES)
    assert isinstance(flat, SearchDecision) and flat.rule == "knee" and flat.reason.endswith("past the knee")
    assert f"no more than the {RULES.min_gain_pct:g} % a step must gain" in flat.reason


def test_the_report_words_each_ladder_by_what_stopped_it():
    """The search table's "levels ended" column said "past the knee" of every ``knee`` decision, also of the
    sequential ladder's step whose gain its noise does not tell, where the reason beside it says no knee is
    claimed (issue 26): each stop is now worded by its own rule."""
    gain = 2 * RULES.min_gain_pct  # above the floor, within a window spread twice as wide: not told
    levels = {"noisy": ({1: (100, 1.0), 2: (100 + gain, 1.1)}, 2 * gain), "flat": ({1: (100, 1.0), 2: (101, 1.1)}, 2.0)}
    run = run_result(
        [
            variant_result(n, [lv(c, t, p, spread_pct=sp) for c, (t, p) in pts.items()], status="pending")
            for n, (pts, sp) in levels.items()
        ]
    )
    run.settings = {"concurrency": AUTO}
    run.search = SearchRecord("brute", True, RULES, list(levels))
    for name, (pts, sp) in levels.items():
        d = next_step(name, series(name, pts, spread_pct=sp), LADDER, True, RULES)
        assert isinstance(d, SearchDecision)
        run.search.record(d)
    rows = {ln.split("|")[1].strip(): ln.split("|")[3].strip() for ln in search_lines(run) if ln.startswith("| `")}
    assert rows == {"`noisy`": "a rise the noise does not tell", "`flat`": "past the knee"}
