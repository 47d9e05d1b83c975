"""The report's "Main effects" section and its sentence in the conclusions (markdown), from
:mod:`perf.analysis.effects.main_effects`. A pair that is no evidence (:mod:`perf.analysis.stats.fair`: measured on a
busy host, or where the setting cannot act) is left out of the effect; an effect with no pair
left says why in place of a number, never a bold percentage.

An effect is judged on peak throughput (each variant at its best level, the one the tables name:
:func:`perf.analysis.saturation.best_level.best_levels`, the level a pair's numbers come from, not always its
highest median; the latency budget aside); the recommendation under a latency budget judges the pick against each
variant at their best levels within the budget. Where the two disagree on the pick and its twin
in one factor (the effect not significant while the pick beats its twin, or the other way round),
:func:`beside_recommendation` says so and why in one sentence, in the section (the conclusions point to it;
trial 19, T19-17) (trial 9: "not significant ... batching on vs batching off" in one paragraph, "the
pick beats" its batching-off twin 2.4x in the recommendation, and neither said what it judged)."""

from __future__ import annotations

from collections.abc import Sequence

from core.wording import count, of_the, sentence
from perf.analysis.effects.diffs import IQR_FROM, NO_NUMBER, PairDiff, Spread
from perf.analysis.effects.main_effects import Interaction, MainEffect
from perf.analysis.ranking.operating import Comparison
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.paired import RULE_SHORT
from perf.markdown import APPENDIX_FILE, name_then_numbers, table, times

#: Interactions the report lists (the appendix has every one).
INTERACTION_LINES = 6
#: What an effect on peak throughput is judged on, said where it is stated: the level each pair's numbers come
#: from (:func:`perf.analysis.effects.main_effects._best`, the tables' best level, which in a rounds sweep is
#: the paired ranking's and otherwise a stable level first: not always the highest median, issue 26).
PEAK_JUDGED = "each variant at its best level, the one the tables name, the latency budget aside"
#: What the conclusions say where :func:`beside_recommendation` has a line (said once, in the Main effects section;
#: trial 19, T19-17: it was said word for word in both).
BESIDE_POINTER = (
    "The ranking under the budget and an effect judge the pick and its twin differently: "
    "**Beside the recommendation** in the Main effects section says what each judges."
)
#: The levels of the pick's pair that an effect compared, in :func:`beside_recommendation`'s line.
PAIR_LEVELS = "at their best levels"


def cell(e: MainEffect, metric: str) -> str:
    """The effect on ``metric`` (``"throughput"``/``"p99"``): its spread, or why there is none; the
    pairs left out, by reason, so that those counted and those left out add up to the table's
    ``pairs`` column (trial 9: "3 of 3 pairs" beside 4 pairs, "1 pair ... (2 pairs left out)" beside 4)."""
    s: Spread | None = getattr(e, metric)
    note = e.note(metric)
    if s is None:
        return note or "—"
    out = e.left_out_by_reason(metric)
    if not out:
        return s.describe()
    why = ", ".join(f"{n} *{reason}*" for reason, n in out.items())
    return s.describe() + f"; {sum(out.values())} of the {count(len(e.pairs), 'pair')} left out as no evidence ({why})"


def effects_table(effects: Sequence[MainEffect]) -> list[str]:
    """One row per effect: factor, change, pairs, peak throughput and p99 at the common load."""
    rows = []
    for e in effects:
        cs = e.concurrencies
        load = "—" if not cs else f"c={cs[0]}" if len(cs) == 1 else f"c={cs[0]}–{cs[-1]}"
        rows.append([e.factor.label, e.change, len(e.pairs), cell(e, "throughput"), load, cell(e, "p99")])
    headers = ["factor", "change", "pairs", "peak throughput", "common load", "p99 at that load"]
    return table(headers, rows, ["left", "left", *name_then_numbers(4)[1:]])


