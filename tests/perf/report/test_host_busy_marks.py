"""Every sentence that quotes a flagged level's number carries its mark
(:func:`perf.markdown.flag_mark`), as the tables and legends do: hand-made records, every level host busy."""

from __future__ import annotations

import re

from factories import make_run
from tables import bullet_block

from perf.analysis.recommendation.recommend import recommend
from perf.markdown import flag_mark
from perf.records.levels import HOST_BUSY
from perf.report.conclusions.numbers import HEADROOM_SAID
from perf.report.conclusions.written import conclusions

MARK = flag_mark(HOST_BUSY)


def _busy_run():
    run = make_run()
    for v in run.variants:
        for lv in v.levels:
            lv.host_busy, lv.host_busy_pct = True, 90.0
    return run


def _paragraph(text: str, head: str) -> str:
    return bullet_block(text, head)  # its first sentence and the bullets under it (trial 19, T19-17)


def test_the_numbers_carry_the_levels_mark():
    run = _busy_run()
    rec = recommend(run, 5.0)
    text = "\n".join(conclusions(run, rec))
    numbers = _paragraph(text, "**The numbers.**")
    best = rec.best_peak
    assert best is not None and best.status == HOST_BUSY
    assert f"p99 {best.latency_p99_ms:,.2f} ms{MARK})" in numbers
    assert re.search(rf"peak [\d,.]+ infer/s at concurrency \d+{re.escape(MARK)}\)", numbers)  # the baseline's peak
    u = rec.best_under_budget
    assert (
        u is not None
        and f"{u.throughput_infer_per_s:,.1f} infer/s{MARK}" + (f"; {HEADROOM_SAID}." if u.headroom else ".") in numbers
    )  # its why, with the level's mark, is said with the pick in the Recommendation (re-check 20, NEW-4)


def test_the_why_paragraph_marks_each_level_it_quotes():
    run = _busy_run()
    why = _paragraph("\n".join(conclusions(run, recommend(run, None))), "**Why.**")
    assert why.count(f"`{MARK} spent") == 2  # the best and the level it is contrasted with


def test_an_unflagged_run_carries_no_mark():
    run = make_run()
    text = "\n".join(conclusions(run, recommend(run, None)))
    assert MARK not in _paragraph(text, "**The numbers.**") and MARK not in _paragraph(text, "**Why.**")


def test_a_rounds_run_says_the_rounds_each_level_got():
    """'7 trial(s) per level' was the highest round index: the levels got 1 to 3 rounds here."""
    import dataclasses

    from perf.records.rounds import RoundsRecord

    run = make_run()
    rec = recommend(run, None)
    v = run.variants[0]
    v.levels += [dataclasses.replace(lv, trial=t) for lv in v.levels[:1] for t in (1, 2)]
    run.rounds = RoundsRecord(seed=1)
    what = _paragraph("\n".join(conclusions(run, rec)), "**What was compared.**")
    assert "at concurrency 1–16, 1–3 rounds per level." in what and "trial" not in what
    run.rounds = None
    what = _paragraph("\n".join(conclusions(run, rec)), "**What was compared.**")
    assert "1–3 trials per level." in what


def test_the_flagged_banner_names_only_the_statuses_it_counts():
    from perf.analysis.stats.points import run_points
    from perf.report.sections.ranking import flagged_counts

    run = _busy_run()
    cands = [p for ps in run_points(run).values() for p in ps]
    assert flagged_counts(cands) == f"{len(cands)} of {len(cands)} host busy"  # no "the others unstable"
    cands[0].status = "unstable"
    assert flagged_counts(cands) == f"{len(cands) - 1} of {len(cands)} host busy, 1 unstable"
    for p in cands:
        p.status = "unstable"
    assert flagged_counts(cands) == f"{len(cands)} of {len(cands)} unstable"
