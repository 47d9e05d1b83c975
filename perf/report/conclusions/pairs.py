"""Comparisons of two levels in words, and the appendix's bullets of every fair pair.

:func:`change_text` is the one way the report states a change between two levels: the %
change with its significance (:mod:`perf.analysis.stats.points` noise rule), and, where a level of the
two was measured on a busy host, that it was not measured fairly (:func:`perf.analysis.stats.fair.unfair`).
:func:`pair_bullets` lists every fair pair (batching on vs off at the same instance count; N vs
1 instances; each format vs the first one — equal in every other variant parameter,
:mod:`perf.analysis.stats.pairs`) at the pair's highest common concurrency; a pair whose setting
cannot act at that load says so (:func:`perf.analysis.stats.fair.cannot_act`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from core.wording import count, sentence
from perf.analysis.effects.rounds import is_rounds, paired_text
from perf.analysis.effects.threads import not_the_count, threads_words
from perf.analysis.ranking.operating import Side, per_round
from perf.analysis.ranking.standing import member_words
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.curves import common_level, curve
from perf.analysis.stats.fair import cannot_act, unfair
from perf.analysis.stats.paired import GAP_ROUNDS, median_ratio
from perf.analysis.stats.pairs import pairs
from perf.analysis.stats.points import MIN_TRIALS_FOR_SPREAD, P99, THROUGHPUT, Point, delta, run_points, spread_unknown
from perf.markdown import fmt
from perf.records.results import RunResult
from perf.report.phrases import Facts, say

#: The factor (perf.analysis.stats.fair) each pair kind changes.
_FACTOR = {"batching": "batching", "instances": "count", "format": "format"}


def change_text(a: Point, b: Point, metric: str, note_unknown: bool = True, run: RunResult | None = None) -> str:
    """The change from ``a`` to ``b`` with its significance (``note_unknown=False`` leaves
    "spread unknown" out: a single-trial run says it once), and "not measured fairly" with why
    where a level of the two was host busy. In a rounds sweep (``run`` given, with rounds) the
    change is paired over the rounds both shared (:func:`perf.analysis.effects.rounds.paired_text`)."""
    va, vb = (run.variant(a.variant), run.variant(b.variant)) if run is not None and run.rounds is not None else (None, None)
    if va is not None and vb is not None and is_rounds([va, vb]):
        return paired_text(va, a, vb, b, metric)
    d = delta(a, b, metric)
    if d is None:
        return "—"
    why = unfair(a, b)
    return d.describe(note_unknown) + (f" ({why})" if why else "")


def change_clause(a: Point, b: Point, metric: str, note_unknown: bool, run: RunResult | None, against: str) -> str:
    """``"+12.0 % (...) {against}"`` when :func:`change_text` measured a change, else a clause that
    reads right on its own: ``"its change {against} is not measured fairly: ..."`` or ``"its change
    {against} cannot be computed (no common level)"`` (was: "That is not measured fairly: ... over
    the baseline")."""
    text = change_text(a, b, metric, note_unknown, run)
    if text == "—":
        return f"its change {against} cannot be computed (no common level)"
    if text[:1] in "+-" or text[:1].isdigit():
        return f"{text} {against}"
    return f"its change {against} is {text}"


def pair_bullets(run: RunResult) -> list[str]:
    """One markdown bullet per fair pair (:func:`perf.analysis.stats.pairs.pairs`: batching on vs off, N vs 1
    instances, format vs format) at the pair's highest common concurrency: throughput and p99
    change with their significance; batching pairs add the p99 change at the lowest level and
    its explanation. The report's appendix lists them; the main effects summarise them."""
    pts = run_points(run)
    ok = [v for v in run.variants if v.status != "failed" and curve(pts[v.name])]
    measured = [p for v in ok for p in pts[v.name] if p.ok]
    mixed = any(p.trials >= MIN_TRIALS_FOR_SPREAD for p in measured)
    bullets = []
    for pr in pairs(ok):
        a, b = pr.reference, pr.changed
        pair = common_level(pts[a.name], pts[b.name])
        if pair is None:
            continue
        pa, pb = pair
        ta, tb = pr.reference_params, pr.changed_params
        what = {
            "batching": f"`{b.name}` vs `{a.name}`",
            "instances": f"{tb.count} vs 1 instance"
            + (f" ({threads})" if (threads := threads_words(b, a)) else "")
            + f" (`{b.name}` vs `{a.name}`)",
            "format": f"{tb.format} vs {ta.format} (`{b.name}` vs `{a.name}`)",
        }[pr.kind]
        changes = f"throughput {change_text(pa, pb, THROUGHPUT, mixed, run)}, p99 {change_text(pa, pb, P99, mixed, run)}"
        on = tuple(p for p, t in ((pa, ta), (pb, tb)) if t.dynamic_batching)
        void = cannot_act(_FACTOR[pr.kind], pa, pb, batching_on=on)
        odd = (
            not_the_count(a, b, curve(pts[a.name]), curve(pts[b.name]), run.rounds is not None)
            if pr.kind == "instances"
            else None
        )
        if odd and not void:  # its numbers at concurrency 1 (perf.analysis.effects.threads)
            one = (curve(pts[a.name])[0], curve(pts[b.name])[0])
            void = f"{odd} (at concurrency 1: throughput {change_text(*one, THROUGHPUT, mixed, run)})"
        text = f"- {pr.label}: {what} at concurrency {pa.concurrency}: " + (
            f"{void} (as measured: {changes})" if void else changes
        )
        first = curve(pts[a.name])[0]
        low = next((p for p in curve(pts[b.name]) if p.concurrency == first.concurrency), None)
        if pr.kind == "batching" and low is not None and first.concurrency != pa.concurrency:
            text += f"; at concurrency {first.concurrency} p99 {change_text(first, low, P99, mixed, run)}"
            why = say("light_load", _light_load_facts(first, low))
            text += f" ({why})" if why else ""
        bullets.append(sentence(text))
    return bullets


