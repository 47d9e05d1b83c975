"""``builders build --print-trtexec --trt-accelerator fp16`` (break-it F16): the grid's refusal ("add --instance-kind
gpu") came first and its command was refused next ("--instance-kind and --trt-accelerator would be ignored:
--print-trtexec prints ..."). Printing from a recorded ONNX export reads no grid flag but the max batch sizes: that
refusal comes first; where it builds, the grid's own refusal holds, before anything is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.cli import build as build_cli
from builders.cli.main import cli


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """A recorded export to print from (the model is not loaded); what was printed."""
    out: list[Any] = []
    monkeypatch.setattr(build_cli, "recorded_onnx", lambda opts, mbs, opset: ("recorded", mbs))
    monkeypatch.setattr(build_cli, "say_source", lambda source, repository: source)
    monkeypatch.setattr(build_cli, "print_trtexec_commands", lambda source, *rest: out.append(source))
    return out


def _run(tmp_path: Path, *flags: str) -> tuple[int, str]:
    args = ["build", "--model", "tiny", "--print-trtexec", "--build-dir", str(tmp_path / "b"), "-r", str(tmp_path / "r")]
    res = CliRunner().invoke(cli, [*args, *flags], terminal_width=400)
    return res.exit_code, " ".join(res.output.split())


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--trt-accelerator", "fp16"], "--trt-accelerator would be ignored: --print-trtexec prints"),
        (["--instance-kind", "cpu", "--gpus", "0"], "--instance-kind and --gpus would be ignored: --print-trtexec prints"),
        (["--dynamic-batching", "off", "--preferred-batch-sizes", "4"], "--dynamic-batching and --preferred-batch-sizes"),
    ],
)
def test_printing_from_a_recorded_export_refuses_the_grid_flags_first(
    tmp_path: Path, printed: list[Any], flags: list[str], said: str
) -> None:
    code, out = _run(tmp_path, *flags)
    assert code == 2 and said in out, out
    assert "KIND_GPU" not in out and "apply to dynamic batching" not in out and printed == []
    code, out = _run(tmp_path, "--max-batch-sizes", "16")  # what the refusal says to do: drop them
    assert code == 0 and printed == [("recorded", 16)], out


def test_where_it_builds_the_grids_refusal_holds_before_anything_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_cli, "recorded_onnx", lambda opts, mbs, opset: None)  # no export recorded: it builds one
    monkeypatch.setattr(build_cli, "say_source", lambda source, repository: None)
    monkeypatch.setattr(build_cli.build_api, "build", lambda *a, **k: pytest.fail("built with a refused grid"))
    code, out = _run(tmp_path, "--trt-accelerator", "fp16")
    assert code == 2 and "--trt-accelerator fp16 applies to ONNX on KIND_GPU instance groups" in out, out
