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


def test_on_a_resumed_run_the_window_advice_is_a_new_runs() -> None:
    """Trial 14, T14-3: "try --round-window 600" on a resumed run, which ignores --round-window (it keeps
    its saved window): the advice names a new run."""
    said = window_hint(PA, "rounds", 300, resumed=True)
    assert said.endswith(
        "which --round-window sets: start a new run (--run-id NEW) and try --round-window 600: a resumed run keeps "
        "its saved --round-window)"
    ), said
    assert "start a new run (--run-id NEW) and try --measurement-interval 4000" in window_hint(
        PA, "sequential", 2000, resumed=True
    )


def test_the_resume_rule_keeps_advice_a_resumed_run_takes() -> None:
    """Flags a resumed run takes (its time budget, the report's settings) stay as they are (act_on)."""
    from perf.sweep.design_flags import act_on

    assert act_on("time_budget_s", "a longer --time-budget measures it", True) == "a longer --time-budget measures it"
    assert act_on("latency_budget_ms", "give --latency-budget-ms 50", True) == "give --latency-budget-ms 50"
    assert act_on("round_window_ms", "try --round-window 600", False) == "try --round-window 600"
    assert act_on("round_window_ms", "try --round-window 600", True).startswith("start a new run (--run-id NEW)")


def test_a_resumed_sweeps_failed_visit_says_the_new_run_advice(monkeypatch: pytest.MonkeyPatch) -> None:
    failed = dataclasses.replace(level_result(1), error=PA)
    monkeypatch.setattr(context, "measure_visit", lambda *a, **k: dataclasses.replace(failed))
    sw = _sweep("rounds", [])
    sw.opts = dataclasses.replace(sw.opts, resume=True)
    assert "start a new run (--run-id NEW) and try --round-window 600" in SweepBase._measure(sw, "ts", 1, 1, 0, []).error


@pytest.mark.parametrize(("round_", "word"), [(1, "not measured this round: "), (None, "failed: ")])
def test_a_rounds_visit_whose_window_saw_no_request_is_said_not_measured_this_round(round_: int | None, word: str) -> None:
    """Trial 14, T14-3: "c=1 b=1: failed: ... No valid requests" beside its other rounds' numbers; a round's
    window with no request is no measurement that round (perf.search.failed), a sequential level's failure is one."""
    import io

    from rich.console import Console

    from perf.cli.sweep_progress import SweepProgress

    out = io.StringIO()
    p = SweepProgress(Console(file=out, width=400))
    p.task = p.bar.add_task("x", total=1)
    lv = dataclasses.replace(level_result(1), error=PA, throughput_infer_per_s=None).settle()
    assert not lv.ok
    p.on_event({"event": "level_done", "variant": "ts", "level": lv, "round": round_})
    assert f"ts c=1 b=1: {word}Pass [2]" in out.getvalue(), out.getvalue()


def test_a_rounds_visit_that_found_no_version_is_said_not_measured_this_round_not_the_repository() -> None:
    """Re-check of trial 14, NEW-3: "c=16 b=1: failed: failed to find the requested model version" while the
    model was loaded: a server-state error of that moment, no measurement that round (perf.search.failed)."""
    import io

    from rich.console import Console

    from perf.cli.sweep_progress import SweepProgress
    from perf.records.levels import TRANSIENT_WORDS

    out = io.StringIO()
    p = SweepProgress(Console(file=out, width=400))
    p.task = p.bar.add_task("x", total=1)
    version = "failed to find the requested model version"
    lv = dataclasses.replace(level_result(16), error=version, throughput_infer_per_s=None).settle()
    p.on_event({"event": "level_done", "variant": "ts", "level": lv, "round": 2})
    assert f"ts c=16 b=1: not measured this round ({TRANSIENT_WORDS}): {version}" in out.getvalue(), out.getvalue()
