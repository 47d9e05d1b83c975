"""A finished run whose third variant a time budget cut, as a resume's final group then measures it: the set-up of the
real-server tests of a final group stopped (tests/perf/sweep/test_final_group_*stopped_integration.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from clients.server import ServerOptions
from perf.records import results
from perf.records.results import RunResult
from perf.records.rounds import Cut, RoundRules
from perf.sweep.run import SweepOptions, run_sweep

#: The variants the run ranks, and the one the budget cut (never measured in its rounds).
RANKED = ("tiny_onnx_cpu1_nodb_mbs8", "tiny_ts_cpu1_nodb_mbs8")
CUT = "tiny_onnx_cpu1_db500_mbs8"


def cut_run(
    tiny_repo: Path,
    tmp_path: Path,
    run_id: str,
    time_budget_s: float | None,
    cut: Cut,
    error: str,
    baseline_s: float | None = None,
) -> tuple[RunResult, Path, SweepOptions]:
    """Run a sweep of :data:`RANKED` and :data:`CUT` on the bundled server (concurrency 1, at most 3 rounds, no
    in-process baseline), then record it as a time budget leaves it: its rounds of the two ranked variants finished,
    :data:`CUT` never measured (skipped with ``error``, ``cut`` filed), and ``baseline_s`` (s) of the budget spent by
    a first session's in-process baseline where given. The run is saved.

    Returns:
        The run, its folder, and the options of its resume with ``--time-budget 300s`` given.
    """
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(*RANKED, CUT),
        concurrency=(1,),
        results_dir=tmp_path,
        run_id=run_id,
        warmup_requests=5,
        time_budget_s=time_budget_s,
        round_rules=RoundRules(window_ms=150, max_rounds=3),
        baseline=False,
    )
    run, run_dir = run_sweep(opts)
    rr = run.rounds
    assert rr is not None and run.finished is not None
    for g in rr.groups:
        g.variants = [n for n in g.variants if n != CUT]
        g.tie_set = [n for n in g.tie_set if n != CUT] or [RANKED[0]]
    for r in rr.rounds:
        r.order = [v for v in r.order if v.variant != CUT]
    vr = run.variant(CUT)
    assert vr is not None
    vr.levels, vr.status, vr.error = [], "skipped", error
    rr.cut(cut)
    if baseline_s is not None:
        assert rr.budget is not None
        rr.budget.baseline_s = baseline_s
    results.save(run, run_dir)
    resume = SweepOptions(ServerOptions(tiny_repo, runtime="bundled"), results_dir=tmp_path, run_id=run_id, resume=True)
    return run, run_dir, dataclasses.replace(resume, time_budget_s=300.0, given=frozenset({"time_budget_s"}))
