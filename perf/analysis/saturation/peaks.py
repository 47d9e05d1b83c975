"""Whether a variant's highest measured throughput is its peak, or only the highest it was measured at.

"Peak" claims saturation: throughput that more load would not raise. A level is a **measured
peak** when the sweep measured above it: a higher concurrency (same client batch size) was
measured and was not faster, the variant has a knee (:func:`perf.analysis.saturation.rises.knee`), or
its throughput is flat from the best lower level (:mod:`perf.analysis.saturation.rises`: a gain of at
most the least one a step must give, paired over the shared rounds in a rounds run). Otherwise, a level
at the top of its curve whose last step still raised throughput beyond the noise, its peak lies above what
was measured: the **peak was not reached**, and every sentence,
table and mark says "best measured" with why (trial 7: "Best peak throughput: 753.1 infer/s" and a
"peak infer/s" column for a level whose ladder stopped at the p99 budget with throughput still rising
129 %, as the same report's Search section said). Where the noise does not tell whether the last step
rose, neither is said: the level is the highest measured, and whether it is the peak is **not told**
(:data:`UNTOLD`), with the step's evidence; so is it of the only level measured (:data:`ONE_LEVEL`: no step).
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from perf.analysis.ranking.operating import Adjusted, Side, compare, per_round, side_of
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.rises import Judge, Rising, judge, knee, paired_rise, shown
from perf.analysis.stats.curves import curve, peak
from perf.analysis.stats.paired import GAP_ROUNDS
from perf.analysis.stats.points import P99, THROUGHPUT, Point, aggregate
from perf.analysis.stats.trials import rank, spread, tolerance
from perf.markdown import flag_mark, fmt, ratio_number
from perf.records.levels import TRANSIENT_WORDS, transient_failure, window_failure
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import Cut
from perf.records.workloads import series_decision


class Choice(Protocol):
    """A best-peak pick (:class:`perf.analysis.recommendation.choice.Choice`, which imports this module)."""

    unreached: str | None


#: The short mark of a pick whose peak was measured, and of one whose peak was not reached.
PEAK_MARK, UNREACHED_MARK = "best peak", "best measured (peak not reached)"
#: The short mark of a pick whose last step the noise does not tell (:attr:`Rise.rising` false), and how its
#: why (:func:`unreached`) begins.
UNTOLD_MARK, UNTOLD = "best measured (peak not told)", "whether it is the peak is not told"
#: How :func:`unreached` begins where the level above failed rather than was not measured (trial 13, T13-7: "peak
#: not reached" beside a c=4 whose every visit failed), the pick's short mark then, and another variant's.
FAILED_ABOVE = "the level above it failed"
FAILED_MARK, FAILED_NOTE = f"best measured ({FAILED_ABOVE})", "peak not measured: the level above failed"
#: :data:`FAILED_NOTE` where that level's windows saw no request complete in every visit (trial 14, T14-3).
WINDOW_NOTE = "peak not measured: no request completed within the level above's windows"
#: A level with no other of its client batch size measured: nothing says whether throughput still rose into it, so
#: its peak is not told, never "not reached" (trial 25, T25-19: "peak not reached" on every row of a --concurrency 2
#: run); how :func:`unreached` says it, the pick's mark and another variant's note.
ONE_LEVEL = f"{UNTOLD}: only concurrency"
ONE_MARK, ONE_NOTE = "best measured (peak not told: one level measured)", "peak not told: one level measured"
UNREACHED_MARKS = (UNREACHED_MARK, UNTOLD_MARK, FAILED_MARK, ONE_MARK)
#: The short note (a table, the console) of a best under the budget that is best among the levels measured only (:func:`budget_unreached`).
HEADROOM_NOTE = "the budget not reached: no higher c measured"


@dataclasses.dataclass(frozen=True)
class Rise:
    """Throughput into a level that is not a measured peak (:func:`rise`).

    Attributes:
        below: The best level below it (highest median throughput), ``None`` when it is the only level.
        trend: The rule's judgement of the step from ``below`` (:mod:`perf.analysis.saturation.rises`):
            still rising, or not told apart from the noise; ``None`` without ``below``.
    """

    below: Point | None
    trend: Rising | None = None

    @property
    def gain_pct(self) -> float | None:
        """The step's gain (%, :attr:`perf.analysis.saturation.rises.Rising.gain_pct`), ``None`` without one."""
        return self.trend.gain_pct if self.trend is not None else None

    @property
    def rising(self) -> bool:
        """Whether its peak lies above it: throughput still rose into it beyond the noise, or it is the only level."""
        return self.trend is None or self.trend.rises


