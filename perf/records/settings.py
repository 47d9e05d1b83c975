"""perf_analyzer's measurement options, stored with every run (``results.json`` ``settings``);
its fields are ``triton-perf sweep``'s measurement flags (:mod:`core.options`; the flags' ranges
are click types, so a record is read as leniently as before). What a sweep was asked to do, those
options stored flat beside its other settings (:class:`SweepSettings`), and where it was measured
(:class:`Environment`: host, GPUs, server, perf_analyzer)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import click
from pydantic import ConfigDict, Field, TypeAdapter
from pydantic.dataclasses import dataclass
from typing_extensions import TypedDict

from core.options import NOT_A_FLAG, Flag
from core.units import Duration
from perf.records.rounds import READ_BY, Design
from perf.records.search import SearchMode

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
        int, Flag(decls=("--measurement-interval",), type=Duration("ms", integer=True, low=1), metavar="MS", panel=MEASURE_PANEL)
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


class GpuRecord(TypedDict, total=False):
    """One GPU where the sweep ran (``core.gpu.GpuInfo.to_json()``)."""

    name: str
    driver: str
    memory_bytes: int | None


class ServerRecord(TypedDict, total=False):
    """The tritonserver the sweep measured: runtime, why that runtime, version, command line, and torch's OpenMP
    wait policy it ran with (``OMP_WAIT_POLICY``, ``clients.runtimes.base.Runtime.wait_policy``; ``None``: a server
    the toolkit did not start, not known; absent: a run saved before it was recorded)."""

    runtime: str
    reason: str | None
    version: str | None
    command: str
    omp_wait_policy: str | None


class PerfAnalyzerRecord(TypedDict, total=False):
    """The perf_analyzer binary used."""

    path: str
    version: str | None


class Environment(TypedDict, total=False):
    """Where a run was measured (``perf.measure.environment.collect()`` plus server and perf_analyzer).
    Other keys are kept."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]
    host: str
    os: str
    python: str
    cpu: str | None
    cpu_count: int | None
    memory_bytes: int | None
    gpus: list[GpuRecord]
    versions: dict[str, str | None]
    server: ServerRecord
    perf_analyzer: PerfAnalyzerRecord
    toolkit: list[str]  # each session's toolkit (perf.records.provenance.code_id), first session first


_MEASURE = TypeAdapter(MeasureSettings)


def _measure_fields_schema(schema: dict[str, Any]) -> None:
    """Publish the :class:`perf.records.settings.MeasureSettings` fields (stored flat in ``settings``)."""
    schema["properties"] = {**schema.get("properties", {}), **_MEASURE.json_schema().get("properties", {})}


class SweepSettings(TypedDict, total=False):
    """What a sweep was asked to do; a resumed run continues with exactly these. The
    :class:`perf.records.settings.MeasureSettings` fields (``protocol``, ``measurement_interval_ms``...)
    are stored flat beside these keys and validated against that class."""

    __pydantic_config__ = ConfigDict(extra="allow", json_schema_extra=_measure_fields_schema)  # type: ignore[misc]
    repository: str
    variants: list[str]
    #: The levels asked, or ``"auto"``: the adaptive ladder (:mod:`perf.search.policy`).
    concurrency: list[int] | Literal["auto"]
    #: ``brute`` or ``prune`` (:mod:`perf.search.policy`); absent in runs that measured every level.
    search: SearchMode
    batch_sizes: list[int]
    request_rates: list[float]
    trials: int
    latency_budget_ms: float | None
    #: The client latency percentile the budget is on (50, 90, 95, 99).
    latency_percentile: int
    #: Named dynamic axes swept as a level dimension: axis -> sizes (``--shapes``), a mixed range as ``"LO..HI"``.
    sweep_axes: dict[str, list[int | str]]
    #: How the server was launched (``perf.sweep.options.SERVER_SETTINGS``: runtime, image, ports...).
    server: dict[str, Any]
    #: The perf_analyzer binary asked for (``--perf-analyzer``), ``None``: found as usual.
    perf_analyzer: str | None
    #: The user's perf_analyzer ``--input-data``, ``None``: generated.
    input_data: str | None
    host_busy_threshold_pct: float
    #: The user's ``--shape`` values: input name -> dims of its dynamic axes' sizes.
    shapes: dict[str, list[int]]
    #: ``rounds`` (interleaved, the default) or ``sequential`` (:mod:`perf.records.rounds`); absent: sequential.
    design: Design
    #: The seed that shuffles the rounds (round ``r``: ``seed + r``); ``None`` in a sequential run.
    seed: int | None
    #: The rounds' window (ms, ``--round-window``); ``None``: the rules' (``rounds.rules.window_ms``).
    round_window_ms: int | None
    #: Most variants loaded on a server at once in the rounds design (``None``: as many as fit).
    max_loaded: int | None
    #: The run's own time budget (s, ``--time-budget``; ``None``: none), recorded before its first
    #: round so that a run stopped before it resumes against it; absent in runs saved before.
    time_budget_s: float | None
