"""The in-process baseline is priced for the variants it measures (trial 22, F-resume-budget-advice): a resume's plan
line said "an estimated 34 s of in-process baseline for 4 variants" (the variants of its rounds), while the baseline
measures every variant of the run with numbers (7, 3 slow TorchScript ones measured by the earlier session); its
estimate at its start was 426 s, and it was cut for time with a resume budget (11m) that differed from the plan's (13m)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest
from factories import level_result

from perf.profile import estimate as est
from perf.profile.baseline import SWEEP_TIMING, BaselineOptions
from perf.records.baseline import BaselineKey, BaselineSize, BaselineTarget
from perf.records.results import RunResult, VariantResult
from perf.sweep.baseline_step import BaselineStep


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Each variant asked for is one key at batch 1 and 64 (the variants each estimate counted, recorded)."""
    asked: list[list[str]] = []

    def plan(opts: BaselineOptions, *read: object, **how: object):
        asked.append(list(opts.variants))
        out = []
        for i, name in enumerate(opts.variants):
            key = BaselineKey("m", "onnx", "fp32", "cpu", i + 1)
            out.append((BaselineTarget(name, key, 1, [1, 64], sizes=[BaselineSize(None, [1, 64])]), None, "onnx", "f"))
        return out, []

    monkeypatch.setattr(est, "plan_targets", plan)
    return asked


class _Step:
    """What the baseline's estimate reads of a sweep: ``slow`` measured by an earlier session (60 ms a call),
    ``fast`` in this session's rounds, ``never`` with no numbers."""

    baseline_names = BaselineStep.baseline_names
    baseline_estimate = BaselineStep.baseline_estimate
    _baseline_plan_words = BaselineStep._baseline_plan_words

    def __init__(self) -> None:
        slow = VariantResult(
            "slow", levels=[level_result(1, 16.0, 70.0, server_compute_infer_us=60000.0, avg_server_batch_size=1.0)]
        )
        self.run = RunResult("kws3", "now", variants=[VariantResult("fast"), slow, VariantResult("never")])
        self.plans: dict = {}
        self.repository = SimpleNamespace(path=Path("repo"))
        self._parsed_configs: dict = {}


def test_the_plan_prices_the_baseline_of_every_measured_variant_not_only_its_rounds(planned: list[list[str]]) -> None:
    step = _Step()
    assert step.baseline_names(["fast"]) == ["fast", "slow"]  # `never` has no numbers: the baseline measures it not
    counted = step.baseline_estimate(["fast"])
    assert planned[-1] == ["fast", "slow"] and counted.variants == 2
    alone = est.estimate(BaselineOptions(Path("repo"), run=step.run, variants=["fast"]))
    assert counted.seconds > alone.seconds + 30  # the slow variant's batch of 64 at 60 ms a call: the bulk of it
    fit = SimpleNamespace(variants=["fast"], baseline_s=counted.seconds)
    words = step._baseline_plan_words(fit)
    assert words.startswith(
        f", then an estimated {counted.seconds:.0f} s of in-process baseline for 2 variants "
        "(1 of them measured before, not in these rounds)"
    ), words
    assert step.baseline_estimate(["fast", "slow"]) == counted  # the baseline's own start counts the same


def test_a_baseline_whose_first_round_its_estimate_does_not_fit_is_skipped_before_its_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial 22, F-baseline-waste: 41 s left passed the plan's start (24 s), and the loads spent 26 s of it before the
    first round was found not to fit: now its estimate's first model (loads, warm-up, a round) is weighed first."""
    import time

    from perf.profile.estimate import BaselineEstimate
    from perf.sweep import baseline_step
    from tests.perf.sweep.test_resume_ended_rounds_unit import _resumed

    sw = _resumed(tmp_path, 600.0)
    for v in sw.run.variants:  # as the rounds settle them
        v.status = "ok" if v.levels else v.status
    monkeypatch.setattr(baseline_step, "measure_after_sweep", lambda *a, **k: pytest.fail("loaded"))
    sw.baseline_planned_s = 32.0  # the plan line: "it starts if the rounds leave 24 s or more"
    sw.baseline_estimate = lambda names: BaselineEstimate(60.0, 4, 28, False, 1, 4, 0, 6.0, 47.0)  # type: ignore[method-assign]
    sw._baseline(time.monotonic() + 40.0)
    assert sw.run.rounds is not None
    (cut,) = [c.reason for c in sw.run.rounds.cuts if c.kind == "baseline"]
    assert cut.startswith(
        "skipped: 40 s of the time budget left, its first model's loads, warm-up and first round need an estimated 47 s "
        "of the 60 s it needs (4 variants, 28 points at the batch sizes the server formed; 6 s of it for 4 key loads: "
        "4 at the server's measured loads of their format): nothing was loaded; "
    ), cut


def test_the_estimate_says_what_its_first_model_needs_before_anything_is_timed(planned: list[list[str]]) -> None:
    from perf.profile.timing import turn_s, warmup_s

    step = _Step()
    counted = step.baseline_estimate(["fast"])
    calls = 2 * [0.0, 0.0, 0.06, 64 * 0.06]  # `fast`'s points (no calls measured), `slow`'s at 1 and 64; each eager too
    loads = 4 * est.KEY_LOAD_S  # 2 artifacts and 2 eager models, none of their format measured
    timing = SWEEP_TIMING
    assert counted.first_s == pytest.approx(loads + sum(warmup_s(c, timing) + turn_s(c, timing) for c in calls), abs=0.1)


def test_the_resume_that_keeps_the_baseline_says_why_it_differs_from_the_plan_lines(tmp_path: Path) -> None:
    """Trial 22, F-resume-budget-advice: a resume's plan line said "--resume kws3 --time-budget 13m keeps it" and its
    end "`--resume kws3 --time-budget 11m` measures them and keeps it": two budgets, the difference unsaid."""
    from perf.analysis.recommendation import cuts
    from perf.records.rounds import BudgetRecord
    from tests.perf.sweep.test_resume_ended_rounds_unit import _resumed

    sw = _resumed(tmp_path, 240.0)
    rr = sw.run.rounds
    assert rr is not None
    rr.cuts = [dataclasses.replace(c, need_s=108.0, final=True) for c in rr.cuts]
    rr.budget = BudgetRecord(240.0, 1.35, 11.9, 226.0, 6, sessions=2, session_budget_s=240.0)
    sw.baseline_keeps = "--resume t13 --time-budget 13m keeps it"
    hint = sw._keeps_now(426.0)
    minutes = cuts.advised(108.0 + 426.0)[0]
    assert hint.startswith(f"`--resume t13 --time-budget {minutes}m` measures them and keeps it"), hint
    assert hint.endswith(
        "; the plan line's `--resume t13 --time-budget 13m` was this session's budget from its start, its rounds included)"
    ), hint
    sw.baseline_keeps = f"--resume t13 --time-budget {minutes}m keeps it"  # the same budget: nothing to explain
    assert "the plan line's" not in sw._keeps_now(426.0)
