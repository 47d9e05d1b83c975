"""A variant whose level above its best failed (every round) is not "peak not reached" (trial 13, T13-7): that
says the higher level was not measured, while it was and failed. The why, the pick's mark and another
variant's note say the level above failed, with its error; a level above that was not measured keeps the
old words."""

from __future__ import annotations

import dataclasses

from factories import level_result, run_result, variant_result

from perf.analysis.saturation.peaks import FAILED_ABOVE, FAILED_MARK, FAILED_NOTE, WINDOW_NOTE, unreached, unreached_mark
from perf.analysis.stats.points import run_points
from perf.records.rounds import RoundsRecord

V = "detr_ts_cpu1_db500_mbs64"
ERROR = "Pass [2] cb::Error: No valid requests recorded within time interval. Please use a larger time window."
RISING = {1: [15.0, 16.0, 15.5, 15.2, 16.1, 15.8], 2: [30.0, 31.0, 30.5, 30.2, 31.4, 30.9]}


def _why(failed_above: bool, error: str = ERROR) -> str | None:
    levels = [level_result(c, t, 60.0 * c, spread=True, trial=r) for c, ts in RISING.items() for r, t in enumerate(ts)]
    if failed_above:  # c=4: every round failed
        levels += [dataclasses.replace(level_result(4, trial=r), error=error).settle() for r in range(6)]
    run = run_result([variant_result(V, levels)], finished="x")
    run.rounds = RoundsRecord(seed=1)
    pts = run_points(run)[V]
    return unreached(run, pts, max((p for p in pts if p.ok), key=lambda p: p.concurrency))


def test_the_level_above_failed_is_said_so_not_peak_not_reached() -> None:
    why = _why(failed_above=True)
    assert why == f"{FAILED_ABOVE}: c=4 ({ERROR})"
    assert unreached_mark(why) == WINDOW_NOTE and "not reached" not in WINDOW_NOTE  # its windows saw no request
    refused = "perf_analyzer reported request errors: input 'x' refused"
    assert unreached_mark(_why(True, refused) or "") == FAILED_NOTE and "not reached" not in FAILED_NOTE
    assert FAILED_MARK == "best measured (the level above it failed)"
    measured = _why(failed_above=False)  # nothing above c=2: not measured, the old words
    assert measured is not None and not measured.startswith(FAILED_ABOVE) and unreached_mark(measured) == "peak not reached"


def test_a_level_above_that_met_the_servers_state_in_every_round_says_it_was_not_the_repository() -> None:
    """Re-check of trial 14, NEW-3: "failed to find the requested model version" under load read like a
    repository problem ("the level above it failed: c=4 (failed to find the requested model version)")."""
    from perf.records.levels import TRANSIENT_WORDS

    error = "perf_analyzer reported request errors: failed to find the requested model version"
    why = _why(True, error)
    assert why == f"{FAILED_ABOVE}: c=4 ({error}: {TRANSIENT_WORDS})"
    assert "model repository" in TRANSIENT_WORDS and "not" in TRANSIENT_WORDS
    refused = "perf_analyzer reported request errors: input 'x' refused"
    assert TRANSIENT_WORDS not in (_why(True, refused) or "")
