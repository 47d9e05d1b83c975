"""What a sweep is asked to do (:class:`SweepOptions`), and what a resumed run takes back
from the saved one (:func:`resumed_options`): every setting it started with, so that it goes
on exactly as it started."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from clients.server import UNLOAD_WAIT_S, ServerOptions
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT
from perf.measure.level import HOST_BUSY_PAUSE_S
from perf.records.search import SearchRules
from perf.records.settings import MeasureSettings
from perf.search.policy import AUTO, ladder

log = logging.getLogger(__name__)

#: The levels of the adaptive ladder with the default rules (1, 2, 4 ... 64): what
#: ``--concurrency auto`` may reach, and the explicit list of tools that measure every level.
DEFAULT_CONCURRENCY = ladder(AUTO, SearchRules())[0]
DEFAULT_BATCH_SIZES = (1,)
Progress = Callable[[dict[str, Any]], None]


@dataclasses.dataclass
class SweepOptions:
    """A sweep.

    Attributes:
        server: How to launch tritonserver (its ``repository`` is the one swept; model
            control is forced to ``explicit``).
        variants: Variant names or shell patterns (``mlp_*``) to sweep; empty = every
            model in the repository.
        concurrency: Concurrency levels, or ``"auto"`` (the default): each variant's ladder
            1, 2, 4 ... grows until throughput stops rising by more than the noise or the
            latency budget is exceeded (:mod:`perf.search.policy`).
        search: ``"brute"`` (every variant at every level), ``"prune"`` (drop variants
            that cannot win after a probe level) or ``None`` (the default: ``prune`` for
            more than 4 variants; :func:`perf.search.policy.resolve_mode`).
        search_rules: The thresholds of the search's rules (recorded with the run; a resumed
            run keeps its own).
        request_rates: Fixed request rates (requests/s) measured as well, as request-rate
            levels (``concurrency`` 0); default none.
        batch_sizes: Client batch sizes (``-b``); values above a variant's max_batch_size are
            skipped for that variant (max_batch_size 0 -> batch 1 only).
        measure: perf_analyzer measurement settings.
        trials: Repetitions of each level (median and spread in the report).
        results_dir: Parent of run folders (default ``results``).
        run_id: Run folder name (default: a timestamp).
        resume: Continue ``results_dir/run_id`` instead of refusing an existing folder.
        perf_analyzer: Path of perf_analyzer (default: $PERF_ANALYZER, the venv, PATH).
        input_data: The user's perf_analyzer ``--input-data`` (default: generated).
        shapes: Input name -> dims (without the batch axis) for dynamic dims, as
            perf_analyzer's ``--shape NAME:dims``; needed where the build's spec gives no
            size (a repository without the toolkit's manifest), checked before any server
            starts (:func:`perf.measure.inputs.resolve_shapes`).
        sweep_axes: Named dynamic axes of the build's spec swept as a level dimension, axis ->
            sizes (``{"seq": (16, 64, 128)}``; ``--shapes seq=16,64,128``): every level is
            measured at each combination (:attr:`perf.records.levels.LevelResult.shape`); default
            none (each axis at its ``opt`` size).
        warmup_requests: Requests sent before measuring each variant (default 20).
        latency_budget_ms: Latency budget (ms) for the report's recommendation.
        latency_percentile: The client latency percentile the budget is on (50, 90, 95 or
            99; default 99), as Model Analyzer's ``perf_latency_p9x`` constraints.
        unload_timeout_s: How long a variant may take to be gone after its unload request
            before the server is restarted for the next one (default
            :data:`clients.server.UNLOAD_WAIT_S`).
        given: With ``resume``: the settings the caller set on purpose (names of these
            fields, ``"measure"`` or ``"server"`` for any of theirs); a resumed run reports
            only those as ignored. ``None``: every value that differs from the default.
        host_busy_threshold_pct: Other processes' mean CPU use during a level (% of one
            core) above which the level is measured again, then flagged "host busy"
            (default 10; :mod:`perf.measure.level`).
        host_busy_pause_s: Pause before that second measurement (default 2 s).
        baseline: Measure the in-process baseline after the last level (:mod:`perf.profile.baseline`;
            default True, ``--no-baseline`` turns it off).
        allow_shared_host: With several ``server.urls``: measure in parallel also on servers
            that share a host or GPU (:mod:`perf.sweep.servers`; refused by default).
    """

    server: ServerOptions
    variants: Sequence[str] = ()
    concurrency: Sequence[int] | str = AUTO
    search: str | None = None
    search_rules: SearchRules = dataclasses.field(default_factory=SearchRules)
    batch_sizes: Sequence[int] = DEFAULT_BATCH_SIZES
    request_rates: Sequence[float] = ()
    measure: MeasureSettings = dataclasses.field(default_factory=MeasureSettings)
    trials: int = 1
    results_dir: Path = Path("results")
    run_id: str | None = None
    resume: bool = False
    perf_analyzer: Path | None = None
    input_data: Path | None = None
    shapes: Mapping[str, Sequence[int]] = dataclasses.field(default_factory=dict)
    sweep_axes: Mapping[str, Sequence[int]] = dataclasses.field(default_factory=dict)
    warmup_requests: int = 20
    latency_budget_ms: float | None = None
    latency_percentile: int = 99
    unload_timeout_s: float = UNLOAD_WAIT_S
    given: frozenset[str] | None = None
    host_busy_threshold_pct: float = HOST_BUSY_THRESHOLD_PCT
    host_busy_pause_s: float = HOST_BUSY_PAUSE_S
    baseline: bool = True
    allow_shared_host: bool = False


#: ServerOptions fields a run records and a resumed run takes back (not model control,
#: models to load or the log file: the sweep sets those itself).
SERVER_SETTINGS = (
    "runtime",
    "http_port",
    "grpc_port",
    "metrics_port",
    "address",
    "log_verbose",
    "metrics_interval_ms",
    "extra_args",
    "start_timeout_s",
    "exit_timeout_s",
    "image",
    "gpus",
    "shm_size",
    "binary",
    "urls",
    "metrics_urls",
    "remote_repository",
    "max_upload_bytes",
    "deploy",
)


def server_settings(server: ServerOptions) -> dict[str, Any]:
    """The :data:`SERVER_SETTINGS` of ``server`` as JSON values (paths as strings, tuples as lists)."""
    out: dict[str, Any] = {}
    for k in SERVER_SETTINGS:
        v = getattr(server, k)
        out[k] = str(v) if isinstance(v, Path) else list(v) if isinstance(v, (tuple, list)) else v
    return out


def resumed_options(opts: SweepOptions, settings: dict[str, Any]) -> SweepOptions:
    """``opts`` with every setting of the saved run: repository, variants, levels, trials,
    measurement (perf_analyzer pass-through flags included), the server launch (runtime,
    image, ports...), the perf_analyzer binary and input data. A resumed run goes on exactly
    as it started. A setting the caller gave (``opts.given``; when ``None``: one that differs
    from the default) and that differs from the saved one is ignored with a warning; a
    latency budget passed now replaces the saved one (it only affects the report)."""
    defaults = SweepOptions(server=ServerOptions(repository=opts.server.repository))
    measure_fields = [f.name for f in dataclasses.fields(MeasureSettings)]
    saved_server = settings.get("server") or {}
    server = dataclasses.replace(
        opts.server,
        repository=Path(settings["repository"]),
        **{k: _server_value(k, saved_server[k]) for k in SERVER_SETTINGS if k in saved_server},
    )
    measure = {k: settings[k] for k in measure_fields if k in settings}
    if "extra_args" in measure:
        measure["extra_args"] = tuple(measure["extra_args"])
    resumed = dataclasses.replace(
        opts,
        server=server,
        variants=tuple(settings["variants"]),
        concurrency=AUTO if settings["concurrency"] == AUTO else tuple(settings["concurrency"]),
        search=settings.get("search") or "brute",  # a run saved before the search measured every level
        batch_sizes=tuple(settings["batch_sizes"]),
        request_rates=tuple(settings.get("request_rates", ())),
        trials=int(settings["trials"]),
        measure=MeasureSettings(**measure),
        perf_analyzer=_saved_path(settings, "perf_analyzer", opts.perf_analyzer),
        input_data=_saved_path(settings, "input_data", opts.input_data),
        shapes={k: tuple(v) for k, v in (settings.get("shapes") or {}).items()},
        sweep_axes={k: tuple(v) for k, v in (settings.get("sweep_axes") or {}).items()},
        latency_budget_ms=opts.latency_budget_ms if opts.latency_budget_ms is not None else settings.get("latency_budget_ms"),
        latency_percentile=(
            opts.latency_percentile
            if opts.given is not None and "latency_percentile" in opts.given
            else int(settings.get("latency_percentile") or opts.latency_percentile)
        ),
        host_busy_threshold_pct=float(settings.get("host_busy_threshold_pct", opts.host_busy_threshold_pct)),
    )

    def said(field: str, given: Any, kept: Any, default: Any) -> bool:
        if opts.given is not None:
            return field in opts.given and _as_tuple(given) != _as_tuple(kept)
        return _as_tuple(given) not in (_as_tuple(kept), _as_tuple(default))

    for field in (
        "variants",
        "concurrency",
        "search",
        "batch_sizes",
        "request_rates",
        "trials",
        "perf_analyzer",
        "input_data",
        "host_busy_threshold_pct",
        "shapes",
        "sweep_axes",
    ):
        given, kept, default = getattr(opts, field), getattr(resumed, field), getattr(defaults, field)
        if said(field, given, kept, default):
            log.warning("resume: %s %s ignored; the run continues with its saved %s", field, given, kept)
    if opts.given is None or "measure" in opts.given:  # one line per measurement flag the user set, not the whole object
        for f in measure_fields:
            given, kept, default = getattr(opts.measure, f), getattr(resumed.measure, f), getattr(defaults.measure, f)
            if _as_tuple(given) != _as_tuple(kept) and _as_tuple(given) != _as_tuple(default):
                log.warning("resume: %s=%s ignored; the run continues with its saved %s=%s", f, given, f, kept)
    given_server, kept_server = server_settings(opts.server), server_settings(resumed.server)
    default_server = server_settings(defaults.server)
    changed = [
        k
        for k in SERVER_SETTINGS
        if saved_server
        and given_server[k] != kept_server[k]
        and (k in saved_server)
        and (opts.given is None or "server" in opts.given)
        and given_server[k] != default_server[k]
    ]
    if changed:
        log.warning(
            "resume: server setting(s) %s ignored; the run continues with its saved %s",
            ", ".join(f"{k}={given_server[k]}" for k in changed),
            ", ".join(f"{k}={kept_server[k]}" for k in changed),
        )
    if opts.given is None or "repository" in opts.given:
        if Path(opts.server.repository).resolve() != Path(settings["repository"]).resolve():
            log.warning("resume: repository %s ignored; the run continues on %s", opts.server.repository, settings["repository"])
    return resumed


def _saved_path(settings: dict[str, Any], key: str, fallback: Path | None) -> Path | None:
    """A path setting of the saved run (``None`` when it had none); ``fallback`` for a run
    saved before the setting was recorded."""
    if key not in settings:
        return fallback
    return Path(settings[key]) if settings[key] else None


def _server_value(key: str, value: Any) -> Any:
    """A saved server setting back in :class:`ServerOptions` types."""
    if key == "binary":
        return Path(value) if value else None
    if key in ("extra_args", "urls", "metrics_urls"):
        return tuple(value)
    return value


def _as_tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else value
