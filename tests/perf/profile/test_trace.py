"""Profiler traces (perf/profile/trace.py): the files are written and parse as JSON; the top
operators are ranked by self time and only the last ONNX Runtime run is counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders.model.models import load_model
from core import formats
from perf.profile.trace import PROFILER_LOG, onnx_kernel_times, top_operators, trace_onnx, trace_torch


def test_top_operators_rank_by_self_time_and_share_of_the_whole():
    rows = top_operators({"a": (10.0, 1), "b": (30.0, 2), "c": (60.0, 3)}, n=2)
    assert [(r.name, r.self_us, r.calls, r.self_pct) for r in rows] == [("c", 60.0, 3, 60.0), ("b", 30.0, 2, 30.0)]


def test_onnx_kernel_times_count_the_last_run_only():
    def node(op: str, ts: int, dur: int) -> dict:
        return {"cat": "Node", "name": f"{op}_0_kernel_time", "ts": ts, "dur": dur, "args": {"op_name": op}}

    events = [
        {"cat": "Session", "name": "model_run", "ts": 0, "dur": 100},
        node("Gemm", 10, 90),
        {"cat": "Session", "name": "model_run", "ts": 200, "dur": 100},
        node("Gemm", 210, 40),
        node("Gemm", 260, 20),
        node("Relu", 290, 5),
        {"cat": "Node", "name": "Relu_0_fence_before", "ts": 289, "dur": 1, "args": {"op_name": "Relu"}},
    ]
    assert onnx_kernel_times(events) == {"Gemm": (60.0, 2), "Relu": (5.0, 1)}


def test_torch_trace_of_one_batch_is_a_chrome_trace(tmp_path: Path, capfd: pytest.CaptureFixture[str]):
    import torch

    m = load_model("tiny", None)
    x = [torch.from_numpy(a) for a in m.spec.example_inputs(4).values()]
    rec = trace_torch(lambda: m.module(*x), tmp_path / "eager.json", fmt="eager", device="cpu", batch_size=4, threads=1)
    # issue 26: libkineto's USDT profiler_start/stop lines reached make demo's console; they go to the log
    out, err = capfd.readouterr()
    assert "USDT" not in out + err and "profiler_start" in (tmp_path / PROFILER_LOG).read_text()
    trace = json.loads((tmp_path / "eager.json").read_text())
    assert trace["traceEvents"]
    assert rec.status == "measured" and rec.profiler == "torch.profiler" and rec.batch_size == 4
    assert 0 < len(rec.top_operators) <= 10
    assert any(o.name == "aten::addmm" for o in rec.top_operators)
    assert all(a.self_us >= b.self_us > 0 for a, b in zip(rec.top_operators, rec.top_operators[1:]))


@pytest.mark.slow  # the session's real tiny build
def test_onnx_runtime_profile_of_one_batch(tmp_path: Path, tiny_build_dir: Path):
    m = load_model("tiny", None)
    x = m.spec.example_inputs(4)
    rec = trace_onnx(tiny_build_dir / formats.get("onnx").file, x, tmp_path / "run" / "onnx.json", batch_size=4, threads=1)
    events = json.loads((tmp_path / "run" / "onnx.json").read_text())
    assert isinstance(events, list) and any(e.get("cat") == "Node" for e in events)
    assert not list(tmp_path.glob("run/onnx_*.json"))  # moved, not left beside it
    assert rec.profiler == "onnxruntime" and {o.name for o in rec.top_operators} >= {"Gemm"}
    assert rec.top_operators[0].self_us > 0
