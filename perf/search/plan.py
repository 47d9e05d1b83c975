"""Which levels a sweep measures on each variant, which it skips and why, and which a
resumed run measures again.

A level is one (concurrency, client batch size, trial, request rate) point: concurrency
levels first, then request-rate levels (concurrency 0). A client batch size above the
variant's ``max_batch_size`` cannot be sent (Triton refuses the request; a model with
``max_batch_size: 0`` takes batch 1 only, Triton docs "Model Configuration: Maximum Batch
Size"), so those levels are skipped and listed with the reason; they never count as
planned work.

**Client workloads.** A sweep measures each concurrency at every client batch size and swept input
size (``--batch-sizes``, ``--shapes``): each (batch size, size) is a client workload (:func:`workloads`).
The rounds design gives each workload its own ladder (:mod:`perf.search.ladder`, rule "Per client
workload"): growth, the knee, budget and cap stops, refinement and retirement read that workload's
numbers only (:func:`at_workload` narrows a plan to one, so :func:`side` and :func:`step_gains` read it).
One ladder on one workload's numbers ended every workload's: a seq=8 knee ended seq=128's ladder while
its throughput still rose (trial 16).

**The search series** of a variant is its first workload: the smallest client batch size at the
**smallest input** (:func:`input_elements`: the element count of the dynamic axes' sizes, a mixed
range's at its top; ties to the first given), whatever order the sizes were given in
(:func:`search_workload`). The sequential design's drop compares it (:func:`series`, :mod:`perf.search.policy`;
its ladders, like the rounds design's, are one per workload). Latency is lowest there, so its over-budget
drop judged there never drops a variant another workload could still serve. It was the first given size: with ``--shapes
seq=256,seq=16`` every level at ``seq=256`` was over the budget, the ladder stopped at its first
level, and the levels within the budget at ``seq=16`` were never measured.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from builders.config.pbtxt import read_config
from core.errors import ToolkitError
from perf.analysis.ranking.operating import Side, per_round
from perf.analysis.stats.points import Point, aggregate
from perf.markdown import fmt_given
from perf.records.levels import LevelResult, SkippedLevel
from perf.records.results import VariantResult, mixed_axes, parse_shape_text
from perf.records.workloads import variant_name, workload_text

#: (concurrency, batch_size, trial, request_rate or None, shape or None): the arguments of
#: :meth:`perf.records.results.VariantResult.level`.
LevelKey = tuple[int, int, int, "float | None", "str | None"]


@dataclasses.dataclass
class VariantPlan:
    """The planned and skipped levels of one variant.

    Attributes:
        name: Variant name.
        levels: Every planned level, in measuring order.
        skipped: Asked levels that cannot run on this variant, with the reason.
        error: Why nothing can be planned (the variant's ``config.pbtxt`` is unreadable).
        config: Its ``config.pbtxt`` as JSON (protobuf's JSON form, the shape the server's
            model-config endpoint answers with), when it was read.
        batch_sizes: The client batch sizes it is measured at (those within its limit).
        trials: Repetitions of each level.
        shapes: The swept shapes (``(None,)``: not swept).
    """

    name: str
    levels: list[LevelKey] = dataclasses.field(default_factory=list)
    skipped: list[SkippedLevel] = dataclasses.field(default_factory=list)
    error: str | None = None
    config: dict[str, Any] | None = None
    batch_sizes: list[int] = dataclasses.field(default_factory=list)
    trials: int = 1
    shapes: tuple[str | None, ...] = (None,)

    def keys_at(self, concurrency: int) -> list[LevelKey]:
        """Every level of one concurrency (each batch size, swept shape and trial), in
        measuring order; a concurrency outside the planned ones too (a search's probe or
        bisection level)."""
        return [(concurrency, b, t, None, sh) for b in self.batch_sizes for sh in self.shapes for t in range(self.trials)]


def batch_limit(max_batch_size: int) -> int:
    """The largest client batch size a model takes: its ``max_batch_size``, 1 when that is 0."""
    return max(1, max_batch_size)


def plan_levels(
    name: str,
    max_batch_size: int,
    concurrency: Sequence[int],
    batch_sizes: Sequence[int],
    request_rates: Sequence[float] = (),
    trials: int = 1,
    shapes: Sequence[str | None] = (None,),
) -> VariantPlan:
    """The levels of one variant.

    Args:
        name: Variant name.
        max_batch_size: Its config's ``max_batch_size`` (0: no batch axis, batch 1 only).
        concurrency: Concurrency levels.
        batch_sizes: Client batch sizes asked for (``-b``).
        request_rates: Request rates (requests/s) measured as well, as concurrency-0 levels.
        trials: Repetitions of each level.
        shapes: Dynamic-axis sizes to measure every level at (``"seq=64"``; ``sweep --shapes``),
            in order; ``(None,)``: the axes at their default sizes, not swept.

    Returns:
        The plan: ``levels`` for the batch sizes within the limit, ``skipped`` (one record per
        batch size and load, trials folded) for the others. When every batch size is above
        the limit, ``levels`` is empty.
    """
    limit = batch_limit(max_batch_size)
    plan = VariantPlan(name, batch_sizes=[b for b in batch_sizes if b <= limit], trials=trials, shapes=tuple(shapes))
    for b in batch_sizes:
        loads: list[tuple[int, float | None]] = [(c, None) for c in concurrency] + [(0, r) for r in request_rates]
        if b > limit:
            reason = (
                f"batch size {b} > max_batch_size {max_batch_size}"
                if max_batch_size
                else f"batch size {b} > 1: max_batch_size 0 takes one sample per request"
            )
            plan.skipped += [SkippedLevel(batch_size=b, reason=reason, concurrency=c, request_rate=r) for c, r in loads]
            continue
        plan.levels += [(c, b, t, None, sh) for sh in shapes for c in concurrency for t in range(trials)]
    for b in batch_sizes:  # request-rate levels after every concurrency level
        if b <= limit:
            plan.levels += [(0, b, t, r, sh) for sh in shapes for r in request_rates for t in range(trials)]
    return plan


def plan_variant(
    name: str,
    config_path: Path,
    concurrency: Sequence[int],
    batch_sizes: Sequence[int],
    request_rates: Sequence[float] = (),
    trials: int = 1,
    shapes: Sequence[str | None] = (None,),
) -> VariantPlan:
    """:func:`plan_levels` for the variant whose ``config.pbtxt`` is ``config_path``; a plan
    with ``error`` set when the config cannot be read."""
    try:
        cfg = read_config(config_path)
    except ToolkitError as e:
        return VariantPlan(name, error=str(e).splitlines()[0])
    plan = plan_levels(name, cfg.max_batch_size, concurrency, batch_sizes, request_rates, trials, shapes)
    plan.config = json_format.MessageToDict(cfg, preserving_proto_field_name=True)
    return plan


def needs_measuring(level: LevelResult | None) -> bool:
    """Whether a (resumed) sweep measures this level (again): it was never measured, was
    interrupted (not saved), or failed (status ``failed``). A level with numbers is kept as it
    is, flagged or not (``unstable``, ``host busy``, ``not achieved``)."""
    return level is None or not level.ok


def to_measure(plan: VariantPlan, vr: VariantResult) -> list[LevelKey]:
    """The planned levels of ``vr`` a sweep still has to measure (all of them in a new run;
    the missing and failed ones in a resumed run)."""
    return [k for k in plan.levels if needs_measuring(vr.level(*k))]


def describe_skipped(skipped: Sequence[SkippedLevel]) -> list[str]:
    """One line per batch size and reason: ``"batch 16 at c=1,2,4 and 100/s: batch size 16 >
    max_batch_size 8"``."""
    groups: dict[tuple[int, str], list[str]] = {}
    for s in skipped:
        load = f"{fmt_given(s.request_rate, 0)}/s" if s.request_rate else f"c={s.concurrency}"
        groups.setdefault((s.batch_size, s.reason), []).append(load)
    out = []
    for (b, reason), loads in groups.items():
        cs = [x[2:] for x in loads if x.startswith("c=")]
        rates = [x for x in loads if not x.startswith("c=")]
        where = " and ".join(p for p in (("c=" + ",".join(cs)) if cs else "", ", ".join(rates)) if p)
        out.append(f"batch {b} at {where}: {reason}")
    return out


def skipped_lines(variants: Sequence[VariantResult]) -> list[str]:
    """```v`: batch 4 at c=1,4: ...`` for each variant's skipped levels (:func:`describe_skipped`), named by the variant,
    once, never by one of its series (:func:`perf.records.workloads.split_by_workload` copies a variant's skipped
    levels into each series: trial 30, F19, "`tabnet_..._mbs0 [b=1]`: batch 4 at c=1,4", a b=4 level said of the b=1
    series)."""
    seen: dict[str, VariantResult] = {}
    for v in variants:
        seen.setdefault(variant_name(v), v)
    return [f"`{name}`: {d}" for name, v in seen.items() for d in describe_skipped(v.skipped)]


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


def workloads(plan: VariantPlan) -> list[tuple[int, str | None]]:
    """Every client workload ``(client batch size, swept size)`` ``plan`` measures each concurrency at, the
    search series' first (:func:`search_workload`)."""
    first = search_workload(plan)
    every = [(b, sh) for b in plan.batch_sizes or [1] for sh in plan.shapes]
    return [first, *(w for w in every if w != first)]


def at_workload(plan: VariantPlan, load: tuple[int, str | None]) -> VariantPlan:
    """``plan`` narrowed to client workload ``load``: its search series (:func:`side`, :func:`step_gains`) is
    that workload's, so a rule of :mod:`perf.search.ladder` given it reads that workload's numbers only."""
    return dataclasses.replace(plan, batch_sizes=[load[0]], shapes=(load[1],))


def workload_label(plans: Mapping[str, VariantPlan], load: tuple[int, str | None]) -> str:
    """Client workload ``load``'s label as the report names its series (:func:`perf.records.workloads.workload_text`):
    its swept size, and its batch size when ``plans`` (a run's) measure several; ``""`` for neither."""
    several = len({b for p in plans.values() for b in p.batch_sizes}) > 1
    return workload_text(load[1], load[0] if several else None)


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
