"""perf_analyzer's "No valid requests recorded within time interval. Please use a larger time window." names a
flag of its own the toolkit sets (trial 13, T13-7): the level's error says the toolkit's flag for that window
in the run's design (--round-window, --measurement-interval for --design sequential) and a value to try."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from factories import level_result

from clients.runtimes.options import ServerOptions
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.sweep import context
from perf.sweep.context import SweepBase
from perf.sweep.design_flags import flag_of, window_hint
from perf.sweep.options import SweepOptions

PA = "Pass [2] cb::Error: No valid requests recorded within time interval. Please use a larger time window."


def _sweep(design: str, levels: list[LevelResult]) -> Any:
    run = RunResult("r", "now", variants=[VariantResult("ts", levels=levels)])
    run.rounds = RoundsRecord(seed=1) if design == "rounds" else None
    opts = SweepOptions(ServerOptions(Path("repo")), design=design)  # type: ignore[arg-type]
    return SimpleNamespace(
        opts=opts, run=run, design=design, pa=Path("pa"), run_dir=Path("."), _server=lambda: None, _record_command=None
    )


@pytest.mark.parametrize("design", ["rounds", "sequential"])
def test_a_window_without_a_request_names_the_toolkits_window_flag(monkeypatch: pytest.MonkeyPatch, design: str) -> None:
    failed = dataclasses.replace(level_result(4), error=PA)
    for name in ("measure_visit", "measure_level"):
        monkeypatch.setattr(context, name, lambda *a, **k: dataclasses.replace(failed))
    sw = _sweep(design, [level_result(1, 15.0, 630.0)])  # its slowest p99 measured: 630 ms
    level = SweepBase._measure(sw, "ts", 4, 1, 0, [])
    flag = "--round-window" if design == "rounds" else "--measurement-interval"
    window = sw.run.rounds.rules.window_ms if design == "rounds" else sw.opts.measure.measurement_interval_ms
    assert level.error.startswith(PA)
    assert f"no request completed within a {window} ms window, which {flag} sets: try {flag} " in level.error
    tried = int(level.error.split(f"try {flag} ")[1].split(")")[0].split(",")[0])
    assert tried >= 2 * 630.0 and tried >= 2 * window and tried % 100 == 0


def test_other_errors_are_left_as_they_are() -> None:
    assert (
        window_hint("perf_analyzer reported request errors: refused", "rounds", 300)
        == "perf_analyzer reported request errors: refused"
    )
    assert flag_of("round_window_ms") in window_hint(PA, "rounds", 300)
    assert window_hint(PA, "rounds", 300).endswith("try --round-window 600)")  # no latency measured: twice the window
