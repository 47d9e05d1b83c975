"""Cold start on the real bundled tritonserver (issue 17): load time and first requests of a
real variant are recorded and positive; ``triton-perf coldstart`` prints the table and the measured
warmup count."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.repository.view import Repository
from perf.cli.main import cli
from perf.coldstart import measure as coldstart

pytestmark = pytest.mark.integration

VARIANT = "tiny_onnx_cpu1_nodb_mbs8"


def test_load_time_and_first_requests_are_recorded_and_positive(bundled_server, tiny_repo: Path, caplog):
    record = coldstart.measure(bundled_server, Repository(tiny_repo).variant(VARIANT), (1, 8, 128))
    assert "batch size 128 not sent: above its max_batch_size 8" in caplog.text  # said, not dropped silently
    assert record.not_measured is None and record.variant == VARIANT and record.warmup is None
    assert record.load_s is not None and record.load_s > 0
    assert record.load_log_s is not None and 0 < record.load_log_s <= record.load_s + 0.5  # the log's span, in the API's
    assert record.instances_log_s is not None and 0 < record.instances_log_s <= record.load_log_s
    assert [(f.batch_size, f.shape) for f in record.first] == [(1, None), (8, None)]
    for f in record.first:
        assert f.error is None and coldstart.MIN_REQUESTS <= len(f.latencies_ms) <= coldstart.MAX_REQUESTS
        assert all(ms > 0 for ms in f.latencies_ms) and f.requests_to_steady() is not None
    assert bundled_server.model_state(VARIANT) != "READY"  # unloaded again


def test_perf_coldstart_prints_the_table_and_the_measured_warmup_count(tiny_repo: Path):
    r = CliRunner().invoke(
        cli, ["coldstart", "--repository", str(tiny_repo), "--variants", VARIANT, "--runtime", "bundled", "--batch-sizes", "4"]
    )
    assert r.exit_code == 0, r.output
    row = next(ln for ln in r.output.splitlines() if f"`{VARIANT}`" in ln)
    assert "b4 " in row and "not measured" not in row
    assert "**Cold start.** 1 variant was loaded alone on the bundled tritonserver" in r.output
    assert "--warmup-count " in r.output and "measured by triton-perf coldstart" in r.output