def rise(points: list[Point], at: Point, rule: Judge) -> Rise | None:
    """The module rule: how throughput still rose into ``at``, one level of a variant's ``points``
    (one series), so that its peak lies above it, by the rule of a rise (``rule``:
    :func:`perf.analysis.saturation.rises.judge` of the run, or the search's own judge of the same rule);
    ``None`` when ``at`` is a measured peak: a higher concurrency was measured, the curve has a knee
    (:func:`perf.analysis.saturation.rises.knee`), or throughput is flat into ``at`` from the best level
    below it (a plateau, or a fall: the best below is the peak). A step the noise does not tell is a
    :class:`Rise` that is not :attr:`~Rise.rising`. Every "still rose" / "still rising" sentence reads this
    one rule (trial 11, F10: "its throughput still rose at concurrency 4" of a variant whose c=2 median
    was above its c=4 one, beside "knee at c=2")."""
    line = [p for p in curve(points, at.batch_size) if p.get(THROUGHPUT) is not None]
    if any(p.concurrency > at.concurrency for p in line) or knee(line, rule, at.batch_size, at) is not None:  # as the knee words
        return None  # measured above it and not faster, or a knee: saturation measured
    below = [p for p in line if p.concurrency < at.concurrency]
    if not below:
        return Rise(None)
    prev = max(below, key=lambda p: p.value(THROUGHPUT))  # the best below it: a dip between is no rise
    trend = rule(prev, at)
    return None if trend.flat and not trend.split else Rise(prev, trend)  # a split step tells no plateau (T27-4)


def rise_into(vr: VariantResult, top: Side, min_gain_pct: float) -> Rise | None:
    """:func:`rise` into ``top``, a level of ``vr``'s series (its client batch size and shape), by the paired
    rule (:func:`perf.analysis.saturation.rises.paired_rise`): how the search's ladder judges its top."""
    lvs = [lv for lv in vr.levels if lv.request_rate is None and (lv.batch_size, lv.shape) == (top.batch_size, top.shape)]
    pts = aggregate(lvs, vr.name)
    at = next((p for p in pts if p.concurrency == top.concurrency and p.ok), None)
    by = lambda c: dataclasses.replace(top, concurrency=c)  # noqa: E731
    judge_ = lambda lo, hi: paired_rise(vr, by(lo.concurrency), by(hi.concurrency), min_gain_pct, shown(lo, hi))  # noqa: E731
    return rise(pts, at, judge_) if at else None


#: The words of a ladder cut that claims its throughput still rose (:mod:`perf.search.rounds`), and the
#: words of a ladder cut whose search had not ended although its throughput did not still rise; a cap's cut at
#: a ladder's only level, where no step says whether throughput rose (s21m: it said "still rose" from one level).
CAP_RISING, STOPPED_RISING, STOPPED_CLIMBING, CAP_ONE_LEVEL = (
    "its throughput still rose at concurrency",
    "while still rising",
    "before its search ended it",
    "its ladder ended at its only level measured, concurrency",
)


