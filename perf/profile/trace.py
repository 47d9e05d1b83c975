"""Profiler traces of one batch per format, and the operators that took the time.

- eager PyTorch and TorchScript: ``torch.profiler`` (PyTorch docs, "torch.profiler"), CPU
  activity and CUDA where the device is a GPU; written with ``export_chrome_trace``
  (open it in ``chrome://tracing`` or https://ui.perfetto.dev);
- ONNX Runtime: its own profiler (``SessionOptions.enable_profiling``; ONNX Runtime docs,
  "Profiling tools"), a JSON list of Chrome-trace events, one ``Node`` event per kernel.

Each batch is run ``warmup`` times untraced (ONNX Runtime: traced, and only the last run's
events are counted), then once traced. The ten operators with the most self time
(children excluded) are kept as :class:`~perf.records.profile.OperatorTime` rows. What the
profilers print themselves goes to :data:`PROFILER_LOG` beside the trace, not to the console.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from builders.export.capture import native_output
from perf.records.profile import OperatorTime, TraceRecord

log = logging.getLogger(__name__)

#: Operators kept per trace.
TOP_N = 10
#: Untraced runs before the traced one.
WARMUP_RUNS = 3
#: The profilers' own console output (libkineto's ``USDT ... profiler_start`` lines), beside the traces.
PROFILER_LOG = "profiler.log"


def top_operators(totals: Mapping[str, tuple[float, int]], n: int = TOP_N) -> list[OperatorTime]:
    """The ``n`` operators with the most self time.

    Args:
        totals: Operator name -> (self time in µs, calls).
        n: How many to keep.

    Returns:
        Rows, most self time first; ``self_pct`` is of the sum over *all* operators.
    """
    whole = sum(t for t, _ in totals.values())
    ranked = sorted(totals.items(), key=lambda kv: -kv[1][0])[:n]
    return [
        OperatorTime(name=k, self_us=round(t, 3), calls=c, self_pct=round(100.0 * t / whole, 2) if whole > 0 else 0.0)
        for k, (t, c) in ranked
    ]


def keep_log(text: str, trace: Path) -> None:
    """Append what a profiler printed natively while tracing ``trace`` to :data:`PROFILER_LOG`
    beside it (captured by :func:`builders.export.capture.native_output`, the toolkit's one rule
    for native output: kept out of the console, kept in a file)."""
    if text:
        with open(trace.parent / PROFILER_LOG, "a") as f:
            f.write(f"# {trace.name}\n{text}\n")


def trace_torch(
    fn: Callable[[], Any],
    out: Path,
    *,
    fmt: str,
    device: str,
    batch_size: int,
    threads: int | None = None,
    warmup: int = WARMUP_RUNS,
) -> TraceRecord:
    """Trace one call of ``fn`` (a torch computation: an eager module or a TorchScript runner).

    Args:
        fn: Runs one batch (inputs bound).
        out: The Chrome trace file to write (``.json``).
        fmt: ``"eager"`` or ``"torchscript"`` (recorded).
        device: ``"cpu"`` or ``"cuda[:N]"``: CUDA activity is traced too on a GPU.
        batch_size: Samples in the batch (recorded).
        threads: Intra-op threads the caller set (recorded).
        warmup: Untraced calls first (default :data:`WARMUP_RUNS`).

    Returns:
        The record; ``top_operators`` by self CPU time (self CUDA time on a GPU).
    """
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = device.startswith("cuda")
    for _ in range(warmup):
        fn()
    if cuda:
        torch.cuda.synchronize()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    out.parent.mkdir(parents=True, exist_ok=True)
    with native_output() as said:  # libkineto's USDT profiler_start/stop lines
        with profile(activities=activities) as prof:
            fn()
            if cuda:
                torch.cuda.synchronize()
        prof.export_chrome_trace(str(out))
    keep_log(said.text, out)
    totals: dict[str, tuple[float, int]] = {}
    for e in prof.key_averages():
        self_us = float(getattr(e, "self_device_time_total", 0.0) if cuda else e.self_cpu_time_total)
        if self_us > 0:
            totals[e.key] = (self_us, int(e.count))
    return TraceRecord(
        format=fmt,
        profiler="torch.profiler",
        device="cuda" if cuda else "cpu",
        batch_size=batch_size,
        threads=threads,
        file=str(out),
        top_operators=top_operators(totals),
    )


def trace_onnx(
    path: Path,
    inputs: Mapping[str, np.ndarray],
    out: Path,
    *,
    batch_size: int,
    threads: int | None = None,
    device: str = "cpu",
    warmup: int = WARMUP_RUNS,
) -> TraceRecord:
    """Profile one batch of an ONNX model with ONNX Runtime's own profiler.

    The session gets the settings of :func:`builders.serving.runners.load_runner` (``threads`` intra-op
    threads, one inter-op thread; the CUDA provider for ``cuda``); ``warmup + 1`` runs are
    profiled and only the last run's kernels are counted.

    Args:
        path: The ``.onnx`` file.
        inputs: Input name -> array ``[batch, ...]`` (names the graph lacks are left out).
        out: Where the profile JSON is moved to.
        batch_size: Samples in the batch (recorded).
        threads: Intra-op threads (``None``: ONNX Runtime's default).
        device: ``"cpu"`` or ``"cuda[:N]"``.
        warmup: Runs before the counted one.

    Returns:
        The record; ``top_operators`` by summed kernel time per ``op_name``.
    """
    import onnxruntime as ort

    out.parent.mkdir(parents=True, exist_ok=True)
    opts = ort.SessionOptions()
    opts.enable_profiling = True
    opts.profile_file_prefix = str(out.with_suffix(""))
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    providers: list[Any] = ["CPUExecutionProvider"]
    if device.startswith("cuda"):
        dev_id = int(device.split(":")[1]) if ":" in device else 0
        providers = [("CUDAExecutionProvider", {"device_id": dev_id})]
    with native_output() as said:  # what the runtime prints while profiling
        session = ort.InferenceSession(str(path), opts, providers=providers)
        names = {i.name for i in session.get_inputs()}
        feed = {k: v for k, v in inputs.items() if k in names}
        for _ in range(warmup + 1):
            session.run(None, feed)
        Path(session.end_profiling()).replace(out)
    keep_log(said.text, out)
    return TraceRecord(
        format="onnx",
        profiler="onnxruntime",
        device="cuda" if device.startswith("cuda") else "cpu",
        batch_size=batch_size,
        threads=threads,
        file=str(out),
        top_operators=top_operators(onnx_kernel_times(json.loads(out.read_text()))),
    )


def onnx_kernel_times(events: list[dict[str, Any]]) -> dict[str, tuple[float, int]]:
    """Kernel time per operator type in the last ``model_run`` of an ONNX Runtime profile.

    Args:
        events: The profile's Chrome-trace events (``cat`` ``Session`` / ``Node``; a node's
            kernel is the ``<node>_kernel_time`` event, ``args.op_name`` its operator type,
            ``dur`` in µs).

    Returns:
        ``op_name`` -> (µs, kernels run).
    """
    runs = [e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"]
    start, end = (runs[-1]["ts"], runs[-1]["ts"] + runs[-1]["dur"]) if runs else (float("-inf"), float("inf"))
    totals: dict[str, tuple[float, int]] = {}
    for e in events:
        if e.get("cat") != "Node" or not str(e.get("name", "")).endswith("_kernel_time"):
            continue
        if not start <= e.get("ts", 0) <= end:
            continue
        op = (e.get("args") or {}).get("op_name", e["name"])
        t, c = totals.get(op, (0.0, 0))
        totals[op] = (t + float(e.get("dur", 0)), c + 1)
    return totals
