"""The in-process baseline's share of a sweep's time budget (trial 7, F9: `make demo` ended its rounds
with 107 s of its 360 s unused, then skipped the baseline because its estimate was 120 s, and never
said which budget would have given it): its time is kept up front when the rounds a verdict needs fit
beside it, else it runs on what the rounds leave unless that is far below its estimate, and a skip
names the `--time-budget` that gives it."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest

from perf.analysis.ranking import MIN_ROUNDS
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRules
from perf.search import budget
from perf.search.policy import AUTO
from perf.search.policy import ladder as ladder_of
from perf.sweep import run as sweep_run

LADDER = ladder_of(AUTO, SearchRules())[0]
NAMES = [f"v{i}" for i in range(8)]
RULES = RoundRules(window_ms=300)


def test_the_baselines_time_is_kept_from_the_rounds_when_the_verdicts_rounds_fit_beside_it() -> None:
    free = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), None, True)
    verdict = budget.estimate(8, LADDER, True, 1, RULES, MIN_ROUNDS, False)
    roomy = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), verdict + free.baseline_s + 1.0, True)
    assert roomy.reserve_s == roomy.baseline_s == 8 * budget.BASELINE_S
    assert roomy.rounds >= MIN_ROUNDS and roomy.estimate_s + roomy.reserve_s <= verdict + free.baseline_s + 1.0
    # the rounds a verdict needs do not fit beside it: nothing kept, it yields to the rounds
    tight = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), verdict + free.baseline_s / 2, True)
    assert tight.reserve_s == 0.0 and tight.rounds >= MIN_ROUNDS
    assert budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), None, True).reserve_s == 0.0  # no budget, nothing to keep


class _Sweep:
    """What :meth:`perf.sweep.run.Sweep._baseline` reads of a sweep: 8 measured variants on this host."""

    def __init__(self) -> None:
        self.opts = SimpleNamespace(baseline=True, time_budget_s=360.0, server=SimpleNamespace(repository="repo"))
        self.run = RunResult("demo", "now", variants=[VariantResult(n, None, "ok") for n in NAMES], rounds=RoundsRecord(seed=1))
        self.run_dir = "results/demo"
        self.progress = None

    def _baseline_unusable(self) -> None:
        return None

    def _save(self) -> None:
        pass


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    monkeypatch.setattr(sweep_run, "measure_after_sweep", lambda *a: calls.append(a))
    return calls


def test_the_demos_107_s_left_of_a_120_s_estimate_runs_the_baseline(measured: list[Any]) -> None:
    sw = _Sweep()
    sweep_run.Sweep._baseline(sw, time.monotonic() + 107.0)  # type: ignore[arg-type]
    assert measured and sw.run.rounds is not None and not sw.run.rounds.cuts  # the old code skipped it here


def test_a_skipped_baseline_says_which_time_budget_gives_it(measured: list[Any], caplog: pytest.LogCaptureFixture) -> None:
    sw = _Sweep()
    with caplog.at_level("WARNING"):
        sweep_run.Sweep._baseline(sw, time.monotonic() + 50.0)  # type: ignore[arg-type]
    assert not measured
    assert sw.run.rounds is not None
    (cut,) = sw.run.rounds.cuts
    # spent 310 s of 360, needs 120: 430 s is 7.2 minutes
    assert cut.kind == "baseline" and cut.reason.endswith("it needs about 120 s (8 variants); --time-budget 8m gives it")
    assert "--time-budget 8m gives it" in caplog.text
