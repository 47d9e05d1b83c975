"""The in-process baseline's share of a sweep's time budget (trial 7, F9: `make demo` ended its rounds
with 107 s of its 360 s unused, then skipped the baseline because its estimate was 120 s, and never
said which budget would have given it): its time is kept up front when the rounds a verdict needs fit
beside it, else it runs on what the rounds leave unless that is far below its estimate, and a skip
names the `--time-budget` that gives it."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.profile.estimate import BaselineEstimate
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search import budget
from perf.search.policy import AUTO
from perf.search.policy import ladder as ladder_of
from perf.sweep import baseline_step
from perf.sweep import run as sweep_run
from perf.sweep.baseline_words import baseline_yields, keeps_hint

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
    """What :meth:`perf.sweep.baseline_step.BaselineStep._baseline` and its plan's hint read of a sweep: 8 measured
    variants on this host."""

    def __init__(self, budget_s: float = 360.0, resume: bool = False) -> None:
        self.opts = SimpleNamespace(
            baseline=True, time_budget_s=budget_s, resume=resume, server=SimpleNamespace(repository="repo")
        )
        self.run = RunResult("demo", "now", variants=[VariantResult(n, None, "ok") for n in NAMES], rounds=RoundsRecord(seed=1))
        self.run.search = SearchRecord("prune", True)
        self.run_dir, self.run_id = "results/demo", "demo"
        self.progress, self.budget, self.levels, self.adaptive = None, None, LADDER, True
        self.baseline_keeps = ""
        self.baseline_planned_s: float | None = None
        self.baseline_keeps_at: tuple[list[str], float | None] | None = None
        self.baseline_reserved_s = 0.0
        self.per_variant_s = 15.0  # the estimate's seconds a variant (the re-estimate after the rounds may differ)

    def _baseline_unusable(self) -> None:
        return None

    def _configs(self) -> dict:
        return {}  # no configs read: the cut's settings are the variants' params (none here)

    def baseline_estimate(self, names: list[str]) -> BaselineEstimate:  # 15 s a variant, as the old rule
        return BaselineEstimate(self.per_variant_s * len(names), len(names), 5 * len(names), False)

    def _baseline_s(self, names: list[str]) -> float:
        return self.baseline_estimate(names).seconds

    def keys_per_level(self) -> int:
        return 1

    def _save(self) -> None:
        pass

    def _after_cut(self, deadline: float | None, need_s: float, kept: str = "") -> None:
        sweep_run.Sweep._after_cut(self, deadline, need_s, kept)  # type: ignore[arg-type]

    def _kept_words(self, left_s: float | None, digits: int = 0) -> str:
        return sweep_run.Sweep._kept_words(self, left_s, digits)  # type: ignore[arg-type]

    def _keeps_now(self, need_s: float) -> str:
        return sweep_run.Sweep._keeps_now(self, need_s)  # type: ignore[arg-type]

    def _resume_keeps(self, need_s: float) -> str:
        return sweep_run.Sweep._resume_keeps(self, need_s)  # type: ignore[arg-type]

    def _keeps_baseline(self, names: list[str], left: float | None) -> str:
        return sweep_run.Sweep._keeps_baseline(self, names, left)  # type: ignore[arg-type]


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    monkeypatch.setattr(baseline_step, "measure_after_sweep", lambda *a: calls.append(a))
    return calls


def test_the_demos_107_s_left_of_a_120_s_estimate_runs_the_baseline(measured: list[Any]) -> None:
    sw = _Sweep()
    sweep_run.Sweep._baseline(sw, time.monotonic() + 107.0)  # type: ignore[arg-type]
    assert measured and sw.run.rounds is not None and not sw.run.rounds.cuts  # the old code skipped it here


def _plan_and_skip(sw: _Sweep, left: float) -> tuple[str, str]:
    """The plan line's baseline words (before the rounds, ``left`` of the budget) and a skip's reason."""
    names = list(NAMES)
    sw.baseline_keeps = sweep_run.Sweep._keeps_baseline(sw, names, left)  # type: ignore[arg-type]
    plan = baseline_yields(budget.fit(names, LADDER, True, 1, RULES, SearchRules(), left, True), sw.baseline_keeps)
    sweep_run.Sweep._baseline(sw, time.monotonic() + 50.0)  # type: ignore[arg-type]
    assert sw.run.rounds is not None
    (cut,) = sw.run.rounds.cuts
    assert cut.kind == "baseline"
    return plan, cut.reason


def test_the_plan_and_a_skipped_baseline_name_one_time_budget(measured: list[Any], caplog: pytest.LogCaptureFixture) -> None:
    """Trial 8, F9: the plan said "--time-budget 8m keeps it", the skip "--time-budget 7m gives it".
    One rule: the smallest whole-minute budget whose plan keeps the baseline's time, said by both."""
    sw = _Sweep()
    with caplog.at_level("WARNING"):
        plan, reason = _plan_and_skip(sw, 355.0)  # 5 s of set-up before the plan
    assert not measured
    minutes = int(reason.split("--time-budget ")[1].split("m keeps it")[0])
    assert reason.endswith(
        f"it needs an estimated 120 s (8 variants, 40 points at the batch sizes the server formed) and starts with 90 s; "
        # trial 20, T20-2: three skip lines gave three budgets (one none) and none said what measures it afterwards
        f"`triton-perf baseline {sw.run_dir}` measures it afterwards, without a time budget; --time-budget {minutes}m keeps it"
    )
    assert plan.endswith(f"--time-budget {minutes}m keeps it") and f"--time-budget {minutes}m keeps it" in caplog.text
    assert "it starts if the rounds leave 90 s or more" in plan  # trial 9, F2: not "about 120 s ... if ... about 90 s"
    assert "gives it" not in plan + reason + caplog.text
    # the number is exact: that budget's plan keeps the baseline's time, a minute less does not
    assert budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), minutes * 60 - 5.0, True).reserve_s > 0
    assert (
        minutes - 1 <= 6 or not budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), (minutes - 1) * 60 - 5.0, True).reserve_s
    )


