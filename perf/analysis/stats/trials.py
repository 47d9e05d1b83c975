"""The recommendation's rule in a run of trials (the sequential design; a rounds sweep is ranked by its paired
rounds, :mod:`perf.analysis.ranking.rank`): **stable levels rank first**. The best of a set of levels is the
highest-throughput one with status ``ok`` (ties to the lower p99); a **flagged** level (``unstable``, ``host
busy``) wins only when its throughput beats every ``ok`` one's by more than its own spread (:func:`spread`),
and the pick then says so in words; with no ``ok`` level the best flagged one is picked, also in words.
Every best level of a run of trials is named by it: the picks (:mod:`perf.analysis.recommendation.recommend`),
each variant's best level (:func:`perf.analysis.saturation.best_level.best_levels`: the console's row, the plots'
highlights and the Variant frontier) and the search's best point (:mod:`perf.search.policy`).
"""

from __future__ import annotations

from collections.abc import Iterable

from perf.analysis.stats.notes import flag_words
from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.markdown import fmt
from perf.records.results import RunResult
from perf.records.settings import MeasureSettings

#: Default stability tolerance (%): perf_analyzer's ``-s`` as the sweep passes it by default.
DEFAULT_TOLERANCE_PCT = MeasureSettings().stability_pct


def candidate(p: Point) -> bool:
    """Whether a point may be ranked: numbers (throughput > 0, a p99) and a usable status."""
    return p.ok and p.get(P99) is not None and p.status in ("ok", "unstable", "host busy")


def where(p: Point) -> str:
    """``"`v` at concurrency 4"`` (with its batch when not 1)."""
    return f"`{p.variant}` at concurrency {p.concurrency}" + (f" (batch {p.batch_size})" if p.batch_size != 1 else "")


def tolerance(run: RunResult) -> float:
    """The stability tolerance (%) ``run`` was measured against (its ``stability_pct`` setting), else the default."""
    stored = run.settings.get("stability_pct")  # a MeasureSettings field, stored flat beside the typed keys
    return float(stored) if isinstance(stored, (int, float, str)) and stored else DEFAULT_TOLERANCE_PCT


def spread(p: Point, tolerance_pct: float = DEFAULT_TOLERANCE_PCT) -> float:
    """How far a flagged point's throughput may be off (infer/s): the largest of its
    min–max over trials, its perf_analyzer windows' spread (``throughput_window_spread_pct``,
    worst trial) and, when neither is known or the point is unstable, the stability
    tolerance it was measured against (``tolerance_pct`` % of its throughput: an unstable
    level's windows disagreed by more than that)."""
    thr, pct = p.get(THROUGHPUT) or 0.0, p.high.get("throughput_window_spread_pct")
    known = [x for x in (p.spread(THROUGHPUT), None if pct is None else pct / 100.0 * thr) if x is not None]
    if not known or not p.stable:
        known.append(tolerance_pct / 100.0 * thr)
    return max(known)


def rank(points: Iterable[Point], tolerance_pct: float = DEFAULT_TOLERANCE_PCT) -> tuple[Point | None, str | None]:
    """The best candidate of ``points`` by the module rule, and the words when it is flagged.

    Args:
        points: Candidates (non-candidates among them are skipped: see :func:`candidate`).
        tolerance_pct: Stability tolerance (%) for :func:`spread`.

    Returns:
        ``(point, why)``: ``why`` is None for an ``ok`` pick; ``(None, None)`` without candidates.
    """
    cands = [p for p in points if candidate(p)]

    def key(p: Point) -> tuple[float, float]:
        return (p.value(THROUGHPUT), -p.value(P99))

    best_ok = max((p for p in cands if p.status == "ok"), key=key, default=None)
    flagged = [p for p in cands if p.status != "ok"]
    if best_ok is None:
        best = max(flagged, key=key, default=None)
        if best is None:
            return None, None
        return best, (f"no stable level qualifies, so this level is the best there is: {flag_words(best.status, best.notes)}")
    beat = [p for p in flagged if p.value(THROUGHPUT) - spread(p, tolerance_pct) > best_ok.value(THROUGHPUT)]
    best = max(beat, key=key, default=None)
    if best is None:
        return best_ok, None
    lead, margin = best.value(THROUGHPUT) - best_ok.value(THROUGHPUT), spread(best, tolerance_pct)
    return best, (
        f"picked although {best.status}: it beats the best stable level ({where(best_ok)}, "
        f"{fmt(best_ok.get(THROUGHPUT))} infer/s) by {fmt(lead)} infer/s, more than its spread of "
        f"{fmt(margin)} infer/s"
    )
