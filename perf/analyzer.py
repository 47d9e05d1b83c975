"""perf_analyzer: finding it, building its command line, running one level, parsing its CSV.

perf_analyzer's CSV (``-f out.csv --verbose-csv``) is parsed here and only here. Its
columns (µs unless said): Concurrency, Inferences/Second, Client Send,
Network+Server Send/Recv, Server Queue, Server Compute Input, Server Compute Infer,
Server Compute Output, Client Recv, p50/p90/p95/p99 latency, Avg latency, and with
``--collect-metrics`` Avg GPU Utilization (fraction), Avg GPU Power Usage (W),
Max GPU Memory Usage (bytes). Empty cells mean "not measured on this host".
"""

from __future__ import annotations

import csv
import dataclasses
import logging
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Sequence

from core.errors import PerfError

log = logging.getLogger(__name__)

PERF_ANALYZER_ENV = "PERF_ANALYZER"
UNSTABLE_MARK = "Failed to obtain stable measurement"
INSTALL_HINT = (
    "run `make setup` (installs tritonclient[all]==2.51.0, whose wheel carries perf_analyzer, "
    "plus libb64-0d and nvidia-cuda-runtime-cu12), or point --perf-analyzer / $PERF_ANALYZER at a "
    "perf_analyzer binary (e.g. from the nvcr.io/nvidia/tritonserver:<yy.mm>-py3-sdk image)"
)


def find_perf_analyzer(explicit: str | Path | None = None) -> Path:
    """Locate perf_analyzer: ``explicit``, then ``$PERF_ANALYZER``, then this virtual
    environment's ``bin/``, then PATH.

    Raises:
        PerfError: none found (the message says how to install it).
    """
    candidates: list[tuple[str, str | None]] = [
        ("--perf-analyzer", str(explicit) if explicit else None),
        (f"${PERF_ANALYZER_ENV}", os.environ.get(PERF_ANALYZER_ENV)),
        ("the virtual environment", str(Path(sys.prefix) / "bin" / "perf_analyzer")),
        ("PATH", shutil.which("perf_analyzer")),
    ]
    for source, path in candidates:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            log.debug("perf_analyzer from %s: %s", source, path)
            return Path(path)
        if path and source in ("--perf-analyzer", f"${PERF_ANALYZER_ENV}"):
            raise PerfError(f"perf_analyzer given by {source} does not exist or is not executable: {path}", hint=INSTALL_HINT)
    raise PerfError("perf_analyzer was not found", hint=INSTALL_HINT)


def perf_analyzer_env() -> dict[str, str]:
    """Environment for perf_analyzer: the wheel's binary links ``libcudart.so.12``, which
    the ``nvidia-cuda-runtime-cu12`` package carries in ``nvidia/cuda_runtime/lib``."""
    env = dict(os.environ)
    libdir = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cuda_runtime" / "lib"
    if libdir.is_dir():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(libdir), env.get("LD_LIBRARY_PATH", "")) if p)
    return env


def perf_analyzer_version(binary: Path) -> str:
    """``perf_analyzer --version`` (e.g. ``"2.51.0"``).

    Raises:
        PerfError: it does not run (a missing shared library, typically).
    """
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30, env=perf_analyzer_env())
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PerfError(f"could not run {binary}: {e}", hint=INSTALL_HINT) from e
    text = (out.stdout + out.stderr).strip()
    m = re.search(r"(\d+\.\d+\.\d+)", text)
    if out.returncode != 0 or not m:
        raise PerfError(f"{binary} --version failed (exit {out.returncode}): {text[-400:]}", hint=INSTALL_HINT)
    return m.group(1)


@dataclasses.dataclass(frozen=True)
class MeasureSettings:
    """perf_analyzer's measurement options (perf_analyzer docs, "Measurement Modes").

    Attributes:
        protocol: ``"grpc"`` or ``"http"``.
        measurement_mode: ``"time_windows"`` or ``"count_windows"``.
        measurement_interval_ms: Window length in time_windows mode (default 2000 ms).
        measurement_request_count: Requests per window in count_windows mode (default 50).
        stability_pct: Allowed variation between windows, % (default 10).
        max_trials: Windows tried before giving up on stability (default 10).
        unstable_retries: Retries of an unstable level, each with a doubled window (default 1);
            after them one last run accepts any variation and the level is flagged unstable.
        collect_metrics: Pass ``--collect-metrics`` (GPU metrics from the server's endpoint).
        extra_args: Further perf_analyzer flags, appended verbatim to every measurement
            command (``--perf-analyzer-arg``), e.g. ``("--max-threads=16",)``.
    """

    protocol: str = "grpc"
    measurement_mode: str = "time_windows"
    measurement_interval_ms: int = 2000
    measurement_request_count: int = 50
    stability_pct: float = 10.0
    max_trials: int = 10
    unstable_retries: int = 1
    collect_metrics: bool = True
    extra_args: tuple[str, ...] = ()