def effects_section(
    effects: Sequence[MainEffect], inters: Sequence[Interaction], rounds: bool = False, beside: str | None = None
) -> list[str]:
    """The report's "Main effects" section (markdown lines); ``rounds``: the pairs are paired
    over rounds (:mod:`perf.analysis.effects.rounds`); ``beside``: :func:`beside_recommendation`'s
    line, a bullet under the table."""
    lines = ["## Main effects", ""]
    if not effects:
        return lines + ["No two comparable variants differ in one factor only, so no effect can be estimated."]
    lines += [  # a short sentence, then one bullet per rule (trial 19, T19-17: one line of 1,268 characters)
        "What changing one factor does, over every pair of variants that differ only in that factor (all other "
        f"variant parameters equal; every pair is listed in [{APPENDIX_FILE}]({APPENDIX_FILE})): the median of the "
        f"paired changes, in %, with their spread (min–max, or the interquartile range (IQR) from {IQR_FROM} pairs); "
        "*not significant* where the spread covers zero"
        + (" or a pair is not significant by the paired rule" if rounds else "")
        + f". Peak throughput: {PEAK_JUDGED}; p99: both at the pair's highest common concurrency.",
        *(
            [
                "- **Rounds:** each pair's change is the median, over the rounds both variants shared, of their per-round "
                f"ratio, significant by the paired rule ({RULE_SHORT}): a busy round falls on both."
            ]
            if rounds
            else []
        ),
        "- **Left out:** a pair that is no evidence: *not measured fairly* "
        + ("(its two levels never shared a round)" if rounds else "(a level of it host busy)")
        + " or *cannot act at this load* (instance count or batching with one request in flight, or no batch formed), "
        "or *cannot be the instance count* (an instance-count pair already apart at concurrency 1, where a second "
        "instance cannot act: its threads per instance, named beside the change, or something else differs).",
        "",
        *effects_table(effects),
    ]
    if beside:
        lines += ["", f"- {beside}"]
    if inters:
        lines += ["", "**Interactions** (only where the effect changes sign with another factor):", ""]
        lines += [f"- {sentence(i.describe())}" for i in inters[:INTERACTION_LINES]]
        if len(inters) > INTERACTION_LINES:
            lines.append(f"- {len(inters) - INTERACTION_LINES} more in [{APPENDIX_FILE}]({APPENDIX_FILE}).")
    return lines


def effects_sentences(effects: Sequence[MainEffect], rounds: bool = False, beside: str | None = None) -> str:
    """The main effects in one paragraph for the conclusions' numbers: significant ones named
    with their size; those that are no evidence with why; the rest listed as not significant
    (or of unknown spread: a sequential run's single trials); ``rounds``: the pairs are paired
    over rounds (:func:`effects_section`), so "not significant" is by that rule; ``beside``: a sentence said after
    them (the conclusions': a pointer to :func:`beside_recommendation`'s line, :data:`BESIDE_POINTER`)."""
    if not effects:
        return ""
    clear = [e for e in effects if e.throughput is not None and e.throughput.significant]
    void = [e for e in effects if e.throughput is None and e.note("throughput")]
    rest = [e for e in effects if e not in clear and e not in void]
    text = f"**Main effects** (on peak throughput: {PEAK_JUDGED}; the median over the pairs that differ only in that factor; table above): "
    if clear:
        text += "; ".join(
            f"{e.change}: peak throughput {e.throughput.median:+.1f} %"  # type: ignore[union-attr]
            + (f", p99 {e.p99.median:+.1f} %" if e.p99 is not None else "")
            for e in clear
        )
    elif rest:
        text += (
            "no change of one factor is significant on peak throughput by the paired rule"
            if rounds
            else "no change of one factor moved peak throughput beyond its spread"
        )
    else:
        text += "none is evidence here"
    if void:  # why each is no evidence: its table cell, said once (trial 19, T19-17)
        text += (
            ". No evidence on peak throughput (why: the table above): " if clear or rest else " (why: the table above): "
        ) + "; ".join(e.change for e in void)
    if rest:
        why = (
            "not significant (its spread over pairs covers zero, or a pair is not significant by the paired rule)"
            if rounds
            else "not significant or of unknown spread"
        )
        text += f". {why[0].upper()}{why[1:]} on peak throughput: {', '.join(e.change for e in rest)}"
    return sentence(text) + (f" {beside}" if beside else "")


def _effect_words(e: MainEffect) -> str:
    """What the effect says on peak throughput, as a clause."""
    s = e.throughput
    if s is None:
        return f"{e.change} is no evidence on peak throughput"
    if not s.significant:
        return f"{e.change} is not significant on peak throughput"
    return f"{e.change} changes peak throughput by {s.median:+.1f} %"


