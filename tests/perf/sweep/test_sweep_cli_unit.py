"""``triton-perf sweep`` without a server: exit codes, the Ctrl-C hint, what a resumed run takes from
the saved one and what it warns about, progress lines with --trials (issue 19, items 6, 9, 10)."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from clients.server import ServerOptions
from core.cli import EXIT_INTERRUPTED, EXIT_VARIANT_FAILED
from perf.cli import main as perf_cli
from perf.records import results
from perf.records.results import RunResult
from perf.records.settings import MeasureSettings
from perf.sweep.run import SweepOptions, resumed_options, server_settings


class FakeSweep:
    """Stands in for perf.sweep.run.Sweep: records its options, returns a prepared run."""

    nothing_to_measure = False  # perf.sweep.context.SweepBase.nothing_to_measure: a fresh or unfinished run
    stopped_in_baseline = False  # perf.sweep.baseline_step.BaselineStep's: set where the stop came in the baseline

    run_result: RunResult
    interrupt = False
    seen: list[SweepOptions] = []

    def __init__(self, opts: SweepOptions, progress: Any = None):
        if opts.resume:
            opts = resumed_options(opts, SAVED)
        FakeSweep.seen.append(opts)
        self.opts, self.progress = opts, progress
        self.run = self.run_result
        self.names = [v.name for v in self.run.variants]
        self.run_id = opts.run_id or "r1"
        self.run_dir = Path(opts.results_dir) / self.run_id
        self.plans: dict[str, Any] = {}  # no plan: the opening says no inputs (tests/perf/sweep/test_sweep_opening_unit.py)

    def level_counts(self) -> tuple[int, int]:
        n = sum(len(v.levels) for v in self.run.variants)
        return n, 0

    def run_all(self) -> RunResult:
        if self.interrupt:
            if self.interrupt != "before the first save":  # a real sweep saves before its server starts
                results.save(self.run, self.run_dir)
            self.stopped_in_baseline = self.interrupt == "in the baseline"
            raise KeyboardInterrupt
        for i, v in enumerate(self.run.variants):
            if v.levels:
                self.progress({"event": "variant_loading", "variant": v.name})
                self.progress({"event": "variant_loaded", "variant": v.name, "seconds": 9.25})
            for lv in v.levels:
                self.progress(
                    {
                        "event": "level_start",
                        "variant": v.name,
                        "index": i,
                        "n_variants": len(self.names),
                        "concurrency": lv.concurrency,
                        "batch_size": lv.batch_size,
                        "trial": lv.trial,
                        "request_rate": None,
                    }
                )
                self.progress({"event": "level_done", "variant": v.name, "level": lv})
            if v.status == "failed":
                self.progress({"event": "variant_failed", "variant": v.name, "error": v.error})
        return self.run


SAVED: dict[str, Any] = {
    "repository": "/somewhere/model_repository",
    "variants": ["a"],
    "concurrency": [1, 2],
    "batch_sizes": [1],
    "request_rates": [],
    "trials": 2,
    "latency_budget_ms": None,
    **dataclasses.asdict(MeasureSettings(measurement_interval_ms=700, extra_args=("--max-threads=4",))),
    "server": {**server_settings(ServerOptions(Path("x"), runtime="bundled", metrics_interval_ms=250))},
    "perf_analyzer": "/opt/pa/perf_analyzer",
    "input_data": None,
}


def _run(*statuses: str, trials: int = 1) -> RunResult:
    """Variants ``v0``, ``v1``, ... with these statuses; an ``ok`` one measured concurrency 1 ``trials`` times."""
    return run_result(
        [
            variant_result(
                f"v{i}",
                [level_result(1, 100.0, 2.0, batch_size=1, trial=t) for t in range(trials)] if s == "ok" else [],
                status=s,
                error=None if s == "ok" else "could not load: backend missing",
            )
            for i, s in enumerate(statuses)
        ],
        run_id="r1",
    )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import perf.sweep.run

    FakeSweep.seen = []
    FakeSweep.interrupt = False
    FakeSweep.stopped_in_baseline = False
    monkeypatch.setattr(perf.sweep.run, "Sweep", FakeSweep)
    monkeypatch.chdir(tmp_path)
    return FakeSweep


def _sweep(*args: str):
    return CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", *args])


def test_a_failed_variant_makes_a_distinct_exit_code(fake) -> None:
    fake.run_result = _run("ok", "failed")
    res = _sweep()
    assert res.exit_code == EXIT_VARIANT_FAILED == 3, res.output
    assert "1 of 2 variants failed (v1)" in res.output and "--allow-failed-variants" in res.output
    log = res.output.split("results: ")[0]  # the summary table after it names the failure in its row (as with a report)
    assert log.count("could not load: backend missing") == 1  # printed once
    res = _sweep("--allow-failed-variants")
    assert res.exit_code == 0 and "1 of 2 variants failed (v1); exit 0 (--allow-failed-variants)" in res.output
    fake.run_result = _run("ok", "ok")
    assert _sweep().exit_code == 0
    fake.run_result = _run("failed", "failed")  # nothing measured: an error, whatever the flag says
    res = _sweep("--allow-failed-variants")
    assert res.exit_code == 1 and "no variant was measured" in str(res.exception)


def test_the_failed_count_is_out_of_the_variants_tried_not_the_skipped_ones(fake) -> None:
    fake.run_result = _run("ok", "failed", "skipped", "skipped")  # issue 26: "1 of 4 variants failed"
    res = _sweep("--allow-failed-variants")
    assert res.exit_code == 0 and "1 of 2 variants failed (v1); exit 0" in res.output, res.output


def test_ctrl_c_hint_names_the_results_dir(fake, tmp_path: Path) -> None:
    """The command works pasted in any folder: the script and the results folder by their absolute
    paths (a relative perf/run_sweep.sh, or a missing --results-dir, named no run from elsewhere)."""
    fake.run_result = _run("ok")
    fake.interrupt = True
    res = _sweep("--results-dir", "elsewhere/runs", "--run-id", "r7")
    assert res.exit_code == EXIT_INTERRUPTED
    script = Path(perf_cli.__file__).resolve().parents[1] / "run_sweep.sh"
    assert script.is_file()
    said = f"continue with {script} --resume r7 --results-dir {tmp_path / 'elsewhere' / 'runs'}"
    assert said in " ".join(res.output.split()), res.output


def test_ctrl_c_before_the_first_save_says_to_start_again_not_to_resume(fake, tmp_path: Path) -> None:
    """A run stopped before its first save has no results.json: --resume would find "no run to
    resume", so the line says what works (the same --run-id starts it again)."""
    fake.run_result = _run("ok")
    fake.interrupt = "before the first save"
    res = _sweep("--results-dir", "runs", "--run-id", "r8")
    assert res.exit_code == EXIT_INTERRUPTED
    text = " ".join(res.output.split())
    assert "interrupted (Ctrl-C) before the run's first save: nothing was measured; the same command with --run-id r8" in text
    assert "--resume" not in text


