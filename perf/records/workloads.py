"""Client workloads: what a run's clients send, a swept input size (``sweep --shapes``) and a client
batch size (``--batch-sizes``). A workload is the client's, not a setting to pick: the report shows
a variant measured at several as one series per workload (:func:`split_by_workload`), and every
pick, pair, effect and frontier compares series of one workload only (trial 7, F21; trial 9, F34)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, mixed_axes, parse_shape_text, shape_text
from perf.records.search import SearchDecision, SearchRecord

#: What a mixed workload's label adds to its range (:func:`workload_text`).
MIXED_WORD = "(mixed)"

#: The ``params`` key of a series of :func:`split_by_workload`: its client workload's label (:func:`workload_text`).
WORKLOAD = "workload"


def series_name(variant: str, workload: str | None) -> str:
    """The name a variant's levels at one client workload are reported under: ``"mlp_onnx_... [seq=64]"``,
    ``"mlp_onnx_... [b=8]"``, ``"mlp_onnx_... [seq=64, b=8]"`` (:func:`workload_text`)."""
    return f"{variant} [{workload}]" if workload else variant


def series_variant(series: str) -> str:
    """The variant a series name (:func:`series_name`) is of, where its workload is not known (a
    :class:`perf.analysis.stats.points.Point`'s ``variant``): a variant's name holds no ``" ["``
    (:data:`core.naming.NAME_RE`); :func:`variant_of` where the label is known."""
    return series.split(" [", 1)[0]


def workload_text(shape: str | None, batch_size: int | None) -> str:
    """A client workload's label: the swept input size and the client batch size (``None``: the run
    swept one), ``"seq=64, b=8"``; a mixed workload says so, ``"time=1000..16000 (mixed), b=4"``;
    ``""`` for neither."""
    size = f"{shape} {MIXED_WORD}" if shape and mixed_axes(shape) else shape
    return ", ".join([*([size] if size else []), *([f"b={batch_size}"] if batch_size is not None else [])])


def input_size(shape: str | None, reference: str | None) -> str | None:
    """The input sizes a level sent at ``shape`` (its shape text; ``None``: not swept) holds, every dynamic
    axis named: ``reference`` (the build's reference inputs' sizes, what a level not swept sends) with
    ``shape``'s sizes in place, ``input_size("time=400", "time=8000,ch=2") == "time=400,ch=2"``; ``None``
    without either. The one rule the in-process baseline times a workload's size by
    (:func:`perf.profile.plan.plan_targets`) and the report finds its points by
    (:meth:`perf.records.baseline.BaselineResult.points_at`). A mixed range has no one size: its text is
    returned as it is (no point is timed at it)."""
    if shape is None or mixed_axes(shape):
        return shape if shape is not None else reference
    return shape_text({**parse_shape_text(reference or ""), **parse_shape_text(shape)})


def batch_sizes_swept(run: RunResult) -> list[int]:
    """The client batch sizes the run's levels were measured at (``--batch-sizes``), ascending."""
    return sorted({lv.batch_size for v in run.variants for lv in v.levels})


def workload_of(run: RunResult, lv: LevelResult, batches: Sequence[int] | None = None) -> str:
    """The label of ``lv``'s client workload in ``run`` (:func:`workload_text`): its swept size, and its
    batch size when the run measured several (``batches``: :func:`batch_sizes_swept` of ``run``, given
    by a caller that labels many levels; else read here)."""
    several = len(batch_sizes_swept(run) if batches is None else batches) > 1
    return workload_text(lv.shape, lv.batch_size if several else None)


def workload(v: VariantResult) -> str | None:
    """The client workload of a series of :func:`split_by_workload` (``None``: a run of one workload)."""
    return (v.params or {}).get(WORKLOAD)


def several_workloads(view: RunResult) -> bool:
    """Whether a run as :func:`split_by_workload` shows it holds series of more than one client workload
    (a pick is then said per workload). A variant with no level measured is left unsplit, so carries no
    workload: it is not another one (trial 17, T17-6: a one-workload mixed-size run with one such variant
    was told as several, "each client workload has its own pick")."""
    return len({workload(v) for v in view.variants if v.levels}) > 1