def test_a_skip_whose_estimate_grew_names_the_budget_that_keeps_the_estimate_of_now(measured: list[Any]) -> None:
    """Trial 16, T16-19: the plan estimated 33 s and found "--time-budget 4m keeps it"; after the rounds the estimate
    from the levels measured was 385 s, and the skip still said "4m keeps it". The minutes are found again for it."""
    sw = _Sweep()
    names = list(NAMES)
    sw.baseline_keeps = sweep_run.Sweep._keeps_baseline(sw, names, 355.0)  # type: ignore[arg-type]
    sw.baseline_keeps_at, sw.baseline_planned_s = (names, 355.0), 15.0 * len(names)
    planned = int(sw.baseline_keeps.split("--time-budget ")[1].split("m keeps it")[0])
    sw.per_variant_s = 60.0  # the levels measured show it 4 times slower
    sweep_run.Sweep._baseline(sw, time.monotonic() + 50.0)  # type: ignore[arg-type]
    assert not measured and sw.run.rounds is not None
    (cut,) = sw.run.rounds.cuts
    minutes = int(cut.reason.split("--time-budget ")[1].split("m keeps it")[0])
    assert "it needs an estimated 480 s" in cut.reason and minutes > planned  # the old code said the plan's minutes
    assert budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), minutes * 60 - 5.0, lambda n: 60.0 * len(n)).reserve_s > 0


def test_a_resumed_runs_hint_names_the_resume_command_and_a_longer_session(measured: list[Any]) -> None:
    """Trial 8, F12: a resume given --time-budget 3m (its session's budget) was told "--time-budget 3m
    gives it". The hint names the resume command, with a session budget above the one it had."""
    sw = _Sweep(budget_s=180.0, resume=True)
    plan, reason = _plan_and_skip(sw, 175.0)
    minutes = int(reason.split("--time-budget ")[1].split("m keeps it")[0])
    assert minutes > 3 and reason.endswith(f"; --resume demo --time-budget {minutes}m keeps it")
    assert plan.endswith(f"; --resume demo --time-budget {minutes}m keeps it")


def test_the_demo_says_the_skip_as_its_own_setting() -> None:
    """scripts/demo.sh says the run's advice as its DEMO_* settings (perf.cli.demo_settings.advice, given its
    KNOBS): the skip's hint, as keeps_hint words it, becomes DEMO_TIME_BUDGET=8m make demo keeps it."""
    from perf.cli.demo_settings import as_demo

    demo = (Path(__file__).parents[3] / "scripts" / "demo.sh").read_text()
    assert "from perf.cli.demo_settings import advice" in demo
    reason = f"skipped: 89 s of the time budget left, it needs an estimated 120 s (8 variants); {keeps_hint(8, 'demo-x', False)}"
    assert as_demo(reason, [("--time-budget", "DEMO_TIME_BUDGET")]).endswith("; DEMO_TIME_BUDGET=8m make demo keeps it")