def _light_load_facts(off: Point, on: Point) -> Facts:
    """p99 and queue of batching off (``off``) vs on (``on``) at one light level."""
    d = delta(off, on, P99)
    return Facts(
        change_pct=d.change_pct if d else None,
        significant=d.significant if d else None,
        queue_a_us=off.get("server_queue_us"),
        queue_b_us=on.get("server_queue_us"),
    )


def once(points: Sequence[Point], rounds: bool = False) -> str:
    """The sentence for a run with single-trial levels: spread unknown, and what measures it
    (``--trials`` in a sequential run; in a rounds run, where a level's trials are its rounds,
    a longer ``--time-budget``)."""
    some = "Every level was" if max(p.trials for p in points) < MIN_TRIALS_FOR_SPREAD else "Some levels were"
    if rounds:
        return (
            f"{some} measured in one round only: no difference involving such a level can be called, and none is "
            "assumed to be noise; a longer `--time-budget` gives more rounds (a verdict needs 6)"
        )
    return (
        f"{some} measured once: {spread_unknown(1)}, so no difference involving such a level is called "
        "significant, and none is assumed to be noise; run the sweep with `--trials 3` (or more) to measure it"
    )


def ranked_text(run: RunResult, rec: Recommendation, name: str, of_pick: bool = True) -> str | None:
    """The paired ranking's comparison of the pick with ``name`` in words (a rounds sweep; the
    same numbers the Paired ranking section shows): the median of the per-round ratios (the
    pick's change over ``name``, or ``of_pick=False`` ``name``'s against the pick), said as
    such, with the two levels it compares and their medians over the same rounds, since the
    ratio of those medians is another number (the trial read "+8.4 %" beside peaks 2.4 % apart);
    ``None`` when it has none."""
    c = next((c for c in (rec.ranking.comparisons if rec.ranking else []) if c.b.variant == name), None)
    if c is None or c.result is None:
        return None
    if c.verdict == "a" and rec.ranking is not None and not rec.ranking.own(c):  # another variant's verdict (T26-1)
        return (
            f"not compared with the pick itself: `{c.a.variant}` at c={c.a.concurrency} beats it by the paired rule, "
            "and the search dropped it"
        )
    ratios = c.result.ratios if of_pick else tuple(1.0 / r for r in c.result.ratios)  # each round's, turned: not 1/median
    pick, other = (median_over(run, c.a, c.rounds), median_over(run, c.b, c.rounds))
    first, second = ((f"the pick at c={c.a.concurrency}", pick), (f"it at c={c.b.concurrency}", other))
    if not of_pick:
        first, second = second, first
    medians = f"; their medians over those rounds {fmt(first[1])} vs {fmt(second[1])} infer/s" if pick and other else ""
    verdict = {"a": "the pick beats it", "b": "it beats the pick"}.get(c.verdict) or member_words(c)
    pct = [f"{(r - 1.0) * 100.0:+.1f} %" for r in ratios]
    said = (  # fewer than 3: said as the rounds' own ratios (trial 8: "-46.1 %" beside 548.9 vs 674.4)
        f"the median of the paired per-round ratios is {(median_ratio(ratios) - 1.0) * 100.0:+.1f} %"
        if len(ratios) >= GAP_ROUNDS
        else f"the paired per-round {'ratio is' if len(pct) == 1 else 'ratios are'} {' and '.join(pct)}"
    )
    return f"{said} over {count(len(c.rounds), 'round')} ({first[0]} vs {second[0]}{medians}): {verdict}"


def median_over(run: RunResult, side: Side, rounds: Sequence[int]) -> float | None:
    """The median throughput (infer/s) of ``side``'s level over ``rounds`` (``None`` without one)."""
    vr = run.variant(side.variant)
    if vr is None:
        return None
    vals = per_round(vr, side)
    got = [vals[r] for r in rounds if r in vals]
    return statistics.median(got) if got else None
