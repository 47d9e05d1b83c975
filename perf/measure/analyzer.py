"""perf_analyzer: finding it, building its command line, running one level.

What it prints and writes is parsed by :mod:`perf.measure.analyzer_output`, and only there.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from core.errors import PerfError
from core.processes import die_with_parent
from perf.measure.analyzer_output import RunOutcome, parse_run
from perf.records.settings import MeasureSettings

log = logging.getLogger(__name__)

PERF_ANALYZER_ENV = "PERF_ANALYZER"
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
            raise PerfError(
                f"perf_analyzer given by {source} does not exist or is not executable: {path}",
                hint=INSTALL_HINT,
                flag="--perf-analyzer" if explicit else None,  # a typed path: a usage error (core.cli.EXIT_USAGE)
            )
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
        binary: The perf_analyzer executable (:func:`find_perf_analyzer`).
        model: The served model (variant) name (``-m``).
        url: ``host:port`` of the endpoint for ``settings.protocol``.
        concurrency: Outstanding requests (``--concurrency-range N:N``); ignored with ``request_rate``.
        batch_size: Client batch size per request (``-b``).
        csv_path: Where perf_analyzer writes its CSV (``-f``, with ``--verbose-csv``).
        settings: The measurement settings (protocol, window or request count, stability,
            trials, metrics, extra arguments).
        metrics_url: ``host:port/metrics`` of the server's metrics endpoint; with
            ``settings.collect_metrics`` perf_analyzer scrapes it (``None``: no metrics).
        input_args: ``--shape``/``--input-data`` flags (see :mod:`perf.measure.inputs`).
        interval_scale: Multiplier on the measurement window (retries of unstable levels).
        stability_pct: Overrides ``settings.stability_pct`` (%, ``-s``; the last,
            accept-anything try).
        max_trials: Overrides ``settings.max_trials`` (``-r``).
        request_rate: Measure at this fixed request rate (requests/s,
            ``--request-rate-range R:R``) instead of at ``concurrency``.
        metrics_interval_ms: How often perf_analyzer scrapes ``metrics_url`` (ms); the
            server's ``--metrics-interval-ms`` so no refresh is missed or read twice.

    Returns:
        The command line, ``settings.extra_args`` last.
    """
    load = (
        ["--request-rate-range", f"{request_rate:g}:{request_rate:g}"]
        if request_rate
        else ["--concurrency-range", f"{concurrency}:{concurrency}"]
    )
    cmd = [
        str(binary),
        "-m",
        model,
        "-i",
        settings.protocol,
        "-u",
        url,
        *load,
        "-b",
        str(batch_size),
        "--measurement-mode",
        settings.measurement_mode,
        "-s",
        f"{stability_pct if stability_pct is not None else settings.stability_pct:g}",
        "-r",
        str(max_trials or settings.max_trials),
        "-f",
        str(csv_path),
        "--verbose-csv",
        "-v",  # one "Pass [N]" line per window: the windows' times (RunOutcome.stable_span)
    ]
    if settings.measurement_mode == "time_windows":
        cmd += ["--measurement-interval", str(int(settings.measurement_interval_ms * interval_scale))]
    else:
        cmd += ["--measurement-request-count", str(int(settings.measurement_request_count * interval_scale))]
    if settings.collect_metrics and metrics_url:
        cmd += ["--collect-metrics", "--metrics-url", metrics_url, "--metrics-interval", str(metrics_interval_ms)]
    return cmd + list(input_args) + list(settings.extra_args)


def run_perf_analyzer(
    cmd: list[str], csv_path: Path, timeout_s: float, on_start: Callable[[int], None] | None = None
) -> RunOutcome:
    """Run one command, timing each output line as it arrives; parse its CSV when it wrote one.

    Args:
        cmd: The command (:func:`build_command`).
        csv_path: The CSV it writes (removed first, so an old file is never read).
        timeout_s: How long it may run, s; it is killed after that.
        on_start: Called with perf_analyzer's process id once it runs (the host sampler
            counts its CPU time as the measurement's own).

    Raises:
        PerfError: perf_analyzer could not be started or ran past ``timeout_s``.
    """
    log.info("perf_analyzer: %s", " ".join(cmd))
    csv_path.unlink(missing_ok=True)
    lines: list[tuple[float, str]] = []
    started = time.monotonic()
    try:
        # tied to this thread's life (it waits for it), so a killed sweep leaves no perf_analyzer running
        p = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=perf_analyzer_env(),
            preexec_fn=die_with_parent(os.getpid()),
        )
    except OSError as e:
        raise PerfError(f"could not run perf_analyzer: {e}", hint=INSTALL_HINT) from e
    if on_start:
        on_start(p.pid)

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            lines.append((time.monotonic(), line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        p.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        p.kill()
        p.wait()
        raise PerfError(
            f"perf_analyzer ran longer than {timeout_s:.0f} s", hint="shorten the measurement window or the trials"
        ) from e
    finally:
        reader.join(5)
    return parse_run(p.returncode, lines, csv_path, started, time.monotonic())
