"""``triton-perf baseline --time-budget`` (re-check 14, NEW-5): a budget its estimate does not fit is refused
before anything starts, by the sweep's start rule; what a budget cuts names whose budget it was (no sweep
runs there); a baseline that measured nothing because of the budget is told of the budget, not of build
records and GPUs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from core.errors import PerfError
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile import estimate as est
from perf.profile.checks import refuse_nothing_measured
from perf.profile.estimate import BaselineEstimate
from perf.profile.timing import COMMAND_BUDGET, SWEEP_BUDGET, OutOfTime
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineSize, BaselineTarget
from perf.sweep.baseline_words import baseline_start_s

ESTIMATE_S = 34.0  # the re-check's estimate: 4 variants, 16 points
KEY = BaselineKey("cnn", "onnx", threads=1)


def test_a_budget_its_estimate_does_not_fit_is_refused_before_it_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    started: list[Any] = []
    monkeypatch.setattr(est, "estimate", lambda opts, *a, **k: BaselineEstimate(ESTIMATE_S, 4, 16, guessed=False))
    monkeypatch.setattr(api, "run_baseline", lambda *a, **k: started.append(a))
    start_s = baseline_start_s(ESTIMATE_S)
    res = CliRunner().invoke(cli, ["baseline", str(tmp_path), "--time-budget", "5s", "--out", str(tmp_path / "bl")])
    assert res.exit_code == 1 and isinstance(res.exception, PerfError) and not started, res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert "in-process baseline not started: an estimated 34 s (4 variants, 16 points) does not fit --time-budget 5s" in text
    assert f"--time-budget {start_s}s is the smallest it starts with" in text and "build record" not in text
    assert not (tmp_path / "bl").exists()


def test_a_budget_that_fits_by_the_sweeps_rule_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    started: list[Any] = []

    def run_baseline(*a: Any, **k: Any) -> None:
        started.append(a)
        raise PerfError("started; the measurement itself: test_the_cut_notes_name_whose_time_budget_ran_out")

    monkeypatch.setattr(est, "estimate", lambda opts, *a, **k: BaselineEstimate(ESTIMATE_S, 4, 16, guessed=False))
    monkeypatch.setattr(api, "run_baseline", run_baseline)
    budget = baseline_start_s(ESTIMATE_S) + 1  # the deadline is set before the estimate: a second of slack
    CliRunner().invoke(cli, ["baseline", str(tmp_path), "--time-budget", f"{budget}s", "--out", str(tmp_path / "bl")])
    assert started


def _planned(monkeypatch: pytest.MonkeyPatch, measure: Any) -> None:
    target = BaselineTarget("cnn_onnx_cpu1_nodb_mbs8", KEY, batch_sizes=[1], sizes=[BaselineSize(None, [1])])
    monkeypatch.setattr(api, "plan_targets", lambda opts, **_: ([(target, None, "onnx", "model.onnx")], []))
    monkeypatch.setattr(api, "measure_keys", measure)


@pytest.mark.parametrize("budget", [COMMAND_BUDGET, SWEEP_BUDGET])
def test_the_cut_notes_name_whose_time_budget_ran_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: str):
    def cut_after_one_round(group: Any, timing: Any, *a: Any, **k: Any) -> list[BaselinePoint]:
        return [BaselinePoint(KEY, 1, throughput_infer_per_s=10.0, latency_p50_ms=1.0, rounds_ms=[1.0])]

    _planned(monkeypatch, cut_after_one_round)
    result = api.run_baseline(api.BaselineOptions(tmp_path, eager=False, deadline=time.monotonic() + 60, budget=budget))
    assert result.notes == [f"`cnn`: timed in 1 of {result.settings.rounds} rounds: {budget} ran out"]
    spent = api.run_baseline(api.BaselineOptions(tmp_path, eager=False, deadline=time.monotonic() - 1, budget=budget))
    assert spent.notes == [f"`cnn`: not measured: {budget} was spent before it"]


def test_a_baseline_the_budget_cut_to_nothing_is_told_of_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def out_of_time(*a: Any, **k: Any) -> list[BaselinePoint]:
        raise OutOfTime(None, -1.0)

    _planned(monkeypatch, out_of_time)
    opts = api.BaselineOptions(tmp_path, eager=False, deadline=time.monotonic() + 60, budget=COMMAND_BUDGET)
    result = api.run_baseline(opts)
    assert result.notes == [f"`cnn`: not measured: {COMMAND_BUDGET} ran out before its first round"]
    with pytest.raises(PerfError) as e:
        refuse_nothing_measured(result, "nothing was written")
    assert "--time-budget" in (e.value.hint or "") and "build record" not in (e.value.hint or "")
