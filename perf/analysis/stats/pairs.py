"""Which variants of a sweep differ in one setting only: the report's pair comparisons.

"Dynamic batching on vs off", "more instances" and "format" comparisons mean something
only when every other parameter of the two variants is equal. The parameters are the
fields of :class:`builders.config.variants.Variant`, read back from each variant's ``params`` in
``results.json`` with :meth:`Variant.from_json`; a field added to ``Variant`` is compared
here without any change. A variant whose params are missing or unreadable is never paired.

Dynamic batching is one setting made of three fields (:data:`BATCHING`): the queue delay
and preferred batch sizes exist only while batching is on, so "on vs off" may differ in
all three and in nothing else.

The grid's factors (:data:`FACTORS`: format, precision, instance kind and count, dynamic
batching on/off, queue delay, preferred batch sizes, max_batch_size, warmup, ORT-TRT
accelerator, GPU ids) name the fields a pair may differ in; :mod:`perf.analysis.effects.main_effects`
estimates what changing each one does.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import Any

from builders.config.variants import Variant
from core.errors import ConfigError
from perf.records.results import VariantResult
from perf.records.workloads import WORKLOAD, workload

log = logging.getLogger(__name__)

#: Every variant parameter, in :class:`builders.config.variants.Variant` field order.
VARIANT_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Variant))
#: Fields that together are the dynamic batching setting.
BATCHING = ("dynamic_batching", "max_queue_delay_us", "preferred_batch_sizes")
#: Pair kinds, in the order the report lists them, with their label.
KINDS = {"batching": "Dynamic batching on vs off", "instances": "More instances", "format": "Format"}


@dataclasses.dataclass(frozen=True)
class Factor:
    """One factor of the grid.

    Attributes:
        key: Its name in tables (``"count"``).
        label: In words (``"instance count"``).
        fields: The :class:`Variant` fields a pair may differ in.
        value: The factor's value for a variant; None where it does not apply (the queue
            delay of a variant with batching off).
        show: A value in words.
    """

    key: str
    label: str
    fields: tuple[str, ...]
    value: Callable[[Variant], Any]
    show: Callable[[Any], str] = str


def _sizes(v: Any) -> str:
    return "none" if not v else "[" + ", ".join(map(str, v)) + "]"


FACTORS: tuple[Factor, ...] = (
    Factor("format", "format", ("format",), lambda t: t.format),
    Factor("precision", "precision", ("precision",), lambda t: t.precision),
    Factor("kind", "instance kind", ("kind",), lambda t: t.kind),
    Factor("count", "instance count", ("count",), lambda t: t.count, lambda v: f"{v} instance{'s' if v != 1 else ''}"),
    Factor(
        "batching", "dynamic batching", BATCHING, lambda t: t.dynamic_batching, lambda v: "batching on" if v else "batching off"
    ),
    Factor(
        "delay",
        "queue delay",
        ("max_queue_delay_us",),
        lambda t: t.max_queue_delay_us if t.dynamic_batching else None,
        lambda v: f"delay {v} µs",
    ),
    Factor(
        "preferred",
        "preferred batch sizes",
        ("preferred_batch_sizes",),
        lambda t: t.preferred_batch_sizes if t.dynamic_batching else None,
        lambda v: f"preferred {_sizes(v)}",
    ),
    Factor("mbs", "max_batch_size", ("max_batch_size",), lambda t: t.max_batch_size, lambda v: f"mbs {v}"),
    Factor("warmup", "warmup", ("warmup",), lambda t: t.warmup or "none", lambda v: f"warmup {v}"),
    Factor("ortrt", "ORT-TRT accelerator", ("trt_accelerator",), lambda t: t.trt_accelerator or "off", lambda v: f"ORT-TRT {v}"),
    Factor("gpus", "GPU ids", ("gpus",), lambda t: t.gpus, lambda v: f"GPUs {_sizes(v) if v else 'all'}"),
)


def value_order(v: Any) -> tuple[int, float, str]:
    """Sort key: "nothing" values (off, none, empty, fp32) first, then numbers, then names."""
    if v is None or v is False or v == () or (isinstance(v, str) and v in ("none", "off", "fp32")):
        return (0, 0.0, "")
    if isinstance(v, (int, float)):
        return (1, float(v), "")
    return (2, 0.0, str(v))


def variant_of(v: VariantResult) -> Variant | None:
    """The typed parameters of a swept variant, or None when ``params`` is missing or
    does not make a valid :class:`Variant` (logged)."""
    if not v.params or v.params.keys() <= {WORKLOAD}:  # a series of a record without params (split_by_workload)
        return None
    try:
        return Variant.from_json(v.params)
    except (ConfigError, TypeError) as e:
        log.warning("variant %s: its params in results.json are not a variant (%s); it is not compared", v.name, e)
        return None


def differing(a: Variant, b: Variant) -> tuple[str, ...]:
    """The :class:`Variant` fields whose values differ between ``a`` and ``b``, in field order."""
    return tuple(f for f in VARIANT_FIELDS if getattr(a, f) != getattr(b, f))


def differs_only_in(a: Variant, b: Variant, fields: Sequence[str]) -> bool:
    """Whether every field of ``a`` and ``b`` outside ``fields`` is equal."""
    return set(differing(a, b)) <= set(fields)


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two variants that differ in one setting only.

    Attributes:
        kind: ``"batching"``, ``"instances"`` or ``"format"`` (a key of :data:`KINDS`).
        reference: The variant compared against (batching off, 1 instance, the earlier format).
        changed: The variant with the setting changed.
        reference_params, changed_params: Their typed parameters.
        differ: The :class:`Variant` fields that differ (non-empty), in field order.
    """

    kind: str
    reference: VariantResult
    changed: VariantResult
    reference_params: Variant
    changed_params: Variant
    differ: tuple[str, ...]

    @property
    def label(self) -> str:
        """``"More instances (only `count` differs)"``: the kind, naming the differing fields."""
        names = ", ".join(f"`{f}`" for f in self.differ)
        return f"{KINDS[self.kind]} (only {names} {'differs' if len(self.differ) == 1 else 'differ'})"


