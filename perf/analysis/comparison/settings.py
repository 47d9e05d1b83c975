"""The recorded settings ``triton-perf compare`` sets beside each other: every setting a run records (``results.json``
``settings``, :class:`perf.records.settings.SweepSettings`, and the server's OpenMP wait policy in its environment) that
can change a level's numbers is in :data:`COMPARED`, shown where two runs differ and marked "(differs)"; every other one
is in :data:`NOT_COMPARED`, with why (trial 29, T29-6: a run measured with ``--perf-analyzer-arg=--warmup-request-count
=3000`` was compared with one without it, and the comparison said nothing of the flag). A setting recorded later must be
put in one of the two (tests/perf/analysis/test_compare_settings.py checks every recorded key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from perf.records.results import RunResult

#: A key of ``settings`` (``server.KEY``: of its ``server`` launch settings; ``environment.server.KEY``: of the
#: environment's server record).
Key = str


@dataclass(frozen=True)
class Setting:
    """One compared setting: its recorded key, its row's label (the flag that sets it), and the design that reads it
    (``None``: both; a setting one design only reads is compared between two runs of that design, the ``measurement``
    row saying when the designs differ)."""

    key: Key
    label: str
    read_by: Literal["sequential", "rounds"] | None = None
    #: What an empty value (``None``, ``[]``...) means.
    none: str = "none"


#: Every recorded setting that can change what a level measures, in the order of their rows.
COMPARED: tuple[Setting, ...] = (
    Setting("extra_args", "perf_analyzer flags (--perf-analyzer-arg)"),
    Setting("input_data", "input data (--input-data)"),
    Setting("shapes", "input shapes (--shape)"),
    Setting("sweep_axes", "swept input sizes (--shapes)"),
    Setting("batch_sizes", "batch sizes (--batch-sizes)"),
    Setting("concurrency", "concurrency asked (--concurrency)"),
    Setting("request_rates", "request rates (--request-rates)"),
    Setting("stability_pct", "stability (--stability-percentage)"),
    Setting("max_trials", "windows before unstable (--max-trials)", "sequential"),
    Setting("unstable_retries", "retries of an unstable level (--unstable-retries)", "sequential"),
    Setting("max_loaded", "variants loaded at once (--max-loaded)", "rounds"),
    Setting("host_busy_threshold_pct", "host-busy threshold (--host-busy-threshold)"),
    Setting("server.urls", "server URLs (--url)"),
    Setting("server.extra_args", "server flags (--server-arg)"),
    Setting("server.log_verbose", "server log verbosity (--log-verbose)"),
    Setting("server.metrics_interval_ms", "server metrics interval (--metrics-interval-ms)"),
    Setting("server.image", "server image (--image)"),
    Setting("server.gpus", "server GPUs (--gpus)"),
    Setting("server.shm_size", "server shared memory (--shm-size)"),
    Setting("environment.server.omp_wait_policy", "server OMP_WAIT_POLICY", none="not known (a server not started here)"),
)

#: Recorded settings the rows of :func:`perf.analysis.comparison.verdicts.env_line` compare in their own words.
IN_ENV_ROWS: dict[Key, str] = {
    "protocol": "protocol",
    "design": "measurement",
    "trials": "measurement",
    "measurement_mode": "measurement",
    "measurement_interval_ms": "measurement",
    "measurement_request_count": "measurement",
    "round_window_ms": "measurement",
    "environment.server.runtime": "server runtime",
    "environment.server.version": "server runtime",
}

#: Every other recorded setting, and why it does not change a matched level's numbers.
NOT_COMPARED: dict[Key, str] = {
    "repository": "where the model files were; what they were is the 'model files' row",
    "variants": "which variants were asked; levels are matched by variant name",
    "search": "which levels were measured (prune or brute), not how; levels are matched",
    "latency_budget_ms": "what the report picks and how far a ladder grows, not how a level is measured",
    "latency_percentile": "what the report picks by, not how a level is measured",
    "baseline": "whether the in-process baseline ran after the levels",
    "allow_shared_host": "permission to measure on a shared host; a busy host is marked on each level",
    "seed": "the order of a rounds run's visits, drawn at random by design",
    "time_budget_s": "how long the run went on: an outcome the 'measurement' row says in rounds",
    "perf_analyzer": "the binary's path on that host; its version is the 'perf_analyzer' row",
    "collect_metrics": "always on (not a flag)",
    "server.runtime": "the runtime asked ('auto'...); the one that ran is the 'server runtime' row",
    "server.http_port": "a port",
    "server.grpc_port": "a port",
    "server.metrics_port": "a port",
    "server.address": "the address a started server listens on (the client is on the same host)",
    "server.start_timeout_s": "how long a start may take",
    "server.exit_timeout_s": "how long a stop may take",
    "server.tag": "a release tag sets the image, compared itself",
    "server.binary": "a local server's path on that host; its version is the 'server runtime' row",
    "server.metrics_urls": "where a remote server's metrics are read",
    "server.remote_repository": "where a remote server reads the same model files",
    "server.max_upload_bytes": "how models are uploaded, before they are measured",
    "server.deploy": "whether models are loaded on a remote server, before they are measured",
    "server.replace_models": "permission to load over a remote server's model, before it is measured",
    "environment.server.reason": "why the runtime was chosen",
    "environment.server.command": "the server's command line: its flags are the 'server flags' row, its paths the host's",
}


def recorded(run: RunResult, key: Key) -> tuple[bool, Any]:
    """Whether ``run`` recorded ``key``, and its value."""
    parts = key.split(".")
    here: Any = run.settings
    if parts[0] == "environment":
        here, parts = run.environment, parts[1:]
    for part in parts[:-1]:
        here = here.get(part) if isinstance(here, dict) else None
    if not isinstance(here, dict) or parts[-1] not in here:
        return False, None
    return True, here[parts[-1]]


def said(value: Any, none: str = "none") -> str:
    """A recorded value in the comparison's words; ``none`` for an empty one."""
    if value is None or value == [] or value == {} or value == "":
        return none
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {said(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(str(x) for x in value) if all(isinstance(x, str) for x in value) else ", ".join(map(str, value))
    return str(value)


def _design(run: RunResult) -> str:
    return "rounds" if run.rounds is not None else "sequential"


def differing(a: RunResult, b: RunResult) -> list[tuple[str, str, str, bool]]:
    """The :data:`COMPARED` settings ``a`` and ``b`` recorded otherwise: (label, ``a``'s, ``b``'s, both recorded); a
    side that did not record it (a run saved before it was recorded) says ``not recorded`` and is not marked as
    differing. A setting one design only reads is left out unless both runs are of that design."""
    out = []
    for s in COMPARED:
        if s.read_by is not None and not (_design(a) == _design(b) == s.read_by):
            continue
        (has_a, va), (has_b, vb) = recorded(a, s.key), recorded(b, s.key)
        if has_a == has_b and (not has_a or _value(s.key, va) == _value(s.key, vb)):
            continue
        ta, tb = (said(v, s.none) if has else "not recorded" for has, v in ((has_a, va), (has_b, vb)))
        out.append((s.label, ta, tb, has_a and has_b))
    return out


#: The settings that are a command's flags (``--perf-analyzer-arg``, ``--server-arg``), read by name in any order.
FLAG_LISTS: frozenset[Key] = frozenset({"extra_args", "server.extra_args"})


def _value(key: Key, value: Any) -> Any:
    """A recorded value as compared (s23r m8: the words were, so flags in another order, ``1`` and ``1.0`` or a dict
    recorded in another key order read as differing): an empty one ``None``, tuples as lists, numbers as numbers;
    perf_analyzer's and the server's passed-through flags (:data:`FLAG_LISTS`) as the sorted list of its flags, each
    with its value (:func:`_flags`): perf_analyzer and tritonserver read their flags by name, in any order, so flags in
    another order are the same command (s24b: the server's were compared as a sequence). Other lists (levels,
    sizes: the order they are measured in) are compared as sequences."""
    if value is None or value == [] or value == {} or value == "" or value == ():
        return None
    if key in FLAG_LISTS and isinstance(value, (list, tuple)):
        return sorted(_flags([str(v) for v in value]))
    if isinstance(value, (list, tuple)):
        return [_value("", v) for v in value]
    if isinstance(value, dict):
        return {k: _value("", v) for k, v in value.items()}
    return value


def _flags(args: list[str]) -> list[tuple[str, ...]]:
    """``args`` (perf_analyzer's or the server's flags, each ``--perf-analyzer-arg``/``--server-arg`` value) as flags,
    each its words: a flag and the arguments after it that are no flag (its value: ``--max-threads 16``), ``--flag=V``
    read as ``--flag V``."""
    out: list[list[str]] = []
    for arg in args:
        words = arg.split("=", 1) if arg.startswith("--") else [arg]
        words = [w for word in words for w in word.split()]
        if arg.startswith("-") or not out:
            out.append(words)
        else:
            out[-1] += words
    return [tuple(f) for f in out]
