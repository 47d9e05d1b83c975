"""``triton-perf baseline --trace/--precision`` is bounded and said (trial 14, T14-9: 373 s for a MobileNet's
traces and precision study, outside any budget, nothing printed): a slow call is timed in fewer rounds, from its
own first call; a time budget cuts what would end after it, said with what measures it; the estimate comes first.
And the in-process baseline's estimate reads the served compute time (T14-4 addendum: 22 s said, 38 s needed)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from builders.model.models import load_model
from perf.cli.baseline import baseline as baseline_cmd
from perf.cli.baseline import cut_words, describe_event
from perf.profile import precision_study as study
from perf.profile.timing import TimingSettings, fit_rounds, time_interleaved, timing_s
from perf.records.profile import CUT, PrecisionRow, ProfileRecord, TraceRecord

SLOW_S = 0.1
#: Calls made by the sleeping callables (counted, not timed: the host is shared, a wall-time bound flakes).
CALLS: list[int] = []


def _sleepy() -> None:
    CALLS.append(1)
    time.sleep(SLOW_S)


def test_a_slow_call_is_timed_in_the_rounds_its_bound_holds() -> None:
    """The fewest calls of 8 rounds (3 warm-up, then 5 a round) cost 43 calls a target whatever min_run_time says."""
    settings = TimingSettings(min_run_time_s=0.02, warmup_s=0.01, rounds=8, max_target_s=8 * SLOW_S)
    assert fit_rounds([SLOW_S], settings) == 1 and fit_rounds([1e-4], settings) == 8  # a fast call keeps every round
    CALLS.clear()
    (t,) = time_interleaved([_sleepy], [None], settings)
    assert len(t.round_p50_s) == 1 and t.warmup_runs == 1
    assert len(CALLS) * SLOW_S <= settings.max_target_s + 2 * SLOW_S  # 43 calls were 4.3 s
    assert timing_s([SLOW_S], settings) == pytest.approx(len(CALLS) * SLOW_S, rel=0.5)  # the estimate from its own call


class _Slow(torch.nn.Module):
    """A model whose every call sleeps (an eager fp16 conv net on a CPU, seconds a call)."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        CALLS.append(1)
        time.sleep(SLOW_S)
        return self.inner(*args)


def test_the_precision_study_of_a_slow_model_is_bounded_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    tiny = load_model("tiny", None)
    monkeypatch.setattr(study, "ROW_MAX_S", 8 * SLOW_S)
    said: list[str] = []
    CALLS.clear()
    rows = study.precision_study(_Slow(tiny.module), tiny.spec, ["fp32"], threads=1, devices=("cpu",), say=said.append)
    (row,) = rows
    assert row.status == "measured" and len(row.rounds_ms) == 1
    assert len(CALLS) < 20  # the old floors: 43 calls of the row
    # the first call's time in ms, as every latency is said (T25-20: it was "0.1 s", "1.5e+02 s" at another)
    assert len(said) == 1 and re.match(r"precision study on cpu: first calls fp32 1\d\d(\.\d)? ms; ", said[0]), said
    assert "; timed together in 1 of 8 rounds (0.8 s a row at most), an estimated 1 s" in said[0]


def test_a_time_budget_cuts_the_rows_whose_round_would_end_after_it() -> None:
    tiny = load_model("tiny", None)
    CALLS.clear()
    rows = study.precision_study(
        _Slow(tiny.module), tiny.spec, ["fp32"], threads=1, devices=("cpu",), deadline=time.monotonic() + 2 * SLOW_S
    )
    (row,) = rows
    assert row.status == CUT and (row.reason or "").startswith("the time budget: ")
    assert row.latency_median_ms is None and len(CALLS) < 10


def test_what_a_budget_cut_is_said_with_what_measures_it() -> None:
    record = ProfileRecord(
        [TraceRecord(format="onnx", profiler="", device="cpu", batch_size=1, status=CUT, reason="the time budget ran out")],
        [PrecisionRow("eager PyTorch", "cpu", p, "m", status=CUT, reason="r") for p in ("fp32", "fp16")],
    )
    assert cut_words(record, Path("results/r"), True, ["fp16"]) == (
        "cut for time: 1 trace and 2 precision rows not measured; "
        "`triton-perf baseline results/r --profile-only --trace --precision fp16 --replace` measures it without a time budget"
    )
    assert cut_words(ProfileRecord(), Path("results/r"), True, []) == ""


def test_what_measures_a_repositorys_cut_rows_writes_into_its_out() -> None:
    """A repository's cut rows are in its --out's profile.json: the command said without --out wrote a new folder."""
    record = ProfileRecord([TraceRecord(format="onnx", profiler="", device="cpu", batch_size=1, status=CUT, reason="r")])
    said = cut_words(record, Path("repo"), True, [], Path("results/b1"))
    assert "`triton-perf baseline repo --out results/b1 --profile-only --trace --replace`" in said
    assert "--out" not in cut_words(record, Path("results/r"), True, [], Path("results/r"))  # a run's folder is its out


def test_the_time_budget_is_read_by_the_sweeps_parser(tmp_path: Path) -> None:
    done = CliRunner().invoke(baseline_cmd, [str(tmp_path), "--time-budget", "2min"])
    assert done.exit_code == 2 and "time budget '2min' is not a duration" in done.output


def test_a_models_loads_are_said_before_its_first_round() -> None:
    """T14-4 addendum: 49 s between the rounds' end and the baseline's first line, nothing printed."""
    line = describe_event({"event": "baseline_loading", "model": "mobilenet", "keys": 3, "points": 12})
    assert line == "`mobilenet`: loading 3 keys and warming up its 12 points before its first round"
