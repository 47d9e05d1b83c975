"""Comparisons of two levels in words, and the appendix's bullets of every fair pair.

:func:`change_text` is the one way the report states a change between two levels: the %
change with its significance (:mod:`perf.analysis.stats` noise rule), and, where a level of the
two was measured on a busy host, that it was not measured fairly (:func:`perf.analysis.fair.unfair`).
:func:`pair_bullets` lists every fair pair (batching on vs off at the same instance count; N vs
1 instances; each format vs the first one — equal in every other variant parameter,
:mod:`perf.analysis.pairs`) at the pair's highest common concurrency; a pair whose setting
cannot act at that load says so (:func:`perf.analysis.fair.cannot_act`).
"""

from __future__ import annotations

from collections.abc import Sequence

from perf.analysis.effects_rounds import is_rounds, paired_text
from perf.analysis.fair import cannot_act, unfair
from perf.analysis.pairs import pairs
from perf.analysis.stats import (
    MIN_TRIALS_FOR_SPREAD,
    P99,
    THROUGHPUT,
    Point,
    common_level,
    curve,
    delta,
    run_points,
    spread_unknown,
)
from perf.records.results import RunResult
from perf.report.phrases import Facts, say

#: The factor (perf.analysis.fair) each pair kind changes.
_FACTOR = {"batching": "batching", "instances": "count", "format": "format"}


def change_text(a: Point, b: Point, metric: str, note_unknown: bool = True, run: RunResult | None = None) -> str:
    """The change from ``a`` to ``b`` with its significance (``note_unknown=False`` leaves
    "spread unknown" out: a single-trial run says it once), and "not measured fairly" with why
    where a level of the two was host busy. In a rounds sweep (``run`` given, with rounds) the
    change is paired over the rounds both shared (:func:`perf.analysis.effects_rounds.paired_text`)."""
    va, vb = (run.variant(a.variant), run.variant(b.variant)) if run is not None and run.rounds is not None else (None, None)
    if va is not None and vb is not None and is_rounds([va, vb]):
        return paired_text(va, a, vb, b, metric)
    d = delta(a, b, metric)
    if d is None:
        return "—"
    why = unfair(a, b)
    return d.describe(note_unknown) + (f" ({why})" if why else "")


def pair_bullets(run: RunResult) -> list[str]:
    """One markdown bullet per fair pair (:func:`perf.analysis.pairs.pairs`: batching on vs off, N vs 1
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
            "instances": f"{tb.count} vs 1 instance (`{b.name}` vs `{a.name}`)",
            "format": f"{tb.format} vs {ta.format} (`{b.name}` vs `{a.name}`)",
        }[pr.kind]
        changes = f"throughput {change_text(pa, pb, THROUGHPUT, mixed, run)}, p99 {change_text(pa, pb, P99, mixed, run)}"
        on = tuple(p for p, t in ((pa, ta), (pb, tb)) if t.dynamic_batching)
        void = cannot_act(_FACTOR[pr.kind], pa, pb, batching_on=on)
        text = f"- {pr.label}: {what} at concurrency {pa.concurrency}: " + (
            f"{void} (as measured: {changes})" if void else changes
        )
        first = curve(pts[a.name])[0]
        low = next((p for p in curve(pts[b.name]) if p.concurrency == first.concurrency), None)
        if pr.kind == "batching" and low is not None and first.concurrency != pa.concurrency:
            text += f"; at concurrency {first.concurrency} p99 {change_text(first, low, P99, mixed, run)}"
            why = say("light_load", _light_load_facts(first, low))
            text += f" ({why})" if why else ""
        bullets.append(text + ".")
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
