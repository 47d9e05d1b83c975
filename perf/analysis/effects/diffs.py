"""The paired differences behind a main effect: one pair's differences (:class:`PairDiff`) and their
spread over the pairs (:class:`Spread`, :func:`summarise`; the effects: :mod:`perf.analysis.effects.main_effects`).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence

from builders.config.variants import Variant
from perf.analysis.stats.paired import median_gain
from perf.analysis.stats.points import spread_unknown

#: With at least this many pairs the spread is the interquartile range, else min–max.
IQR_FROM = 4


#: Why a pair that nothing made unfair still gave no number for a metric.
NO_NUMBER = {"throughput": "no peak measured", "p99": "no concurrency in common"}


@dataclasses.dataclass(frozen=True)
class Spread:
    """The paired differences of one metric (%, changed vs reference), summarised.

    Attributes:
        values: The differences, one per pair (%).
        median: Their median (%), taken as a median of ratios (:func:`summarise`).
        low, high: The spread: min–max, or the interquartile range from :data:`IQR_FROM` pairs (of the ratios' logs).
        significant: The spread does not cover zero (n >= 2); with one pair, the pair's
            trial-spread verdict (None: unknown, one trial). Paired over rounds: also every
            pair significant by the paired rule (:mod:`perf.analysis.effects.rounds`).
        paired: The pairs were paired over rounds (a rounds sweep).
        unseparated: Of those, the pairs the paired rule did not separate.
        uncalled: One pair paired over rounds that all went one way, which the rule did not call: why
            (:meth:`perf.analysis.stats.paired.Paired.uncalled`, short); else ``None``.
    """

    values: tuple[float, ...]
    median: float
    low: float
    high: float
    significant: bool | None
    paired: bool = False
    unseparated: int = 0
    uncalled: str | None = None

    @property
    def sign(self) -> int:
        """+1 / -1 when the median is clear of zero by :attr:`significant` (not False), else 0."""
        if self.significant is False or self.median == 0:
            return 0
        return 1 if self.median > 0 else -1

    def describe(self) -> str:
        """``"+12.3 % (IQR +5.0 to +20.1)"``, ``"+1.0 % (min–max -3.0 to +4.0: not significant)"``
        or for one pair ``"+8.0 % (1 pair; spread unknown (1 trial))"``."""
        text = f"{self.median:+.1f} %"
        n = len(self.values)
        if n == 1 and self.paired and not self.significant and self.uncalled:  # trial 15, T15-2: never bare "not significant"
            return text + f" (1 pair; every round the same way, not called by the paired rule: {self.uncalled})"
        if n == 1 and self.paired:
            return text + f" (1 pair; {'significant' if self.significant else 'not significant'} by the paired rule)"
        if n == 1:
            why = {True: "beyond its trial spread", False: "not significant: within its trial spread", None: spread_unknown(1)}
            return text + f" (1 pair; {why[self.significant]})"
        kind = "IQR" if n >= IQR_FROM else "min–max"
        if not self.significant and self.unseparated and not self.low <= 0 <= self.high:  # the spread alone is clear of zero
            said = f"; not significant: {self.unseparated} of {n} pairs not separated by the paired rule"
        else:
            said = "" if self.significant else ": not significant"
        return text + f" ({kind} {self.low:+.1f} to {self.high:+.1f}{said})"


def summarise(
    values: Sequence[float],
    single: bool | None = None,
    paired: Sequence[bool | None] | None = None,
    uncalled: str | None = None,
) -> Spread:
    """:class:`Spread` of ``values``; ``single`` is the significance of a lone pair; ``paired``:
    each pair's verdict by the paired rule (a rounds sweep): all must be significant too;
    ``uncalled``: a lone paired pair's reason the rule did not call rounds that all agreed.

    Each value is a ratio's change (``changed / reference - 1``, in %), so the median and the quartiles are
    taken as ratios' (:func:`perf.analysis.stats.paired.median_gain`; the quartiles of the ratios' logs), and a
    factor read the other way round (reference over changed) says the same effect reversed, for an even count of
    pairs too (issue 26: the arithmetic median of +10 % and +50 % is +30 %, of their reverses -9.1 % and -33.3 %
    is -21.2 %, not the -23.1 % that reverses +30 %; R16-3 fixed the same in the rounds' ratios)."""
    vals = tuple(values)
    if len(vals) >= IQR_FROM:
        logs = [math.log1p(v / 100.0) for v in vals]
        q1, _, q3 = statistics.quantiles(logs, n=4, method="inclusive")
        low, high = math.expm1(q1) * 100.0, math.expm1(q3) * 100.0
    else:
        low, high = min(vals), max(vals)
    sig = single if len(vals) == 1 else not (low <= 0 <= high)
    if paired is not None:
        sig = bool(sig) and all(paired)
    lone = uncalled if len(vals) == 1 and paired is not None else None
    return Spread(
        vals,
        median_gain(v / 100.0 for v in vals) * 100.0,
        low,
        high,
        sig,
        paired is not None,
        sum(not p for p in paired or ()),
        lone,
    )


@dataclasses.dataclass(frozen=True)
class PairDiff:
    """One fair pair of a factor: reference and changed variant, and their differences (%).

    Attributes:
        reference, changed: Variant names.
        reference_params, changed_params: Their parameters.
        throughput_pct: Peak throughput change (%); None when either has no peak.
        p99_pct: p99 change at the highest common concurrency (%); None without one.
        concurrency: That concurrency.
        throughput_sig, p99_sig: The noise-rule verdict of each single difference.
        throughput_note, p99_note: Why the difference is no evidence (:mod:`perf.analysis.stats.fair`:
            "not measured fairly: ...", "cannot act at this load: ..."); ``None`` when it is.
        paired: The differences are paired over rounds (the ``*_sig`` are the paired rule's).
        uncalled: ``(throughput, p99)``: why the paired rule did not call a difference every round
            pointed to (:meth:`perf.analysis.stats.paired.Paired.uncalled`, short); ``None`` each otherwise.
        threads: ``(changed, reference)`` intra-op threads per instance, as recorded (:mod:`perf.analysis.effects.threads`).
        peaks: ``(reference, changed)`` concurrency of each one's peak, the levels ``throughput_pct`` compares.
    """

    reference: str
    changed: str
    reference_params: Variant
    changed_params: Variant
    throughput_pct: float | None
    p99_pct: float | None
    concurrency: int | None
    throughput_sig: bool | None = None
    p99_sig: bool | None = None
    throughput_note: str | None = None
    p99_note: str | None = None
    paired: bool = False
    threads: tuple[int | None, int | None] = (None, None)
    peaks: tuple[int, int] | None = None
    uncalled: tuple[str | None, str | None] = (None, None)


def evidence_spread(diffs: Sequence[PairDiff], metric: str) -> Spread | None:
    """:func:`summarise` of the pairs of ``metric`` that are evidence (no note)."""
    evidence = [d for d in diffs if getattr(d, f"{metric}_pct") is not None and not getattr(d, f"{metric}_note")]
    if not evidence:
        return None
    vals = [(getattr(d, f"{metric}_pct"), getattr(d, f"{metric}_sig")) for d in evidence]
    paired = [sig for _, sig in vals] if all(d.paired for d in diffs) else None
    why = evidence[0].uncalled[metric == "p99"] if len(evidence) == 1 else None  # a lone pair's reason the rule gave
    return summarise([v for v, _ in vals], vals[0][1] if len(vals) == 1 else None, paired, why)
