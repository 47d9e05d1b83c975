"""A resumed rounds run that its time budget cannot keep whole: the plan cuts by what the run
measured (not the configuration order), and a cut variant with numbers is "not measured further
in this session", never "not measured" or "skipped" (the trial's `--resume th-kill --time-budget
90s`: the leader, 1.4-2.1x ahead, cut as "least promising", and the pick listed as not measured)."""

from __future__ import annotations

import io

import pytest
from factories import levels
from plan_sweep import PlanOnlySweep
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table
from perf.records.provenance import stamp
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import BudgetRecord, RoundRules, RoundsRecord
from perf.records.search import SearchRecord
from perf.report.sections.rounds_budget import budget_lines
from perf.search import budget as budgets
from perf.search import late as lates
from perf.search.promise import by_measurements
from perf.sweep import run as sweep_run

#: Configuration order (cpu1 before cpu2, as perf.search.policy.order puts them); the cpu2 ones lead.
NAMES = ["cpu1_db", "cpu1_nodb", "cpu2_db", "cpu2_nodb"]
PEAKS = {"cpu1_db": 1600.0, "cpu1_nodb": 1540.0, "cpu2_db": 2240.0, "cpu2_nodb": 3170.0}


def _run() -> RunResult:
    """Two rounds of every variant from an earlier session (statuses as an interrupted run leaves them)."""
    vrs = []
    for n in NAMES:
        top = PEAKS[n]
        lv = [x for t in (0, 1) for x in levels([top / 3, top / 2, top], [4.0, 5.0, 8.0], trial=t)]
        vrs.append(VariantResult(n, levels=lv, status="pending"))
    run = RunResult("th-kill", "now", variants=vrs)
    stamp(run)  # swept by today's code, as perf.sweep.run stamps a sweep: its saved words are today's
    run.search = SearchRecord("brute", False, order=list(NAMES))
    run.rounds = RoundsRecord(seed=1, rules=RoundRules(), budget=BudgetRecord(90.0, 1.25, 5.0, 68.0, 7))
    return run


def _planned(budget_s: float) -> tuple[RunResult, budgets.Fit]:
    run = _run()
    sw = PlanOnlySweep(run, budget_s)
    sw._rounds(0.0, 1e6)  # the clock reads 1e6 - budget_s: the plan sees budget_s left
    sw.opts.time_budget_s = budget_s
    assert sw.fit is not None
    return run, sw.fit


def test_the_plan_cuts_the_least_promising_by_the_runs_own_measurements(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_run.time, "monotonic", lambda: 1e6 - 90.0)  # 90 s left of the budget
    run, fit = _planned(90.0)
    cut = [c.variant for c in fit.cuts if c.kind == "variant"]
    assert cut == ["cpu1_nodb", "cpu1_db"]  # the two measured lowest, lowest first; the leaders stay
    assert fit.variants == ["cpu2_nodb", "cpu2_db"]
    for c in fit.cuts:
        if c.kind == "variant":
            assert c.reason.startswith("not measured further in this session: ")
    assert "measured variants, lowest best measured throughput first" in "\n".join(budget_lines(run))  # the rule, stated
    for n in cut:  # numbers from before: never "skipped"
        vr = run.variant(n)
        assert vr is not None and vr.status == "ok" and not (vr.error or "").startswith("cut for time")


def test_a_cut_variant_with_numbers_is_never_listed_as_not_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wording of the cut list everywhere, on a run whose plan cut the leader (the old order)."""
    run = _run()
    for n in ("cpu2_db", "cpu2_nodb"):  # as main da40c7c recorded it: the leader cut and "skipped"
        run.rounds.cut(budgets.Cut("variant", "not measured: 4 variants need about 122 s", n))  # type: ignore[union-attr]
        vr = run.variant(n)
        vr.status, vr.error = "skipped", "cut for time: 4 variants need about 122 s"  # type: ignore[union-attr]
    for n in ("cpu1_db", "cpu1_nodb"):
        run.variant(n).status = "ok"  # type: ignore[union-attr]
    rec = recommend(run)
    assert rec.best_peak is not None and rec.best_peak.variant == "cpu2_nodb"
    said = " ".join(rec.notes)
    assert "were not measured" not in said and "not measured (cut for time)" not in said  # every variant: 2 rounds, none "only"
    assert "2 of them measured in 2 rounds each (`cpu2_db`, `cpu2_nodb`: then cut for time, not measured further)" in said
    lines = "\n".join(budget_lines(run))
    assert "variant not measured (" not in lines and "not measured further in this session (`cpu2_nodb`)" in lines
    out = io.StringIO()
    Console(file=out, width=3000).print(summary_table(run))  # the row on one line: the tie and the cut said in its note
    row = next(line for line in out.getvalue().splitlines() if "cpu2_nodb" in line)
    assert "skipped" not in row and "not measured further in this session" in row


def test_by_measurements_keeps_the_unmeasured_after_in_their_order() -> None:
    run = _run()
    run.variants.append(VariantResult("new_a"))
    run.variants.append(VariantResult("new_b"))
    assert by_measurements(["new_b", *NAMES, "new_a"], run) == ["cpu2_nodb", "cpu2_db", "cpu1_db", "cpu1_nodb", "new_b", "new_a"]


def test_the_late_re_plan_words_a_cut_variant_with_numbers_as_not_measured_further() -> None:
    late = lates.late(["cpu2_nodb", "new_a"], ["cpu1_db"], 3, [3], 5.0, 1.2, 10.0, measured={"cpu2_nodb"})
    reasons = {c.variant: c.reason for c in late.cuts}
    assert reasons["cpu2_nodb"].startswith("not measured further in this session: after the rounds")
    assert reasons["new_a"].startswith("not measured: after the rounds")


def test_a_pick_recorded_as_skipped_with_numbers_can_be_deployed_by_name() -> None:
    """An older record (main da40c7c) left the pick "skipped": --variant named it "not measured"."""
    from perf.deploy.choose import choose_variant

    run = _run()
    run.rounds.cut(budgets.Cut("variant", "not measured: 4 variants need about 122 s", "cpu2_nodb"))  # type: ignore[union-attr]
    for v in run.variants:
        v.status = "skipped" if v.name == "cpu2_nodb" else "ok"
    assert choose_variant(run, "cpu2_nodb").variant == "cpu2_nodb"
