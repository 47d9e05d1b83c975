"""Main effects of a sweep's grid: what changing one factor does, over every fair pair.

For each factor of the variant grid (:data:`perf.analysis.stats.pairs.FACTORS`: format, precision,
instance kind and count, dynamic batching on/off, queue delay, preferred batch sizes,
max_batch_size, warmup, ORT-TRT accelerator, GPU ids) and each of its values ``v`` other
than the reference value ``r`` (batching off, 1 instance, no warmup, the smallest number,
else the first name in sort order), the *pairs* are the variants that differ only in that
factor (every other :class:`builders.config.variants.Variant` field equal, as
:mod:`perf.analysis.stats.pairs` decides fairness), one at ``r`` and one at ``v``. Each pair gives two paired differences, in %:

* **peak throughput**: each variant at its best level at its smallest client batch size, by the rule that names the
  tables' and the Recommendation's level (:func:`perf.analysis.saturation.best_level.best_levels` at that batch
  size): a pair was taken at each variant's highest median, another level than the table's in a rounds sweep
  (measured in fast rounds only) or a run of trials (a flagged level within its spread), and at another client batch
  size than the best's, at its highest median there (issue 26);
* **p99 at a common load**: both at the pair's highest common concurrency.

In a rounds sweep each pair's differences are paired over the rounds both variants shared
(:mod:`perf.analysis.effects.rounds`: per-round ratios by the one paired rule), so a busy round
falls on both sides and does not disqualify the pair. Otherwise (one variant after another),
before a pair counts it must be evidence (:mod:`perf.analysis.stats.fair`): a pair whose compared
levels include a ``host busy`` one is *not measured fairly*, and an instance-count or
batching pair measured where the setting cannot act (one request in flight, or no batch
formed) *cannot act at this load*; such pairs are left out of the effect, which says why
when none is left. The effect is the median of the paired differences with their spread:
min–max with fewer than :data:`perf.analysis.effects.diffs.IQR_FROM` pairs, else the interquartile range. It is *not significant* where
the spread covers zero; with a single pair, the pair's own trial spread decides
(:func:`perf.analysis.stats.points.delta`; unknown with one trial). An *interaction* is named only where
it changes the sign: grouping an effect's pairs by another factor's value gives group
medians of opposite signs, each group clear of zero by the same rule.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

from builders.config.variants import Variant
from core.wording import agree, of
from perf.analysis.effects.diffs import NO_NUMBER, PairDiff, Spread, evidence_spread
from perf.analysis.effects.rounds import NEVER_TOGETHER, is_rounds, paired_change, paired_uncalled
from perf.analysis.effects.threads import COUNT, count_label, not_the_count
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.curves import common_level, curve
from perf.analysis.stats.fair import cannot_act, unfair
from perf.analysis.stats.pairs import FACTORS, VARIANT_FIELDS, Factor, value_order, variant_of
from perf.analysis.stats.points import P99, THROUGHPUT, Point, delta
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import workload


@dataclasses.dataclass(frozen=True)
class MainEffect:
    """The effect of changing ``factor`` from ``reference`` to ``value``, over its pairs.

    ``throughput`` and ``p99`` summarise the pairs that are evidence; where none is,
    they are ``None`` and :meth:`note` says why.
    """

    factor: Factor
    reference: Any
    value: Any
    pairs: tuple[PairDiff, ...]
    throughput: Spread | None
    p99: Spread | None

    def _why(self, d: PairDiff, metric: str) -> str | None:
        """Why pair ``d`` is no evidence on ``metric`` (its note, or :data:`perf.analysis.effects.diffs.NO_NUMBER` where it has
        neither a number nor a note); ``None`` when it counts."""
        note = getattr(d, f"{metric}_note")
        if note:
            return note
        return NO_NUMBER[metric] if getattr(d, f"{metric}_pct") is None else None

    def note(self, metric: str) -> str | None:
        """Why ``metric`` has no effect, when every pair is left out (``None`` when at least one
        counts): each distinct reason ("cannot act at this load: ...", "not measured fairly: the
        two levels were never measured in the same round", :data:`perf.analysis.effects.diffs.NO_NUMBER`), with how many of
        the pairs it covers where there are several, and "not measured fairly: 3 of 4 pairs
        include a host-busy level" for a sequential run's host-busy pairs (the appendix names the
        levels of each pair). Every pair is accounted for: the counts add up to :attr:`pairs`."""
        notes = [self._why(d, metric) for d in self.pairs]
        if not notes or any(n is None for n in notes):
            return None
        busy = [n for n in notes if n and n.startswith("not measured fairly") and n != NEVER_TOGETHER]
        texts: dict[str, int] = {}
        for n in notes:
            if n and n not in busy:
                texts[n] = texts.get(n, 0) + 1
        several = len(texts) + bool(busy) > 1
        parts = [t + (f" ({of(k, len(notes), 'pair')})" if several else "") for t, k in texts.items()]
        if busy:
            held = f"{of(len(busy), len(notes), 'pair')} {agree(len(busy), 'includes', 'include')}"
            parts.append(f"not measured fairly: {held} a host-busy level")
        return "; ".join(parts)

    def left_out_by_reason(self, metric: str) -> dict[str, int]:
        """Pairs of ``metric`` left out as no evidence, counted by reason: the term before the
        colon of each pair's note (``"not measured fairly"``, ``"cannot act at this load"``,
        ``"cannot be the instance count"``) or :data:`perf.analysis.effects.diffs.NO_NUMBER`'s, in order of first appearance.
        With the pairs that count they add up to every pair of the effect."""
        out: dict[str, int] = {}
        for d in self.pairs:
            why = self._why(d, metric)
            if why:
                key = why.split(":")[0]
                out[key] = out.get(key, 0) + 1
        return out

    def left_out(self, metric: str) -> int:
        """Pairs of ``metric`` left out as no evidence (:meth:`left_out_by_reason`, every reason)."""
        return sum(self.left_out_by_reason(metric).values())

    @property
    def change(self) -> str:
        """``"2 instances vs 1 instance"``; an instance count with its threads per instance where they differ
        (:func:`perf.analysis.effects.threads.count_label`: ``"2 instances (1 thread each) vs 1 instance (2 threads each)"``)."""
        if self.factor.key == COUNT:
            threads = {d.threads for d in self.pairs}
            return count_label(self.factor.show(self.value), self.factor.show(self.reference), threads)
        return f"{self.factor.show(self.value)} vs {self.factor.show(self.reference)}"

    @property
    def concurrencies(self) -> list[int]:
        """The concurrency levels of the pairs behind this effect, sorted (level-less pairs left out)."""
        return sorted({p.concurrency for p in self.pairs if p.concurrency is not None})


def _note(factor: str, a: Point, b: Point, ta: Variant, tb: Variant) -> str | None:
    """Why comparing ``a`` (variant ``ta``) with ``b`` (``tb``) is no evidence for ``factor``."""
    on = tuple(p for p, t in ((a, ta), (b, tb)) if t.dynamic_batching)
    return unfair(a, b) or cannot_act(factor, a, b, batching_on=on)


def _pair(
    a: VariantResult,
    b: VariantResult,
    ta: Variant,
    tb: Variant,
    pts: dict[str, list[Point]],
    factor: str = "",
    rounds: bool = False,
    named: Callable[[int], dict[str, Point]] | None = None,
) -> PairDiff | None:
    ca, cb = curve(pts[a.name]), curve(pts[b.name])
    if not ca or not cb or ca[0].batch_size != cb[0].batch_size:
        return None
    at = named(ca[0].batch_size) if named is not None else {}
    pa, pb = (_best(c, at.get(v.name)) for c, v in ((ca, a), (cb, b)))
    common = common_level(ca, cb)
    odd = not_the_count(a, b, ca, cb, rounds) if factor == COUNT else None  # a difference at c=1: not the count's
    threads = (b.threads_per_instance, a.threads_per_instance)
    peaks = (pa.concurrency, pb.concurrency)
    if rounds:  # paired over the rounds both shared (perf.analysis.effects.rounds)
        t_pct, t_sig, t_note = paired_change(a, pa, b, pb)
        p_pct, p_sig, p_note = paired_change(a, common[0], b, common[1], P99) if common else (None, None, None)
        on = tuple(p for p, t in ((pa, ta), (pb, tb)) if t.dynamic_batching)
        t_note = t_note or cannot_act(factor, pa, pb, batching_on=on) or odd
        if common:
            on = tuple(p for p, t in ((common[0], ta), (common[1], tb)) if t.dynamic_batching)
            p_note = p_note or cannot_act(factor, *common, batching_on=on) or odd
        c = common[0].concurrency if common else None
        why = (paired_uncalled(a, pa, b, pb), paired_uncalled(a, common[0], b, common[1], P99) if common else None)
        return PairDiff(a.name, b.name, ta, tb, t_pct, p_pct, c, t_sig, p_sig, t_note, p_note, True, threads, peaks, why)
    dt = delta(pa, pb, THROUGHPUT)
    dp = delta(*common, P99) if common else None
    return PairDiff(
        a.name,
        b.name,
        ta,
        tb,
        dt.change_pct if dt else None,
        dp.change_pct if dp else None,
        common[0].concurrency if common else None,
        dt.significant if dt else None,
        dp.significant if dp else None,
        _note(factor, pa, pb, ta, tb) or odd,
        (_note(factor, *common, ta, tb) or odd) if common else None,
        threads=threads,
        peaks=peaks,
    )


def _best(line: list[Point], named: Point | None) -> Point:
    """The level a pair takes of one variant's ``line`` (its smallest client batch size): its best level there
    (``named``: :func:`~perf.analysis.saturation.best_level.best_levels` at the line's batch size, the rule that names
    the Recommendation's level), else (none named on the line) the line's highest median."""
    if named is not None and any(p is named for p in line):
        return named
    return max(line, key=lambda p: p.value(THROUGHPUT))


def main_effects(run: RunResult, points: dict[str, list[Point]]) -> list[MainEffect]:
    """Every factor that varies among the run's comparable variants, one :class:`MainEffect`
    per non-reference value that has at least one pair, in :data:`FACTORS` order.

    Args:
        run: A loaded sweep (failed variants, variants without params or levels are left out).
        points: :func:`perf.analysis.stats.points.run_points` of it.
    """
    typed = [
        (v, t)
        for v in run.variants
        if v.status != "failed" and curve(points.get(v.name, [])) and (t := variant_of(v)) is not None
    ]
    out = []
    rounds = run.rounds is not None and is_rounds([v for v, _ in typed])
    named = functools.cache(lambda batch_size: best_levels(run, points, batch_size))  # at a pair's client batch size
    for f in FACTORS:
        rest = [x for x in VARIANT_FIELDS if x not in f.fields]
        groups: dict[tuple, list[tuple[VariantResult, Variant, Any]]] = {}
        for v, t in typed:
            val = f.value(t)
            if val is not None:
                key = (tuple(getattr(t, x) for x in rest), workload(v))
                groups.setdefault(key, []).append((v, t, val))
        values = sorted({val for g in groups.values() for _, _, val in g}, key=value_order)
        if len(values) < 2:
            continue
        ref = values[0]
        for value in values[1:]:
            diffs = [
                d
                for g in groups.values()
                for a, ta, va in g
                if va == ref
                for b, tb, vb in g
                if vb == value and (d := _pair(a, b, ta, tb, points, f.key, rounds, named)) is not None
            ]
            if diffs:
                out.append(
                    MainEffect(f, ref, value, tuple(diffs), evidence_spread(diffs, "throughput"), evidence_spread(diffs, "p99"))
                )
    return out


@dataclasses.dataclass(frozen=True)
class Interaction:
    """An effect whose sign depends on another factor: ``groups`` maps the other factor's
    values to the effect among the pairs at that value (only the values of opposite signs)."""

    effect: MainEffect
    metric: str
    other: Factor
    groups: dict[Any, Spread]

    def describe(self) -> str:
        """``"2 instances vs 1 instance: peak throughput +20.0 % with off, -15.0 % with batching on"``."""
        what = "peak throughput" if self.metric == "throughput" else "p99"
        parts = [f"{s.describe()} with {self.other.show(v)}" for v, s in self.groups.items()]
        return f"{self.effect.change}: {what} " + ", ".join(parts) + f" (depends on the {self.other.label})"


def interactions(effects: Sequence[MainEffect]) -> list[Interaction]:
    """The sign-changing interactions of ``effects`` (see the module docstring), strongest first."""
    out = []
    for e in effects:
        for g in FACTORS:
            if g.key == e.factor.key or set(g.fields) & set(e.factor.fields):
                continue
            by: dict[Any, list[PairDiff]] = {}
            for d in e.pairs:
                gv = g.value(d.changed_params)
                gv = g.value(d.reference_params) if gv is None else gv
                if gv is not None:
                    by.setdefault(gv, []).append(d)
            if len(by) < 2:
                continue
            for metric in ("throughput", "p99"):
                spreads = {
                    v: s for v, ds in sorted(by.items(), key=lambda kv: value_order(kv[0])) if (s := evidence_spread(ds, metric))
                }
                pos = {v: s for v, s in spreads.items() if s.sign > 0}
                neg = {v: s for v, s in spreads.items() if s.sign < 0}
                if pos and neg:
                    hi = max(pos, key=lambda v: pos[v].median)
                    lo = min(neg, key=lambda v: neg[v].median)
                    groups = {v: spreads[v] for v in spreads if v in (hi, lo)}
                    out.append(Interaction(e, metric, g, groups))
    return sorted(out, key=lambda i: -max(abs(s.median) for s in i.groups.values()))