def _kind(a: Variant, b: Variant, differ: tuple[str, ...]) -> str | None:
    """The kind of comparison "``b`` against reference ``a``" is, or None."""
    if not differ:
        return None
    if not a.dynamic_batching and b.dynamic_batching and set(differ) <= set(BATCHING):
        return "batching"
    if differ == ("count",) and a.count == 1 and b.count > 1:
        return "instances"
    if differ == ("format",):
        return "format"
    return None


def pairs(variants: Sequence[VariantResult]) -> list[Pair]:
    """Every (reference, changed) pair among ``variants`` that differs in one setting only.

    Pairs: batching on vs the same variant with batching off; N > 1 instances vs 1; each
    format vs an earlier-listed one. Variants differing in any other parameter too
    (warmup, ORT-TRT accelerator, GPUs, preferred sizes, precision, max_batch_size, ...)
    are not paired; neither is a variant without readable params.

    Args:
        variants: The variants to pair (usually those of a run that did not fail), in
            report order; the order of the result follows it (changed variant first).
    """
    typed = [(v, variant_of(v)) for v in variants]
    known = [(v, t) for v, t in typed if t is not None]
    out = []
    for j, (b, tb) in enumerate(known):
        for i, (a, ta) in enumerate(known):
            if a is b or workload(a) != workload(b):
                continue  # series of several client workloads are compared at one workload only
            d = differing(ta, tb)
            kind = _kind(ta, tb, d)
            if kind is not None and (kind != "format" or i < j):
                out.append(Pair(kind, a, b, ta, tb, d))
    return out


def baseline(variants: Sequence[VariantResult], like: VariantResult | None = None) -> VariantResult | None:
    """The 1-instance, no-batching variant of ``variants`` (the report's baseline), preferring
    one that differs from ``like`` only in instance count and batching; None when there is none.

    Args:
        variants: Candidates (usually those that did not fail), in report order.
        like: The variant the baseline is compared with (the best), if any.
    """
    typed = [(v, variant_of(v)) for v in variants]
    cands = [(v, t) for v, t in typed if t is not None and t.count == 1 and not t.dynamic_batching]
    ref = variant_of(like) if like is not None else None
    if ref is not None:
        cands.sort(key=lambda c: not differs_only_in(c[1], ref, ("count", *BATCHING)))
    return cands[0][0] if cands else None
