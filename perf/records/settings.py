"""perf_analyzer's measurement options, stored with every run (``results.json`` ``settings``);
its fields are ``triton-perf sweep``'s measurement flags (:mod:`core.options`; the flags' ranges
are click types, so a record is read as leniently as before)."""

from __future__ import annotations

from typing import Annotated

import click
from pydantic import Field
from pydantic.dataclasses import dataclass

from core.options import NOT_A_FLAG, Flag
from perf.records.rounds import READ_BY

#: The help panel of the measurement flags.
MEASURE_PANEL = "perf_analyzer measurement"


@dataclass(frozen=True)
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
            command (``--perf-analyzer-arg``), e.g. ``("--max-threads=16",)``; a sweep refuses
            those it sets itself (:mod:`perf.sweep.analyzer_flags`).
    """

    protocol: Annotated[str, Flag(choices=("grpc", "http"), panel=MEASURE_PANEL)] = Field(
        default="grpc", description="Protocol perf_analyzer measures with."
    )
    measurement_mode: Annotated[str, Flag(choices=("time_windows", "count_windows"), panel=MEASURE_PANEL)] = Field(
        default="time_windows",
        description="perf_analyzer's window kind: fixed time (--measurement-interval) or fixed request count "
        f"(--measurement-request-count); count_windows {READ_BY['sequential']}: a rounds visit's windows are time windows "
        "of --round-window.",
    )
    measurement_interval_ms: Annotated[
        int, Flag(decls=("--measurement-interval",), type=click.IntRange(1), panel=MEASURE_PANEL)
    ] = Field(
        default=2000,
        description=f"Window length, ms (time_windows), {READ_BY['sequential']}: a rounds sweep's window is --round-window.",
    )
    measurement_request_count: Annotated[int, Flag(type=click.IntRange(1), panel=MEASURE_PANEL)] = Field(
        default=50,
        description=f"Requests per window (count_windows), {READ_BY['sequential']}: a rounds visit's windows are time "
        "windows of --round-window.",
    )
    stability_pct: Annotated[
        float, Flag(decls=("--stability-percentage",), type=click.FloatRange(0, min_open=True), panel=MEASURE_PANEL)
    ] = Field(
        default=10.0,
        description="A level is stable when its last 3 windows differ by less than this (%), in both designs: "
        "--design sequential gives it to perf_analyzer (-s: throughput and latency; more windows until they agree); "
        "a rounds visit keeps its 3 windows as they are (-s off) and is flagged unstable when their throughput "
        "differs by more.",
    )
    max_trials: Annotated[int, Flag(type=click.IntRange(3), panel=MEASURE_PANEL)] = Field(
        default=10, description=f"perf_analyzer windows before a level counts as unstable, {READ_BY['sequential']}."
    )
    unstable_retries: Annotated[int, Flag(type=click.IntRange(0), panel=MEASURE_PANEL)] = Field(
        default=1,
        description=f"Retries of an unstable level with a doubled window before it is kept and flagged, {READ_BY['sequential']}.",
    )
    collect_metrics: Annotated[bool, NOT_A_FLAG] = True
    extra_args: Annotated[
        tuple[str, ...], Flag(decls=("--perf-analyzer-arg",), repeat=True, metavar="FLAG", panel=MEASURE_PANEL)
    ] = Field(
        default=(),
        description="Extra perf_analyzer flag passed through verbatim to every measurement (repeatable), "
        "e.g. --perf-analyzer-arg=--max-threads=16; one the sweep sets itself or that changes what a level is or how "
        "it is read (--concurrency-range, -b, -p, --shape, -f...) is refused, naming the sweep's flag to use.",
    )
