"""The search series of a variant: the one client workload whose ladder the search decides on.

A sweep measures each concurrency at every client batch size and swept input size
(``--batch-sizes``, ``--shapes``); the search's decisions (its stop rules, the budget stop and the
sequential design's over-budget prune) read one of them, the **search series**: the smallest
client batch size at the **smallest input** (:func:`input_elements`: the element count of the
dynamic axes' sizes, a mixed range's at its top; ties to the first given), wherever the sizes were given in the order. Latency
is lowest there, so a level within the budget at any workload is within it there first: the budget
stop judged there never stops a ladder below a level another workload could still meet. It was the
first given size: with ``--shapes seq=256,seq=16`` every level at ``seq=256`` was over the budget,
the ladder stopped at its first level, and the levels within the budget at ``seq=16`` were never
measured.

One rule (:func:`search_workload`), used by every place that picks the series: the rounds
design's ladders (:func:`side`, :mod:`perf.search.ladder`) and the sequential design's steps and
prune (:func:`series`, :mod:`perf.search.policy`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from perf.analysis.ranking.operating import Side, per_round
from perf.analysis.stats.points import Point, aggregate
from perf.records.levels import LevelResult
from perf.records.results import VariantResult, mixed_axes, parse_shape_text
from perf.search.plan import VariantPlan


def input_elements(shape: str | None) -> int:
    """The element count of a swept input size: the product of its dynamic axes' sizes
    (``"h=224,w=224"`` -> 50176); a mixed axis (``"time=1000..16000"``, :mod:`perf.measure.mixed`) at the
    top of its range: a mix's tail latency is its largest requests'; ``1`` for the unswept ``None``."""
    if not shape:
        return 1
    sizes = [*parse_shape_text(shape).values(), *(hi for _, hi in mixed_axes(shape).values())]
    return math.prod(sizes)


def smallest_input(shapes: Sequence[str | None]) -> str | None:
    """The swept size with the fewest elements (:func:`input_elements`), the first given of equals;
    ``None`` when nothing is swept."""
    return min(shapes, key=input_elements) if shapes else None


def search_workload(plan: VariantPlan) -> tuple[int, str | None]:
    """``(client batch size, swept size)`` of ``plan``'s search series (module rule): its smallest
    batch size (1 with none planned) at its smallest input."""
    return (min(plan.batch_sizes) if plan.batch_sizes else 1), smallest_input(plan.shapes)


def side(plan: VariantPlan, concurrency: int) -> Side:
    """The search series' level of ``plan`` at ``concurrency`` (a rounds run's paired side)."""
    batch_size, shape = search_workload(plan)
    return Side(plan.name, concurrency, batch_size, shape)


def step_gains(vr: VariantResult, plan: VariantPlan, low: int, high: int) -> list[float]:
    """Paired gains (fractions) of the search series from ``low`` to ``high`` concurrency, one per
    round both were measured in."""
    a, b = per_round(vr, side(plan, low)), per_round(vr, side(plan, high))
    return [b[r] / a[r] - 1.0 for r in sorted(set(a) & set(b))]


def series(levels: Sequence[LevelResult], plan: VariantPlan) -> list[Point]:
    """The search series of ``plan`` in a sequential run: its concurrency levels at the series'
    workload (:func:`search_workload`) among ``levels``, folded over trials, by concurrency."""
    batch_size, shape = search_workload(plan)
    own = [lv for lv in levels if lv.request_rate is None and lv.shape == shape and lv.batch_size == batch_size]
    return aggregate(own, plan.name)
