"""The report's "Main effects" section and its sentence in the conclusions (markdown), from
:mod:`perf.analysis.effects`. A pair that is no evidence (:mod:`perf.analysis.fair`: measured on a
busy host, or where the setting cannot act) is left out of the effect; an effect with no pair
left says why in place of a number, never a bold percentage."""

from __future__ import annotations

from collections.abc import Sequence

from core.wording import count
from perf.analysis.effects import IQR_FROM, Interaction, MainEffect, Spread
from perf.analysis.paired import RULE_SHORT
from perf.markdown import APPENDIX_FILE, name_then_numbers, table

#: Interactions the report lists (the appendix has every one).
INTERACTION_LINES = 6


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


def effects_section(effects: Sequence[MainEffect], inters: Sequence[Interaction], rounds: bool = False) -> list[str]:
    """The report's "Main effects" section (markdown lines); ``rounds``: the pairs are paired
    over rounds (:mod:`perf.analysis.effects_rounds`)."""
    lines = ["## Main effects", ""]
    if not effects:
        return lines + ["No two comparable variants differ in one factor only, so no effect can be estimated."]
    lines += [
        "What changing one factor does, over every pair of variants that differ only in that factor (all other "
        "variant parameters equal): the median of the paired changes, in %, with their spread (min–max, or the "
        f"interquartile range (IQR) from {IQR_FROM} pairs); *not significant* where the spread covers zero"
        + (" or a pair is not significant by the paired rule" if rounds else "")
        + ". Peak "
        "throughput: each variant's best level; p99: both at the pair's highest common concurrency. "
        + (
            "Each pair's change is the median, over the rounds both variants shared, of their per-round ratio, "
            f"significant by the paired rule ({RULE_SHORT}): a busy round falls on both. "
            if rounds
            else ""
        )
        + "A pair is left out when it is no evidence: *not measured fairly* "
        + ("(its two levels never shared a round)" if rounds else "(a level of it host busy)")
        + " or *cannot act at this load* (instance count or batching with one request in flight, or no batch formed), "
        "or *cannot be the instance count* (an instance-count pair already apart at concurrency 1, where a second "
        "instance cannot act: its threads per instance, named beside the change, or something else differs). "
        f"Every pair is listed in [{APPENDIX_FILE}]({APPENDIX_FILE}).",
        "",
        *effects_table(effects),
    ]
    if inters:
        lines += ["", "**Interactions** (only where the effect changes sign with another factor):", ""]
        lines += [f"- {i.describe()}." for i in inters[:INTERACTION_LINES]]
        if len(inters) > INTERACTION_LINES:
            lines.append(f"- {len(inters) - INTERACTION_LINES} more in [{APPENDIX_FILE}]({APPENDIX_FILE}).")
    return lines


def effects_sentences(effects: Sequence[MainEffect], rounds: bool = False) -> str:
    """The main effects in one paragraph for the conclusions' numbers: significant ones named
    with their size; those that are no evidence with why; the rest listed as not significant
    (or of unknown spread: a sequential run's single trials); ``rounds``: the pairs are paired
    over rounds (:func:`effects_section`), so "not significant" is by that rule."""
    if not effects:
        return ""
    clear = [e for e in effects if e.throughput is not None and e.throughput.significant]
    void = [e for e in effects if e.throughput is None and e.note("throughput")]
    rest = [e for e in effects if e not in clear and e not in void]
    text = "**Main effects** (median over the pairs that differ only in that factor; table above): "
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
    if void:
        text += (". No evidence on peak throughput: " if clear or rest else ": ") + "; ".join(
            f"{e.change} ({e.note('throughput')})" for e in void
        )
    if rest:
        why = (
            "not significant (its spread over pairs covers zero, or a pair is not significant by the paired rule)"
            if rounds
            else "not significant or of unknown spread"
        )
        text += f". {why[0].upper()}{why[1:]} on peak throughput: {', '.join(e.change for e in rest)}"
    return text + "."
