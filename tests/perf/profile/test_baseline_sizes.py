"""The in-process baseline is timed at each client workload's input size (issue 26, F23: it timed the
build's reference inputs, seq=24, only, so a sweep at seq=8 and seq=32 was compared with a call at
another size, or not at all), and its time estimate counts those sizes (the one plan of points)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result
from source_builds import POOLED_VARIANT, pooled_repo

from builders.repository.view import Repository
from perf.analysis.efficiency import efficiency_rows, other_shapes
from perf.cli.baseline import describe_point
from perf.profile.baseline import BaselineOptions, plan_targets, run_baseline
from perf.profile.estimate import estimate
from perf.profile.runners import inputs_at
from perf.profile.timing import TimingSettings

pytestmark = pytest.mark.slow  # a real TorchScript build (source_builds.pooled_repo)

QUICK = TimingSettings(min_run_time_s=0.01, warmup_s=0.0, warmup_runs=1, rounds=2)
#: The sizes the clients sent: two fixed ones (neither the reference seq=24) and a mix.
SENT = ("seq=8", "seq=32", "seq=1..32")
FORMED = 2.0


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pooled_repo(tmp_path_factory.mktemp("pooled"))


def _run():
    levels = [level_result(1, 500.0, 4.0, shape=s, avg_server_batch_size=FORMED) for s in SENT]
    return run_result([variant_result(POOLED_VARIANT, levels)])


def test_each_workloads_size_is_timed_and_each_level_compared_at_its_own(repo: Path) -> None:
    run = _run()
    bl = run_baseline(BaselineOptions(repo, run=run, timing=QUICK, eager=False))
    target = bl.target(POOLED_VARIANT)
    assert target is not None and target.shape == "seq=24"  # the reference inputs' size, which no level sent
    mbs = 4  # POOLED_VARIANT's max_batch_size
    assert [(z.shape, z.batch_sizes) for z in target.sizes] == [("seq=8", [1, 2, mbs]), ("seq=32", [1, 2, mbs])]
    assert sorted((p.shape, p.batch_size) for p in bl.points) == sorted((s, b) for s in ("seq=8", "seq=32") for b in (1, 2, mbs))
    assert all(p.ok for p in bl.points), [p.reason for p in bl.points]
    at8 = next(p for p in bl.points if p.shape == "seq=8")
    assert f"seq=8 b={at8.batch_size}: " in describe_point({"point": at8, "done": 1, "total": len(bl.points)})  # the console
    run.baseline = bl
    rows = efficiency_rows(run)
    assert [r.in_process.how_text for r in rows if r.in_process] == [
        "measured at batch 2, at seq=8",
        "measured at batch 2, at seq=32",
    ]
    assert other_shapes(run) == [f"{POOLED_VARIANT} at seq=1..32 (mixed)"]


def test_the_inputs_at_another_size_are_drawn_from_the_build_spec(repo: Path) -> None:
    rv = Repository(repo).variant(POOLED_VARIANT)
    reference, _ = rv.reference()
    assert inputs_at(rv, reference, "seq=24") is reference and inputs_at(rv, reference, None) is reference
    ids = inputs_at(rv, reference, "seq=8")["ids"]
    assert ids.shape == (1, 8) and ids.dtype == reference["ids"].dtype
    assert rv.spec is not None and rv.spec.inputs[0].value_range is not None
    lo, hi = rv.spec.inputs[0].value_range
    assert lo <= ids.min() and ids.max() <= hi  # the build's value range, as the reference inputs


def test_the_estimate_counts_every_size_it_times(repo: Path) -> None:
    """The sweep's estimate, before any level (its plans' sizes), and after (the run's): one count of points."""
    before = BaselineOptions(repo, run=run_result(), variants=[POOLED_VARIANT], timing=QUICK)  # as the sweep asks
    one = estimate(before)
    two = estimate(dataclasses.replace(before, sizes={POOLED_VARIANT: SENT}))
    assert one.points > 0 and two.points == 2 * one.points and two.seconds > one.seconds
    after = estimate(BaselineOptions(repo, run=_run(), timing=QUICK))
    assert after.points == 2 * len({1, 2, 4}) * 2  # 2 sizes x batches 1, formed 2, max 4 x (artifact, eager)


def test_a_run_sized_by_shape_flags_is_timed_at_their_size(repo: Path) -> None:
    """A level not swept was sent at the run's --shape sizes (ids:16), not the reference inputs' (seq=24)."""
    level = level_result(1, 500.0, 4.0, avg_server_batch_size=FORMED)
    run = run_result([variant_result(POOLED_VARIANT, [level])], settings={"shapes": {"ids": [16]}})
    ((target, *_),), _ = plan_targets(BaselineOptions(repo, run=run))
    assert target.shape == "seq=16" and [z.shape for z in target.sizes] == ["seq=16"]
