"""Every sentence that quotes a flagged level's number carries its mark
(:func:`perf.markdown.flag_mark`), as the tables and legends do: hand-made records, every level host busy."""

from __future__ import annotations

import re

from factories import make_run

from perf.analysis.recommendation import recommend
from perf.markdown import flag_mark
from perf.records.levels import HOST_BUSY
from perf.report.conclusions import conclusions

MARK = flag_mark(HOST_BUSY)


def _busy_run():
    run = make_run()
    for v in run.variants:
        for lv in v.levels:
            lv.host_busy, lv.host_busy_pct = True, 90.0
    return run


def _paragraph(text: str, head: str) -> str:
    return next(p for p in text.split("\n") if p.startswith(head))


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
    assert u is not None and f"{u.throughput_infer_per_s:,.1f} infer/s{MARK}." in numbers


def test_the_why_paragraph_marks_each_level_it_quotes():
    run = _busy_run()
    why = _paragraph("\n".join(conclusions(run, recommend(run, None))), "**Why.**")
    assert why.count(f"`{MARK} spent") == 2  # the best and the level it is contrasted with


def test_an_unflagged_run_carries_no_mark():
    run = make_run()
    text = "\n".join(conclusions(run, recommend(run, None)))
    assert MARK not in _paragraph(text, "**The numbers.**") and MARK not in _paragraph(text, "**Why.**")
