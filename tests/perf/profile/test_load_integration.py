"""Load is a covariate of every number (issue 24 item 3), end to end: a real sweep (bundled
tritonserver, real perf_analyzer) records the host's load on its levels and its cold-start
requests, the in-process baseline on each point (timed interleaved in rounds), and the
precision study on each row (fp32 and bf16 interleaved, the speed-up paired round by round)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.server import ServerOptions
from perf.profile.baseline import BaselineOptions
from perf.profile.run import profile_target
from perf.profile.timing import TimingSettings
from perf.records import results
from perf.records.profile import NOT_DISTINGUISHABLE, UNFAIR
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

VARIANT = "tiny_onnx_cpu1_db500_mbs8"


def test_levels_cold_start_baseline_and_precision_rows_record_their_host_load(tiny_repo: Path, tmp_path: Path):
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(VARIANT,),
        concurrency=(1, 2),
        results_dir=tmp_path,
        run_id="r",
        warmup_requests=5,
        host_busy_threshold_pct=1e9,  # never flagged here: the load itself must still be recorded
    )
    run, run_dir = run_sweep(opts)
    vr = run.variant(VARIANT)
    assert vr is not None and vr.levels
    for lv in vr.levels:
        assert lv.host_busy_pct is not None and lv.host_busy_pct >= 0 and lv.host_not_sampled is None
    assert vr.cold_start is not None and vr.cold_start.first
    for fr in vr.cold_start.first:
        assert fr.latencies_ms and fr.host_busy_pct is not None and fr.host_busy is False and fr.host_not_sampled is None
    bl = run.baseline
    assert bl is not None and bl.settings.rounds >= 6 and bl.settings.host_busy_threshold_pct == 1e9
    ok = [p for p in bl.points if p.ok]
    assert ok and all(p.host_busy_pct is not None and p.host_busy is False for p in ok)
    assert all(len(p.rounds_ms) == bl.settings.rounds and min(p.rounds_ms) > 0 for p in ok)
    # the precision study of the same run: rows timed interleaved, load and paired speed-up recorded
    record, stored = profile_target(
        run_dir, BaselineOptions(tiny_repo, timing=TimingSettings(min_run_time_s=0.1)), None, precisions=("fp32", "bf16")
    )
    assert stored == run_dir / results.RESULTS_FILE
    cpu = [r for r in record.precision if r.device == "cpu" and r.status == "measured"]
    assert [r.precision for r in cpu] == ["fp32", "bf16"]
    for r in cpu:
        assert r.host_busy_pct is not None and r.host_busy is False and len(r.rounds_ms) == TimingSettings().rounds
    bf16 = cpu[1]
    assert bf16.speedup_vs_fp32 is not None and bf16.speedup_low <= bf16.speedup_vs_fp32 <= bf16.speedup_high
    # a >10x spread over the rounds (a busy CI host) is a verdict of its own: not measured fairly at this load
    assert bf16.speedup_verdict in ("faster", "slower", NOT_DISTINGUISHABLE, UNFAIR) and bf16.speedup_p_value is not None
    saved = results.load(run_dir)
    assert saved.profile is not None and saved.profile.precision[1].host_busy_pct == bf16.host_busy_pct