def _ranked_words(c: Comparison, twin: str) -> str:
    """The ranking's verdict on the pick (``c.a``) and its twin (``c.b``) with its numbers."""
    pick, other = f"the pick (c={c.a.concurrency})", f"{twin}, `{c.b.variant}` (c={c.b.concurrency}),"
    r = c.result
    numbers = f" ({times(r.median, 3)}, the pick ahead in {r.wins} of {count(len(r.ratios), 'round')})" if r else ""
    if c.verdict == "a":
        return f"{pick} beats {other} by the paired rule{numbers}"
    if c.verdict == "b":
        return f"{other[:-1]} beats {pick} by the paired rule{numbers}"
    return f"the paired rule does not separate {pick} from {other[:-1]}{numbers}"


def _pct(e: MainEffect, d: PairDiff) -> str:
    """The pair's peak-throughput change, with the value it is of: ``"+118.2 % with batching on"``."""
    return f"{d.throughput_pct:+.1f} % with {e.factor.show(e.value)}"


def _at_peak(e: MainEffect, d: PairDiff) -> str:
    """How the effect treated the pick's pair ``d`` at the levels it compared (:attr:`PairDiff.peaks`: each one's
    best level, :data:`PEAK_JUDGED`)."""
    if d.throughput_note or d.throughput_pct is None:
        return f"the pair is left out ({(d.throughput_note or NO_NUMBER['throughput']).split(':')[0]})"
    if not d.throughput_sig:
        return f"the rule does not separate them ({_pct(e, d)})"
    s = e.throughput
    if s is None or s.significant:
        return f"the rule separates them ({_pct(e, d)})"
    if s.unseparated:
        apart = [
            o for o in e.pairs if o is not d and not o.throughput_note and o.throughput_pct is not None and not o.throughput_sig
        ]
        names = f" ({', '.join(f'{o.reference} vs {o.changed}' for o in apart)})" if len(apart) == s.unseparated <= 3 else ""
        return f"the rule separates them ({_pct(e, d)}) but not {of_the(s.unseparated, len(s.values) - 1, 'other pair')}{names}"
    return f"the rule separates them ({_pct(e, d)}) but the spread over the pairs covers zero"


def beside_recommendation(effects: Sequence[MainEffect], rec: Recommendation) -> str | None:
    """Where the effects' verdicts on peak throughput and the paired ranking under the latency
    budget disagree on the pick and its twin in one factor (the variant that differs from the pick
    in that factor only: one of the effect's pairs), one line that says what each judges and how
    the pair fared at the levels the effect compared (module docstring); ``None`` without a budget's paired ranking or
    a disagreement.

    Args:
        effects: The run's :func:`perf.analysis.effects.main_effects.main_effects`.
        rec: Its recommendation; :attr:`~perf.analysis.recommendation.recommend.Recommendation.ranking_under_budget`
            holds the comparisons.
    """
    ranking = rec.ranking_under_budget
    if ranking is None or ranking.leader is None:
        return None
    pick = ranking.leader.side.variant
    items = []
    for e in effects:
        for c in ranking.comparisons:
            d = next((d for d in e.pairs if {d.reference, d.changed} == {pick, c.b.variant}), None)
            if d is None or (c.verdict == "a" and not ranking.own(c)):  # another variant's verdict, not the pick's (T26-1)
                continue
            toward = 1 if d.changed == pick else -1  # +1: the pick holds the effect's changed value
            ranked = {"a": toward, "b": -toward}.get(c.verdict, 0)
            if ranked == (e.throughput.sign if e.throughput is not None else 0):
                continue
            twin = f"its twin with {e.factor.show(e.reference if toward > 0 else e.value)}"
            peaks = ""
            if d.peaks:
                mine, its = (d.peaks[1], d.peaks[0]) if toward > 0 else d.peaks
                peaks = f" (c={mine}, c={its})"
            items.append(f"{_ranked_words(c, twin)}; {PAIR_LEVELS}{peaks} {_at_peak(e, d)}: {_effect_words(e)}")
    if not items:
        return None
    return (
        f"**Beside the recommendation** (it ranks each variant at its best level within the {rec.budget_text}, "
        f"the pick `{pick}` first; an effect takes {PEAK_JUDGED}): " + ". ".join(i[0].upper() + i[1:] for i in items) + "."
    )