def judged_cut(run: RunResult, cut: Cut) -> Cut | None:
    """``cut`` as :func:`rise` judges it on ``run``'s numbers: a ladder cut that says its throughput
    still rose at its level (:data:`CAP_RISING`, :data:`STOPPED_RISING`) where the rule does not find it
    rising into that level (a lower level is its best, a knee, a plateau, a step the noise does not
    tell, its only level: no step) is no cut of its peak:
    the cap's is left out (``None``; at its only level it says that, :data:`CAP_ONE_LEVEL`), a ladder stopped
    before its search ended says only that (:data:`STOPPED_CLIMBING`). Runs recorded before the rule was shared (trial 11, F10: "its
    throughput still rose at concurrency 4, the time budget's cap" of a variant whose c=2 median
    was above its c=4 one) read right; any other cut is returned as it is."""
    if cut.kind != "ladder" or cut.variant is None or cut.concurrency is None:
        return cut
    if CAP_RISING not in cut.reason and STOPPED_RISING not in cut.reason:
        return cut
    vr = run.variant(cut.variant)
    pts = aggregate(vr.levels, vr.name) if vr is not None else []
    line = curve(pts)
    at = next((p for p in line if p.concurrency == cut.concurrency), None)
    r = rise(line, at, judge(run)) if at is not None else None
    if at is None or (r is not None and r.rising and r.below is not None):
        return cut
    if r is not None and r.below is None and CAP_RISING in cut.reason:  # one level: no trend to claim
        return dataclasses.replace(cut, reason=cut.reason.replace(CAP_RISING, CAP_ONE_LEVEL))
    if STOPPED_RISING in cut.reason:
        return dataclasses.replace(cut, reason=cut.reason.replace(STOPPED_RISING, STOPPED_CLIMBING))
    return None


def unreached(run: RunResult, points: list[Point], at: Point) -> str | None:
    """Why ``at``, one level of a variant's ``points``, is not a measured peak (module rule), in
    words (``"its ladder stopped at the p99 latency budget with throughput still rising, +104.2 %
    from c=4 to c=16 (c=16 ahead in 8 of 8 rounds; p = 0.0078, sign test)"``); where the noise does
    not tell the last step, :data:`UNTOLD` and the step's evidence (``"whether it is the peak is not
    told: its ladder stopped ... with throughput +12.0 % from c=2 to c=4, not distinguishable from noise
    (3 rounds; p = 0.25, sign test)"``); where the level above it failed in every round, not unmeasured,
    :data:`FAILED_ABOVE` and that level's error (``"the level above it failed: c=4 (...)"``); ``None`` when it is one.

    Args:
        run: The run (its search decisions say why a ladder ended).
        points: The variant's levels (one series: a shape sweep's variant at one size).
        at: The level said to be its peak.
    """
    r = rise(points, at, judge(run))
    if r is None:
        return None
    above = [p for p in points if p.batch_size == at.batch_size and p.concurrency > at.concurrency]
    if above and not any(p.ok for p in above):  # failed, not unmeasured: its peak may lie below that level
        first = min(above, key=lambda p: p.concurrency)
        err = first.errors[0] if first.errors else None  # the server's state of its moments: said (not the repository's)
        told = f": {TRANSIENT_WORDS}" if transient_failure(err) and not window_failure(err) else ""
        return f"{FAILED_ABOVE}: c={first.concurrency}" + (f" ({err}{told})" if err else "")
    if r.below is None or r.trend is None:
        return f"{ONE_LEVEL} {at.concurrency} was measured"
    rising = f"with {r.trend.words(r.below.concurrency, at.concurrency)}"
    untold = "" if r.rising else f"{UNTOLD}: "
    sr = run.variant(at.variant)  # a series of one client workload in the report: that workload's ladder's stop
    decision = (
        None if run.search is None else series_decision(run.search, sr) if sr is not None else run.search.decision(at.variant)
    )
    rule = decision.rule if decision is not None else None
    cut = any(c.kind == "ladder" and (c.variant, c.concurrency) == (at.variant, at.concurrency) for c in run.rounds.cuts) if run.rounds else False  # fmt: skip
    if rule is None and cut:  # the time budget ended the rounds while its ladder still climbed (perf.search.ending.cuts)
        return f"{untold}the time budget ended the rounds before its ladder did, at c={at.concurrency}, {rising}"
    if rule == "budget":
        pct = int(run.settings.get("latency_percentile") or 99)
        return f"{untold}its ladder stopped at the p{pct} latency budget {rising}"
    if rule == "cap":
        b, top = run.rounds.budget if run.rounds else None, run.search.rules.max_concurrency if run.search else None
        capped = b is not None and b.max_concurrency is not None and top is not None and b.max_concurrency < top
        cap = f"where the time budget capped a ladder that goes to {top}" if capped else "the top the search allowed"
        return f"{untold}its ladder ended at concurrency {at.concurrency}, {cap}, {rising}"
    if rule == "pruned":
        return f"{untold}the search stopped measuring it {rising}"
    return f"{untold}c={at.concurrency} is the highest concurrency swept, {rising}"


