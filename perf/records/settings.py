"""perf_analyzer's measurement options, stored with every run (``results.json`` ``settings``)."""

from __future__ import annotations

import dataclasses


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