def test_ctrl_c_before_the_first_level_says_nothing_was_measured_yet_not_kept(fake, tmp_path: Path) -> None:
    """Trial 8, F20: a Ctrl-C during the loads (saved, no level measured) said "measurements so far
    are kept in results/<id>"; the line says what the folder holds: nothing measured yet, and
    both the same command and --resume start it again (perf.sweep.preflight.take_again)."""
    fake.run_result = _run("pending", "pending")
    fake.interrupt = True
    res = _sweep("--results-dir", "runs", "--run-id", "r9")
    assert res.exit_code == EXIT_INTERRUPTED
    text = " ".join(res.output.split())
    where = tmp_path / "runs" / "r9"
    assert (
        f"interrupted (Ctrl-C) before its first measurement: nothing was measured yet (its settings are saved in {where})" in text
    )
    assert "the same command with --run-id r9 starts it again, as does " in text and "--resume r9" in text
    assert "kept" not in text
    fake.run_result = _run("ok", "pending")  # one level measured: what it holds is said, and kept
    res = _sweep("--results-dir", "runs2", "--run-id", "r9")
    text = " ".join(res.output.split())
    assert (
        f"interrupted (Ctrl-C): it holds 1 measured level; numbers for 1 of 2 variants, 1 not measured (`v1`), kept in {tmp_path / 'runs2' / 'r9'}"
        in text
    )