def test_the_start_the_plan_line_says_is_the_one_checked(measured: list[Any], caplog: pytest.LogCaptureFixture) -> None:
    """Trial 13, T13-16: the plan said "it starts if the rounds leave 16 s or more", the check after the
    rounds estimated again at the batch sizes formed (a smaller number) and started it with 10 s left."""
    names = list(NAMES)
    fit = budget.fit(names, LADDER, True, 1, RULES, SearchRules(), 300.0, True)
    plan = baseline_yields(fit, "")
    said = int(plan.split("it starts if the rounds leave ")[1].split(" s or more")[0])
    sw = _Sweep()
    sw.baseline_planned_s = fit.baseline_s  # as the plan line of perf.sweep.run sets it
    sw.baseline_estimate = lambda n: BaselineEstimate(fit.baseline_s / 2, len(n), 5 * len(n), False)  # type: ignore[method-assign]
    with caplog.at_level("WARNING"):
        sweep_run.Sweep._baseline(sw, time.monotonic() + said - 1.0)  # type: ignore[arg-type]
    assert not measured and sw.run.rounds is not None
    (cut,) = sw.run.rounds.cuts
    assert f"and starts with {said} s, as the plan said from its estimate then ({fit.baseline_s:.0f} s)" in cut.reason
    sw = _Sweep()
    sw.baseline_planned_s = fit.baseline_s
    sweep_run.Sweep._baseline(sw, time.monotonic() + said + 1.0)  # type: ignore[arg-type]
    assert measured and sw.run.rounds is not None and not sw.run.rounds.cuts


def test_a_baseline_the_budget_cut_after_it_started_says_what_measures_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """Trial 14, T14-4: a resume's baseline started (its estimate fitted) but its loads spent what the rounds
    left: "`mobilenet`: not measured: the time budget ran out before its first round", and no word of what
    measures it. A cut model (not timed, or timed in fewer rounds) now names `triton-perf baseline RUN` and the
    budget that keeps it, on the console and in the baseline's notes (the report's)."""
    from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget

    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {"torch": "2"}, rounds=8)
    keys = {m: BaselineKey(m, "onnx", "fp32", "cpu", 1) for m in ("mobilenet", "mlp", "kws")}
    timed = [BaselinePoint(keys["mlp"], 1, latency_median_ms=2.0, throughput_infer_per_s=500.0, rounds_ms=[2.0] * 8)]
    timed.append(BaselinePoint(keys["kws"], 1, latency_median_ms=2.0, throughput_infer_per_s=500.0, rounds_ms=[2.0] * 3))
    targets = [BaselineTarget(f"{m}_v", k) for m, k in keys.items()]

    def measure(run: RunResult, *_: Any) -> None:
        run.baseline = BaselineResult("now", settings, targets, timed, ["`mobilenet`: not measured: the time budget ran out"])

    monkeypatch.setattr(baseline_step, "measure_after_sweep", measure)
    sw = _Sweep(resume=True)
    sw.run.variants += [
        VariantResult(t.variant, None, "ok", levels=[LevelResult(4, throughput_infer_per_s=9.0)]) for t in targets
    ]
    sw.baseline_keeps = keeps_hint(4, "demo", True)
    with caplog.at_level("WARNING"):
        sweep_run.Sweep._baseline(sw, time.monotonic() + 200.0)  # type: ignore[arg-type]
    assert sw.run.baseline is not None
    said = sw.run.baseline.notes[-1]
    assert said == (  # s24b: `--replace` was advised for both, which measures every variant again
        "in-process baseline cut for time (`mobilenet`, `kws`): afterwards, without a time budget, `triton-perf baseline "
        "results/demo` measures the baseline the run lacks (`mobilenet_v`), keeping the rest; `triton-perf baseline "
        "results/demo --replace` measures every variant again, the models timed in fewer rounds too (`kws` in 3 of 8 "
        "rounds; the baseline it replaces kept beside it in results.json); --resume demo --time-budget 4m keeps it"
    )
    assert said in caplog.text
    # the demo says it as its own setting (perf.cli.demo_settings.advice; the re-check of trial 14)
    from perf.cli.demo_settings import advice
    from perf.records import results

    results.save(sw.run, tmp_path)
    (demo,) = advice(tmp_path, [("--time-budget", "DEMO_TIME_BUDGET")])
    assert demo.startswith("in-process baseline cut for time (`mobilenet`, `kws`)")
    assert demo.endswith("DEMO_TIME_BUDGET=4m make demo keeps it") and "--time-budget" not in demo
    # a model whose points were recorded and failed (a GPU variant on a CPU host) is not cut for time
    timed.append(BaselinePoint(BaselineKey("gpuonly", "tensorrt", "fp16", "cuda", 1), 1, status="not run on this host"))
    targets.append(BaselineTarget("gpuonly_v", timed[-1].key))
    assert sw.run.baseline.unmeasured_models() == ["mobilenet"]
    timed.pop()
    targets.pop()
    # a baseline every model of which was timed in all its rounds says nothing more
    timed[1] = BaselinePoint(keys["kws"], 1, latency_median_ms=2.0, throughput_infer_per_s=500.0, rounds_ms=[2.0] * 8)
    timed.append(BaselinePoint(keys["mobilenet"], 1, latency_median_ms=2.0, throughput_infer_per_s=500.0, rounds_ms=[2.0] * 8))
    sweep_run.Sweep._baseline(sw, time.monotonic() + 200.0)  # type: ignore[arg-type]
    assert sw.run.baseline.notes == ["`mobilenet`: not measured: the time budget ran out"]


