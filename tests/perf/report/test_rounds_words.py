"""A rounds run's report speaks of rounds, never of the sequential design's trials, windows or
spread rule (issue 26): its level tables said "Medians over trials", its settings listed
``trials``, ``measurement_interval_ms`` and ``max_trials`` that a round does not use (and
``round_window_ms=None``), and its main-effects sentence said "beyond its spread ... of unknown
spread" beside a section that judges pairs by the paired rule."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from factories import make_run

from perf.records.results import save
from perf.records.rounds import RoundRules, RoundsRecord
from perf.report.write import write_report


def _rounds_run():
    """The canned grid in 6 rounds; 2 instances win one round and lose the next (no paired verdict)."""
    run = make_run()
    for v in run.variants:
        swing = [1.5 if r % 2 else 0.3 for r in range(6)] if "cpu2" in v.name else [1 + 0.01 * r for r in range(6)]
        v.levels = [
            dataclasses.replace(lv, trial=r, throughput_infer_per_s=(lv.throughput_infer_per_s or 0) * swing[r])
            for r in range(6)
            for lv in v.levels
        ]
    run.settings |= {"design": "rounds", "trials": 1, "max_trials": 10, "round_window_ms": None, "seed": 1}
    run.rounds = RoundsRecord(seed=1, rules=RoundRules(window_ms=250))
    return run


def test_a_rounds_report_speaks_of_rounds(tmp_path: Path) -> None:
    save(_rounds_run(), tmp_path)
    report = write_report(tmp_path)
    text = report.read_text() + (report.parent / "appendix.md").read_text()
    assert "Medians over rounds, with the [min–max] spread over rounds" in text
    settings = next(line for line in text.splitlines() if line.startswith("- Settings: "))
    for unused in ("trials=", "measurement_interval_ms=", "max_trials=", "unstable_retries="):
        assert unused not in settings
    assert "round_window_ms=250" in settings and "design=rounds" in settings
    assert "trial" not in text.replace("max_trials", "")  # no sentence of the sequential design
    assert "its own spread" not in text and "measured more, up to" not in text  # the numbers: paired, not spread
    effects = next(line for line in text.splitlines() if line.startswith("**Main effects**"))
    assert "beyond its spread" not in effects and "unknown spread" not in effects
    assert "Not significant (its spread over pairs covers zero, or a pair is not significant by the paired rule)" in effects


def test_a_sequential_report_keeps_its_trials(tmp_path: Path) -> None:
    save(make_run(), tmp_path)
    text = write_report(tmp_path).read_text()
    assert "Medians over trials" in text and "measurement_interval_ms=1000" in text


def test_a_rounds_run_of_one_round_asks_for_rounds_not_trials(tmp_path: Path) -> None:
    run = make_run()  # one measurement per level, as a rounds run that fitted one round
    run.settings |= {"design": "rounds"}
    run.rounds = RoundsRecord(seed=1)
    save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "--trials" not in text and "measured in one round only" in text and "a longer `--time-budget`" in text


def test_a_rounds_runs_request_rate_rows_and_server_note_speak_of_rounds(tmp_path: Path) -> None:
    from factories import level_result

    from perf.records.servers import MeasuringServer
    from perf.report.sections.servers import servers_section
    from perf.report.sections.tables import request_rate_table

    run = _rounds_run()
    run.variants[0].levels.append(level_result(0, 90.0, 2.0, request_rate=100.0, trial=2))
    header = next(line for line in request_rate_table(run) if line.startswith("| variant"))
    assert "|   rounds |" in header and "trial" not in header  # the rounds that measured each level
    run.servers = [MeasuringServer(u, u, u + "/metrics", "bundled") for u in ("h:1", "h:2")]
    run.variants[0].server, run.variants[1].server = "h:1", "h:2"
    note = " ".join(servers_section(run))
    assert "compare the runs with `triton-perf compare`" in note and "--trials" not in note