def test_resume_takes_every_setting_and_warns_only_about_what_was_passed(fake) -> None:
    fake.run_result = _run("ok")
    res = _sweep("--resume", "r1")
    assert res.exit_code == 0, res.output
    o = fake.seen[-1]
    assert o.server.runtime == "bundled" and o.server.metrics_interval_ms == 250  # not the defaults auto / 500
    assert o.server.repository == Path("/somewhere/model_repository")
    assert o.measure.measurement_interval_ms == 700 and o.measure.extra_args == ("--max-threads=4",)
    assert o.trials == 2 and tuple(o.concurrency) == (1, 2) and o.perf_analyzer == Path("/opt/pa/perf_analyzer")
    assert "resume:" not in res.output  # nothing was passed (the default ./model_repository is not /somewhere/...)
    res = _sweep("--resume", "r1", "--concurrency", "4", "--runtime", "container", "--repository", "other_repo")
    said = " ".join(res.output.split())
    assert "--concurrency 4 ignored" in said and "--runtime container" in said and "--repository other_repo ignored" in said
    assert fake.seen[-1].server.runtime == "bundled" and tuple(fake.seen[-1].concurrency) == (1, 2)


def test_resumed_options_of_a_run_saved_before_server_settings_were_recorded() -> None:
    old = {k: v for k, v in SAVED.items() if k not in ("server", "perf_analyzer", "input_data")}
    opts = SweepOptions(ServerOptions(Path("model_repository"), runtime="bundled"), resume=True, run_id="r1")
    got = resumed_options(opts, old)
    assert got.server.runtime == "bundled" and got.perf_analyzer is None  # kept from what was passed


def test_progress_lines_carry_the_trial_number_with_trials(fake) -> None:
    fake.run_result = _run("ok", trials=3)
    res = _sweep("--trials", "3")
    assert "v0 c=1 b=1 t=1/3" in res.output and "v0 c=1 b=1 t=3/3" in res.output
    fake.run_result = _run("ok")
    assert " t=1/" not in _sweep().output


def test_log_lines_show_no_source_path_unless_verbose(fake) -> None:
    fake.run_result = _run("ok", "failed")
    quiet = _sweep("--allow-failed-variants").output
    assert ".py:" not in quiet


def test_resume_warns_per_measurement_flag_the_user_set(caplog: pytest.LogCaptureFixture) -> None:
    """A flag given with the saved value warns nothing; another value warns once, by name, not
    with the whole MeasureSettings object."""
    saved = {**SAVED, **dataclasses.asdict(MeasureSettings(measurement_interval_ms=300, max_trials=10))}
    same = SweepOptions(
        server=ServerOptions(Path("/somewhere/model_repository")),
        measure=MeasureSettings(measurement_interval_ms=300),
        resume=True,
        given=frozenset({"measure"}),
    )
    with caplog.at_level("WARNING"):
        resumed_options(same, saved)
    assert not [r for r in caplog.records if "measurement_interval_ms" in r.getMessage() or "MeasureSettings" in r.getMessage()]
    caplog.clear()
    other = dataclasses.replace(same, measure=MeasureSettings(measurement_interval_ms=900))
    with caplog.at_level("WARNING"):
        got = resumed_options(other, saved)
    messages = [r.getMessage() for r in caplog.records]
    assert got.measure.measurement_interval_ms == 300
    assert any("--measurement-interval 900 ignored" in m and "saved --measurement-interval 300" in m for m in messages)
    assert not any("MeasureSettings(" in m for m in messages)


def test_resume_names_the_round_window_that_took_effect_not_none(caplog: pytest.LogCaptureFixture) -> None:
    # the trial: "round_window_ms 100 ignored; the run continues with its saved None"
    saved = {**SAVED, "round_window_ms": None}
    opts = SweepOptions(
        server=ServerOptions(Path("/somewhere/model_repository")),
        round_window_ms=100,
        resume=True,
        given=frozenset({"round_window_ms"}),
    )
    with caplog.at_level("WARNING"):
        resumed_options(opts, saved)
    msg = " ".join(r.getMessage() for r in caplog.records)
    assert "--round-window 100 ignored; the run continues with its saved --round-window 300" in msg and "saved None" not in msg
    assert "round_window_ms" not in msg  # the flag typed, not the field (trial 9, F19)


PA_ERROR = "Pass [2] cb::Error: No valid requests recorded within time interval. Please use a larger time window."


