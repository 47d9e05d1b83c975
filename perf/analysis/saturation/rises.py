"""Whether throughput still rises from one level of a variant to a higher one, and how its p99 changed:
one rule each, which the search's ladder (:mod:`perf.search.ladder`) and every sentence and mark read
("still rising", "peak not reached", the knee, why a curve has no knee).

Rule (:func:`paired_rise`, :func:`rise_between`): from level ``a`` to a higher level ``b`` of one series,
throughput

* **rises** when the noise rule calls ``b`` above ``a`` (:func:`perf.analysis.saturation.falls.step`:
  paired over the rounds both shared in a rounds run, beyond both spreads in a run of trials) *and* its
  gain is above the least gain a step must give, the search's ``min_gain_pct``
  (:class:`perf.records.search.SearchRules`, 5 %, recorded with the run);
* is **flat** when its gain is at most that least gain (a plateau, or a fall): more load does not pay;
* is **not told** otherwise: a gain above the least one that the noise rule does not call (rounds that
  disagree, too few of them, host busy, a spread unknown). Such a step is said as "not distinguishable
  from noise" with its rounds and p-value, never as a trend.

The gain is the median of the per-round gains ``T_b / T_a - 1`` over the rounds both were measured in (a
rounds run; :func:`perf.analysis.stats.paired.median_gain`, symmetric: of an even count the geometric mean of the
two middle ratios, less 1), else of the medians over trials. Before this rule there were two: the search's (median paired
gain above 5 %) and the words' (medians 10 % apart), so a ladder could stop "past the knee" beside a report
saying "still rising", and a rise of medians 12 % apart whose rounds disagreed was said as "still rising".

p99's trend words (:func:`p99_step`) are :func:`perf.analysis.saturation.falls.step` on the p99: "fell" or
"rose" only beyond the noise, else not distinguishable from noise with the same evidence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from core.wording import count
from perf.analysis.ranking.operating import Side, per_round, side_of
from perf.analysis.saturation.falls import Step, paired_step, step
from perf.analysis.stats.curves import curve, interference
from perf.analysis.stats.paired import median_gain
from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.markdown import fmt, times
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules


@dataclasses.dataclass(frozen=True)
class Rising:
    """How throughput changed from one level to a higher one, as the module rule judges it.

    Attributes:
        gain_pct: The gain (%, module rule); ``None`` without a round both were measured in.
        step: The noise rule's verdict on the change, with its evidence.
        min_gain_pct: The least gain a step must give to rise (the search's ``min_gain_pct``).
        rounds: A rounds run: the rounds both levels were measured in, whose per-round gains' median
            :attr:`gain_pct` is; ``None``: the gain is of the two levels' medians over trials.
        medians: The two levels' medians as the tables show them (infer/s, over all their rounds or
            trials), low first; ``None`` when not known here.
        min_rounds: The shared rounds a flat verdict needs in a rounds run (the run's ``min_rounds``, as any other
            verdict: :func:`rise_between`); 0: none (the search's own judge, which decides when to measure more).
        spread: A rounds run: the lowest and highest per-round gain (%); ``None`` without a shared round.
    """

    gain_pct: float | None
    step: Step
    min_gain_pct: float
    rounds: int | None = None
    medians: tuple[float, float] | None = None
    min_rounds: int = 0
    spread: tuple[float, float] | None = None

    @property
    def split(self) -> bool:
        """A rounds run's step whose rounds went both ways, beyond the least gain each, and that the noise rule did
        not call: its median gain, even within the least gain, tells no plateau (trial 27, T27-4: a capped ladder's
        top called a peak from 4 rounds split 2 up, 2 down, ratios 0.67–1.52)."""
        lo, hi = self.spread or (0.0, 0.0)
        return self.step.change is None and lo < -self.min_gain_pct and hi > self.min_gain_pct

    @property
    def rises(self) -> bool:
        """Throughput still rises: beyond the noise and by more than :attr:`min_gain_pct`."""
        return self.step.change == "rose" and self.gain_pct is not None and self.gain_pct > self.min_gain_pct

    @property
    def flat(self) -> bool:
        """More load does not pay: a gain of at most :attr:`min_gain_pct` (a plateau or a fall), on at least
        :attr:`min_rounds` shared rounds in a rounds run (s21m: a step flat on 2 rounds made its top level a measured
        peak, "flat into the top level", where the same 2 rounds told no knee); fewer: not told, said as noise."""
        enough = self.rounds is None or self.rounds >= self.min_rounds
        return self.gain_pct is not None and self.gain_pct <= self.min_gain_pct and enough

    def flat_on(self, min_rounds: int) -> bool:
        """:attr:`flat`, and in a rounds run judged on at least ``min_rounds`` shared rounds (the run's
        ``min_rounds``, 3: "never on one visit"): what a knee needs of each step (trial 25, T25-18: a knee on 2
        rounds whose ratios were 1.56x and 0.56x)."""
        return self.flat and (self.rounds is None or self.rounds >= min_rounds)

    @property
    def told(self) -> bool:
        """Whether the rule tells a trend (:attr:`rises` or :attr:`flat`), rather than noise."""
        return self.rises or self.flat

    def basis(self) -> str:
        """What :attr:`gain_pct` is of where the medians the tables show read another gain, said after it
        (``""`` in a run of trials, or where they read the same): ``" (the gain in the 1 round both were
        measured in; their medians over all rounds: 827.0 and 1,370.0 infer/s, +65.7 %)"`` (break test B15:
        "+181.9 % from c=1 to c=4" beside medians of 827 and 1,370 infer/s, the one shared round's gain);
        without :attr:`medians`, what it is of alone."""
        if self.rounds is None or self.gain_pct is None:
            return ""
        lo, hi = self.medians or (0.0, 0.0)
        if lo > 0 and _pct(hi / lo - 1.0) == _pct(self.gain_pct / 100.0):
            return ""
        gains = "the gain" if self.rounds == 1 else "the median of the per-round gains"
        text = f"{gains} in the {count(self.rounds, 'round')} both were measured in"
        if lo > 0:
            text += f"; their medians over all rounds: {fmt(lo)} and {fmt(hi)} infer/s, {_pct(hi / lo - 1.0)}"
        return f" ({text})"

    def beyond(self, low: int, high: int) -> str:
        """Where :attr:`gain_pct` is more than the concurrency's ratio gives at equal latency, what that means
        (a closed loop serves concurrency / latency: Little's law), said after the gain (trial 14, T14-11:
        "+1,330.6 % from c=1 to c=4" from one disturbed c=1 visit): ``"; more than the 4.0× the concurrency
        gives at equal latency: c=1's requests took 3.6× as long as c=4's (Little's law), a disturbed lower
        level or batching that shortened requests"``; ``""`` otherwise."""
        slower = beyond_concurrency(self.gain_pct, low, high)
        if slower is None:
            return ""
        return (
            f"; more than the {times(high / low)} the concurrency gives at equal latency: c={low}'s requests took "
            f"{times(slower)} as long as c={high}'s (Little's law), a disturbed lower level or batching that shortened requests"
        )

    def words(self, low: int, high: int) -> str:
        """The step in words with its evidence: ``"throughput still rising, +104.2 % from c=4 to c=16 (c=16
        ahead in 8 of 8 rounds; p = 0.0078, sign test)"``; not told: ``"throughput +12.0 % from c=2 to c=4,
        not distinguishable from noise (3 rounds, host busy; p = 0.25, sign test)"``; flat: ``"throughput
        +3.0 % from c=2 to c=4, no more than the 5 % a step must gain"``; the gain's :meth:`basis` after the
        levels where the medians shown read another gain."""
        if self.gain_pct is None and self.rounds == 0:  # a rounds run's two levels never shared a round: no gain to say
            return f"throughput from c={low} to c={high} not told: the two were never measured in the same round"
        gain = f" {_pct(self.gain_pct / 100.0)}" if self.gain_pct is not None else ""
        span = f"from c={low} to c={high}{self.basis()}{self.beyond(low, high)}"
        if self.rises:
            return f"throughput still rising,{gain} {span} ({self.step.evidence})"
        if self.flat and self.split and self.spread is not None:  # its median within the least gain, rounds both ways (T27-4)
            lo, hi = (times(1.0 + g / 100.0) for g in self.spread)
            return f"throughput{gain} {span}, its rounds both ways ({lo} to {hi}), {self.step.said()}"
        if self.flat:
            return f"throughput{gain} {span}, no more than the {self.min_gain_pct:g} % a step must gain"
        return f"throughput{gain} {span}, {self.step.said()}"


#: How far above the concurrency's ratio a gain must be to be called beyond it: a window's own noise.
BEYOND_MARGIN = 0.05


def beyond_concurrency(gain_pct: float | None, low: int, high: int | None) -> float | None:
    """How many times as long the lower level's requests took as the higher one's, where a throughput gain of
    ``gain_pct`` (%) from concurrency ``low`` to ``high`` is more than the concurrency's ratio gives at equal
    latency (beyond :data:`BEYOND_MARGIN`): a closed loop serves concurrency / latency (Little's law), so such a
    gain is a lower level slowed by something else, or batching that shortened requests. ``None`` otherwise. The
    one rule of the search's stop words (:func:`perf.search.stops.still_rose`) and a step's (:meth:`Rising.beyond`)."""
    if gain_pct is None or high is None or low <= 0 or high <= low:
        return None
    bound = (high / low - 1.0) * 100.0
    return (1.0 + gain_pct / 100.0) / (high / low) if gain_pct > bound * (1.0 + BEYOND_MARGIN) else None


def _pct(fraction: float) -> str:
    """A gain as the step's words write it: ``"+181.9 %"``."""
    return f"{fraction * 100.0:+,.1f} %"


#: A judge of the rule between two levels of one series (``low`` below ``high``).
Judge = Callable[[Point, Point], Rising]


def min_gain(run: RunResult) -> float:
    """The least gain a step must give (%): the one ``run``'s search recorded, else the default's."""
    return run.search.rules.min_gain_pct if run.search is not None else SearchRules().min_gain_pct


def knee_words(run: RunResult | None = None) -> str:
    """The throughput side of :func:`knee`'s rule in words, as ``run`` judges it (default: a run of trials
    with the default least gain): ``"throughput gains no more than 5 % to every higher level (the median of
    the paired rounds' gains, on at least 3 shared rounds each; never below a best level more than 5 % above it)"``
    (:func:`knee`)."""
    least = min_gain(run) if run is not None else SearchRules().min_gain_pct
    how = (
        f" (the median of the paired rounds' gains, on at least {least_rounds(run)} shared rounds each; never below a "
        f"best level more than {least:g} % above it)"
        if run is not None and run.rounds is not None
        else ""
    )
    return f"throughput gains no more than {least:g} % to every higher level{how}"


def paired_rise(
    vr: VariantResult, low: Side, high: Side, min_gain_pct: float, medians: tuple[float, float] | None = None
) -> Rising:
    """The module rule in a rounds run, on two levels of ``vr`` as sides (``low`` below ``high``);
    ``medians``: the two levels' medians the tables show (:attr:`Rising.medians`)."""
    a, b = per_round(vr, low), per_round(vr, high)
    gains = [b[r] / a[r] - 1.0 for r in sorted(set(a) & set(b))]
    gain = median_gain(gains) * 100.0 if gains else None
    spread = (min(gains) * 100.0, max(gains) * 100.0) if gains else None
    return Rising(gain, paired_step(vr, low, high), min_gain_pct, len(gains), medians, spread=spread)


def shown(low: Point, high: Point) -> tuple[float, float] | None:
    """The medians of two levels as the tables show them (:attr:`Rising.medians`), ``None`` without both."""
    a, b = low.get(THROUGHPUT), high.get(THROUGHPUT)
    return (a, b) if a is not None and b is not None else None


def rise_between(run: RunResult, low: Point, high: Point) -> Rising:
    """The module rule between two levels of one variant's series in ``run`` (``low`` below ``high``):
    paired (:func:`paired_rise`) in a rounds run, flat only on the run's ``min_rounds`` shared rounds
    (:attr:`Rising.min_rounds`), else on the medians over trials and their spreads."""
    vr = run.variant(low.variant) if run.rounds is not None else None
    if vr is not None:
        r = paired_rise(vr, side_of(vr, low), side_of(vr, high), min_gain(run), shown(low, high))
        return dataclasses.replace(r, min_rounds=least_rounds(run))  # a flat verdict on as many rounds as any other
    base = low.value(THROUGHPUT)
    gain = (high.value(THROUGHPUT) / base - 1.0) * 100.0 if base > 0 else None
    return Rising(gain, step(run, low, high), min_gain(run))


def judge(run: RunResult) -> Judge:
    """:func:`rise_between` on ``run``, as the :data:`Judge` of :func:`knee` and :func:`perf.analysis.saturation.peaks.rise`."""
    return lambda low, high: rise_between(run, low, high)


def p99_step(run: RunResult, low: Point, high: Point) -> Step:
    """The p99 trend rule between two levels of one series: :func:`perf.analysis.saturation.falls.step` on
    the p99 (paired over the shared rounds, else beyond both spreads over trials)."""
    return step(run, low, high, P99)


def _below_best(p: Point, best: Point, rise: Judge) -> bool:
    """Whether ``p`` is below ``best``, a higher level of its batch size, by more than the least gain a step must
    give (``rise``'s), by the medians the tables show: no knee there, whatever the rounds both shared said."""
    if best.batch_size != p.batch_size or best.concurrency <= p.concurrency:
        return False
    lo, hi = p.get(THROUGHPUT), best.get(THROUGHPUT)
    return lo is not None and hi is not None and lo > 0 and (hi / lo - 1.0) * 100.0 > rise(p, best).min_gain_pct


def least_rounds(run: RunResult | None) -> int:
    """The shared rounds a flat step needs in ``run`` (its rounds rules' ``min_rounds``; default 3)."""
    return run.rounds.rules.min_rounds if run is not None and run.rounds is not None else RoundRules().min_rounds


def knee(
    points: Sequence[Point],
    rise: Judge,
    batch_size: int | None = None,
    best: Point | None = None,
    min_rounds: int = RoundRules().min_rounds,
) -> int | None:
    """Saturation point of one variant: the concurrency after which more load stops paying.

    Rule: with levels ``c_1 < ... < c_n`` of one client batch size (default: the smallest measured), the
    knee is the smallest ``c_i`` (``i < n``) from which throughput is **flat** to every higher level by the
    module rule (``rise``: at most the least gain a step must give, paired in a rounds run, there on at least
    ``min_rounds`` shared rounds each: :meth:`Rising.flat_on`) while the median p99 is higher at each (by
    Little's law the extra requests only wait: at flat throughput, latency grows with concurrency), never
    below ``best``, the variant's own best level (:func:`perf.analysis.saturation.best_level.best_levels`), where
    that is more than the least gain above it by the medians the tables show (:func:`_below_best`: more load paid
    up to it; trial 25, T25-18: "knee c=1" on 2 disagreeing rounds beside its best level at c=4, +55 % by the
    medians; a plateau's best a few % above the knee, within the rule's flat, leaves it where it is). A curve whose throughput still rises, or whose rise
    the noise does not tell (or tells on fewer rounds), has no knee within the swept range; nor has one whose
    median throughput *fell* as load rose (:func:`perf.analysis.stats.curves.interference`): interference, not
    saturation, or noise that tells neither (:func:`perf.analysis.saturation.falls.fall` says which).

    Returns:
        The knee's concurrency, or ``None`` (fewer than 2 levels, or no knee).
    """
    if interference(points, batch_size) is not None:
        return None
    pts = [p for p in curve(points, batch_size) if p.get(P99) is not None]
    for i, p in enumerate(pts[:-1]):
        later = pts[i + 1 :]
        if best is not None and _below_best(p, best, rise):
            continue
        if all(q.value(P99) > p.value(P99) for q in later) and all(rise(p, q).flat_on(min_rounds) for q in later):
            return p.concurrency
    return None