def budget_unreached(
    run: RunResult, points: list[Point], at: Point, percentile: int, latency_ms: float | None, quieter: bool = False
) -> str | None:
    """Why ``at``, the best level of a variant's ``points`` within a latency budget, is best only
    among the levels measured: no higher concurrency of its was measured, its latency there
    (``latency_ms`` at ``percentile``, as the budget judged it) is within the budget, and its
    throughput still rose (:func:`unreached`), so a higher concurrency may still be within the
    budget and serve more (trial 9: every ladder capped at c=4 by the time budget, the pick's p99
    6.38 ms of a 10 ms budget, said "best under the budget" with no word that it never reached it);
    ``None`` when a higher level was measured (over the budget, or not faster), or at a plateau.
    ``quieter``: ``latency_ms`` is the median of the level's rounds not host busy, said so and without
    the level's flag (trial 12, F12: a quieter-round p99 marked "† host busy")."""
    why = unreached(run, points, at)
    if why is None:
        return None
    how = " on its quieter rounds" if quieter else flag_mark(at.flags)  # the flag is of every round's number
    lat = (
        f"p{percentile} {fmt(latency_ms, 2)} ms{how} at c={at.concurrency}, its highest level; " if latency_ms is not None else ""
    )
    return (
        f"best among the levels measured only: the budget was not reached ({lat}{why}), so a higher concurrency "
        "may still be within it and serve more"
    )


