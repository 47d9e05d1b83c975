"""Sweep planning: skipped levels are listed with the reason and never counted as planned
work; a resumed run measures again only the levels that failed or were interrupted."""

from __future__ import annotations

from pathlib import Path

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.search.plan import describe_skipped, plan_levels, plan_variant, to_measure


def test_batch_sizes_above_max_batch_size_are_skipped_and_listed_not_planned():
    # the example: 2 variants x 2 batch sizes x 3 levels = 12 asked; batch 16 does
    # not fit max_batch_size 8, so 6 are planned and the progress total is 6, not 12
    plan = plan_levels("m_mbs8", 8, concurrency=(1, 2, 4), batch_sizes=(1, 16))
    assert plan.levels == [(1, 1, 0, None, None), (2, 1, 0, None, None), (4, 1, 0, None, None)]
    assert [(s.batch_size, s.concurrency) for s in plan.skipped] == [(16, 1), (16, 2), (16, 4)]
    assert all(s.reason == "batch size 16 > max_batch_size 8" for s in plan.skipped)
    assert describe_skipped(plan.skipped) == ["batch 16 at c=1,2,4: batch size 16 > max_batch_size 8"]


def test_request_rate_levels_and_trials_are_planned_and_skipped_alike():
    plan = plan_levels("m", 4, concurrency=(1,), batch_sizes=(2, 8), request_rates=(100.0,), trials=2)
    assert plan.levels == [(1, 2, 0, None, None), (1, 2, 1, None, None), (0, 2, 0, 100.0, None), (0, 2, 1, 100.0, None)]
    # trials are folded: one skipped record per batch size and load
    assert [(s.batch_size, s.concurrency, s.request_rate) for s in plan.skipped] == [(8, 1, None), (8, 0, 100.0)]
    assert describe_skipped(plan.skipped) == ["batch 8 at c=1 and 100/s: batch size 8 > max_batch_size 4"]


def test_max_batch_size_0_takes_batch_1_only_and_nothing_fitting_plans_nothing():
    plan = plan_levels("unbatched", 0, concurrency=(1, 2), batch_sizes=(1, 4))
    assert [k[1] for k in plan.levels] == [1, 1]
    assert plan.skipped[0].reason == "batch size 4 > 1: max_batch_size 0 takes one sample per request"
    # no asked batch size fits: nothing is planned (no silent batch-1 stand-in)
    none = plan_levels("m", 8, concurrency=(1,), batch_sizes=(16, 32))
    assert none.levels == [] and len(none.skipped) == 2


def test_an_unreadable_config_is_the_plan_error(tmp_path: Path):
    cfg = tmp_path / "config.pbtxt"
    cfg.write_text("name: [broken\n")
    plan = plan_variant("m", cfg, (1,), (1,))
    assert plan.levels == [] and "not a valid Triton ModelConfig" in plan.error


def test_resume_measures_failed_and_missing_levels_not_good_ones():
    plan = plan_levels("m", 8, concurrency=(1, 2, 4), batch_sizes=(1,))
    vr = VariantResult(
        "m",
        status="failed",
        levels=[
            LevelResult(concurrency=1, throughput_infer_per_s=100.0),  # good: kept
            LevelResult(concurrency=2, error="tritonserver died while measuring m at concurrency 2"),  # crashed: again
        ],
    )  # concurrency 4: interrupted, never saved: measured
    assert to_measure(plan, vr) == [(2, 1, 0, None, None), (4, 1, 0, None, None)]
    assert to_measure(plan, VariantResult("m")) == plan.levels


def test_skipped_levels_and_server_starts_are_saved_in_results_json(tmp_path: Path):
    from perf.records import results
    from perf.records.results import ServerStart

    plan = plan_levels("m", 8, concurrency=(1,), batch_sizes=(1, 16))
    run = RunResult(
        "r",
        "now",
        variants=[VariantResult("m", skipped=plan.skipped)],
        server_starts=[
            ServerStart(log="server.log", started="t0", reason="sweep started"),
            ServerStart(log="server-2.log", started="t1", reason="m was still UNLOADING 30 s after its unload request"),
        ],
    )
    results.save(run, tmp_path)
    back = results.load(tmp_path)
    assert back.variant("m").skipped[0].reason == "batch size 16 > max_batch_size 8"
    assert [s.log for s in back.server_starts] == ["server.log", "server-2.log"]


def test_the_report_lists_skipped_levels_and_server_restarts(tmp_path: Path):
    from perf.records import results
    from perf.records.results import ServerStart
    from perf.report.write import write_report

    plan = plan_levels("m", 8, concurrency=(1,), batch_sizes=(1, 16))
    run = RunResult(
        "r",
        "now",
        variants=[
            VariantResult(
                "m",
                status="ok",
                levels=[LevelResult(concurrency=1, throughput_infer_per_s=50.0, latency_p99_ms=2.0)],
                skipped=plan.skipped,
            ),
            VariantResult("big", status="skipped", error="no asked level can run on it: batch size 16 > max_batch_size 8"),
        ],
        server_starts=[
            ServerStart(log="server.log", started="t0", reason="sweep started"),
            ServerStart(log="server-2.log", started="t1", reason="m was still UNLOADING 30 s after its unload request"),
        ],
    )
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "**Skipped levels**" in text and "- `m`: batch 16 at c=1: batch size 16 > max_batch_size 8" in text
    assert "[server-2.log](server-2.log) at t1: m was still UNLOADING 30 s after its unload request" in text


def _hand_made_repo(root: Path, names: list[str], mbs: int) -> Path:
    for n in names:
        (root / n).mkdir(parents=True)
        (root / n / "config.pbtxt").write_text(
            f'name: "{n}"\nbackend: "python"\nmax_batch_size: {mbs}\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    return root


def test_the_progress_total_counts_planned_levels_only_and_the_summary_lists_the_rest(tmp_path: Path):
    from clients.server import ServerOptions
    from perf.cli.sweep import skipped_summary
    from perf.sweep.run import Sweep, SweepOptions

    repo = _hand_made_repo(tmp_path / "repo", ["a_mbs8", "b_mbs8"], 8)
    sw = Sweep(
        SweepOptions(
            ServerOptions(repo, runtime="bundled"),
            concurrency=(1, 2, 4),
            batch_sizes=(1, 16),
            results_dir=tmp_path / "results",
            run_id="p",
            design="sequential",
        )
    )
    assert sw.level_counts() == (6, 0)  # not 12: batch 16 cannot run on max_batch_size 8
    run = RunResult("p", "now", variants=[VariantResult(n, skipped=sw.plans[n].skipped) for n in sw.names])
    assert skipped_summary(run) == [
        "6 asked levels skipped (not measured, not in the progress count):",
        "skipped a_mbs8: batch 16 at c=1,2,4: batch size 16 > max_batch_size 8",
        "skipped b_mbs8: batch 16 at c=1,2,4: batch size 16 > max_batch_size 8",
    ]