def variant_name(v: VariantResult) -> str:
    """The variant a series of :func:`split_by_workload` is of (``v``'s own name when not split): what
    a count of variants counts, its series apart (trial 10, F9: 6 series of 3 variants were "6 of the 11 variants")."""
    return variant_of(v.name, workload(v))


def variant_of(name: str, label: str | None) -> str:
    """The variant a series named ``name`` of workload ``label`` is of (:func:`series_name` undone;
    ``name`` itself when ``label`` is empty or ``name`` does not end in it)."""
    tail = f" [{label}]"
    return name[: -len(tail)] if label and name.endswith(tail) else name


def split_by_workload(run: RunResult, batches: bool = True) -> RunResult:
    """The run as the report shows it: a variant whose levels were measured at several client
    workloads (swept input sizes, ``sweep --shapes``, or client batch sizes, ``--batch-sizes``)
    becomes one series per workload, named :func:`series_name`, its ``params`` extended with
    :data:`WORKLOAD` (pairs compare series of one workload only); every table, plot and
    recommendation then lists the workloads the way it lists concurrency levels. A size and a
    batch size are the client's, not settings to pick: each workload has its own picks.
    A run of one workload is returned as it is. ``batches=False``: split by swept size only (a
    comparison of two runs, :mod:`perf.analysis.comparison.verdicts`, matches levels by batch size and picks nothing)."""
    several = batches and len(batch_sizes_swept(run)) > 1
    if not several and not any(lv.shape for v in run.variants for lv in v.levels):
        return run

    def order(key: tuple[str, int]) -> tuple[list[int], int]:
        return [*parse_shape_text(key[0]).values(), *(lo for lo, _ in mixed_axes(key[0]).values())], key[1]

    variants = []
    for v in run.variants:
        keys = sorted({(lv.shape or "", lv.batch_size) for lv in v.levels}, key=order)
        if not v.levels or keys == [("", keys[0][1])] and not several:
            variants.append(v)
            continue
        for shape, batch in keys:
            label = workload_text(shape or None, batch if several else None)
            levels = [lv for lv in v.levels if (lv.shape or "", lv.batch_size) == (shape, batch)]
            params = {**(v.params or {}), WORKLOAD: label}
            status = "ok" if any(lv.usable for lv in levels) else v.status if v.status != "ok" else "failed"
            variants.append(
                dataclasses.replace(
                    v,
                    name=series_name(v.name, label),
                    params=params,
                    levels=levels,
                    status=status,
                    error=v.error if status != "ok" else None,
                    dynamic_axes=shape or v.dynamic_axes,
                )
            )
    return dataclasses.replace(run, variants=variants)


def workloads_noun(labels: Iterable[str]) -> str:
    """What a run's workload labels vary in, for a count: ``"input size"`` (swept sizes only),
    ``"client batch size"`` (batch sizes only), else ``"client workload"``."""
    parts = [[p.startswith("b=") for p in label.split(", ")] for label in labels if label]
    if all(not any(p) for p in parts):
        return "input size"
    return "client batch size" if all(p == [True] for p in parts) else "client workload"


def series_decision(search: SearchRecord, v: VariantResult) -> SearchDecision | None:
    """The search's decision on ``v``, a series of :func:`split_by_workload` (or a variant of a run of one
    workload): its client workload's ladder's stop (each workload's ladder stops on its own numbers,
    :mod:`perf.search.ladder`), else its variant's own (a drop, a run recorded before)."""
    loads = {(lv.batch_size, lv.shape) for lv in v.levels if lv.request_rate is None}
    load = next(iter(loads)) if workload(v) and len(loads) == 1 else None
    return search.decision(variant_name(v), load)


def decision_name(run: RunResult, d: SearchDecision) -> str:
    """Whose ``d`` is, as the report names it: the series of its client workload (:func:`series_name`) when it
    is one workload's stop, else its variant."""
    if d.batch_size is None:
        return d.variant
    return series_name(d.variant, workload_text(d.shape, d.batch_size if len(batch_sizes_swept(run)) > 1 else None))
