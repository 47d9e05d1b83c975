"""The Conclusions' "Why" paragraph: the pick's server-side numbers at one load beside a
variant's that differs from it in one setting where the grid has one (the most telling first,
:data:`ONE_SETTING`: dynamic batching on vs off, instance count, queue delay, preferred batch
sizes), else the baseline's or the runner-up's, with every setting they differ in named exactly
(:func:`setting_words`; trial 6: a pick with 2 instances and batching against a 1-instance
unbatched baseline read "Here dynamic batching paid"; session 6: a db500 pick against db100 read
"differs in dynamic batching", where only the queue delay did). The contrast's words are
:mod:`perf.report.phrases`'."""

from __future__ import annotations

import dataclasses

from builders.config.variants import Variant
from core.wording import sentence
from perf.analysis.effects.threads import threads_words
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.curves import common_level, curve, gpu_metric
from perf.analysis.stats.fair import busy_load
from perf.analysis.stats.pairs import BATCHING, baseline, differing, variant_of
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.markdown import CPU_MEASURES, flag_mark, fmt
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import workload
from perf.report.phrases import PER_INFERENCE, Facts, say

#: A differing field's name in words (the others: the field's name).
FIELD_WORDS = {
    "count": "instance count",
    "kind": "instance kind",
    "format": "format",
    "precision": "precision",
    "max_queue_delay_us": "queue delay",
    "preferred_batch_sizes": "preferred batch sizes",
}
#: Units said after a field's two values.
FIELD_UNITS = {"max_queue_delay_us": " µs"}
#: The one setting a contrast may differ in, most telling first: batching on vs off (its queue
#: delay and preferred sizes go with it), then the instance count, then a batching variant's queue
#: delay, then its preferred batch sizes. Each: the fields that may differ, the field that must.
ONE_SETTING: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset(BATCHING), "dynamic_batching"),
    (frozenset({"count"}), "count"),
    (frozenset({"max_queue_delay_us"}), "max_queue_delay_us"),
    (frozenset({"preferred_batch_sizes"}), "preferred_batch_sizes"),
)


def runner_up(ok: list[VariantResult], best: str, peaks: dict[str, Point]) -> Point | None:
    """The second-highest of ``peaks`` (:func:`perf.analysis.saturation.best_level.best_levels` at the best's batch size) among series of the best's client workload."""
    size = {v.name: workload(v) for v in ok}
    seconds = [peaks[v.name] for v in ok if v.name != best and v.name in peaks and size[v.name] == size.get(best)]
    return max(seconds, key=lambda p: p.value(THROUGHPUT), default=None)


def _share(p: Point) -> tuple[float | None, float]:
    """(queue % of server time, compute µs: input + infer + output)."""
    q, comp = p.get("server_queue_us"), sum(p.get(f"server_compute_{k}_us") or 0 for k in ("input", "infer", "output"))
    return (None if q is None or q + comp == 0 else 100.0 * q / (q + comp)), comp


def _per_inference_us(p: Point) -> float | None:
    """Compute infer time of one execution divided by the inferences it held (µs)."""
    comp, bsz = p.get("server_compute_infer_us"), p.get("avg_server_batch_size")
    return None if comp is None or not bsz else comp / bsz


def _explain(name: str, p: Point, gpu: str | None) -> str:
    share, comp = _share(p)
    text = (  # the compute the queue's share is of: input + infer + output (_share's own sum)
        f"`{name}`{flag_mark(p.flags)} spent {fmt(p.get('server_queue_us'), 0)} µs per request queued and "
        f"{fmt(comp, 0)} µs in compute (input + infer + output; {fmt(p.get('server_compute_infer_us'), 0)} µs infer)"
    )
    if share is not None:
        text += f" (queue = {share:.0f} % of server time: {say('server_time', Facts(queue_share_pct=share))})"
    bsz = p.get("avg_server_batch_size")
    if bsz is not None:
        text += f"; executions held {bsz:.2f} inferences on average"
        if bsz > 1 and _per_inference_us(p) is not None:
            text += f" (≈{fmt(_per_inference_us(p), 0)} µs {PER_INFERENCE})"
    measures = [(m, label, unit, d) for m, (label, unit, d, _) in CPU_MEASURES.items()] + [(gpu, "GPU", "%", 1)]
    utils = [f"{label} {fmt(p.get(m), d)} {unit}" for m, label, unit, d in measures if m and p.get(m) is not None]
    return text + (f"; {', '.join(utils)}" if utils else "")


