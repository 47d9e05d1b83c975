"""A level's flags said the same way in every output: the windows' spread is "unstable", other processes on the host's
CPU "host busy", with the same mark (trial 26, T26-11: the console marked a level's rounds "[unstable]", and report.md
and the appendix said the level "† host busy (in 3 rounds, its 3 windows' throughput spread 12–38 % ...)"; the
report's legend defines "† unstable", which no line used). No server."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.cli.sweep_progress import SweepProgress
from perf.plots import figures as plots
from perf.records import results
from perf.records.rounds import RoundsRecord
from perf.report.write import write_report

BUSY = "other processes used 95 % of one core during the visit (threshold 10 %)"


def _spread(pct: int) -> str:
    return f"its 3 windows' throughput spread {pct} % (more than ±10 %)"


def _run():
    """`v` at concurrency 4 in 3 rounds: unstable in rounds 1 and 2, host busy and unstable in round 3 (the trial's)."""
    rounds = [
        level_result(4, 1000.0, 3.0, trial=0, stable=False, notes=[_spread(12)]),
        level_result(4, 1010.0, 3.0, trial=1, stable=False, notes=[_spread(38)]),
        level_result(4, 990.0, 3.0, trial=2, stable=False, host_busy=True, notes=[_spread(20), BUSY]),
    ]
    quiet = [level_result(4, 500.0, 2.0, trial=r) for r in range(3)]
    run = run_result(
        [variant_result("v", rounds), variant_result("w", quiet)],
        settings={"latency_budget_ms": 10.0, "design": "rounds"},
        rounds=RoundsRecord(seed=1),
    )
    return run, rounds


def test_the_windows_spread_is_said_unstable_and_the_hosts_cpu_host_busy() -> None:
    from perf.analysis.stats.notes import flag_words  # the one function every output says a level's flags with

    said = flag_words("host busy", [_spread(12), _spread(38), _spread(20), BUSY], "round")
    assert said == f"host busy ({BUSY}); unstable (in 3 rounds, its 3 windows' throughput spread 12–38 % (more than ±10 %))"
    assert flag_words("unstable", [_spread(12)], "round") == f"unstable ({_spread(12)})"
    assert flag_words("host busy", [BUSY]) == f"host busy ({BUSY})" and flag_words("host busy", []) == "host busy"


def test_the_console_report_and_appendix_say_one_levels_flags_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run, rounds = _run()
    item = next(i for i in recommend(run, 10.0).flagged if i.startswith("`v`"))
    assert item.endswith(
        "host busy (" + BUSY + "); unstable (in 3 rounds, its 3 windows' throughput spread 12–38 % (more than ±10 %))"
    )
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    results.save(run, tmp_path)
    report = write_report(tmp_path).read_text() + (tmp_path / "appendix.md").read_text()
    assert "host busy (in 3 rounds, its 3 windows'" not in report and "host busy (its 3 windows'" not in report
    assert "; unstable (in 3 rounds, its 3 windows' throughput spread 12–38 %" in report
    assert "† unstable: " in report  # the legend of the word said
    out = io.StringIO()  # the console's line of each visit: the report's mark and words, not "[unstable]"
    progress = SweepProgress(Console(file=out, width=300, log_time=False, log_path=False))
    progress.task = progress.bar.add_task("rounds", total=3)
    for r, lv in enumerate(rounds):
        progress.on_event({"event": "level_done", "variant": "v", "level": lv, "round": r})
    lines = out.getvalue().splitlines()
    assert [ln.rsplit("ms", 1)[1].rstrip() for ln in lines] == [" † unstable", " † unstable", " † host busy; unstable"], lines


def test_a_level_left_out_of_the_ranking_says_its_flags_the_same_way() -> None:
    """The kind: the excluded levels' list said every note under the level's status too."""
    from perf.analysis.recommendation.excluded import excluded_levels
    from perf.analysis.stats.points import run_points

    lv = level_result(4, 900.0, None, trial=0, stable=False, host_busy=True, notes=[_spread(20), BUSY])  # no p99
    run = run_result([variant_result("x", [lv])], settings={"design": "rounds"}, rounds=RoundsRecord(seed=1))
    said = excluded_levels(run, run_points(run))
    assert said == [f"`x` at concurrency 4: host busy ({BUSY}); unstable ({_spread(20)})."], said


def test_a_table_cell_and_the_flagged_tally_state_both_flags_of_a_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """s22c left alone: a table cell said "† host busy" only (the worst of its rounds' statuses) and the note on a run of
    flagged levels counted such a level under host busy only; both now say its flags as flag_words does, and each
    legend defines every word its marks say."""
    from perf.analysis.stats.points import run_points
    from perf.cli.summary import summary
    from perf.report.sections.ranking import flagged_counts

    run, _ = _run()
    busy = [level_result(4, 400.0, 2.0, trial=r, host_busy=True, notes=[BUSY]) for r in range(3)]
    run.variants[1] = variant_result("w", busy)  # every level flagged: v host busy and unstable, w host busy
    points = {p.variant: p for ps in run_points(run).values() for p in ps}
    assert (points["v"].flags, points["w"].flags) == ("host busy; unstable", "host busy")
    assert flagged_counts(list(points.values())) == "2 of 2 host busy (1 of them unstable too)"
    assert flagged_counts([points["v"]], ["unstable"]) == "1 of 2 host busy and unstable, 1 unstable"
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    results.save(run, tmp_path)
    report = write_report(tmp_path).read_text()
    table = report.split("## Results per concurrency level")[1]
    assert "| `v` † host busy; unstable |" in table and "| `w` † host busy           |" in table
    assert "† unstable: " in table and "† host busy: " in table  # the legend defines both words the cells say
    assert "(2 of 2 host busy (1 of them unstable too))" in report  # the note on a run of flagged levels
    pick = next(ln for ln in report.splitlines() if ln.startswith("- **Best under the p99 budget"))
    assert "p99 3.00 ms † host busy; unstable — " in pick  # the Recommendation's pick, as its table cell
    said = summary(run, 10.0)
    console = io.StringIO()
    Console(file=console, width=300).print(said.table)
    text = console.getvalue()
    assert "† host busy; unstable" in text and "unstable: perf_analyzer did not reach" in text, text
