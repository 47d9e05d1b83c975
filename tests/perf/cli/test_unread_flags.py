"""Flags `triton-perf report` and `triton-perf baseline` accepted and passed over without a word (issue 26, K1):
refused, exit 2, naming each flag, why it would be ignored and what to do, before anything is read or measured."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from perf.cli.main import cli


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), terminal_width=400)


def test_report_flags_of_a_sweep_given_for_a_colocation_run_are_refused(tmp_path) -> None:
    """`report COLOC_RUN --top 3 --html --latency-budget-ms 5` rewrote the co-location report as it was, wrote no
    report.html and said nothing (trial 20's t20col, copied: rc 0)."""
    run = tmp_path / "coloc"
    run.mkdir()
    (run / "colocation.json").write_text("{}")
    res = _run("report", str(run), "--top", "3", "--html", "--latency-budget-ms", "5", "--latency-percentile", "95")
    assert res.exit_code == 2, res.output
    assert "--latency-budget-ms would be ignored: its report judges each model by the budgets the run was given" in res.output
    assert "--html would be ignored: its report has no report.html (coloc is a co-location run, of triton-perf colocate)" in (
        res.output
    )
    assert "--top would be ignored" in res.output and "--latency-percentile would be ignored" in res.output
    assert not (run / "report.md").exists()


@pytest.fixture
def run_folder(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text(json.dumps({}))
    return run


def test_baseline_out_for_a_run_is_refused(run_folder, tmp_path) -> None:
    """A run's baseline goes into its results.json and its traces into its traces/: --out was never read."""
    res = _run("baseline", str(run_folder), "--out", str(tmp_path / "elsewhere"))
    assert res.exit_code == 2, res.output
    assert f"--out would be ignored: {run_folder} is a run folder: its results.json gets the baseline" in res.output


def test_baseline_timing_flags_with_profile_only_are_refused(tmp_path) -> None:
    """--profile-only measures no baseline: --batch-sizes and --warmup (and --min-run-time without --precision)
    were never read; the two of one reason are named together, the reason once."""
    res = _run("baseline", str(tmp_path), "--profile-only", "--trace", "--batch-sizes", "4", "--warmup", "0.1")
    assert res.exit_code == 2, res.output
    assert "--batch-sizes and --warmup would be ignored: --profile-only measures no baseline" in res.output
    timed = _run("baseline", str(tmp_path), "--profile-only", "--trace", "--min-run-time", "0.1")
    assert timed.exit_code == 2 and "--min-run-time would be ignored" in timed.output
    studied = _run("baseline", str(tmp_path), "--profile-only", "--precision", "fp16", "--min-run-time", "0.1")
    assert "would be ignored" not in studied.output  # the precision study times calls with it


@pytest.mark.parametrize(("urls", "one"), [([], "starts its own one"), (["--url", "127.0.0.1:9"], "reaches one at --url")])
def test_sweep_allow_shared_host_without_several_servers_is_refused(tmp_path, urls, one) -> None:
    """s19: `sweep --allow-shared-host` measured on the one server it starts (or reaches) and said nothing: the flag
    lets several --url servers that share hardware be measured in parallel, read only with several."""
    res = _run("sweep", "-r", str(tmp_path), "--results-dir", str(tmp_path / "out"), *urls, "--allow-shared-host")
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said
    assert (
        "--allow-shared-host would be ignored: it lets several --url servers on one host or GPU be measured in parallel, "
        f"and this sweep {one}"
    ) in said
    assert "drop --allow-shared-host, or give the servers to measure on in parallel: --url HOST:PORT,HOST:PORT" in said
    assert not (tmp_path / "out").exists()
    several = _run("sweep", "-r", str(tmp_path), "--url", "127.0.0.1:9,127.0.0.1:19", "--allow-shared-host")
    assert "--allow-shared-host would be ignored" not in several.output  # read: it goes on (and fails on the empty -r)
