"""The words of a ladder's budget and failure stops, shared by both designs' searches
(:mod:`perf.search.policy`, :mod:`perf.search.ladder`), and a rounds ladder's stop kept in the search
record as it is judged again after every round (:func:`note_stop`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from perf.analysis.saturation.peaks import Rise
from perf.analysis.saturation.rises import beyond_concurrency
from perf.analysis.stats.paired import median_gain
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.markdown import fmt
from perf.records.levels import TRANSIENT_WORDS, transient_failure, window_failure
from perf.records.search import SearchDecision, SearchRecord

#: Why a level over the latency budget ends a ladder (said by both designs' budget stops).
OVER_BUDGET = "a higher concurrency queues more requests, so no level above it can meet the budget"


def failed_reason(concurrency: int, why: str, loaded: bool = False) -> str:
    """Why a failed level ends a ladder, in both designs: it is not measured again in this session
    (its error is the same each time, as a file of inputs the model refuses), and a resumed run
    measures it again; where its windows saw no request complete (:func:`perf.records.levels.window_failure`),
    that, and ``why``'s advice (a resumed run keeps its window: trial 14, T14-3); where its error was the
    server's state of that moment (:func:`perf.records.levels.transient_failure`), that it was, not the
    repository's, and, when the sweep knows it had the model ``loaded`` (the rounds design), that too."""
    if window_failure(why):
        return f"no request completed at concurrency {concurrency} within its windows in any visit ({why})"
    if transient_failure(why):
        held = " while this sweep had the model loaded" if loaded else ""
        return (
            f"its level at concurrency {concurrency} was not measured{held} ({why}: {TRANSIENT_WORDS}); "
            "a resumed run measures it again"
        )
    return f"its level at concurrency {concurrency} failed ({why}); a resumed run measures it again"


def still_rose(gain_pct: float | None, low: int, high: int | None = None, rounds: int | None = None) -> str:
    """The clause a budget stop adds when its last step still raised throughput: the best peak
    may lie above the stop and was not measured (``""`` otherwise).

    The gain is over that one step, from ``low`` to ``high`` concurrency, and says what it rests
    on (``rounds``: the paired rounds its median is of, in the rounds design). By Little's law
    throughput is concurrency / latency, so a step from ``low`` to ``high`` raises it by at most
    ``high / low - 1`` unless latency fell as load rose: a larger gain (the trial's "still rose
    413.8 %" over one doubling, from a single round whose concurrency-2 level ran on a busy host at
    p99 291 ms) is a disturbed measurement, and the clause says so instead of offering it as the gain.

    Args:
        gain_pct: Throughput gain of the step (% of the lower level's), or ``None``.
        low: The step's lower concurrency.
        high: Its upper concurrency (the stop's level; default: not named).
        rounds: The paired rounds the gain's median is of (default: not said).
    """
    if gain_pct is None or gain_pct <= 0:
        return ""
    step = f"from concurrency {low}" + (f" to {high}" if high is not None else "")
    basis = f", the median of {rounds} paired round{'s' if rounds != 1 else ''}" if rounds is not None else ""
    if high is not None and beyond_concurrency(gain_pct, low, high) is not None:  # the one rule (Little's law)
        bound = (high / low - 1.0) * 100.0
        return (
            f"; its throughput still rose {step} ({fmt(gain_pct)} %{basis}: more than the +{fmt(bound)} % that step can "
            "give at equal latency: a level of it was slowed by something else (see its flags), so this is not what "
            "the added concurrency gave), so its peak above it was not measured"
        )
    return f"; its throughput still rose {fmt(gain_pct)} % {step}{basis}, so its peak above it was not measured"


def rise_clause(r: Rise | None, top: int, gains: Sequence[float]) -> str:
    """The clause a budget stop at concurrency ``top`` adds of the step into it (``r``:
    :func:`perf.analysis.saturation.peaks.rise_into`, from the best level below; ``gains``: that step's paired
    gains, fractions): :func:`still_rose` on their median where throughput still rose; where the noise does
    not tell the step (:attr:`perf.analysis.saturation.rises.Rising.told` false), its words with the evidence
    and no trend; ``""`` when flat, a knee, or no step."""
    if r is None or r.below is None or r.trend is None:
        return ""
    if not r.rising:
        return f"; its {r.trend.words(r.below.concurrency, top)}, so whether its peak lies above it is not told"
    return still_rose(median_gain(gains) * 100.0 if gains else None, r.below.concurrency, top, len(gains))


def gain_pct(low: Point, high: Point) -> float:
    """Throughput gain from ``low`` to ``high`` (% of ``low``)."""
    return (high.value(THROUGHPUT) - low.value(THROUGHPUT)) / low.value(THROUGHPUT) * 100.0


def note_stop(
    search: SearchRecord,
    name: str,
    load: tuple[int, str | None] | None,
    label: str,
    decision: SearchDecision | None,
    events: Callable[[dict[str, Any]], None],
) -> None:
    """Keep ``decision``, the stop of variant ``name``'s ladder at client workload ``load`` (``None``: its one
    workload, the variant's own stop; at several, that workload's: :attr:`perf.records.search.SearchDecision.workload`,
    said with its ``label``), in ``search``, never over a drop: a provisional ``search_decision`` event when its
    rule or level changes (its numbers follow the rounds silently), a ``reopened`` one when a later round takes it back."""
    if decision is not None and load is not None:
        decision = dataclasses.replace(decision, batch_size=load[0], shape=load[1])
    kept = search.decision(name, load)
    if kept is not None and kept.rule == "pruned":
        return
    said = {"event": "search_decision", "variant": name, "workload": label}
    if decision is None:
        if kept is not None and kept.workload == load:  # the stop said on the console is taken back
            search.forget(name, load)
            events({**said, "decision": None, "reopened": True})
    elif kept != decision:
        search.record(decision)
        if kept is None or (kept.rule, kept.concurrency) != (decision.rule, decision.concurrency):
            events({**said, "decision": decision, "levels_left": 0, "provisional": True})
