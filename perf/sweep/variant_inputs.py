"""What a sweep sends each variant, checked before anything starts or is written: the swept shapes it is
measured at (:func:`swept_shapes`) and its inputs (:func:`check_inputs`); :class:`perf.sweep.context.SweepBase`
plans with both.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

from builders.model.axis_steps import off_step, range_words
from builders.model.spec_flags import wider_range_hint
from builders.repository.view import Repository
from core.errors import PerfError, ToolkitError
from perf.measure.inputs import check_variant_shapes
from perf.measure.user_data import check_user_data
from perf.records import results
from perf.search.plan import VariantPlan
from perf.sweep.options import SweepOptions

log = logging.getLogger(__name__)


def check_inputs(repository: Repository, plans: dict[str, VariantPlan], opts: SweepOptions) -> None:
    """Before anything starts or is written, for every planned variant (its ``config.pbtxt``):
    every dynamic dim has a size (``--shape`` or the build's spec); or the user's
    ``--input-data`` is a kind of file ``clients infer`` reads and passes its checks
    (:func:`perf.measure.user_data.check_user_data`, the same reader: names, shapes, dtypes, the
    build's verified ranges, domains and value ranges), once per distinct config and spec:
    variants of one build say a warning once).

    Raises:
        PerfError: names the variant, the input and the axis, or the file and what is wrong with it.
    """
    checked: set[Any] = set()
    for name, plan in plans.items():
        if plan.config is None or not plan.levels or plan.error:
            continue
        try:
            spec = repository.variant(name).served_spec
        except ToolkitError:  # an unreadable build record fails that variant when it is measured
            continue
        if opts.input_data is None:
            check_variant_shapes(name, plan.config, spec, opts.shapes)
        elif (
            key := (spec.inputs if spec else None, repr(plan.config.get("input")), plan.config.get("max_batch_size"))
        ) not in checked:
            checked.add(key)
            check_user_data(name, plan.config, spec, opts.input_data, opts.shapes)


def swept_shapes(repository: Repository, name: str, opts: SweepOptions, notes: dict[str, str]) -> tuple[str | None, ...]:
    """The swept shapes (``"seq=64"``...) variant ``name`` is measured at: every combination
    of ``opts.sweep_axes`` when its build's spec has those dynamic axes; ``(None,)`` (the
    default sizes) when none is swept, or when it lacks an axis (noted in the results: ``notes[name]``).

    Raises:
        PerfError: a swept size (a mixed range's end) outside the axis's ``[min, max]`` in the build's spec, or not a
            multiple of its step (:mod:`builders.model.axis_steps`).
    """
    if not opts.sweep_axes:
        return (None,)
    try:
        spec = repository.variant(name).spec
    except ToolkitError:
        spec = None
    have = dict(spec.dynamic_axes) if spec else {}
    missing = [a for a in opts.sweep_axes if a not in have]
    if missing:
        notes[name] = (
            f"not swept over {', '.join(missing)}: its build has no such dynamic axis "
            f"({', '.join(sorted(have)) or 'none'}); measured at its own shape"
        )
        log.warning("%s: %s", name, notes[name])
        return (None,)
    for axis, sizes in opts.sweep_axes.items():
        lo, _, hi = have[axis]
        ends = [int(e) for x in sizes for e in str(x).split(results.MIXED)]  # a mixed range's ends too
        outside = [x for x in ends if not lo <= x <= hi]
        if outside:
            raise PerfError(
                f"{name}: --shapes {axis}={','.join(map(str, sizes))}: {outside} outside the axis's range "
                f"{range_words(lo, hi, spec.step(axis) if spec else 1)} in the build's spec",
                hint=f"sweep sizes within {range_words(lo, hi, spec.step(axis) if spec else 1)} (what the export was verified for); "
                + wider_range_hint(axis, have[axis], outside, verb="sweep", step=spec.step(axis) if spec else 1),
                flag="--shapes",
            )
        off = off_step(axis, ends, have[axis], spec.step(axis)) if spec else None
        if off:  # a model that takes only multiples of the step: a mix draws multiples between its ends (T24-7)
            raise PerfError(f"{name}: --shapes {axis}={','.join(map(str, sizes))}: {off[0]}", hint=off[1], flag="--shapes")
    axes = list(opts.sweep_axes)
    return tuple(results.shape_text(dict(zip(axes, sizes))) for sizes in itertools.product(*(opts.sweep_axes[a] for a in axes)))
