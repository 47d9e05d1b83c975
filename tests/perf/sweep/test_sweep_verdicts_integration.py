"""No confident wrong verdict from a real sweep (issue 12): the bundled tritonserver and the real
perf_analyzer at a request rate it cannot reach, a CPU burner beside a sweep, and a small
fake perf_analyzer (tests/support/fake_perf_analyzer.py) for outputs the real one does not print on
demand (request errors with exit 0, no completed inference)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_perf_analyzer import write_fake
from python_models import EASY_RATE_PER_S

from clients.server import ServerOptions
from perf.analysis.recommendation.recommend import recommend
from perf.records.settings import MeasureSettings
from perf.report.write import write_report
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

FAST = MeasureSettings(measurement_interval_ms=500, max_trials=6, unstable_retries=0)
NODB = "tiny_onnx_cpu1_nodb_mbs8"
DATA = Path(__file__).resolve().parents[2] / "data" / "perf_analyzer"
#: A request rate the tiny model keeps up with on any host (a rate it cannot is the 20,000/s one).
NEAR = EASY_RATE_PER_S
#: Tests of other kinds do not re-measure for a busy host (this shared machine always is one).
NO_HOST_CHECK = 1e9


def test_an_unreachable_request_rate_is_not_achieved_and_never_recommended(tiny_repo: Path, tmp_path: Path):
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(NODB,),
        concurrency=(1,),
        batch_sizes=(1, 2),
        request_rates=(NEAR, 20000),
        measure=FAST,
        results_dir=tmp_path,
        run_id="rate",
        warmup_requests=5,
        host_busy_threshold_pct=NO_HOST_CHECK,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    v = run.variant(NODB)
    for batch in (1, 2):
        far = v.level(0, batch, request_rate=20000)
        assert far.status == "not achieved" and far.rate_achieved is False and far.ok and not far.usable
        # achieved = completed requests/s (infer/s / batch), at most perf_analyzer's send rate
        assert far.achieved_rate_per_s <= far.throughput_infer_per_s / batch + 1e-6
        assert far.achieved_rate_per_s < 20000 * 0.9 and far.delayed_pct is not None and far.delayed_pct > 1
        assert any("of 20,000 requests/s offered" in n for n in far.notes)
        near = v.level(0, batch, request_rate=NEAR)
        assert near.rate_achieved is True and near.status in ("ok", "unstable")
        assert NEAR * 0.9 <= near.achieved_rate_per_s <= NEAR * 1.1
    conc = v.level(1)
    assert conc.rate_achieved is None and conc.achieved_rate_per_s is None
    # throughput, latency and utilisation cover perf_analyzer's three merged windows of 500 ms
    assert conc.windows_span_s is not None and 1.2 <= conc.windows_span_s <= 10
    assert v.status == "ok"

    saved = json.loads((run_dir / "results.json").read_text())
    level = next(lv for lv in saved["variants"][0]["levels"] if lv["request_rate"] == 20000)
    for field in ("achieved_rate_per_s", "delayed_pct", "host_busy_pct", "host_busy", "attempts", "status"):
        assert field in level
    assert level["status"] == "not achieved"

    rec = recommend(run)
    assert rec.best_peak.concurrency == 1  # a concurrency level, never the unreached rate
    text = write_report(run_dir).read_text()
    assert "† not achieved" in text.split("## Request-rate levels")[1]
    assert "20,000/s not achieved" in text.split("## Recommendation")[1].split("## Conclusions")[0]
    assert (run_dir / "request_rates.png").is_file()


@pytest.mark.parametrize(
    "recording, throughput, reason",
    [
        (
            "request_errors_exit0.txt",
            3.2,
            "perf_analyzer reported request errors: Thread [0] had error: flaky: refused",
        ),
        ("zero_throughput.txt", 0.0, "perf_analyzer completed no inference in its measurement windows (0 infer/s)"),
    ],
)
def test_levels_with_request_errors_or_no_inference_fail_and_are_not_recommended(
    tiny_repo: Path, tmp_path: Path, recording: str, throughput: float, reason: str
):
    fake = write_fake(tmp_path / "bin", DATA / recording, throughput, exit_code=0)
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(NODB,),
        concurrency=(1, 2),
        measure=FAST,
        results_dir=tmp_path,
        run_id="fake",
        perf_analyzer=fake,
        warmup_requests=0,
        host_busy_threshold_pct=NO_HOST_CHECK,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    v = run.variant(NODB)
    assert [lv.status for lv in v.levels] == ["failed", "failed"]
    assert v.level(1).error.startswith(reason) and not v.level(1).ok  # then the server log it names
    assert v.status == "failed" and v.error.startswith(reason)
    rec = recommend(run, 100.0)
    assert rec.best_peak is None and rec.best_under_budget is None
    assert len(rec.excluded) == 1 and rec.excluded[0].startswith(f"`{NODB}`: the variant failed ({reason}")


_BURNER = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


def test_a_busy_host_is_detected_remeasured_and_reported(tiny_repo: Path, tmp_path: Path):
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=("tiny_ts_cpu1_nodb_mbs8",),
        concurrency=(2,),
        request_rates=(NEAR,),
        measure=FAST,
        results_dir=tmp_path,
        run_id="busy",
        warmup_requests=5,
        host_busy_threshold_pct=10.0,
        host_busy_pause_s=0.5,
        design="sequential",
    )
    burner = subprocess.Popen([sys.executable, "-c", _BURNER.format(seconds=240)])
    try:
        run, run_dir = run_sweep(opts)
    finally:
        burner.kill()
        burner.wait()
    v = run.variant("tiny_ts_cpu1_nodb_mbs8")
    for lv in (v.level(2), v.level(0, request_rate=NEAR)):  # achieved beside the burner: busy, not "not achieved"
        assert lv.host_busy is True and lv.status == "host busy" and lv.usable
        assert lv.host_busy_pct > 10 and lv.attempts >= 2  # measured again after the pause, still busy
        assert any(n.startswith("other processes used") and "threshold 10 %" in n for n in lv.notes)
    assert run.settings["host_busy_threshold_pct"] == 10.0
    rec = recommend(run)
    assert rec.best_peak.status == "host busy" and rec.best_peak.why.startswith("no stable level qualifies")
    text = write_report(run_dir).read_text()
    assert "† host busy" in text and "other processes used" in text.split("## Recommendation")[1]