def build_command(
    binary: Path,
    model: str,
    url: str,
    concurrency: int,
    batch_size: int,
    csv_path: Path,
    settings: MeasureSettings,
    metrics_url: str | None = None,
    input_args: Sequence[str] = (),
    interval_scale: float = 1.0,
    stability_pct: float | None = None,
    max_trials: int | None = None,
    request_rate: float | None = None,
    metrics_interval_ms: int = 500,
) -> list[str]:
    """One perf_analyzer command for one concurrency level.

    Args:
        url: ``host:port`` of the endpoint for ``settings.protocol``.
        input_args: ``--shape``/``--input-data`` flags (see :mod:`perf.inputs`).
        interval_scale: Multiplier on the measurement window (retries of unstable levels).
        stability_pct, max_trials: Overrides of ``settings`` (the last, accept-anything try).
        request_rate: Measure at this fixed request rate (requests/s,
            ``--request-rate-range R:R``) instead of at ``concurrency``.
        metrics_interval_ms: How often perf_analyzer scrapes ``metrics_url`` (ms); the
            server's ``--metrics-interval-ms`` so no refresh is missed or read twice.
    """
    load = (["--request-rate-range", f"{request_rate:g}:{request_rate:g}"] if request_rate
            else ["--concurrency-range", f"{concurrency}:{concurrency}"])
    cmd = [
        str(binary), "-m", model, "-i", settings.protocol, "-u", url,
        *load, "-b", str(batch_size),
        "--measurement-mode", settings.measurement_mode,
        "-s", f"{stability_pct if stability_pct is not None else settings.stability_pct:g}",
        "-r", str(max_trials or settings.max_trials),
        "-f", str(csv_path), "--verbose-csv",
    ]
    if settings.measurement_mode == "time_windows":
        cmd += ["--measurement-interval", str(int(settings.measurement_interval_ms * interval_scale))]
    else:
        cmd += ["--measurement-request-count", str(int(settings.measurement_request_count * interval_scale))]
    if settings.collect_metrics and metrics_url:
        cmd += ["--collect-metrics", "--metrics-url", metrics_url, "--metrics-interval", str(metrics_interval_ms)]
    return cmd + list(input_args) + list(settings.extra_args)


@dataclasses.dataclass
class RunOutcome:
    """What one perf_analyzer run produced."""

    returncode: int
    unstable: bool
    rows: list[dict[str, float | None]]
    output_tail: str


def run_perf_analyzer(cmd: list[str], csv_path: Path, timeout_s: float) -> RunOutcome:
    """Run one command; parse its CSV when it wrote one.

    Raises:
        PerfError: perf_analyzer could not be started or ran past ``timeout_s``.
    """
    log.info("perf_analyzer: %s", " ".join(cmd))
    csv_path.unlink(missing_ok=True)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=perf_analyzer_env())
    except subprocess.TimeoutExpired as e:
        raise PerfError(f"perf_analyzer ran longer than {timeout_s:.0f} s", hint="shorten the measurement window or the trials") from e
    except OSError as e:
        raise PerfError(f"could not run perf_analyzer: {e}", hint=INSTALL_HINT) from e
    out = p.stdout + p.stderr
    rows = parse_csv(csv_path) if csv_path.is_file() else []
    return RunOutcome(p.returncode, UNSTABLE_MARK in out, rows, out[-2000:])


#: CSV column -> (LevelResult field, factor to the field's unit).
_COLUMNS: dict[str, tuple[str, float]] = {
    "Concurrency": ("concurrency", 1),
    "Inferences/Second": ("throughput_infer_per_s", 1),
    "Client Send": ("client_send_us", 1),
    "Network+Server Send/Recv": ("network_server_us", 1),
    "Server Queue": ("server_queue_us", 1),
    "Server Compute Input": ("server_compute_input_us", 1),
    "Server Compute Infer": ("server_compute_infer_us", 1),
    "Server Compute Output": ("server_compute_output_us", 1),
    "Client Recv": ("client_recv_us", 1),
    "p50 latency": ("latency_p50_ms", 1e-3),
    "p90 latency": ("latency_p90_ms", 1e-3),
    "p95 latency": ("latency_p95_ms", 1e-3),
    "p99 latency": ("latency_p99_ms", 1e-3),
    "Avg latency": ("latency_avg_ms", 1e-3),
    "Avg GPU Utilization": ("gpu_utilization_pct", 100),
    "Avg GPU Power Usage": ("gpu_power_w", 1),
    "Max GPU Memory Usage": ("gpu_memory_used_bytes", 1),
}


def parse_csv(path: Path) -> list[dict[str, float | None]]:
    """Rows of a perf_analyzer CSV as ``{LevelResult field: value}`` in the fields' units.

    Empty cells (metrics this host lacks) become ``None``. Multi-GPU metric cells
    (``gpu0:0.5;gpu1:0.7;``) are averaged (utilisation) or summed (power, memory).
    """
    rows = []
    with open(path, newline="") as f:
        for raw in csv.DictReader(f):
            row: dict[str, float | None] = {}
            for col, (field, factor) in _COLUMNS.items():
                if col in raw:
                    v = _cell(raw[col], average=field == "gpu_utilization_pct")
                    row[field] = None if v is None else round(v * factor, 6)
            rows.append(row)
    return rows


def _cell(text: str | None, average: bool) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    if ":" in text:  # per-GPU values "uuid:value;uuid:value;"
        vals = [float(part.rsplit(":", 1)[1]) for part in text.split(";") if ":" in part]
        if not vals:
            return None
        return sum(vals) / len(vals) if average else sum(vals)
    return float(text)