def _contrast(best: Point, other: Point | None, together: str | None = None, setting: str = "dynamic batching") -> str:
    """Why ``best`` differs from ``other`` at the same load, from :mod:`perf.report.phrases`."""
    others = busy_load(*(p for p in (best, other) if p is not None))
    facts = Facts(host_cpu_pct=best.get("cpu_utilization_pct"), others_cpu_pct=others)
    if other is not None:
        facts = dataclasses.replace(
            facts,
            batch_a=other.get("avg_server_batch_size"),
            batch_b=best.get("avg_server_batch_size"),
            compute_per_inference_a_us=_per_inference_us(other),
            compute_per_inference_b_us=_per_inference_us(best),
            together=together,
            setting=setting,
        )
    why = say("contrast", facts)
    return f" Here {sentence(why)}" if why else ""


def _value(field: str, v: Variant) -> str:
    value = getattr(v, field)
    if field == "preferred_batch_sizes":
        return "[" + ", ".join(map(str, value)) + "]" if value else "none"
    return str(value)


def setting_words(a: Variant, b: Variant) -> tuple[str | None, list[str]]:
    """What differs between ``a`` (the pick) and ``b``, exactly: ``(batching on vs off in words, or
    None; every other difference in words)``, e.g. ``("dynamic batching on (queue delay 500 µs) vs
    off", ["instance count 2 vs 1"])`` or ``(None, ["queue delay 500 vs 100 µs"])``. A batching
    variant's queue delay and preferred sizes go with "on" when the other has batching off."""
    fields = differing(a, b)
    onoff = None
    if "dynamic_batching" in fields:
        on = a if a.dynamic_batching else b
        detail = f"queue delay {on.max_queue_delay_us} µs" + (
            f", preferred batch sizes {_value('preferred_batch_sizes', on)}" if on.preferred_batch_sizes else ""
        )
        onoff = f"dynamic batching {'on' if a.dynamic_batching else 'off'}" + (f" ({detail})" if a.dynamic_batching else "")
        onoff += f" vs {'on' if b.dynamic_batching else 'off'}" + (f" ({detail})" if b.dynamic_batching else "")
    rest = [
        f"{FIELD_WORDS.get(f, f.replace('_', ' '))} {_value(f, a)} vs {_value(f, b)}{FIELD_UNITS.get(f, '')}"
        for f in fields
        if not (onoff and f in BATCHING)
    ]
    return onoff, rest


def _one_setting_apart(
    ok: list[VariantResult], best: VariantResult, batch_size: int, pts: dict[str, list[Point]]
) -> VariantResult | None:
    """A variant differing from ``best`` in one setting of :data:`ONE_SETTING` (the most telling
    the grid has), with a level in common at ``batch_size`` (the first in report order)."""
    ref = variant_of(best)
    if ref is None:
        return None
    typed = [(v, t) for v in ok if v.name != best.name and (t := variant_of(v)) is not None]
    for allowed, must in ONE_SETTING:
        for v, t in typed:
            d = set(differing(ref, t))
            if must in d and d <= allowed and common_level(pts[best.name], pts[v.name], batch_size):
                return v
    return None


def mechanism(run: RunResult, ok: list[VariantResult], rec: Recommendation, pts: dict[str, list[Point]]) -> str:
    """The "Why" paragraph (module docstring)."""
    best = rec.best_peak
    if best is None:
        return "**Why.** Nothing was measured, so there is nothing to explain."
    gpu = gpu_metric(pts)
    best_v = run.variant(best.variant)
    base = _one_setting_apart(ok, best_v, best.batch_size, pts) if best_v is not None else None
    if base is None:
        base = baseline(ok, best_v)
    if base is None or base.name == best.variant:  # explain the best against the runner-up instead
        second = runner_up(ok, best.variant, best_levels(run, pts, best.batch_size))
        base = run.variant(second.variant) if second else None
    pair = common_level(pts[best.variant], pts[base.name], best.batch_size) if base else None
    if pair is not None and base is not None and best_v is not None:
        a, b = variant_of(best_v), variant_of(base)
        onoff, rest = setting_words(a, b) if a is not None and b is not None else (None, [])
        words = [w for w in (onoff, *rest, threads_words(best_v, base)) if w]  # the threads per instance too
        differs = f" (it differs from the pick in {', '.join(words)})" if words else ""
        # what formed the batches: batching on vs off (with what else differs), else what differs
        setting, together = (
            ("dynamic batching", ", ".join(rest) or None) if onoff else (", ".join(rest) or "dynamic batching", None)
        )
        return (
            f"**Why.** At concurrency {pair[0].concurrency}, {sentence(_explain(best.variant, pair[0], gpu))} "
            + sentence(f"At the same load, {_explain(base.name, pair[1], gpu)}{differs}")
        ) + _contrast(pair[0], pair[1], together, setting)
    top = curve(pts[best.variant], best.batch_size)[-1]
    return f"**Why.** At concurrency {top.concurrency}, {sentence(_explain(best.variant, top, gpu))}" + _contrast(top, None)
