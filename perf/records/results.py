"""Records of a sweep and the results store (``results/<run-id>/``).

``results.json`` (schema version 3; JSON Schema in ``docs/schemas/results.json``), units in
field names:

.. code-block:: text

    {
      "schema": 3,
      "run_id": str, "created": ISO time, "finished": ISO time | null,
      "environment": {host, os, cpu, cpu_count, memory_bytes, gpus: [{name, driver, memory_bytes}],
                      versions: {...}, server: {runtime, reason, version, command}, perf_analyzer: {path, version}},
      "settings": {concurrency: [int], batch_sizes: [int], protocol, measurement_interval_ms, ...},
      "variants": [
        {"name": str, "params": {...index entry: Variant fields, runtime, build...} | null,
         "status": "ok"|"failed"|"pending"|"skipped", "error": str | null,
         "levels": [LevelResult...], "skipped": [SkippedLevel...],   (perf.records.levels)
         "served": [ServedModel...],   (what the server ran: clients.runtimes.served)
         "build_check": {verdict} | null}   (the build's verdict, read when the sweep started)
      ],
      "server_starts": [ServerStart...],
      "baseline": BaselineResult | null   (the in-process baseline, perf.records.baseline)
      "rounds": RoundsRecord | null       (how a rounds sweep measured, perf.records.rounds)
    }

Version 2 added ``rounds`` (the interleaved design: a level's ``trial`` is then its round);
version-1 files (one variant after another) still load, with ``rounds`` null. Version 3 added
each variant's ``served`` stamps (the served config read back, threads per instance, the
artifact's identity, the other models loaded beside it; read after its load and after its last
level) and each server's ``models_found`` and ``left_differently``; older files load with
these empty.

The records are pydantic dataclasses: constructed, mutated and compared like dataclasses,
validated when built and when :func:`load` reads a file (a wrong field is one
:class:`~core.errors.RecordError` naming the file and field). ``environment`` and
``settings`` are typed dicts (:class:`perf.records.settings.Environment`, :class:`perf.records.settings.SweepSettings`).

A metric that does not exist on the host (GPU utilisation on a CPU machine, say) is
``null``, never 0. ``flat.csv`` holds one row per level with the variant's parameters.
"""

from __future__ import annotations

import csv
import dataclasses
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, TypeAdapter, ValidationError, field_validator
from pydantic.dataclasses import dataclass

from clients.runtimes.served import ServedModel
from core.errors import PerfError
from core.records import RecordKind, load_record, problems, write_record
from perf.records.baseline import BaselineResult
from perf.records.build_check import BuildCheck
from perf.records.coldstart import ColdStart
from perf.records.levels import LevelResult, SkippedLevel
from perf.records.profile import ProfileRecord
from perf.records.rounds import RoundsRecord
from perf.records.search import SearchRecord
from perf.records.servers import MeasuringServer
from perf.records.settings import Environment, MeasureSettings, SweepSettings
from perf.report_state import mark_outdated

SCHEMA_VERSION = 3
RESULTS_FILE = "results.json"
FLAT_FILE = "flat.csv"
COMMANDS_FILE = "commands.txt"
_CONFIG = ConfigDict(extra="ignore")


@dataclass(config=_CONFIG)
class ServerStart:
    """One start of tritonserver during a run (a resumed run adds its own).

    Attributes:
        log: The server's log file, relative to the run folder (``server.log``,
            ``server-2.log``...): never reused, so an error that names it stays true.
        started: When it was started (ISO time).
        reason: Why: ``"sweep started"``, ``"run resumed"``, or the restart's cause (the
            server died while measuring a level, a variant was not unloaded in time...).
    """

    log: str
    started: str
    reason: str


