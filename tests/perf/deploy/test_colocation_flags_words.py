"""export-deployment of a co-location run refuses the flags that read a sweep's run, by the one rule of a flag
given where it is not read (:func:`core.flag_refusals.refuse_unread`, issue 26, K1): each typed flag named, why
once, what to do (trial 11, F15 nit: "--variant apply to a sweep's run"; the words are now refuse_unread's)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from perf.cli.main import cli
from perf.records.colocation import COLOCATION_FILE

WHY = "the bundle is the run's combination"


def _said(res: Result) -> str:
    return " ".join(res.output.split())


def test_one_flag_two_flags_named_why_once(tmp_path: Path) -> None:
    (tmp_path / COLOCATION_FILE).write_text("{}")
    one = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--variant", "x"])
    assert one.exit_code == 2 and f"--variant would be ignored: {WHY}" in _said(one), one.output
    assert f"({tmp_path.name} is a co-location run, of triton-perf colocate)" in _said(one)
    two = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--variant", "x", "--latency-budget-ms", "5"])
    assert f"--variant and --latency-budget-ms would be ignored: {WHY}" in _said(two), two.output
    assert "drop --variant; drop --latency-budget-ms" in _said(two)


def test_every_flag_of_a_sweeps_run_is_refused_for_a_colocation_run(tmp_path: Path) -> None:
    """--workload, --allow-unfinished and --allow-refused-flags read a sweep's run: for a co-location run they were
    accepted and ignored (issue 26, K1; only --variant and --latency-budget-ms were refused)."""
    (tmp_path / COLOCATION_FILE).write_text("{}")
    for flags in (["--workload", "b=4"], ["--allow-unfinished"], ["--allow-refused-flags"]):
        res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), *flags])
        assert res.exit_code == 2 and f"{flags[0]} would be ignored: {WHY}" in _said(res), res.output


def test_a_typed_flag_is_refused_whatever_its_value(tmp_path: Path) -> None:
    """The refusal read each flag's value, not whether it was typed: ``--workload ''`` was accepted and ignored."""
    (tmp_path / COLOCATION_FILE).write_text("{}")
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--workload", ""])
    assert res.exit_code == 2 and f"--workload would be ignored: {WHY}" in _said(res), res.output
