"""Issue 11, item 7: a strategy whose export fails verification is followed by the next one,
and every attempt (export error or verification error) is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.export.artifacts import ExportResult
from builders.export.chain import attempts_of, first_verified
from builders.export.onnx import export_onnx
from builders.export.torchscript import export_torchscript
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.verify.verification import verify_export
from core.errors import ExportError, GpuRequiredError, VerificationError

X4 = ModelSpec.from_flags(["x:float32:4"])


def _result(name: str) -> ExportResult:
    return ExportResult("onnx", Path("/nonexistent/model.onnx"), "fp32", name, [], 0.0)


def _reject(*names: str):
    def verify(r: ExportResult) -> None:
        if r.strategy in names:
            raise VerificationError(f"{r.strategy} disagrees with eager PyTorch", hint="try another")

    return verify


def test_a_failed_verification_moves_on_to_the_next_strategy_and_is_recorded():
    def boom() -> ExportResult:
        raise RuntimeError("exporter crashed")

    r = first_verified("onnx", [("a", boom), ("b", lambda: _result("b")), ("c", lambda: _result("c"))], _reject("b"))
    assert r.strategy == "c"
    assert [(a.strategy, a.ok, a.stage) for a in r.attempts] == [
        ("a", False, "export"),
        ("b", False, "verify"),
        ("c", True, "export"),
    ]
    assert "exporter crashed" in r.attempts[0].error and "disagrees" in r.attempts[1].error


def test_when_nothing_verifies_the_verification_error_is_raised_with_every_attempt():
    with pytest.raises(VerificationError) as e:
        first_verified("onnx", [("a", lambda: _result("a")), ("b", lambda: _result("b"))], _reject("a", "b"))
    assert "b disagrees" in e.value.message and "no onnx strategy gave a verified export" in e.value.message
    assert e.value.hint == "try another"
    assert [(a.strategy, a.stage) for a in attempts_of(e.value)] == [("a", "verify"), ("b", "verify")]
    with pytest.raises(ExportError, match="a: RuntimeError: x") as e2:
        first_verified("onnx", [("a", lambda: (_ for _ in ()).throw(RuntimeError("x")))], _reject())
    assert [a.stage for a in attempts_of(e2.value)] == ["export"]


def test_an_error_that_is_not_a_verification_verdict_stops_the_chain():
    def no_gpu(r: ExportResult) -> None:
        raise GpuRequiredError("no GPU")

    tried = []
    with pytest.raises(GpuRequiredError):
        first_verified(
            "onnx", [("a", lambda: tried.append("a") or _result("a")), ("b", lambda: tried.append("b") or _result("b"))], no_gpu
        )
    assert tried == ["a"]


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_onnx_falls_back_to_the_torchscript_exporter_when_dynamo_does_not_verify(tmp_path):
    from torch import nn

    linear = nn.Sequential(nn.Linear(4, 3)).eval()
    spec = infer_outputs(linear, X4)
    result = export_onnx(linear, spec, tmp_path, verify=_reject("dynamo"))
    assert result.strategy == "torchscript"
    assert [(a.strategy, a.ok, a.stage) for a in result.attempts] == [
        ("dynamo", False, "verify"),
        ("torchscript", True, "export"),
    ]
    verify_export(result, linear, spec, 4, {})  # the file on disk is the torchscript-based one, and it verifies


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_torchscript_falls_back_to_trace_when_the_scripted_export_does_not_verify(tmp_path):
    from torch import nn

    linear = nn.Sequential(nn.Linear(4, 3)).eval()
    spec = infer_outputs(linear, X4)
    result = export_torchscript(linear, spec, tmp_path, verify=_reject("script"))
    assert [(a.strategy, a.ok, a.stage) for a in result.attempts] == [("script", False, "verify"), ("trace", True, "export")]


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_the_issues_lstm_with_a_dynamic_sequence_axis_ends_on_the_torchscript_exporter(tmp_path):
    """The dynamo exporter's graph of a sequence-first LSTM does not serve the dynamic seq
    axis (with torch 2.13 it freezes it at the graph's input, an export-stage failure; the
    issue saw it fail verification); the TorchScript-based exporter's graph verifies."""
    spec = ModelSpec.from_flags(["x:float32:seq,8"], [], ["seq=1,8,16"])
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    result = build(
        BuildOptions(
            "verification_models:seq_first_lstm",
            formats=("onnx",),
            grid=grid,
            spec=spec,
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    (e,) = result.manifest["exports"]
    assert e["strategy"] == "torchscript" and e["status"] == "ok"
    assert [(a["strategy"], a["ok"]) for a in e["attempts"]] == [("dynamo", False), ("torchscript", True)]
    assert e["attempts"][0]["stage"] in ("export", "verify") and e["attempts"][0]["error"]
    assert {p["axes"]["seq"] for p in e["verification"]} == {1, 8, 11, 16}  # min, opt, off every multiple, max
    saved = json.loads(result.manifest_path.read_text())
    assert saved["exports"][0]["attempts"][0]["stage"] == e["attempts"][0]["stage"]


class _BadCall(torch.nn.Module):
    def forward(self, x):
        return torch.cat(x, 1, 2)  # three positional arguments: no aten::cat schema takes them


@pytest.mark.slow  # a real torch.jit.script
def test_a_torchscript_error_keeps_the_call_it_names_not_only_its_first_line():
    # the trial: "strategy script rejected (export failed): RuntimeError: Arguments for call are not valid." (which call?)
    def script() -> ExportResult:
        torch.jit.script(_BadCall())
        raise AssertionError("scripted")

    with pytest.raises(ExportError) as e:
        first_verified("torchscript", [("script", script)], _reject())
    (attempt,) = attempts_of(e.value)
    assert attempt.error.startswith("RuntimeError: Arguments for call are not valid. (aten::cat; Expected a value of type")
    assert "at test_export_chain.py:" in attempt.error and ": return torch.cat(x, 1, 2)" in attempt.error
    assert len(attempt.error) <= 500 and "\n" not in attempt.error
