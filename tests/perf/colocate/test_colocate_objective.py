"""The fewest-instances objective and required throughputs (perf.colocate.rules): on the synthetic
co-location host (tests/support/colocation_source.py) and on a host whose models do not interfere
(the tie rule), plus the flags, the report and the bundle. No server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import colocation_source as cs
import pytest
from click.testing import CliRunner
from colocation_repo import idle_perf_analyzer, variant_repo

from core.errors import PerfError
from perf.cli.main import cli
from perf.colocate import judge
from perf.colocate.brute import run_brute
from perf.colocate.closest import closest
from perf.colocate.search import CoordinateSearch
from perf.records import colocation
from perf.records.colocation import ColocatedModel, ColocationRecord
from perf.report.colocation import report_lines

#: Each model's required throughput (infer/s): the fewest instances that meet them (6) are not
#: the highest weighted throughput within the budget (7 instances).
REQUIRED = {"big": 100.0, "mid": 1000.0, "small": 800.0}


def _fewest(seed: int, required: dict[str, float] = REQUIRED, **kw):
    src = cs.SynthSource(seed)
    rec = cs.record(seed, required=required, objective="fewest-instances")
    pick = CoordinateSearch(rec, src, clock=src.clock, **kw).run()
    return pick, rec, src


def test_the_space_has_a_fewest_instances_answer_apart_from_the_highest_throughput() -> None:
    best = cs.fewest_best(REQUIRED)
    assert best == {"big": "big_x1", "mid": "mid_x3", "small": "small_x2"} and cs.total_instances(best) == 6
    assert cs.total_instances(cs.true_best()) == 7  # the throughput objective's answer needs one more
    # nothing with fewer instances meets every target, even without drift
    assert not [c for c in cs.combinations() if cs.total_instances(c) < 6 and cs.feasible(c, REQUIRED)]


@pytest.mark.parametrize("seed", range(10))
def test_fewest_instances_finds_the_fewest_that_meet_every_target(seed: int) -> None:
    pick, rec, _src = _fewest(seed)
    assert pick == cs.fewest_best(REQUIRED), rec.pick_reason
    assert rec.instances(pick) == 6
    assert rec.pick_reason.startswith("the fewest instances found that meet every model's budget and required throughput (6: ")
    assert rec.combinations_measured <= 64 // 3
    for d in rec.decisions:  # every decision carries the candidate's instances; an accepted one meets every target
        assert d.instances == rec.instances({**d.held, d.model: d.candidate})
        if d.accepted and d.within_budget:
            held_n = rec.instances(d.held)
            assert d.instances < held_n or "misses a target" in d.reason or d.verdict == "higher"


def test_the_throughput_objective_with_required_throughputs_keeps_its_answer() -> None:
    src = cs.SynthSource(2)
    rec = cs.record(2, required=REQUIRED)
    assert CoordinateSearch(rec, src, clock=src.clock).run() == cs.true_best()  # 7 instances, every target met


def test_required_throughput_nobody_reaches_is_not_achieved_with_the_closest_and_why(tmp_path: Path) -> None:
    pick, rec, _src = _fewest(3, {"big": 100.0, "mid": 1000.0, "small": 5000.0})
    assert pick is None
    assert rec.pick_reason.startswith("not achieved: no combination found within every model's budget and required throughput")
    assert "small" in rec.pick_reason and "< 5,000 required" in rec.pick_reason
    found = closest(rec)
    assert found is not None
    near = found.measured
    assert any("small" in m and "required" in m for m in near.over)
    text = "\n".join(report_lines(rec))
    assert (
        "**What**: not achieved: the fewest instances that meet every model's budget and required throughput were not found."
        in text
    )
    last = "the last held; " if near.combination == judge.last_held(rec) else ""
    assert f"**The closest** measured: {judge.describe(near.combination)} ({last}{near.instances} instances in all)" in text
    assert "it misses " in text and "**What it beats**: nothing" in text


def test_brute_force_with_the_fewest_instances_objective_agrees() -> None:
    src = cs.SynthSource(4)
    rec = cs.record(4, required=REQUIRED, objective="fewest-instances")
    assert run_brute(CoordinateSearch(rec, src, clock=src.clock)) == cs.fewest_best(REQUIRED)
    assert "the fewest instances, then the highest median weighted throughput" in rec.pick_reason


#: Model a: two variants of 2 instances (one faster), one of 3 (the start), one of 1 too slow;
#: model b: one variant. Required: a at least 500 infer/s.
TABLE = {
    "a_x1": (300.0, 2.0),
    "a_p2": (1000.0, 3.0),
    "a_q2": (1300.0, 3.0),
    "a_x3": (1500.0, 4.0),
    "b_x1": (800.0, 2.0),
}


def _table_record(objective: str = "fewest-instances", table: dict[str, tuple[float, float]] = TABLE) -> ColocationRecord:
    inst = {"a_x1": 1, "a_p2": 2, "a_q2": 2, "a_x3": 3, "b_x1": 1}
    models = [
        ColocatedModel("a", ["a_x1", "a_p2", "a_q2", "a_x3"], required_throughput=500.0, instances={v: inst[v] for v in inst}),
        ColocatedModel("b", ["b_x1"], instances={"b_x1": 1}),
    ]
    return ColocationRecord("t", "2026-12-01T00:00:00", "table", models, objective=objective, seed=1)  # type: ignore[arg-type]


def test_among_as_many_instances_the_paired_rule_decides() -> None:
    rec = _table_record()
    src = cs.TableSource(TABLE, seed=1)
    pick = CoordinateSearch(rec, src, clock=src.clock, starts={"a": "a_x3", "b": "b_x1"}).run()
    assert pick == {"a": "a_q2", "b": "b_x1"}, rec.pick_reason
    first = [d for d in rec.decisions if d.step == 0]
    by = {d.candidate: d for d in first}
    assert by["a_q2"].accepted and "moved to a_q2: fewer instances (3 instances in all, the held 4)" in by["a_q2"].reason
    assert not by["a_p2"].accepted and "as many instances as a_q2" in by["a_p2"].reason
    assert "a_q2's weighted throughput is higher by the paired rule" in by["a_p2"].reason
    assert not by["a_x1"].accepted and not by["a_x1"].within_budget and "< 500 required" in by["a_x1"].reason


def test_two_variants_the_paired_rule_cannot_tell_apart_are_a_tie() -> None:
    table = {**TABLE, "a_q2": (1000.0, 3.0)}  # as fast as a_p2: the noise decides the medians, not the rule
    rec = _table_record(table=table)
    src = cs.TableSource(table, seed=2, noise=0.05)
    pick = CoordinateSearch(rec, src, clock=src.clock, starts={"a": "a_x3", "b": "b_x1"}).run()
    assert pick is not None and pick["a"] in ("a_p2", "a_q2") and rec.instances(pick) == 3
    loser = next(d for d in rec.decisions if d.step == 0 and d.candidate in ("a_p2", "a_q2") and not d.accepted)
    assert "tied with " + pick["a"] + " (not distinguishable at this noise" in loser.reason


def test_flags_make_the_objective_the_requirements_and_each_variants_instances(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import perf.colocate.run as run_module

    repo = variant_repo(tmp_path, {"a1": 1, "a2": 3, "b1": 2})
    seen: dict[str, object] = {}
    original = run_module.Colocate.__init__

    def stop(self, opts, events=None):  # type: ignore[no-untyped-def]
        original(self, opts, events)
        seen["record"] = self.record
        raise SystemExit(0)

    monkeypatch.setattr(run_module.Colocate, "__init__", stop)
    args = ["colocate", "-r", str(repo), "--model", "a=a*", "--model", "b=b*", "--objective", "fewest-instances"]
    args += ["--results-dir", str(tmp_path / "results")]  # its run folder in the test's own folder, not the checkout's
    pa = idle_perf_analyzer(tmp_path)
    r = CliRunner().invoke(cli, [*args, "--required-throughput", "a=500,b=200.5", "--perf-analyzer", str(pa)])
    assert r.exit_code == 0, r.output
    rec = seen["record"]
    assert rec.objective == "fewest-instances" and rec.required == {"a": 500.0, "b": 200.5}
    assert rec.model("a").instances == {"a1": 1, "a2": 3} and rec.model("b").instances == {"b1": 2}
    assert rec.instances({"a": "a2", "b": "b1"}) == 5
    saved = json.loads(json.dumps(colocation.COLOCATION_KIND.dump(rec)))
    assert saved["objective"] == "fewest-instances" and saved["models"][0]["required_throughput"] == 500.0


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["--objective", "fewest-instances"], 2, "--objective fewest-instances needs a required throughput"),
        (["--required-throughput", "a=lots"], 2, "'a=lots' is not NAME=INFER/S or INFER/S"),
        (["--required-throughput", "a=-5"], 2, "a INFER/S must be a number above 0"),
        (["--required-throughput", "c=5"], 2, "--required-throughput names c, not a --model of this run"),
        (["--objective", "cheapest"], 2, "'cheapest' is not one of 'throughput', 'fewest-instances'"),
    ],
)
def test_bad_objective_flags_are_one_clear_error(tmp_path: Path, extra: list[str], code: int, message: str) -> None:
    repo = variant_repo(tmp_path, {"a1": 1, "b1": 1})
    r = CliRunner().invoke(cli, ["colocate", "-r", str(repo), "--model", "a=a*", "--model", "b=b*", *extra])
    assert r.exit_code == code, r.output
    text = r.output + (str(r.exception) if isinstance(r.exception, PerfError) else "")
    assert message in text, text
    assert "Traceback" not in r.output


def test_the_report_and_the_bundle_of_a_fewest_instances_pick(tmp_path: Path) -> None:
    from perf.deploy.combination import readme_lines

    pick, rec, _src = _fewest(5)
    text = "\n".join(report_lines(rec))
    assert f"**What**: {judge.describe(pick)} (6 instances in all)." in text
    assert "Objective: the fewest instances in all (the sum of every model's instance count) that meet every model's" in text
    assert "Targets, co-located: big p99 " in text and " infer/s of 1,000 required" in text
    assert "- beats " in text and " instances, the pick 6" in text
    assert re.search(r"\| combination +\| +step \| +instances \| +weighted infer/s \|", text)
    readme = "\n".join(readme_lines(rec, ()))
    assert (
        "objective: the fewest instances (6 in all)." in readme
        and "required throughput: each model's own (big 100 infer/s" in readme
    )
    assert "(3 instances)" in readme