def test_a_failed_measurement_is_said_on_the_console_with_perf_analyzers_message(fake) -> None:
    """The trial: a rounds visit that failed showed only in results.json and flat.csv."""
    run = _run("ok", trials=2)
    run.variants[0].levels.append(level_result(2, None, None, batch_size=1, trial=1, error=PA_ERROR + " [/x]" + " word" * 80))
    fake.run_result = run
    res = _sweep()
    lines = res.output.splitlines()
    said = [ln for ln in lines if "v0 c=2 b=1" in ln and "failed: Pass [2] cb::Error: No valid requests" in ln]
    assert said, res.output  # as it happened, escaped (the [2] and [/x] are text, not rich markup)
    assert "(cut; the whole message is in results.json)" in said[0] and len(said[0]) < 400
    assert any(ln.startswith("failed measurement: v0 c=2 b=1, trial 2: Pass [2] cb::Error") for ln in lines), res.output


def test_a_redirected_log_says_each_load_and_draws_no_idle_bar(fake) -> None:
    # the trial: 74 s of silence while 8 variants loaded, and "starting tritonserver ━━ 0/0" where no server started
    fake.run_result = _run("ok", "ok")
    out = _sweep().output.split("results: ")[0]  # the log, before the summary table (drawn with ━)
    assert "loaded v0 in 9.2 s" in out and "loaded v1 in 9.2 s" in out
    assert "━" not in out and "starting tritonserver" not in out  # off a terminal: log lines, no bar frames
    fake.run_result, fake.interrupt = _run("failed"), True
    out = _sweep().output
    assert "0/0" not in out and "starting tritonserver" not in out


def test_on_a_terminal_a_bar_nothing_moved_is_not_drawn() -> None:
    import io

    from rich.console import Console

    from perf.cli.sweep_progress import SweepProgress

    for total, drawn in ((0, False), (3, True)):
        buf = io.StringIO()
        progress = SweepProgress(Console(file=buf, force_terminal=True, width=100))
        with progress.bar:
            progress.task = progress.bar.add_task("starting tritonserver", total=total)
            progress.drop_if_idle()
        last = buf.getvalue().rsplit("\r\x1b[2K", 1)[-1]  # what stays on the screen: the last frame
        assert ("starting tritonserver" in last) is drawn


class TimedSweep(FakeSweep):  # trial 17, T17-14
    """A sweep whose session says 8 s of start-up and 17 s on the budget's clock, its command started 30 s ago."""

    def run_all(self) -> RunResult:
        from perf.records.results import Session

        run = super().run_all()
        self.invoked_at = time.monotonic() - 30.0
        run.sessions = [Session("now", "finished", startup_s=8.0, budget_clock_s=17.0)]
        results.save(run, self.run_dir)
        return run


def test_the_end_line_splits_the_wall_time_into_the_budgets_clock_and_what_lay_outside_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import perf.sweep.run
    from perf.cli import sweep as sweep_cli
    from perf.sweep.budget_scope import COVERS

    monkeypatch.setattr(perf.sweep.run, "Sweep", TimedSweep)
    monkeypatch.chdir(tmp_path)
    TimedSweep.run_result = _run("ok")
    TimedSweep.interrupt = False
    monkeypatch.setattr(sweep_cli, "print_report", lambda *a, **k: time.sleep(2.1))  # the report and plots: 2 s
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--time-budget", "20s"])
    assert res.exit_code == 0, res.output
    (line,) = [x for x in res.output.splitlines() if x.startswith("time: ")]
    total, outside = re.fullmatch(r"time: (\d+) s in all: .*; outside it (\d+) s: .*", line).groups()  # type: ignore[union-attr]
    assert 32 <= int(total) <= 34 and int(total) == 17 + int(outside)  # 30 s ago, then the report's 2 s
    assert f"in all: 17 s on the clock of the 20 s time budget ({COVERS}); outside it " in line
    assert "8 s of start-up before it, 2 s for the report and plots after it" in line
    saved = results.load(tmp_path / "results" / "r1").sessions[-1]  # the report's time is recorded with the run's
    assert saved.report_s is not None and 2.0 <= saved.report_s < 3.0 and saved.budget_clock_s == 17.0


def test_a_resumes_end_line_names_the_budget_left_of_the_runs_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """T24-12: the resume of a 150 s run (139 s spent) ended "0 s on the clock of the 11 s time budget"."""
    import perf.sweep.run
    from perf.cli import sweep as sweep_cli

    monkeypatch.setattr(perf.sweep.run, "Sweep", TimedSweep)
    monkeypatch.chdir(tmp_path)
    run = _run("ok")
    run.settings = {"time_budget_s": 150.0}  # type: ignore[typeddict-item]
    TimedSweep.run_result, TimedSweep.interrupt = run, False
    monkeypatch.setattr(sweep_cli, "print_report", lambda *a, **k: None)
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--run-id", "r1", "--time-budget", "11s"])
    assert "s on the clock of the 11 s time budget" in res.output, res.output  # a fresh run's budget: its own
    # the fake stands in for perf.sweep.context, which gives a resume what is left of the run's budget
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--resume", "r1", "--time-budget", "11s"])
    assert "17 s on the clock of the 11 s left of the run's 150 s time budget" in res.output, res.output