@dataclass(config=_CONFIG)
class Session:
    """One session of a run (the sweep, then each ``--resume``; ``RunResult.sessions``, 1 first): ``started`` (ISO
    time), ``ended``: ``"finished"``, ``"interrupted"`` (by ``stopped_by``: ``"Ctrl-C"``, ``"SIGTERM"``, ``"SIGHUP"``;
    ``None`` in runs saved before it was recorded), ``None`` while it runs or when killed; its wall time
    in three parts, each measured (s; ``None``: not timed; :mod:`perf.sweep.budget_scope`): ``startup_s`` before the
    time budget's clock (imports, reading the repository, checks), ``budget_clock_s`` on it (from before the server
    start to the end of the in-process baseline), ``report_s`` the report and plots after it (``None``: none written);
    ``budget``: the latency budget it ran under, ``"p99 5 ms"`` or ``"none"`` (``None`` in runs saved before it was
    recorded; :mod:`perf.analysis.recommendation.budget_origin`), ``budget_from`` who set it when not the user's flag
    (``"make demo's default (DEMO_BUDGET_MS unset)"``, from ``TRITON_PERF_BUDGET_FROM``; ``None``: as typed)."""

    started: str
    ended: Literal["finished", "interrupted"] | None = None
    stopped_by: str | None = None
    startup_s: float | None = None
    budget_clock_s: float | None = None
    report_s: float | None = None
    budget: str | None = None
    budget_from: str | None = None


@dataclass(config=_CONFIG)
class VariantResult:
    """All levels of one variant, or the error that stopped it.

    Attributes:
        name: Variant (model) name.
        params: The variant's repository index entry when the sweep started (every
            ``builders.config.variants.Variant`` field, flat, plus ``runtime`` and ``build``);
            ``None`` when the repository has no index (``perf.analysis.stats.pairs.variant_of`` gives the typed form).
        status: ``"pending"``, ``"ok"``, ``"failed"``, or ``"skipped"`` (no asked level
            can run on it: every client batch size is above its max_batch_size).
        error: Why the variant failed or was skipped, when it was.
        levels: Its measurement points, sorted by :attr:`LevelResult.key`.
        skipped: Asked levels not planned for this variant, with the reason.
        dynamic_axes: How the sizes of its inputs' dynamic dims were chosen, in words
            (``"seq=64 (the build's opt size)"``); ``None`` when it has none.
        cold_start: Its load time and first requests, measured right after the sweep
            loaded it (:mod:`perf.coldstart.measure`); ``None`` when not measured (older runs).
        replaced_cold_starts: Cold starts ``triton-perf coldstart --into RUN --replace`` measured
            again, oldest first (kept, never lost: issue 26); empty when none was.
        server: The HTTP URL of the server that measured it (:attr:`RunResult.servers`);
            ``None`` in runs saved before servers were recorded.
        served: What the server ran for it (:class:`clients.runtimes.served.ServedModel`), read
            right after each load and again after its last level (``moment``); the variant
            failed when either differed from it. Empty in runs saved before schema 3.
        axis_ranges: The dynamic axes of its build's spec: axis -> ``[min, opt, max]`` (what a
            mixed workload, ``--shapes time=LO..HI``, may span); empty when none or not read.
        build_check: The build's verdict on the export it serves, read when the sweep started
            (:class:`perf.records.build_check.BuildCheck`); ``None`` in runs saved before it was recorded.
    """

    name: str
    params: dict[str, Any] | None = None
    status: Literal["pending", "ok", "failed", "skipped"] = "pending"
    error: str | None = None
    levels: list[LevelResult] = dataclasses.field(default_factory=list)
    skipped: list[SkippedLevel] = dataclasses.field(default_factory=list)
    dynamic_axes: str | None = None
    cold_start: ColdStart | None = None
    replaced_cold_starts: list[ColdStart] = dataclasses.field(default_factory=list)
    server: str | None = None
    served: list[ServedModel] = dataclasses.field(default_factory=list)
    axis_ranges: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    build_check: BuildCheck | None = None

    @property
    def threads_per_instance(self) -> int | None:
        """Intra-op threads per instance the server ran it with (its first stamp), ``None`` when
        not known (the backend's library default, or the server host's cores not known here)."""
        return self.served[0].threads_per_instance if self.served else None

    def level(
        self, concurrency: int, batch_size: int = 1, trial: int = 0, request_rate: float | None = None, shape: str | None = None
    ) -> LevelResult | None:
        """The level with these settings (``concurrency=0, request_rate=R`` for a request-rate
        level; ``shape="seq=64"`` for a level of a shape sweep)."""
        key = (concurrency, batch_size, trial, request_rate or 0.0, shape or "")
        return next((lv for lv in self.levels if lv.key == key), None)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VariantResult:
        """Validate a decoded variant record."""
        return _VARIANT.validate_python(d)


