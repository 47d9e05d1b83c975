"""What a sweep saves of its options and takes back on resume (issue 23 item 2): the options
object round-trips through results.json; a flag given now (click's ParameterSource, even at
its default value) replaces a report setting; a results.json written before the newer keys
still resumes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner

from clients.runtimes.options import ServerOptions, image_for_tag
from perf.cli import main as perf_cli
from perf.records import results
from perf.records.results import RunResult, VariantResult
from perf.records.settings import MeasureSettings
from perf.sweep.options import RUN_FLAGS, SweepOptions
from perf.sweep.resuming import resumed_options, run_settings

ROOT = Path(__file__).resolve().parents[3]


def _options(tmp_path: Path) -> SweepOptions:
    server = ServerOptions(tmp_path / "repo", runtime="bundled", http_port=8100, extra_args=("--log-info=false",), tag="24.01")
    return SweepOptions(
        server,
        variants=("m_*",),
        concurrency=(1, 4),
        search="prune",
        batch_sizes=(1, 8),
        request_rates=(50.0,),
        measure=MeasureSettings(measurement_interval_ms=700, extra_args=("--max-threads=4",)),
        trials=2,
        perf_analyzer=tmp_path / "pa",
        shapes={"ids": (16,)},
        sweep_axes={"seq": (16, 64)},
        latency_budget_ms=20.0,
        latency_percentile=95,
        host_busy_threshold_pct=25.0,
        baseline=False,
    )


def test_the_saved_options_come_back_whole(tmp_path: Path) -> None:
    opts = _options(tmp_path)
    saved = json.loads(json.dumps(run_settings(opts, ["m_a", "m_b"], "prune")))  # as results.json holds them
    fresh = SweepOptions(ServerOptions(tmp_path / "repo"), resume=True, run_id="r1", given=frozenset())
    got = resumed_options(fresh, saved)
    assert got.variants == ("m_a", "m_b")  # the names the patterns matched
    assert got.server.image == image_for_tag("24.01") and got.server.extra_args == ("--log-info=false",)
    for f in dataclasses.fields(SweepOptions):
        if f.name not in (*RUN_FLAGS, "variants", "resume", "given", "run_id"):
            assert getattr(got, f.name) == getattr(opts, f.name), f.name


class _FakeSweep:
    """Stands in for perf.sweep.run.Sweep: resumes from ``saved``, records the options."""

    nothing_to_measure = False  # perf.sweep.context.SweepBase.nothing_to_measure: a fresh or unfinished run

    saved: dict[str, Any] = {}
    seen: list[SweepOptions] = []

    def __init__(self, opts: SweepOptions, progress: Any = None):
        if opts.resume:
            opts = resumed_options(opts, self.saved)
        _FakeSweep.seen.append(opts)
        self.opts, self.run_id = opts, opts.run_id or "r1"
        self.run_dir = Path(opts.results_dir) / self.run_id
        self.run = RunResult("r1", "now", variants=[VariantResult("v", None, "ok", None, [])])
        self.names = ["v"]  # perf.sweep.run.Sweep.names: the variants a resume checks for rebuilt files (6cd2e69)
        self.plans: dict[str, Any] = {}

    def close(self) -> None:
        pass

    def level_counts(self) -> tuple[int, int]:
        return 0, 0

    def run_all(self) -> RunResult:
        return self.run


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> type[_FakeSweep]:
    import perf.sweep.run

    _FakeSweep.saved = json.loads(json.dumps(run_settings(_options(tmp_path), ["m_a"], "prune")))
    _FakeSweep.seen = []
    monkeypatch.setattr(perf.sweep.run, "Sweep", _FakeSweep)
    monkeypatch.chdir(tmp_path)
    return _FakeSweep


def _sweep(*args: str) -> Any:
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", *args])
    assert res.exit_code == 0, res.output
    return res


def test_resume_takes_back_the_saved_options_and_a_given_flag_overrides(fake: type[_FakeSweep]) -> None:
    _sweep("--resume", "r1")
    o = fake.seen[-1]
    assert o.latency_percentile == 95 and o.latency_budget_ms == 20.0 and o.trials == 2  # the run's, not the defaults
    assert o.server.runtime == "bundled" and o.server.http_port == 8100 and o.measure.measurement_interval_ms == 700
    # 99 is the flag's default: only ParameterSource tells that it was given, and then it replaces the saved 95
    _sweep("--resume", "r1", "--latency-percentile", "99", "--latency-budget-ms", "5")
    o = fake.seen[-1]
    assert o.latency_percentile == 99 and o.latency_budget_ms == 5.0
    assert fake.seen[-1].given is not None and "latency_percentile" in fake.seen[-1].given
    res = _sweep("--resume", "r1", "--trials", "1", "--measurement-interval", "300")  # measured settings: the saved ones
    said = " ".join(res.output.split())
    assert fake.seen[-1].trials == 2 and "--trials 1 ignored" in said
    assert fake.seen[-1].measure.measurement_interval_ms == 700 and "--measurement-interval 300 ignored" in said


def test_a_results_file_written_before_the_newer_keys_still_resumes(tmp_path: Path) -> None:
    # tests/data/demo_run: no search, latency_percentile, sweep_axes, tag, remote-server keys
    run = results.load(ROOT / "tests" / "data" / "demo_run")
    settings = dict(run.settings)
    assert not {"search", "latency_percentile", "sweep_axes"} & set(settings) and "tag" not in settings["server"]
    fresh = SweepOptions(ServerOptions(tmp_path, tag="23.12"), resume=True, run_id=run.run_id, given=frozenset({"server"}))
    got = resumed_options(fresh, settings)
    assert got.search == "brute" and got.sweep_axes == {} and got.latency_percentile == 99
    assert got.server.runtime == settings["server"]["runtime"] and got.server.image == settings["server"]["image"]
    assert got.server.repository == Path(settings["repository"]) and got.variants == tuple(settings["variants"])
    assert got.server.urls == () and got.server.deploy is True  # keys the old run did not save: as passed now


@pytest.mark.parametrize(("text", "seconds"), [("6m", 360.0), ("90s", 90.0), ("1m30s", 90.0), ("300", 300.0), ("none", None)])
def test_the_time_budget_takes_the_durations_its_help_names(fake: type[_FakeSweep], text: str, seconds: float | None) -> None:
    """`--time-budget 6m` (the demo's) reached the parser only after click had refused it as a float."""
    _sweep("--time-budget", text)
    assert fake.seen[-1].time_budget_s == seconds


def test_the_time_budget_default_is_the_help_s_6m(fake: type[_FakeSweep]) -> None:
    _sweep()
    assert fake.seen[-1].time_budget_s == 360.0


@pytest.mark.parametrize("text", ["abc", "0", "5x", "-1m"])
def test_a_bad_time_budget_is_one_usage_error(fake: type[_FakeSweep], text: str) -> None:
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", "--time-budget", text])
    said = " ".join(res.output.split())
    assert res.exit_code == 2 and "--time-budget" in said and f"time budget '{text}' is not" in said
    assert "not a valid float" not in said and "Traceback" not in said


def test_resume_honours_a_saved_no_baseline_unless_given_again(fake: type[_FakeSweep]) -> None:
    """Issue 26: a run started with --no-baseline measured the in-process baseline when resumed."""
    assert fake.saved["baseline"] is False  # saved with the run
    res = _sweep("--resume", "r1")
    assert fake.seen[-1].baseline is False
    assert "no in-process baseline (--no-baseline)" in " ".join(res.output.split())
    fake.saved = {**fake.saved, "baseline": True}
    _sweep("--resume", "r1", "--no-baseline")  # given again: it replaces the saved value
    assert fake.seen[-1].baseline is False
    _sweep("--resume", "r1")
    assert fake.seen[-1].baseline is True


def test_resume_says_what_it_kept_and_what_it_will_measure(fake: type[_FakeSweep]) -> None:
    """Issue 26: a resumed run printed no line saying what it kept and what it would measure."""
    from factories import level_result

    from perf.search.plan import VariantPlan

    class Resumed(_FakeSweep):
        def __init__(self, opts: SweepOptions, progress: Any = None):
            super().__init__(opts, progress)
            done = [level_result(c, 100.0, 2.0) for c in (1, 2)]
            self.run = RunResult("r1", "now", variants=[VariantResult("m_a", None, "ok", None, done)])
            self.plans = {"m_a": VariantPlan("m_a", [(c, 1, 0, None, None) for c in (1, 2, 4, 8)])}
            self.repository = None  # no config in the plan: no inputs line

    import perf.sweep.run

    perf.sweep.run.Sweep = Resumed  # the fixture's monkeypatch puts the original back
    fake.saved = {**fake.saved, "design": "sequential"}
    said = " ".join(_sweep("--resume", "r1", "--latency-budget-ms", "9").output.split())
    line = said.split("resume r1 — ")[1]
    assert line.startswith("kept: its settings (concurrency 1,4, batch 1,8, 2 trials, design sequential, 700 ms windows")
    assert (
        "and 2 measured levels of 1 variant; set now: --latency-budget-ms 9 (the run had none); will measure: up to 2 "
        "levels of 1 variant" in line
    )  # break-it F15: it said "given again" of a budget the run never had
    assert "no in-process baseline (--no-baseline)" in line
    fake.saved = {**fake.saved, "design": "rounds"}
    line = " ".join(_sweep("--resume", "r1").output.split()).split("resume r1 — ")[1]
    assert line.startswith("kept: its settings (concurrency 1,4, batch 1,8, 2 trials, design rounds, 300 ms round windows")


def test_the_resume_line_says_given_again_only_of_a_setting_the_run_had_as_typed() -> None:
    """Break-it F15: ``--latency-budget-ms 5`` on a run swept without a budget was "given again"."""
    from perf.sweep.opening import given_words

    opts = SweepOptions(ServerOptions(Path("m")), latency_budget_ms=5.0, allow_shared_host=True)
    run = RunResult("r1", "now", settings=cast(Any, {"latency_budget_ms": 5.0, "allow_shared_host": False}))
    assert given_words(run, opts, frozenset({"latency_budget_ms"})) == "; given again: --latency-budget-ms"
    words = given_words(run, opts, frozenset({"latency_budget_ms", "allow_shared_host"}))
    assert words == ("; given again: --latency-budget-ms; set now: --allow-shared-host (the run's: without --allow-shared-host)")
    run.settings = cast(Any, {"latency_budget_ms": None})
    assert given_words(run, opts, frozenset({"latency_budget_ms"})) == "; set now: --latency-budget-ms 5 (the run had none)"
    assert given_words(run, opts, frozenset()) == ""
