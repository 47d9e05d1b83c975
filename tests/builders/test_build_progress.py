"""A long step of one unit is shown going with how long the same work took before (trial 16, T16-17:
the ~45 s ONNX dynamo export, a TensorRT build and the variant folders said nothing while they ran)."""

from __future__ import annotations

from pathlib import Path

from builders.build_progress import LongStep, previous_took
from builders.export.artifacts import Attempt, ExportResult
from builders.repository.records import BuildManifest


def _result(precision: str, attempts: list[Attempt], export_s: float, fmt: str = "onnx") -> ExportResult:
    return ExportResult(fmt, Path("model.onnx"), precision, attempts[-1].strategy, attempts, export_s)


def test_the_same_strategy_of_this_build_says_how_long_it_took():
    done = {
        ("onnx", "fp32"): _result("fp32", [Attempt("dynamo", False, "x", 45.14), Attempt("torchscript", True, None, 9.0)], 9.0)
    }
    assert previous_took("onnx", "fp16", "dynamo", done, None) == " (the fp32 export via dynamo took 45.1 s)"
    assert previous_took("onnx", "fp16", "torchscript", done, None) == " (the fp32 export via torchscript took 9.0 s)"
    assert previous_took("torchscript", "fp16", "script", done, None) == ""  # another format: not known


def test_the_earlier_build_says_it_when_this_one_has_not():
    def record(precision: str, seconds: float) -> dict:
        return {
            "format": "onnx",
            "file": "model.onnx",
            "precision": precision,
            "strategy": "dynamo",
            "attempts": [{"strategy": "dynamo", "ok": True, "seconds": seconds}],
            "export_s": seconds,
            "size_bytes": 1,
            "sha256": "0" * 64,
        }

    old = BuildManifest.model_validate(
        {
            "model": "m",
            "source": "s",
            "created": "2026-01-01T00:00:00+0000",
            "max_batch_size": 8,
            "versions": {},
            "spec": {"inputs": [], "outputs": []},
            "exports": [record("fp16", 51.0), record("fp32", 44.0)],
        }
    )
    assert previous_took("onnx", "fp32", "dynamo", {}, old) == " (the earlier build's fp32 export via dynamo took 44.0 s)"
    assert previous_took("onnx", "bf16", "dynamo", {}, old) == " (the earlier build's fp16 export via dynamo took 51.0 s)"
    plan = {("trt", "fp32"): _result("fp32", [Attempt("tensorrt-python", True, None, 120.0)], 120.0, "trt")}
    assert previous_took("trt", "fp16", None, plan, None) == " (the fp32 plan took 120.0 s)"


def test_a_long_step_starts_and_ends_and_the_next_one_ends_the_one_before():
    calls: list[tuple[str, int, int]] = []
    long = LongStep(lambda what, done, total, sizes=None: calls.append((what, done, total)))
    long.start("onnx fp32: exporting via dynamo")
    long.start("onnx fp32: exporting via torchscript")  # the first strategy failed: the next one starts
    long.end()
    long.end()  # nothing runs: nothing said
    assert calls == [
        ("onnx fp32: exporting via dynamo", 0, 1),
        ("onnx fp32: exporting via dynamo", 1, 1),
        ("onnx fp32: exporting via torchscript", 0, 1),
        ("onnx fp32: exporting via torchscript", 1, 1),
    ]
    LongStep(None).start("nothing shown")  # no callback: nothing to call
