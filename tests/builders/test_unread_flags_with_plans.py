"""With ``--plan`` taking back every plan the build serves, ``--workspace-mib`` and ``--timing-cache`` are unread, and
their refusal's hint was "add --format trt", which the command had already (``--plan`` adds it): refused again. The
hint says what builds the plans here (break-it F16's kind: a hint leads to a command that is taken)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli import build as build_cli
from builders.cli.main import cli
from core.cli import EXIT_USAGE


@pytest.mark.parametrize("flag", [["--workspace-mib", "64"], ["--timing-cache", "tc.bin"]])
def test_the_hint_beside_plan_leads_to_a_build_that_reads_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: list[str]
) -> None:
    plan = tmp_path / "x.plan"
    plan.write_bytes(b"plan")
    args = ["build", "--model", "tiny", "--plan", f"fp32={plan}", "--build-dir", str(tmp_path / "b"), "-r", str(tmp_path / "r")]
    res = CliRunner().invoke(cli, [*args, *flag], terminal_width=400)
    said = " ".join(res.output.split())
    assert res.exit_code == EXIT_USAGE, said
    assert "--plan takes plans built elsewhere back (fp32)" in said and "add --format trt" not in said
    assert "build the plans here instead (--format trt in place of --plan)" in said
    monkeypatch.setattr(build_cli.build_api, "build", lambda *a, **k: (_ for _ in ()).throw(SystemExit(0)))  # taken
    here = [a for a in args if a not in ("--plan", f"fp32={plan}")]
    followed = CliRunner().invoke(cli, [*here, *flag, "--format", "trt"], terminal_width=400)
    assert followed.exit_code == 0, followed.output