def test_ctrl_c_says_the_time_budget_its_resume_goes_on_with(fake, tmp_path: Path) -> None:
    """The printed resume carries no --time-budget: it goes on with what is left of the run's own, and says so (the
    line named the command alone, and whether it ran without a budget, a fresh default or the rest was not said)."""
    from perf.records.rounds import BudgetRecord, RoundsRecord

    run = _run("ok")
    run.rounds = RoundsRecord(seed=1, budget=BudgetRecord(120.0, 1.25, 5.0, 84.0, 7, spent_s=49.0))
    run.settings = {"time_budget_s": 120.0}  # type: ignore[typeddict-item]
    fake.run_result, fake.interrupt = run, True
    res = _sweep("--results-dir", "runs", "--run-id", "r7", "--time-budget", "2m")
    assert res.exit_code == EXIT_INTERRUPTED
    text = " ".join(res.output.split())
    assert "--resume r7 --results-dir " in text, text
    assert text.rstrip().endswith(
        ", within what is left of the run's own 120 s time budget: 71 s after the 49 s it spent (--time-budget gives a new one)"
    ), text


def test_a_failure_a_later_trial_measured_is_said_as_such_at_the_end(fake) -> None:
    """Trial 22, F-resume-stale-fail: "failed measurement: ... round 2: Received exit signal." at the end of a resume
    that measured the level since (rounds 5, 6): said as failed, then measured, with the trials since."""
    run = _run("ok", trials=3)
    run.variants[0].levels = [lv for lv in run.variants[0].levels if lv.trial != 0]
    run.variants[0].levels.append(level_result(1, None, None, batch_size=1, trial=0, error="Received exit signal."))
    fake.run_result = run
    lines = _sweep().output.splitlines()
    assert not any(ln.startswith("failed measurement:") for ln in lines), lines
    assert "failed, then measured: v0 c=1 b=1, trial 1: Received exit signal; measured since in trials 2, 3" in lines, lines


def test_a_failure_said_as_a_failed_measurement_is_not_said_again_in_the_last_error(fake) -> None:
    """Trial 23, T23-6: the server's ~500-character error was said four times: the level's line, the variant's
    'failed:' line, the failed measurement line and the final 'no variant was measured' error."""
    run = _run("failed")
    error = "perf_analyzer reported request errors: " + "indices element out of data bounds " * 12
    run.variants[0].levels.append(level_result(1, None, None, batch_size=1, error=error))
    run.variants[0].error = error
    fake.run_result = run
    res = _sweep("--allow-failed-variants")
    said = res.output + str(res.exception)
    assert "no variant was measured: v0: failed: its failed measurement is said above" in str(res.exception)
    # the level's own line as it happened and the end's list of failed measurements; the variant's line and the
    # last error point to them
    assert said.count("perf_analyzer reported request errors") == 2, said
    assert "v0 failed: its level failed as said above" in res.output


def test_a_stop_in_the_in_process_baseline_says_the_baseline_was_what_it_stopped(fake, tmp_path: Path) -> None:
    """Trial 24, T24-17: a SIGTERM at "in-process baseline segnet: round 3 of 8" said only "interrupted (SIGTERM): it
    holds 9 visits in 3 rounds; ...": nothing said the measurements on the server had ended and the baseline was cut."""
    fake.run_result, fake.interrupt = _run("ok"), "in the baseline"
    res = _sweep("--results-dir", "runs", "--run-id", "r7")
    assert res.exit_code == EXIT_INTERRUPTED
    text = " ".join(res.output.split())
    assert (
        "interrupted (Ctrl-C) in the in-process baseline, after the measurements on the server had ended: it holds 1 "
        "measured level" in text
    ), text
    fake.interrupt = True  # a stop in the measurements: no word of the baseline
    res = _sweep("--results-dir", "runs2", "--run-id", "r7")
    assert "interrupted (Ctrl-C): it holds" in " ".join(res.output.split()) and "baseline" not in res.output
