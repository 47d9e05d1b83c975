"""Why two runs share no measured level (``triton-perf compare``; trial 12, F11): levels match by
series name (a variant at one swept input size, :func:`perf.records.workloads.split_by_workload`)
and (concurrency, batch size), so two runs of one variant at other input sizes share none. The
refusal names each run's input sizes and what differs, not only the variants and levels."""

from __future__ import annotations

from core.errors import PerfError
from perf.records.results import RunResult
from perf.records.workloads import variant_name, workload_text


def input_sizes(run: RunResult) -> str:
    """The input sizes a run's levels sent, in words: its swept ones (``--shapes``, ``"time=1000,
    time=16000"``), else how its dynamic axes were sized (``"time=8000 (the build's opt size of axis
    time)"``), else ``"no dynamic axis"``."""
    swept = list(dict.fromkeys(lv.shape for v in run.variants for lv in v.levels if lv.shape))
    if swept:
        return ", ".join(workload_text(s, None) for s in swept)
    return "; ".join(dict.fromkeys(v.dynamic_axes for v in run.variants if v.dynamic_axes)) or "no dynamic axis"


def _loads(run: RunResult, variant: str) -> set[tuple[int, int]]:
    """The (concurrency, batch size) of ``variant``'s measured levels over all its series."""
    return {(lv.concurrency, lv.batch_size) for v in run.variants if variant_name(v) == variant for lv in v.levels if lv.ok}


def no_shared_level(a: RunResult, b: RunResult) -> PerfError:
    """The refusal of two runs (split by input size) that share no measured level: the variants and
    levels both measured when only the input sizes differ, each run's input sizes, and what to sweep."""
    sizes_a, sizes_b = input_sizes(a), input_sizes(b)
    names_b = {variant_name(v) for v in b.variants}
    shared = [n for n in dict.fromkeys(variant_name(v) for v in a.variants) if n in names_b]
    both = {n: sorted(_loads(a, n) & _loads(b, n)) for n in shared}
    at = [f"{n} at " + ", ".join(f"c={c} b={bs}" for c, bs in loads[:3]) for n, loads in both.items() if loads]
    sizes = f"{a.run_id}: {sizes_a}; {b.run_id}: {sizes_b}"
    if at and sizes_a != sizes_b:
        return PerfError(
            f"runs {a.run_id} and {b.run_id} share no measured level: both measured {'; '.join(at[:3])}, but at other "
            f"input sizes ({sizes})",
            hint="sweep the same input sizes in both runs (the same --shapes, or none: the build's opt size), then compare",
        )
    return PerfError(
        f"runs {a.run_id} and {b.run_id} share no measured level (input sizes: {sizes})",
        hint="compare runs that swept the same variant names at the same concurrency, batch and input sizes",
    )
