"""Cold start on the real bundled tritonserver (issue 17): load time and first requests of a
real variant are recorded and positive, and its requests stop by the settle rule on their own latencies;
``triton-perf coldstart`` prints the table and the measured warmup count (of a python-backend model whose
latency is its own: it settles on any host)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from python_models import SERIAL_MODEL, write_python_model

from builders.repository.view import Repository
from perf.cli.main import cli
from perf.coldstart import measure as coldstart
from perf.records.coldstart import settled_at

pytestmark = pytest.mark.integration

VARIANT = "tiny_onnx_cpu1_nodb_mbs8"
#: A python-backend model holding each request SERIAL_MS (tests/support/python_models.py).
SERIAL = "serial_py_cpu1_nodb_mbs8"
SERIAL_MS = 50


def test_load_time_and_first_requests_are_recorded_and_positive(bundled_server, tiny_repo: Path, caplog):
    t0 = time.monotonic()
    record = coldstart.measure(bundled_server, Repository(tiny_repo).variant(VARIANT), (1, 8, 128))
    spent_s = time.monotonic() - t0
    assert "batch size 128 not sent: above its max_batch_size 8" in caplog.text  # said, not dropped silently
    assert record.not_measured is None and record.variant == VARIANT and record.warmup is None
    assert record.load_s is not None and record.load_s > 0
    assert record.load_log_s is not None and 0 < record.load_log_s <= record.load_s + 0.5  # the log's span, in the API's
    assert record.instances_log_s is not None and 0 < record.instances_log_s <= record.load_log_s
    assert [(f.batch_size, f.shape) for f in record.first] == [(1, None), (8, None)]
    for f in record.first:
        assert f.error is None and coldstart.MIN_REQUESTS <= len(f.latencies_ms) <= coldstart.MAX_REQUESTS
        assert all(ms > 0 for ms in f.latencies_ms)
        # the sender stops at the first request whose latencies settle, else at its cap: whether the tiny model
        # settles within it is the host's (a very busy one may keep it from settling), the rule is the code's
        n = settled_at(f.latencies_ms)
        assert n in (None, len(f.latencies_ms)), (n, len(f.latencies_ms))  # never past a settled request
        if n is None:  # not settled: every request the cap allows sent, and no count drawn from them
            assert len(f.latencies_ms) == coldstart.MAX_REQUESTS or spent_s >= coldstart.STANDALONE_BUDGET_S
            assert f.requests_to_steady() is None and f.not_settled.startswith("steady not reached within")
        else:
            assert f.settled_ms is not None and f.requests_to_steady() is not None
    assert bundled_server.model_state(VARIANT) != "READY"  # unloaded again


def test_perf_coldstart_prints_the_table_and_the_measured_warmup_count(tmp_path: Path):
    # each request held 50 ms: its latency is the model's own, so it settles (medians of 5 within 10 %) on any host
    write_python_model(tmp_path / "repo", SERIAL, SERIAL_MODEL % {"sleep_ms": SERIAL_MS})
    r = CliRunner().invoke(
        cli,
        ["coldstart", "--repository", str(tmp_path / "repo"), "--variants", SERIAL, "--runtime", "bundled", "--batch-sizes", "4"],
    )
    assert r.exit_code == 0, r.output
    row = next(ln for ln in r.output.splitlines() if f"`{SERIAL}`" in ln)
    assert "b4 " in row and "not measured" not in row
    assert "**Cold start.** 1 variant was loaded alone on the bundled tritonserver" in r.output
    assert "--warmup-count " in r.output and "measured by triton-perf coldstart" in r.output


def test_ctrl_c_in_coldstart_shows_the_variants_measured_and_names_the_rest(tiny_repo: Path, tiny_build, monkeypatch):
    # it said "aborted" and dropped the cold starts already measured (trial 17, T17-16)
    names = tiny_build.manifest["variants"][:3]
    real = coldstart.measure
    calls: list[str] = []

    def measure(srv, variant, *args, **kwargs):
        calls.append(variant.name)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C while the second variant is measured
        return real(srv, variant, *args, **kwargs)

    monkeypatch.setattr(coldstart, "measure", measure)
    args = ["coldstart", "--repository", str(tiny_repo), "--variants", ",".join(names), "--runtime", "bundled"]
    r = CliRunner().invoke(cli, [*args, "--batch-sizes", "1"])
    assert r.exit_code == 130, r.output
    assert f"stopping (Ctrl-C): {names[1]} left unfinished; stopping tritonserver (up to" in r.output
    row = next(ln for ln in r.output.splitlines() if f"`{names[0]}`" in ln)
    assert "not measured" not in row, r.output
    assert f"interrupted (Ctrl-C): 1 of 3 variants measured (the table above); not measured: {names[1]}, {names[2]}" in r.output
    assert f"--variants {names[1]},{names[2]}" in r.output and "aborted" not in r.output
