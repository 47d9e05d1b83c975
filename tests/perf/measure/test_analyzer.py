"""perf_analyzer wrapper: CSV parsing at the boundary, command lines, discovery errors."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest

from core.errors import PerfError
from perf.measure.analyzer import build_command, find_perf_analyzer
from perf.measure.analyzer_output import parse_csv
from perf.records.settings import MeasureSettings
from perf.sweep.flags import concurrency_list

DATA = Path(__file__).resolve().parents[2] / "data"


def test_parse_real_csv_converts_units_and_keeps_absent_gpu_metrics_as_none():
    # captured from perf_analyzer 2.51.0 --verbose-csv --collect-metrics against the bundled server
    (row,) = parse_csv(DATA / "pa_verbose_cpu.csv")
    assert row["concurrency"] == 4
    assert row["throughput_infer_per_s"] == pytest.approx(2042.16)
    assert row["latency_p99_ms"] == pytest.approx(5.982)  # µs in the CSV -> ms
    assert row["latency_avg_ms"] == pytest.approx(1.952)
    assert row["server_queue_us"] == 512 and row["server_compute_infer_us"] == 645
    assert row["gpu_utilization_pct"] is None and row["gpu_memory_used_bytes"] is None


def test_parse_multi_gpu_cells(tmp_path: Path):
    csv = tmp_path / "gpu.csv"
    csv.write_text(
        "Concurrency,Inferences/Second,p99 latency,Avg GPU Utilization,Avg GPU Power Usage,Max GPU Memory Usage\n"
        "2,100,2000,GPU-a:0.5;GPU-b:0.7;,GPU-a:100;GPU-b:50;,GPU-a:1000;GPU-b:3000;\n"
    )
    (row,) = parse_csv(csv)
    assert row["gpu_utilization_pct"] == pytest.approx(60.0)  # mean of 50 % and 70 %
    assert row["gpu_power_w"] == pytest.approx(150.0)  # summed over GPUs
    assert row["gpu_memory_used_bytes"] == pytest.approx(4000.0)


def test_build_command_one_level_with_metrics_and_overrides(tmp_path: Path):
    s = MeasureSettings(protocol="http", measurement_interval_ms=1000)
    cmd = build_command(
        Path("/pa"),
        "m",
        "localhost:1",
        8,
        4,
        tmp_path / "o.csv",
        s,
        "localhost:2/metrics",
        ["--shape", "x:3"],
        interval_scale=2,
        stability_pct=1e6,
        max_trials=3,
        metrics_interval_ms=250,
    )
    line = " ".join(cmd)
    assert "--concurrency-range 8:8 -b 4" in line and "-i http" in line
    assert "--measurement-interval 2000" in line
    assert "-s 1e+06 -r 3" in line
    assert "--collect-metrics --metrics-url localhost:2/metrics --metrics-interval 250" in line
    assert cmd[-2:] == ["--shape", "x:3"]


def test_missing_perf_analyzer_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("PERF_ANALYZER", str(tmp_path / "nope"))
    with pytest.raises(PerfError, match="does not exist") as e:
        find_perf_analyzer()
    assert "make setup" in str(e.value)


def test_perf_analyzer_found_in_the_venv(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("PERF_ANALYZER", raising=False)
    path = find_perf_analyzer()
    assert path.name == "perf_analyzer" and os.access(path, os.X_OK)


def test_concurrency_list_and_range():
    assert concurrency_list("1,2,4") == (1, 2, 4)
    assert concurrency_list("2:8:2") == (2, 4, 6, 8)
    with pytest.raises(click.BadParameter):
        concurrency_list("8:2")


def test_build_command_request_rate_replaces_concurrency(tmp_path: Path):
    cmd = build_command(Path("/pa"), "m", "u", 0, 1, tmp_path / "o.csv", MeasureSettings(), request_rate=250)
    assert "--request-rate-range" in cmd and cmd[cmd.index("--request-rate-range") + 1] == "250:250"
    assert "--concurrency-range" not in cmd


def test_concurrency_list_rejects_zero_step_and_levels():
    for bad in ("1:8:0", "0,1", ""):
        with pytest.raises(click.BadParameter):
            concurrency_list(bad)


def test_sweep_cli_refuses_bad_numbers_before_starting_anything(tmp_path: Path):
    from click.testing import CliRunner

    from perf.cli.main import cli

    for args in (["--trials", "0"], ["--batch-sizes", "0"], ["--latency-budget-ms", "0"], ["--unstable-retries", "-1"]):
        r = CliRunner().invoke(cli, ["sweep", "--repository", str(tmp_path), *args])
        assert r.exit_code == 2, (args, r.output)  # click's usage error, no server started
