"""The GPU check's co-location step: two models' KIND_GPU variants sharing the GPU on one server
(``triton-perf colocate``'s GPU path, :mod:`perf.colocate.gpu`), short and within its own share of
the budget (``--colocate-s``, taken from the sweep's).

Which variants (:func:`colocation_variants`): the first two ``--models`` that were served and
checked, each with its two smallest instance counts of the first format and precision, dynamic
batching off (2 x 2 combinations). Each model starts from its larger variant (``--start``, so no
"alone" step); the default objective (the highest weighted throughput) with a loose p99 budget:
the step is there to show each model's GPU memory, the GPU's utilisation in every round, and
that a pick comes out of a real GPU.

Only the standard library is imported at module level (the tests import it without tritonclient).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Seconds the step keeps for itself by default (taken from the sweep's budget).
DEFAULT_COLOCATE_S = 100.0
#: The step's p99 budget (ms): loose, the step is about memory and utilisation.
COLOCATE_P99_MS = 1000.0


def colocation_variants(
    served: Mapping[str, Any],
    failed: Sequence[str],
    models: Sequence[str],
    formats: Sequence[str],
    precisions: Sequence[str],
) -> dict[str, list[str]]:
    """Model -> its two variants for the step (module docstring); empty when fewer than two
    models have two checked variants each.

    Args:
        served: Variant name -> its parameters (``model``, ``format``, ``precision``, ``count``,
            ``dynamic_batching``).
        failed: Variants whose served-output check failed (left out).
        models, formats, precisions: The run's order of preference.
    """
    out: dict[str, list[str]] = {}
    for model in models:
        ok = [(n, p) for n, p in served.items() if p.model == model and n not in failed and not p.dynamic_batching]
        for fmt in formats:
            for prec in precisions:
                pool = sorted((p.count, n) for n, p in ok if p.format == fmt and p.precision == prec)
                if len(pool) >= 2 and model not in out:
                    out[model] = [pool[0][1], pool[1][1]]
        if len(out) == 2:
            return out
    return {}


def colocate_within(repo: Path, runtime: str, picks: Mapping[str, list[str]], run_dir: Path, time_s: float) -> list[str]:
    """Run ``triton-perf colocate`` on ``picks`` within ``time_s`` into ``run_dir/colocate``;
    returns the summary's lines (the pick, each variant's GPU memory, the GPU's utilisation), or
    why nothing was measured."""
    from clients.runtimes.options import ServerOptions
    from core.errors import ToolkitError
    from perf.colocate import judge
    from perf.colocate.options import EVERY_MODEL, ColocateOptions
    from perf.colocate.run import Colocate

    opts = ColocateOptions(
        server=ServerOptions(repo, runtime=runtime, metrics_interval_ms=200),
        models={m: tuple(vs) for m, vs in picks.items()},
        starts={m: vs[-1] for m, vs in picks.items()},
        latency_budget_ms={EVERY_MODEL: COLOCATE_P99_MS},
        time_budget_s=time_s,
        window_ms=200,
        results_dir=run_dir,
        run_id="colocate",
    )
    try:
        run = Colocate(opts)
        rec = run.run()
    except ToolkitError as e:
        return [f"co-location: failed: {e}"]
    try:
        from perf.report.colocation import write_report

        write_report(run.run_dir)
    except Exception as e:  # noqa: BLE001 - matplotlib may be absent here: the record holds the numbers
        note = f" (report.md not written: {type(e).__name__})"
    else:
        note = ""
    which = ", ".join(m + ": " + " / ".join(vs) for m, vs in picks.items())
    lines = [
        f"co-location ({which}): "
        + (f"pick {judge.describe(rec.pick)}" if rec.pick else f"no pick: {rec.pick_reason.removeprefix('no pick: ')}")
        + f"; {len(rec.visits)} visits in {rec.spent_s or 0:.0f} s{note}"
    ]
    for g in rec.gpu_memory:
        mib = "no reading" if g.delta_bytes is None else f"{g.delta_bytes / 2**20:,.0f} MiB"
        told = "" if g.reported_bytes is None else f", backend reports {g.reported_bytes / 2**20:,.0f} MiB"
        lines.append(f"  GPU memory of {g.variant} at its load: {mib}{told} (beside: {', '.join(g.loaded_with) or 'nothing'})")
    utils = [v.gpu_utilization_pct for v in rec.visits if v.gpu_utilization_pct is not None]
    if rec.kind != "KIND_GPU":
        lines.append("  GPU: not used (KIND_CPU variants: a CPU dry run)")
    elif utils:
        lines.append(f"  GPU utilisation per visit: {min(utils):.0f}-{max(utils):.0f} % over {len(utils)} visits")
    else:
        lines.append("  GPU utilisation per visit: no reading (neither the server's metrics nor NVML gave one)")
    lines += [f"  cut for time: {c}" for c in rec.cuts]
    return lines
