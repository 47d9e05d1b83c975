"""A profiler trace taken while other processes used the CPU carries the host-busy mark (perf.report.sections.profile)."""

from __future__ import annotations

from perf.markdown import flag_mark
from perf.records.load import HOST_BUSY
from perf.records.profile import OperatorTime, TraceRecord
from perf.report.sections.profile import trace_lines


def _trace(busy: bool) -> TraceRecord:
    op = OperatorTime(name="Gemm", self_us=90.0, calls=3, self_pct=90.0)
    return TraceRecord(
        "onnx", "onnxruntime", "cpu", 4, 2, "traces/x.json", top_operators=[op],
        host_busy_pct=120.0 if busy else 0.0, host_busy=busy,
    )  # fmt: skip


def test_a_trace_on_a_busy_host_is_marked_in_report_and_appendix() -> None:
    for operators in (3, None):
        busy = "\n".join(trace_lines([_trace(True)], operators=operators))
        assert flag_mark(HOST_BUSY).strip() in busy and "other processes used 120 % of one core" in busy
        quiet = "\n".join(trace_lines([_trace(False)], operators=operators))
        assert flag_mark(HOST_BUSY).strip() not in quiet
