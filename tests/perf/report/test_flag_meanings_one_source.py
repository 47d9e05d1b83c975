"""Every legend that says what a flag means starts from one wording, perf.records.levels.FLAG_MEANINGS
(review of trial 9's F3: the console, report.md, the baseline table and the cold-start notes each
worded the unstable and host-busy flags their own way)."""

from __future__ import annotations

from perf.records.levels import FLAG_MEANINGS, HOST_BUSY, UNSTABLE


def test_the_console_legend_says_the_meanings() -> None:
    from perf.cli.summary_legend import summary_legend

    legend = summary_legend("1.0 † unstable, 2.0 † host busy", 99, False, _run(), (0, 0, 0), 10)
    assert f"unstable: {FLAG_MEANINGS[UNSTABLE]}" in legend and f"host busy: {FLAG_MEANINGS[HOST_BUSY]}" in legend


def _run():
    from factories import make_run

    return make_run()


def test_the_report_legend_says_the_meanings(tmp_path) -> None:
    from perf.records import results
    from perf.report.write import write_report

    run = _run()
    run.variants[0].levels[0].host_busy, run.variants[0].levels[0].host_busy_pct = True, 90.0
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text() + (tmp_path / "appendix.md").read_text()
    assert f"host busy: {FLAG_MEANINGS[HOST_BUSY]} during it" in text
