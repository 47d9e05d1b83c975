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
