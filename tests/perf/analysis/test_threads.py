"""An instance-count comparison names the threads per instance beside it, and a difference already
at concurrency 1 is not the instance count's (perf.analysis.effects.threads). Trial 7 (F13): "instance
count: 2 instances vs 1 instance +1645 %" where the 1-instance variants ran 2 intra-op threads per
instance and the 2-instance ones 1 (results.json records threads_per_instance), the 1-instance
TorchScript variant 11x slower already at concurrency 1, where a second instance cannot act."""

from __future__ import annotations

from factories import levels, params, served_model

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.stats.points import run_points
from perf.records.results import RunResult, VariantResult
from perf.report.conclusions.pairs import pair_bullets
from perf.report.conclusions.written import conclusions
from perf.report.sections.effects import effects_section

# 1 instance x 2 threads on a busy 2-core host: 11x slower at c=1 already, as in the trial
SLOW = {1: [32.0, 30.0, 33.0], 2: [356.0, 700.0, 1050.0]}


def _run(threads: bool = True, thr: dict[int, list[float]] = SLOW) -> RunResult:
    variants = []
    for count, t in thr.items():
        p = params(count, True, "torchscript")
        v = VariantResult(p["name"], p, "ok", None, levels(t, [3.0 * (i + 1) for i in range(len(t))], batch=[1.0, 1.8, 3.5]))
        if threads:
            v.served = [served_model(p["name"], count=count, threads_per_instance=2 // count)]
        variants.append(v)
    return RunResult("r", "now", {"cpu_count": 2}, {}, variants)


def test_an_instance_count_effect_already_at_concurrency_1_is_not_the_instance_counts():
    run = _run()
    (e,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    assert e.change == "2 instances (1 thread each) vs 1 instance (2 threads each)"
    assert e.throughput is None  # no "+3,081.8 %" credited to instances
    assert e.note("throughput") == (
        "cannot be the instance count: at concurrency 1, where a second instance cannot act, throughput already "
        "differs by more than 10 %; the variants also run 1 vs 2 intra-op threads per instance"
    )
    text = "\n".join(effects_section([e], []))
    assert "2 instances (1 thread each) vs 1 instance (2 threads each)" in text and "cannot be the instance count" in text
    (bullet,) = pair_bullets(run)
    assert "2 vs 1 instance (1 vs 2 intra-op threads per instance)" in bullet
    assert "cannot be the instance count" in bullet and "at concurrency 1: throughput +1012.5 %" in bullet
    from perf.analysis.recommendation.recommend import recommend

    said = "\n".join(conclusions(run, recommend(run)))
    assert "1 vs 2 intra-op threads per instance" in said  # the Why names them beside the instance count
    assert "2 instances vs 1 instance" not in said


def test_an_instance_count_effect_that_starts_above_concurrency_1_still_counts():
    # equal at c=1 (one request: one instance works either way), apart only as load rises: the instances'
    run = _run(thr={1: [100.0, 110.0, 112.0], 2: [104.0, 190.0, 215.0]})
    (e,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    assert e.throughput is not None and e.throughput.median > 50.0 and e.note("throughput") is None
    assert e.change == "2 instances (1 thread each) vs 1 instance (2 threads each)"  # the threads still named
    unknown = _run(threads=False)  # threads not recorded: nothing named, and a 1-trial gap at c=1 is no proof
    (e,) = [e for e in main_effects(unknown, run_points(unknown)) if e.factor.key == "count"]
    assert e.change == "2 instances vs 1 instance"
