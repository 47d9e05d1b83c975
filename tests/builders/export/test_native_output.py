"""What native code prints while an export strategy runs (issue 26: the TorchScript-based ONNX
exporter's "Torch IR graph at exception" dump reached the console) is kept in the attempt's
record and the DEBUG log; the console gets the attempt's one line."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli
from builders.export.artifacts import ExportResult
from builders.export.capture import native_output
from builders.export.chain import first_verified
from core.errors import ExportError

DUMP = "Torch IR graph at exception: graph(%0 : Float(*, 16)):"


def test_native_writes_are_captured_and_python_ones_are_not(capfd: pytest.CaptureFixture[str]) -> None:
    import torch

    torch._C._jit_set_onnx_log_enabled(True)  # torch's C++ ONNX log: what the exporter dumps through
    try:
        with native_output() as got:
            torch._C._jit_onnx_log(DUMP)
            os.write(2, b"[W:onnxruntime:, graph.cc] a native warning\n")
            print("python's own line")
    finally:
        torch._C._jit_set_onnx_log_enabled(False)
    seen = capfd.readouterr()
    assert got.text == f"{DUMP}\n[W:onnxruntime:, graph.cc] a native warning"
    assert "python's own line" in seen.out and DUMP not in seen.out + seen.err


def _strategy(tmp_path: Path, dump: bool):
    def make() -> ExportResult:
        os.write(1, (DUMP + "\n").encode())
        if dump:
            raise RuntimeError("UnsupportedOperatorError: aten::linalg_eigvals")
        return ExportResult("onnx", tmp_path / "model.onnx", "fp32", "torchscript", [], 0.0)

    return make


def test_each_attempt_keeps_what_its_exporter_printed(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    result = first_verified("onnx", [("dynamo", _strategy(tmp_path, True)), ("torchscript", _strategy(tmp_path, False))])
    assert [(a.strategy, a.ok, a.output) for a in result.attempts] == [("dynamo", False, DUMP), ("torchscript", True, DUMP)]
    with pytest.raises(ExportError) as e:
        first_verified("onnx", [("dynamo", _strategy(tmp_path, True))])
    assert e.value.attempts[0].output == DUMP  # type: ignore[attr-defined]
    seen = capfd.readouterr()
    assert DUMP not in seen.out + seen.err


UNSUPPORTED = """
import torch
from torch import nn


class Eig(nn.Module):
    def forward(self, x):
        return torch.linalg.eigvals(x.reshape(x.shape[0], 4, 4)).real.reshape(x.shape[0], 4)


def make():
    return Eig().eval()
"""


@pytest.mark.slow  # real ONNX exports (both strategies fail on an operator ONNX lacks)
def test_a_failed_torchscript_onnx_export_prints_no_graph_dump(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd) -> None:
    (tmp_path / "eig_pkg.py").write_text(textwrap.dedent(UNSUPPORTED))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    try:
        res = CliRunner().invoke(
            cli, ["build", "--model", "eig_pkg:make", "--input", "x:float32:16", "--format", "onnx", "--max-batch-sizes", "4"]
        )
    finally:
        sys.modules.pop("eig_pkg", None)
    native = capfd.readouterr()
    assert res.exit_code == 1
    assert "Torch IR graph at exception" not in res.output + native.out + native.err
    line = next(x for x in res.output.splitlines() if x.startswith("onnx fp32: strategy torchscript rejected"))
    assert "the attempt's output in the manifest" in line  # the one line that says where the dump went
    failed = json.loads((tmp_path / "builds" / "make" / "manifest.failed.json").read_text())
    (attempt,) = [a for e in failed["exports"] for a in e["attempts"] if a["strategy"] == "torchscript"]
    assert attempt["output"].startswith("Torch IR graph at exception")
