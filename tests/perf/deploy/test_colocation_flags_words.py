"""export-deployment of a co-location run refuses the sweep-only flags in one grammatical sentence
(trial 11, F15 nit: "--variant apply to a sweep's run")."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from perf.cli.main import cli
from perf.records.colocation import COLOCATION_FILE


def test_one_flag_applies_two_apply(tmp_path: Path) -> None:
    (tmp_path / COLOCATION_FILE).write_text("{}")
    one = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--variant", "x"])
    assert one.exit_code == 2 and "--variant applies to a sweep's run" in " ".join(one.output.split())
    two = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--variant", "x", "--latency-budget-ms", "5"])
    assert "--variant and --latency-budget-ms apply to a sweep's run" in " ".join(two.output.split())


def test_every_flag_of_a_sweeps_run_is_refused_for_a_colocation_run(tmp_path: Path) -> None:
    """--workload, --allow-unfinished and --allow-refused-flags read a sweep's run: for a co-location run they were
    accepted and ignored (issue 26, K1; only --variant and --latency-budget-ms were refused)."""
    (tmp_path / COLOCATION_FILE).write_text("{}")
    for flags in (["--workload", "b=4"], ["--allow-unfinished"], ["--allow-refused-flags"]):
        res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), *flags])
        assert res.exit_code == 2 and f"{flags[0]} applies to a sweep's run" in " ".join(res.output.split()), res.output