_MEASURE = TypeAdapter(MeasureSettings)


@dataclass(config=_CONFIG)
class RunResult:
    """A whole sweep (the content of ``results.json``); ``server_starts`` lists every start of
    tritonserver, with its log file and why it was (re)started; ``servers`` the servers that
    measured (:class:`perf.records.servers.MeasuringServer`: URL, version, host, GPUs); ``search``
    how its levels were chosen and why variants were not measured further (:mod:`perf.search.policy`);
    ``rounds`` how a rounds sweep measured (``None``: one variant after another)."""

    run_id: str
    created: str
    environment: Environment = dataclasses.field(default_factory=dict)  # type: ignore[assignment]
    settings: SweepSettings = dataclasses.field(default_factory=dict)  # type: ignore[assignment]
    variants: list[VariantResult] = dataclasses.field(default_factory=list)
    finished: str | None = None
    server_starts: list[ServerStart] = dataclasses.field(default_factory=list)
    #: The in-process baseline (:mod:`perf.profile.baseline`); ``None`` until measured (``--no-baseline``).
    baseline: BaselineResult | None = None
    #: Baselines measured again (``triton-perf baseline RUN --replace``, a resumed sweep's), oldest first: kept.
    replaced_baselines: list[BaselineResult] = dataclasses.field(default_factory=list)
    schema: int = SCHEMA_VERSION
    #: Profiler traces and the precision study (:mod:`perf.records.profile`; ``triton-perf baseline --trace/--precision``).
    profile: ProfileRecord | None = None
    servers: list[MeasuringServer] = dataclasses.field(default_factory=list)
    search: SearchRecord | None = None
    rounds: RoundsRecord | None = None
    sessions: list[Session] = dataclasses.field(default_factory=list)  # empty: saved before they were recorded

    @field_validator("settings")
    @classmethod
    def _measure_settings(cls, v: SweepSettings) -> SweepSettings:
        names = {f.name for f in dataclasses.fields(MeasureSettings)}
        try:
            _MEASURE.validate_python({k: x for k, x in v.items() if k in names})
        except ValidationError as e:
            raise ValueError("valid perf_analyzer measurement settings (" + "; ".join(problems(e)) + ")") from None
        return v

    def variant(self, name: str) -> VariantResult | None:
        """The variant named ``name``, or ``None`` when the run has none of that name."""
        return next((v for v in self.variants if v.name == name), None)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (what :func:`save` writes)."""
        return RESULTS_KIND.dump(self)

    @classmethod
    def from_json(cls, d: dict[str, Any], source: str = "results") -> RunResult:
        """Validate a decoded ``results.json`` (version checked).

        Raises:
            RecordError: a wrong or missing field, or an unsupported schema version.
        """
        return RESULTS_KIND.parse(d, source)


_VARIANT = TypeAdapter(VariantResult)
RESULTS_KIND: RecordKind[RunResult] = RecordKind(
    "sweep results file",
    RunResult,
    SCHEMA_VERSION,
    hint="pass a run folder written by perf/run_sweep.sh (results/<run-id>)",
)


#: Between the ends of a mixed workload's range in a shape text, ``"time=1000..16000"``: requests of
#: sizes drawn across it (``sweep --shapes time=1000..16000``, :mod:`perf.measure.mixed`).
MIXED = ".."


def shape_text(sizes: Mapping[str, int | str]) -> str:
    """``{"seq": 64}`` -> ``"seq=64"`` (axes in the given order, joined with ``,``); a mixed range
    stays as its text, ``{"time": "1000..16000"}`` -> ``"time=1000..16000"``."""
    return ",".join(f"{k}={v}" for k, v in sizes.items())


#: An axis size in a variant's record of the sizes it sent (:attr:`VariantResult.dynamic_axes`:
#: ``"time=400 (the build's opt size of axis time)"``).
AXIS_SIZE = re.compile(r"\b([A-Za-z_]\w*)=(\d+)\b")


def parse_shape_text(text: str) -> dict[str, int]:
    """Inverse of :func:`shape_text` for the fixed sizes; a mixed axis (``LO..HI``) is left out
    (:func:`mixed_axes` gives it)."""
    return {k: int(v) for k, v in (part.split("=") for part in text.split(",") if part) if MIXED not in v}


def mixed_axes(text: str | None) -> dict[str, tuple[int, int]]:
    """The mixed axes of a shape text: ``"time=1000..16000"`` -> ``{"time": (1000, 16000)}``; ``{}``
    for a text of fixed sizes only, or ``None``."""
    parts = (part.split("=") for part in (text or "").split(",") if part)
    return {k: (int(v.split(MIXED)[0]), int(v.split(MIXED)[1])) for k, v in parts if MIXED in v}


def new_run_id() -> str:
    """``YYYYmmdd-HHMMSS`` (local time), sortable."""
    return time.strftime("%Y%m%d-%H%M%S")


def save(run: RunResult, run_dir: Path) -> Path:
    """Write ``results.json`` atomically (temp file + rename) and ``flat.csv``; returns the JSON path. Called after
    every level, so an interrupted sweep keeps everything measured so far. A report written from an earlier state of
    the run is marked out of date (:func:`perf.report_state.mark_outdated`)."""
    path = write_record(Path(run_dir) / RESULTS_FILE, RESULTS_KIND, run)
    write_flat_csv(run, Path(run_dir) / FLAT_FILE)
    mark_outdated(Path(run_dir), RESULTS_FILE)  # a report of an earlier state says so (s22z, Z-13)
    return path


def load(run_dir: Path) -> RunResult:
    """Read ``<run_dir>/results.json`` (schema version checked, every field validated).

    Raises:
        PerfError: the folder has no ``results.json``.
        RecordError: the file is not JSON, has another schema version or a wrong field
            (the message names the file and the field).
    """
    path = Path(run_dir) / RESULTS_FILE
    if not path.is_file():
        raise PerfError(f"no {RESULTS_FILE} in {run_dir}", hint=RESULTS_KIND.hint)
    return load_record(path, RESULTS_KIND)


#: flat.csv's last column: the round a level was measured in, numbered as the console and the report number rounds.
ROUND_COLUMN = "round"


def write_flat_csv(run: RunResult, path: Path) -> None:
    """One row per level: variant name and status, its parameters, then every
    :class:`LevelResult` field and the level's status (``level_status``), then :data:`ROUND_COLUMN`.

    ``trial`` is the field as results.json holds it, 0-based: the repeat of ``--trials`` in a sequential run, the
    round's index in a rounds run; ``round`` is that round as the console and report.md number it (``trial`` + 1:
    "round 1"), empty in a run without rounds (trial 27, T27-16: ``trial`` 0 was the console's "round 1", and
    ``--trials`` means sequential repeats). The columns before it keep their names and places for older readers."""
    level_fields = [f.name for f in dataclasses.fields(LevelResult)]
    param_keys = list(dict.fromkeys(k for v in run.variants for k in v.params or {} if k not in ("name", "build_command")))
    rounds = run.rounds is not None
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "status", *param_keys, *level_fields, "level_status", ROUND_COLUMN])
        for v in run.variants:
            for lv in v.levels:
                row = dataclasses.asdict(lv)
                params = [(v.params or {}).get(k) for k in param_keys]
                w.writerow(
                    [v.name, v.status, *params, *[row[k] for k in level_fields], lv.status, lv.trial + 1 if rounds else ""]
                )
