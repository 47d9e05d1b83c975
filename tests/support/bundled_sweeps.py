"""A short real sweep of one variant on the bundled tritonserver (perf_analyzer, rounds of 800 ms windows, at most 2
rounds, no warmup, no time budget, no in-process baseline): the set-up the mixed-size sweeps' integration tests share
(tests/perf/sweep/test_axis_step_integration.py, test_mixed_sizes_integration.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from clients.server import ServerOptions
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules
from perf.sweep.run import SweepOptions, run_sweep


def short_sweep(
    repo: Path,
    variant: str,
    results_dir: Path,
    run_id: str,
    sweep_axes: Mapping[str, Sequence[int | str]],
    concurrency: tuple[int, ...] = (1,),
) -> tuple[RunResult, Path, VariantResult]:
    """Sweep ``variant`` of ``repo`` at ``concurrency`` over ``sweep_axes`` (``--shapes``) into ``results_dir``/``run_id``;
    returns the run, its folder and the variant's result, which finished (status ``ok``)."""
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        variants=(variant,),
        concurrency=concurrency,
        sweep_axes={k: tuple(v) for k, v in sweep_axes.items()},
        results_dir=results_dir,
        run_id=run_id,
        warmup_requests=0,
        time_budget_s=None,
        round_rules=RoundRules(window_ms=800, max_rounds=2),
        baseline=False,
    )
    run, run_dir = run_sweep(opts)
    v = run.variant(variant)
    assert v is not None and v.status == "ok", v and v.error
    return run, run_dir, v
