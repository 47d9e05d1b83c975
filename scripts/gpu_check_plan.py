"""The GPU check's sweep plan: which variants fit the time budget, with which measurement window.

Standard library only, so the tests import it without torch or tritonclient.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any


@dataclasses.dataclass(frozen=True)
class Costs:
    """Time model of one sweep (seconds); defaults are guesses for a python-backend model
    on a data-centre GPU host (every instance is a process that imports torch and makes a
    CUDA context), kept conservative.

    Attributes:
        load_s: Loading one variant, fixed part.
        load_per_instance_s: Loading one variant, per model instance.
        variant_extra_s: perf_analyzer warm-up run and unload of one variant.
        level_overhead_s: Starting perf_analyzer and reading the server's statistics, per level.
        windows_per_level: Measurement windows one level is expected to take (3 is the
            least perf_analyzer needs to call a level stable).
    """

    load_s: float = 3.0
    load_per_instance_s: float = 1.0
    variant_extra_s: float = 2.0
    level_overhead_s: float = 0.6
    windows_per_level: float = 4.0

    def variant_s(self, instances: int) -> float:
        return self.load_s + self.load_per_instance_s * instances + self.variant_extra_s

    def estimate_s(self, instances: Sequence[int], levels: int, interval_ms: float) -> float:
        """Expected seconds to sweep variants with these instance counts over ``levels`` levels."""
        per_level = self.level_overhead_s + self.windows_per_level * interval_ms / 1000
        return sum(self.variant_s(n) for n in instances) + len(instances) * levels * per_level


@dataclasses.dataclass
class SweepPlan:
    """What :func:`plan_sweep` chose.

    Attributes:
        variants: Variant names to sweep, in order.
        dropped: Variant names left out to fit the budget (built and checked, not swept).
        interval_ms: perf_analyzer measurement window (ms).
        estimate_s: Expected sweep time (s) under :class:`Costs`.
        budget_s: The time the plan had (s).
    """

    variants: list[str]
    dropped: list[str]
    interval_ms: int
    estimate_s: float
    budget_s: float

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def plan_sweep(
    groups: Sequence[Sequence[tuple[str, int]]],
    levels: int,
    budget_s: float,
    *,
    floor_ms: int = 250,
    ceiling_ms: int = 1000,
    interval_ms: int | None = None,
    keep_all: bool = False,
    costs: Costs = Costs(),
) -> SweepPlan:
    """Choose the variants and window length so that the sweep fits ``budget_s``.

    Groups (e.g. one (model, format, precision) with its 1/2/4-instance x batching off/on
    variants) are taken whole, in the order given, while the sweep fits with a window of
    at least ``floor_ms``; the window is then made as long as the budget allows, up to
    ``ceiling_ms``. The first group is always kept.

    Args:
        groups: Each group: ``(variant name, instance count)`` pairs.
        levels: Concurrency levels per variant.
        budget_s: Seconds available for the whole sweep.
        floor_ms, ceiling_ms: Window length bounds (ms).
        interval_ms: A fixed window (ms) instead of the computed one.
        keep_all: Keep every group even when the estimate exceeds the budget.
        costs: The time model.
    """
    lo = interval_ms or floor_ms
    chosen: list[tuple[str, int]] = []
    dropped: list[str] = []
    for i, group in enumerate(groups):
        trial = chosen + list(group)
        fits = costs.estimate_s([n for _, n in trial], levels, lo) <= budget_s
        if i == 0 or keep_all or (fits and not dropped):
            chosen = trial
        else:
            dropped += [name for name, _ in group]
    counts = [n for _, n in chosen]
    if interval_ms is None:
        fixed = costs.estimate_s(counts, levels, 0.0)
        per_ms = len(counts) * levels * costs.windows_per_level / 1000
        free = (budget_s - fixed) / per_ms if per_ms else ceiling_ms
        interval_ms = int(max(floor_ms, min(ceiling_ms, free)) // 50 * 50) or floor_ms
    return SweepPlan(
        [name for name, _ in chosen],
        dropped,
        interval_ms,
        round(costs.estimate_s(counts, levels, interval_ms), 1),
        round(budget_s, 1),
    )