def higher_median(run: RunResult, points: list[Point], at: Point, short: bool = False) -> str | None:
    """Why ``at``, a variant's best level (:func:`~perf.analysis.saturation.best_level.best_levels`), is named although another of its
    levels has a higher median throughput, in numbers (``short``: for a console note); ``None``
    when none has. In a rounds sweep the two are compared paired (:func:`perf.analysis.ranking.operating.compare`)
    and the round-adjusted scale (:class:`perf.analysis.ranking.operating.Adjusted`) that named it is shown;
    in a run of trials the higher one is flagged and not ahead of the best stable level by more than its
    spread (:func:`perf.analysis.stats.trials.rank`), said with both numbers. Where the paired rule does not
    separate the two and ``at`` was behind in more of their shared rounds than ahead (behind on both counts), the words
    say they are a tie, ``at`` shown first by the round-adjusted scale, never ``at`` as the best alone (trial 19,
    T19-4: "c=4 ahead in 1 of 3 rounds" beside c=16's higher median under the "best" column). A level the scale
    does not put first was named by one-sided shared rounds or a median over more rounds
    (:func:`perf.analysis.ranking.leader.choose`, the rule that names the leading variant): the words say that, not
    the scale (issue 26; trial 28, T28-1)."""
    top = peak(points)
    if top is None or top is at or top.value(THROUGHPUT) <= at.value(THROUGHPUT):
        return None
    if run.rounds is None:
        return _flagged_higher(run, points, at, top, short)
    vr = run.variant(at.variant)
    if vr is None:
        return None
    a, b = side_of(vr, at), side_of(vr, top)
    c, lo, hi = compare(vr, a, vr, b), f"c={at.concurrency}", f"c={top.concurrency}"
    r = c.result
    said = f"{hi}'s median is higher, {fmt(top.get(THROUGHPUT))} infer/s (p99 {fmt(top.get(P99), 2)} ms){flag_mark(top.flags)}"
    if r is None:
        return f"{said}, never measured in a round with {lo}"
    verdict = {"a": f"{lo} beats it by the paired rule", "b": f"it beats {lo} by the paired rule"}.get(
        c.verdict, "not distinguishable by the paired rule"
    )
    tie = c.verdict not in ("a", "b") and r.losses > r.wins  # behind on its median and in more shared rounds than ahead
    alone = _unshared(vr, b, r.rounds, lo)  # the higher median's rounds without ``at``: not a contradiction (T22)
    adjusted = Adjusted([v for v in run.variants if v.status != "failed"])
    ax, bx = adjusted.of(a), adjusted.of(b)
    if short:
        if tie:  # never "best" alone for the level behind on both counts (trial 19, T19-4)
            first = (
                "shown first by the round-adjusted scale"
                if not (ax and bx and ax < bx)
                else "named by the rule that names the leader"
            )
            return (
                f"a tie with {hi} (not distinguishable by the paired rule), {first}: "
                f"{hi}'s median higher, {fmt(top.get(THROUGHPUT))}{flag_mark(top.flags)}{alone}, {hi} ahead in "
                f"{r.losses} of {r.rounds} rounds"
            )
        return f"{hi}'s median higher, {fmt(top.get(THROUGHPUT))}{flag_mark(top.flags)}{alone}: {verdict}; {lo} ahead in {r.wins} of {r.rounds} rounds"
    scale = f"; {lo} is named by the round-adjusted scale, {fmt(ax)} vs {fmt(bx)} infer/s" if ax and bx else ""
    if ax and bx and ax < bx:  # named by the leader rule, as a leading variant is (leader.choose; issue 26)
        scale = (
            f"; {lo} is named by the rule that names the leading variant, not by the round-adjusted scale alone (which "
            f"puts {hi} first, {fmt(bx)} vs {fmt(ax)} infer/s): a level beaten by another, behind another in shared "
            f"rounds as one-sided as {GAP_ROUNDS} of {GAP_ROUNDS}, or below another's median over more rounds, is not named best"
        )
    said = (f"{lo} and {hi} are a tie: {said}" if tie else said) + alone
    return (
        f"{said}, but {verdict}: {lo} was ahead in {r.wins} of the {r.rounds} rounds they shared "
        f"({hi}/{lo} median ratio {ratio_number(1.0 / r.median)}){scale}"
    )


def _unshared(vr: VariantResult, higher: Side, shared: int, lo: str) -> str:
    """``" (over 6 rounds, 3 of them without c=16)"``: the rounds level ``higher``'s median is taken over, where more
    than the ``shared`` rounds it was compared on beside ``lo`` (trial 22, F-best-col: "c=4's median higher, 1,828.8"
    beside c=16 named best read as a contradiction; the medians were of different rounds); ``""`` where none."""
    n = len(per_round(vr, higher))
    return f" (over {n} rounds, {n - shared} of them without {lo})" if n > shared else ""


def _flagged_higher(run: RunResult, points: list[Point], at: Point, top: Point, short: bool) -> str | None:
    """:func:`higher_median` in a run of trials: ``top``, a flagged level with a higher median than ``at``, did not
    beat the variant's best stable level by more than its spread (``None`` when ``top`` is stable)."""
    stable = rank([p for p in points if p.status == "ok"])[0]
    if top.status == "ok" or stable is None:
        return None
    lead, margin, hi = top.value(THROUGHPUT) - stable.value(THROUGHPUT), spread(top, tolerance(run)), f"c={top.concurrency}"
    said = f"{hi}'s median is higher, {fmt(top.get(THROUGHPUT))} infer/s{flag_mark(top.flags)}"
    if short:
        return f"{hi}'s median higher, {fmt(top.get(THROUGHPUT))}{flag_mark(top.flags)}: within its spread, stable levels first"
    return (
        f"{said}, but a flagged level ranks after the stable ones unless it is ahead of the best one by more than its "
        f"spread: it is {fmt(lead)} infer/s ahead of c={stable.concurrency}'s {fmt(stable.get(THROUGHPUT))}, within "
        f"its spread of {fmt(margin)} infer/s"
    )