def test_a_baseline_whose_time_the_plan_kept_says_what_became_of_it_when_cut(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Trial 17, T17-11: the plan line said "an estimated 22 s of in-process baseline ..., kept from the budget"; the
    rounds' unloads ran 2 s into it, the baseline's loads and warm-up took 12 s of the 20 s left and its first round
    did not fit the rest: "not measured", with no word of the 22 s kept. The cut (and a skip) now says the time kept
    and what was left of it, in numbers."""
    from perf.records.baseline import BaselineKey, BaselineResult, BaselineSettings, BaselineTarget

    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {"torch": "2"}, rounds=8)
    key = BaselineKey("sigconv", "onnx", "fp32", "cpu", 1)

    def measure(run: RunResult, *_: Any) -> None:
        run.baseline = BaselineResult("now", settings, [BaselineTarget("sigconv_v", key)], [], ["`sigconv`: not measured"])

    monkeypatch.setattr(baseline_step, "measure_after_sweep", measure)
    sw = _Sweep()
    sw.per_variant_s, sw.baseline_planned_s, sw.baseline_reserved_s = 22.0 / 8, 22.0, 22.0
    with caplog.at_level("WARNING"):
        sweep_run.Sweep._baseline(sw, time.monotonic() + 20.0)  # type: ignore[arg-type]
    assert sw.run.baseline is not None
    said = sw.run.baseline.notes[-1]
    assert (
        "the plan kept 22 s of the time budget for it (its estimate then); the rounds and their unloads ran 2 s into it, "
        "leaving 20 s; `triton-perf baseline results/demo` measures it again"
    ) in said
    assert said in caplog.text
    # all of the time kept left when it started: said so, no "ran into it"
    sw = _Sweep()
    sw.per_variant_s, sw.baseline_planned_s, sw.baseline_reserved_s = 22.0 / 8, 22.0, 22.0
    sweep_run.Sweep._baseline(sw, time.monotonic() + 22.2)  # type: ignore[arg-type]
    assert sw.run.baseline is not None
    assert (
        "the plan kept 22 s of the time budget for it (its estimate then); 22 s were left when it started; `triton"
        in (sw.run.baseline.notes[-1])
    )
    # a skip after a plan that kept the time says it too
    monkeypatch.setattr(baseline_step, "measure_after_sweep", lambda *a: None)
    sw = _Sweep()
    sw.per_variant_s, sw.baseline_planned_s, sw.baseline_reserved_s = 22.0 / 8, 22.0, 22.0
    sweep_run.Sweep._baseline(sw, time.monotonic() + 10.0)  # type: ignore[arg-type]
    assert sw.run.rounds is not None
    (cut,) = sw.run.rounds.cuts
    assert "the plan kept 22 s of the time budget for it (its estimate then); the rounds and their unloads ran 12 s" in cut.reason
    # a plan that kept none says nothing of it
    sw = _Sweep()
    sweep_run.Sweep._baseline(sw, time.monotonic() + 10.0)  # type: ignore[arg-type]
    assert sw.run.rounds is not None and "the plan kept" not in sw.run.rounds.cuts[0].reason
