"""Which variants a time budget keeps when it cannot keep them all: the order a plan cuts in
(:func:`perf.search.budget.fit` cuts from the end), from what the run has measured.

Rule (one, stated here and once where the report lists the cuts, :data:`RULE`): a variant the run already
has numbers for (a resumed run's earlier sessions) is ranked by them, ahead of every variant
without. Each client workload (``--batch-sizes``, ``--shapes``: :mod:`perf.records.workloads`) is
ranked on its own, as the report and the rounds rank them (:mod:`perf.search.by_workload`): higher
first by its best level, the median over its rounds (or trials) of that level's throughput, where a
level that meets the latency budget (when one is set) ranks ahead of every level that does not. A
variant's place is its best place at any workload, then its next best, and so on (a workload it
has no level at counts after every variant there; the configuration order on a tie): one that
leads at any workload is kept longest, and the one cut first is behind at all of them. A resume
that measured the leader 1.4-2.1x ahead of the others then never cuts it on its configuration
alone while measuring the others; and b=8's infer/s (8 inferences a request) never outranks b=1's
(trial 11, F12: one best of mixed levels ranked the b=1 leader, whose b=8 levels were over a 5 ms
budget, by its b=1 1553 infer/s against the others' b=8 4263-11401, and cut it first).

The variants without numbers are cut first, and nothing measured tells them apart, so no order
of them is a ranking: they are cut so that every value of every setting (format, precision,
instance kind and count, batching, max_batch_size: the variant's parameters, else its
``config.pbtxt``) keeps a variant while it can (:func:`spread`): the one cut next is the one
whose every setting is shared by the most variants still kept (measured ones included); ties go
to the later in the configuration order (:func:`perf.search.order.order`). Trial 9, F26: the
configuration order alone (batching on first) cut the 3 batching-off variants of 8 before any
was measured, and an earlier full run had measured one of them 1.6x ahead of every other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from builders.backends.python import PARAM_FORMAT
from core import formats
from perf.analysis.measured import has_numbers
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.stats.pairs import VARIANT_FIELDS
from perf.analysis.stats.points import THROUGHPUT, Point, run_points
from perf.records.results import RunResult
from perf.records.workloads import split_by_workload, variant_name, workload
from perf.search.ladder import seen
from perf.search.policy import Budget

__all__ = [
    "CUT_ORDER",
    "RULE",
    "SETTINGS",
    "by_measurements",
    "has_numbers",
    "measured_score",
    "measured_top",
    "places",
    "settings_of",
    "spread",
]

#: The rule in words, in the order variants are cut: said once where the cuts are listed (the report's
#: Cut for time, :data:`CUT_ORDER`), not in each cut's reason (a console line carried its 700 characters
#: after every cut variant).
RULE = (
    "variants not measured yet first, none ranked by a number: each time the one whose every setting — format, "
    "precision, instances, batching, max_batch_size — the most variants kept share, so every value of a setting keeps "
    "a variant while it can, the later in configuration order on a tie; then measured variants, lowest best measured "
    "throughput first, each client workload ranked on its own, a variant's best place at any workload deciding, then its next"
)
#: The cuts' order and what becomes of a variant cut, in the words the report lists the cuts under.
CUT_ORDER = f"variants cut in this order: {RULE}; a variant cut is measured after the rounds if the time they leave fits it"
#: The parameters of :class:`builders.config.variants.Variant` a cut keeps represented (not the model's name).
SETTINGS = tuple(f for f in VARIANT_FIELDS if f != "model")


def measured_score(points: Sequence[Point], budget: Budget | None = None) -> tuple[bool, float] | None:
    """``(a level meets the latency budget, best throughput in infer/s)`` of one variant's
    ``points`` (medians over rounds); ``None`` when none can be ranked."""
    cands = [p for p in points if candidate(p)]
    if not cands:
        return None
    under = [p for p in cands if budget is None or not budget.over(p)]
    return bool(under), max(p.value(THROUGHPUT) for p in (under or cands))


def by_measurements(
    names: Sequence[str],
    run: RunResult,
    budget: Budget | None = None,
    configs: Mapping[str, Mapping[str, Any] | None] | None = None,
) -> list[str]:
    """``names`` (in configuration order) re-ordered by the module's rule, most kept first: the
    measured ones best first, then the others in :func:`spread`'s order.

    Args:
        names: The variants, in configuration order (:func:`perf.search.order.order`).
        run: The run (its numbers; each variant's parameters, ``params``).
        budget: The latency budget a measured level is ranked under, if any.
        configs: Each variant's ``config.pbtxt`` (protobuf JSON form), read for the settings of a
            variant without recorded parameters (:func:`settings_of`).
    """
    ranked = places(names, run, budget)
    measured = sorted((n for n in names if n in ranked), key=ranked.__getitem__)  # stable: configuration order on a tie
    found = {n: settings_of(getattr(run.variant(n), "params", None), (configs or {}).get(n)) for n in names}
    return measured + spread([n for n in names if n not in ranked], found, measured)


def places(names: Sequence[str], run: RunResult, budget: Budget | None = None) -> dict[str, tuple[int, ...]]:
    """Each variant of ``names`` with numbers -> its places (0: leads), best first, one per client
    workload of ``run`` (its series of :func:`perf.records.workloads.split_by_workload`, each workload
    ranked on its own by :func:`measured_score`, the configuration order on a tie); a workload where
    it has no level to rank counts as ``len(names)``, after every variant there. Tuples compare as
    the module rule ranks: the lower, the longer kept.

    Args:
        names: The variants, in configuration order.
        run: The run (its numbers).
        budget: The latency budget a measured level is ranked under, if any.
    """
    view = split_by_workload(run)
    pts = run_points(view)
    scores: dict[str, dict[str, tuple[bool, float]]] = {}  # workload label -> variant -> score
    for sr in view.variants:
        if variant_name(sr) in names and (score := measured_score(pts.get(sr.name, []), budget)) is not None:
            scores.setdefault(workload(sr) or "", {})[variant_name(sr)] = score
    got: dict[str, list[int]] = {}
    for at in scores.values():
        for i, n in enumerate(sorted((n for n in names if n in at), key=at.__getitem__, reverse=True)):
            got.setdefault(n, []).append(i)
    return {n: tuple(sorted(p) + [len(names)] * (len(scores) - len(p))) for n, p in got.items()}


def settings_of(params: Mapping[str, Any] | None, config: Mapping[str, Any] | None = None) -> dict[str, str]:
    """A variant's settings (:data:`SETTINGS` -> its value, as text), from its recorded parameters
    (``results.json``'s ``params``, the repository's index); without them the same fields read from
    its ``config`` (protobuf JSON form; those a config does not hold, such as the artifact's
    precision, left out, so they count for no variant); ``{}`` without either. Both sources give
    one key and one spelling per setting: a run mixing them compares like with like (the config
    branch once keyed ``instances`` and ``batching``, which no recorded variant shared)."""
    if params:
        return {f: _text(params.get(f)) for f in SETTINGS}
    if not config:
        return {}
    return {f: _text(v) for f, v in _config_fields(config).items() if f in SETTINGS}


def _config_fields(config: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`SETTINGS` fields a ``config.pbtxt`` (protobuf JSON form) holds, by their variant names."""
    wanted = ((config.get("parameters") or {}).get(PARAM_FORMAT) or {}).get("string_value")
    native = formats.from_platform(config.get("platform", "")) or formats.from_backend(config.get("backend", ""))
    out: dict[str, Any] = {"format": wanted or (native.name if native else config.get("platform") or config.get("backend"))}
    groups = config.get("instance_group") or []
    if len(groups) == 1:  # the toolkit's variants have one group; more have no one kind and count
        kind = str(groups[0].get("kind", "KIND_AUTO")).removeprefix("KIND_").lower()
        out |= {"kind": kind, "count": int(groups[0].get("count", 1)), "gpus": tuple(groups[0].get("gpus") or ())}
    batcher = config.get("dynamic_batching")
    out |= {
        "max_batch_size": int(config.get("max_batch_size", 0)),
        "dynamic_batching": batcher is not None,
        "max_queue_delay_us": int((batcher or {}).get("max_queue_delay_microseconds", 0)),
        "preferred_batch_sizes": tuple(int(b) for b in (batcher or {}).get("preferred_batch_size") or ()),
    }
    return out


def _text(value: Any) -> str:
    """One spelling of a setting's value whatever its source: a JSON list and a tuple alike."""
    return repr(tuple(value) if isinstance(value, list) else value)


def spread(names: Sequence[str], settings: Mapping[str, Mapping[str, str]], kept: Sequence[str] = ()) -> list[str]:
    """``names`` (variants without numbers, in configuration order) ordered so that cutting from
    the end keeps every value of every setting measured while it can (module rule): each step
    cuts the one whose every setting the most variants kept share (its settings' least count over
    ``kept`` and the names not cut yet, then their total), the later in ``names`` on a tie.

    Args:
        names: The variants to order.
        settings: Each variant's settings (:func:`settings_of`); a variant with none shares none.
        kept: Variants kept ahead of ``names`` whatever is cut (the measured ones): their settings count.

    Returns:
        ``names``, the one to keep longest first.
    """
    left, cut = list(names), []
    while left:
        pool = [settings.get(n, {}) for n in (*kept, *left)]
        scores = [(*_shared(settings.get(n, {}), pool), i) for i, n in enumerate(left)]
        cut.append(left.pop(max(scores)[2]))
    return cut[::-1]


def measured_top(run: RunResult, names: Sequence[str]) -> int:
    """The highest concurrency any of ``names`` has numbers at (0: none), a resumed run's earlier
    sessions': the plan's ladder is not lowered below it (:func:`perf.search.shrink.shrink`). The
    rounds measure those levels again (:func:`perf.search.ladder.resume`), and a cut "concurrency
    above 4 not measured" beside numbers at 16 would be false (trial 8, F11)."""
    return max((c for v in run.variants if v.name in names for c in seen(v)), default=0)


def _shared(own: Mapping[str, str], pool: Sequence[Mapping[str, str]]) -> tuple[int, int]:
    """How much of ``pool`` shares ``own``'s settings: the least count over its settings, then their total."""
    counts = [sum(1 for s in pool if s.get(f) == v) for f, v in own.items()] or [0]
    return min(counts), sum(counts)
