"""A co-location run says each variant's build verdict beside its name, as it recorded it when it started
(issue 26, the colocation report's part: the pick's **What**, its tie set and what it beats named variants
whose fp16 the build never checked with no word of it). No server: the table host of
tests/perf/colocate/test_colocate_objective.py."""

from __future__ import annotations

from pathlib import Path

import colocation_source as cs
from colocation_repo import idle_perf_analyzer, variant_repo

from builders.repository.build_verdict import BuildVerdict
from builders.verify.verdicts import describe
from clients.server import ServerOptions
from perf.colocate.options import ColocateOptions
from perf.colocate.run import Colocate
from perf.colocate.search import CoordinateSearch
from perf.records.build_check import BuildCheck
from perf.records.colocation import ColocatedModel, ColocationRecord
from perf.report.colocation import report_lines

TABLE = {"a_x1": (300.0, 1.0), "a_p2": (1000.0, 3.0), "a_q2": (1000.0, 3.0), "a_x3": (1200.0, 5.0), "b_x1": (800.0, 1.0)}
MARK = f"(build: onnx fp16 {describe('not_verified_precision', 'fp16', 'cpu')})"


def _record() -> ColocationRecord:
    inst = {"a_x1": 1, "a_p2": 2, "a_q2": 2, "a_x3": 3, "b_x1": 1}
    models = [
        ColocatedModel("a", ["a_x1", "a_p2", "a_q2", "a_x3"], required_throughput=500.0, instances={v: inst[v] for v in inst}),
        ColocatedModel("b", ["b_x1"], instances={"b_x1": 1}),
    ]
    return ColocationRecord("t", "2026-12-01T00:00:00", "table", models, objective="fewest-instances", seed=1)


def test_the_pick_and_its_tie_set_say_their_recorded_build_verdict_in_the_colocation_report() -> None:
    rec = _record()
    fp16 = BuildCheck(BuildVerdict("onnx fp16", "not_verified_precision", describe("not_verified_precision", "fp16", "cpu")))
    rec.build_checks = {v: fp16 if v in ("a_p2", "a_q2") else BuildCheck() for m in rec.models for v in m.variants}
    src = cs.TableSource(TABLE, seed=2, noise=0.05)
    pick = CoordinateSearch(rec, src, clock=src.clock, starts={"a": "a_p2", "b": "b_x1"}).run()
    assert pick == {"a": "a_p2", "b": "b_x1"}  # a_q2, as fast, not told apart: its tie set
    lines = report_lines(rec)
    assert f"**What**: a=a_p2 {MARK}, b=b_x1 (3 instances in all)." in lines
    tie = lines[lines.index("**Tie set** (not told apart from the pick at this noise; the search kept the held combination):") :]
    assert any(line.startswith(f"- a=a_q2 {MARK}, b=b_x1: not distinguishable") for line in tie)
    assert "- beats a=a_x3, b=b_x1: 4 instances, the pick 3" in lines  # fp32: nothing said


def test_a_colocation_run_records_each_variants_build_check_when_it_starts(tmp_path: Path) -> None:
    repo = variant_repo(tmp_path, {"a1": 1, "b1": 1})  # model folders the index does not list: no build to read
    opts = ColocateOptions(
        server=ServerOptions(repository=repo, runtime="bundled"),
        models={"a": ("a*",), "b": ("b*",)},
        results_dir=tmp_path / "results",
        run_id="c",
        perf_analyzer=idle_perf_analyzer(tmp_path),
    )
    checks = Colocate(opts).record.build_checks
    assert set(checks) == {"a1", "b1"}
    for check in checks.values():
        assert check.verdict is not None and check.verdict.words == f"build check not verified here: {repo} holds no build of it"