def unreached_all(run: RunResult, points: dict[str, list[Point]]) -> dict[str, str]:
    """:func:`unreached` of every variant's best level (:func:`~perf.analysis.saturation.best_level.best_levels`), for the variants whose peak was not reached."""
    out: dict[str, str] = {}
    for name, top in best_levels(run, points).items():
        if (why := unreached(run, points[name], top)) is not None:
            out[name] = why
    return out


def peak_title(choice: Choice | None) -> str:
    """The heading of the best-peak pick: ``"Best peak throughput"``, ``"Best measured
    throughput (peak not reached: <why>)"`` (:attr:`~perf.analysis.recommendation.choice.Choice.unreached`),
    or ``"Best measured throughput (whether it is the peak is not told: <why>)"`` (:data:`UNTOLD`). "Best", the
    paired ranking's word, not "highest" (trial 14, T14-12: "highest measured" on 170.4 infer/s, a tie's pick
    named by the paired rounds, above another variant's median of 223.5)."""
    if choice is None or choice.unreached is None:
        return "Best peak throughput"
    return f"Best measured throughput ({unreached_words(choice.unreached)})"


def unreached_words(why: str, not_reached: str = "peak not reached") -> str:
    """How a level that is not a measured peak is said (:func:`unreached`'s ``why``), the one wording for the
    Recommendation and the Conclusions: ``why`` itself where it says what it is (:data:`UNTOLD`,
    :data:`FAILED_ABOVE`), else ``not_reached`` and it (``"peak not reached: its ladder stopped ..."``). Never
    both (issue 26, trial 19, T19-6: "its peak was not reached: whether it is the peak is not told")."""
    return why if why.startswith((UNTOLD, FAILED_ABOVE)) else f"{not_reached}: {why}"


#: Where a report says a best-peak pick's why in full (:func:`peak_title`, the Recommendation's bullet); every
#: other section refers to it (:func:`peak_heading`).
WHY_SAID = "why: see Recommendation"


def peak_heading(choice: Choice | None) -> str:
    """:func:`peak_title` for a part of a report below its Recommendation, which says the why in full: the short
    mark and a reference (``"Best measured throughput (peak not told; why: see Recommendation)"``), so that a
    report says that sentence once (trial 19, T19-17: a ladder's 600-character why, word for word on four lines
    of one report)."""
    if choice is None or choice.unreached is None:
        return "Best peak throughput"
    return f"Best measured throughput ({unreached_mark(choice.unreached)}; {WHY_SAID})"


def peak_mark(choice: Choice | None) -> str:
    """The short mark of the best-peak pick (a table note, a plot legend): :data:`PEAK_MARK`,
    :data:`UNREACHED_MARK`, or :data:`UNTOLD_MARK` where the noise does not tell its last step (:data:`ONE_MARK`
    where it is the only level measured)."""
    if choice is None or choice.unreached is None:
        return PEAK_MARK
    if choice.unreached.startswith(FAILED_ABOVE):
        return FAILED_MARK
    if choice.unreached.startswith(ONE_LEVEL):
        return ONE_MARK
    return UNTOLD_MARK if choice.unreached.startswith(UNTOLD) else UNREACHED_MARK


def unreached_mark(why: str) -> str:
    """The short mark of a variant (not the pick) whose highest measured level is not a measured peak
    (:func:`unreached`'s ``why``): ``"peak not reached"``, ``"peak not told"`` (:data:`UNTOLD`; :data:`ONE_NOTE` of the
    only level measured), or
    :data:`FAILED_NOTE` where the level above it failed (:data:`WINDOW_NOTE`: its windows saw no request)."""
    if why.startswith(FAILED_ABOVE):
        return WINDOW_NOTE if window_failure(why) else FAILED_NOTE
    if why.startswith(ONE_LEVEL):
        return ONE_NOTE
    return "peak not told" if why.startswith(UNTOLD) else "peak not reached"


def peak_noun(unreached_why: str | None) -> str:
    """``"peak"``, or ``"best measured"`` for a variant whose peak was not reached (a sentence's noun)."""
    return "peak" if unreached_why is None else "best measured"
