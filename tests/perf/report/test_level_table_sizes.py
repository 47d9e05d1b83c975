"""The per-level tables of a run of several input sizes bold one variant per size, never a size over another
(trial 16, T16-3: the seq=8 row was bold over the seq=128 rows at concurrency 1, in a report that says sizes
are the client's and never compared). Hand-made points."""

from __future__ import annotations

from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.report.sections.tables import level_tables


def _point(series: str, tput: float, p99: float) -> Point:
    median = {THROUGHPUT: tput, P99: p99}
    return Point(series, 1, 1, 3, median, dict(median), dict(median))


def _bold_rows(lines: list[str]) -> list[str]:
    return [line.split("|")[1].strip() for line in lines if line.startswith("|") and "**" in line]


def test_each_input_size_gets_its_own_bold_row():
    points = {
        f"{v} [seq={s}]": [_point(f"{v} [seq={s}]", tput, p99)]
        for v, s, tput, p99 in [("a", 8, 600.0, 3.0), ("b", 8, 500.0, 2.0), ("a", 128, 110.0, 24.0), ("b", 128, 230.0, 9.0)]
    }
    lines = level_tables(points)
    assert _bold_rows(lines) == ["`a [seq=8]`", "`b [seq=128]`"]  # old code: a [seq=8] alone
    assert "highest throughput at the level for its input size" in "\n".join(lines)


def test_a_run_of_one_size_keeps_one_bold_row_and_its_words():
    points = {v: [_point(v, tput, 2.0)] for v, tput in [("a", 600.0), ("b", 500.0)]}
    lines = level_tables(points)
    assert _bold_rows(lines) == ["`a`"]
    assert "**Bold**: highest throughput at the level. " in "\n".join(lines)
