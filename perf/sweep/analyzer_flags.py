"""perf_analyzer's own flags, as the sweep meets them: passed through (``--perf-analyzer-arg``)
or given to the sweep itself. One table (:data:`ANALYZER_FLAGS`) says, per flag, whether the sweep
lets it through and, where not, why and which of its own flags to use instead; every refusal of a
perf_analyzer flag is made from it: :func:`pass_through_refusal` (before anything starts) and
:func:`direct_flag_advice` (``perf/run_sweep.sh -p 1000``).

Trial 16, T16-6: ``--perf-analyzer-arg=--concurrency-range=1:4`` came last on each level's command,
so perf_analyzer measured 1..4 for every level and the report filed those numbers under c=16. A flag
the sweep sets per level, or one that changes what a level is or how its CSV is read, is refused;
flags that only tune the load generator (``--max-threads``, ``--string-length``, ``-v``...) go
through. The flags are perf_analyzer's documented CLI ("Perf Analyzer CLI", ``docs/cli.md``; short
aliases as its ``getopt`` string ``vdazc:u:m:x:b:t:p:i:H:l:r:s:f:``), read as perf_analyzer's
``getopt_long`` reads them: ``--flag=V``, ``--flag V``, ``-fV``, ``-f V``, short flags bundled
(``-vb4``) and a long flag's unambiguous prefix (``--conc=1:4``).
"""

from __future__ import annotations

from typing import NamedTuple

from core.errors import FlagError
from core.flag_refusals import Passed, read_passed
from perf.sweep.design_flags import DESIGN_ONLY, flag_of

#: The sweep's own flag that passes a flag through to perf_analyzer.
PASS_FLAG = flag_of("measure.extra_args")


class AnalyzerFlag(NamedTuple):
    """One perf_analyzer flag (:data:`ANALYZER_FLAGS`).

    Attributes:
        names: Its spellings, long first where it has one (``("--measurement-interval", "-p")``).
        value: Whether it takes a value.
        why: Why the sweep refuses it passed through (follows "perf_analyzer's FLAG");
            ``None``: it only tunes the load generator and goes through.
        instead: The fields of the sweep's options (``measure.x``, ``server.x``: of the
            measurement or server settings) whose flags do what it was meant for; none: it
            cannot be given at all.
        slows: How it changes how long each perf_analyzer run (a visit, a level) takes, refused or not
            (follows "perf_analyzer's FLAG"); ``None``: it does not. One kind (recheck of trial 16, R16-11):
            a visit far over its plan names those passed through (:func:`visit_lengtheners`).
    """

    names: tuple[str, ...]
    value: bool = True
    why: str | None = None
    instead: tuple[str, ...] = ()
    slows: str | None = None


_LEVEL = "which the sweep sets per level (its numbers would be filed under a level they were not measured at)"
_WINDOWS = "which the sweep sets (its windows and how it reads them)"
_READ = "which the sweep sets itself (it reads each level's numbers from the CSV it asks for)"
_NOT_CAPI = "is read only with --service-kind=triton_c_api, which the sweep does not use"
_RANGE = "measures every level of its range in one run"
_SEARCH = "measures level after level in one run, searching"

#: Every perf_analyzer flag the sweep knows (perf_analyzer's CLI: ``docs/cli.md``, and its ``-h``).
ANALYZER_FLAGS: tuple[AnalyzerFlag, ...] = (
    # what is measured, where
    AnalyzerFlag(("--model-name", "-m"), why="names the model measured, which the sweep sets per variant", instead=("variants",)),
    AnalyzerFlag(("--model-version", "-x"), why="picks the model version, which the sweep sets (the one the server loaded)"),
    AnalyzerFlag(
        ("--url", "-u"),
        why="names the server measured, which the sweep sets (the one it starts, or --url's)",
        instead=("server.urls",),
    ),
    AnalyzerFlag(
        ("--protocol", "-i"), why="is the protocol, which the sweep sets for every level", instead=("measure.protocol",)
    ),
    AnalyzerFlag(("--service-kind",), why="says what kind of server is measured (the sweep measures Triton's)"),
    AnalyzerFlag(("--model-repository",), why=_NOT_CAPI, instead=("server.repository",)),
    AnalyzerFlag(("--triton-server-directory",), why=_NOT_CAPI),
    # the load of a level
    AnalyzerFlag(("--concurrency-range",), why=f"is a level's concurrency, {_LEVEL}", instead=("concurrency",), slows=_RANGE),
    AnalyzerFlag(("--request-rate-range",), why=f"is a level's request rate, {_LEVEL}", instead=("request_rates",), slows=_RANGE),
    AnalyzerFlag(("--request-intervals",), why=f"replaces a level's load, {_LEVEL}", instead=("concurrency", "request_rates")),
    AnalyzerFlag(
        ("--periodic-concurrency-range",), why=f"replaces a level's load, {_LEVEL}", instead=("concurrency",), slows=_RANGE
    ),
    AnalyzerFlag(("-t",), why=f"(deprecated) is a level's concurrency, {_LEVEL}", instead=("concurrency",)),
    AnalyzerFlag(("-c",), why=f"(deprecated) searches concurrencies, {_LEVEL}", instead=("concurrency",), slows=_SEARCH),
    AnalyzerFlag(
        ("-d",), value=False, why=f"(deprecated) searches concurrencies, {_LEVEL}", instead=("concurrency",), slows=_SEARCH
    ),
    AnalyzerFlag(
        ("--binary-search",),
        value=False,
        why="searches a range of levels (the sweep measures one level a run, and searches itself)",
        instead=("search",),
        slows=_SEARCH,
    ),
    AnalyzerFlag(
        ("--latency-threshold", "-l"),
        why="stops perf_analyzer's own search of levels (the sweep measures one level a run)",
        instead=("latency_budget_ms",),
    ),
    AnalyzerFlag(("--batch-size", "-b"), why=f"is a level's client batch size, {_LEVEL}", instead=("batch_sizes",)),
    AnalyzerFlag(
        ("--shape",), why="is an input's shape, which the sweep sets per variant and level", instead=("shapes", "sweep_axes")
    ),
    AnalyzerFlag(
        ("--input-data",),
        why="is the data sent, which the sweep sets (checked before any server starts)",
        instead=("input_data",),
    ),
    AnalyzerFlag(("--data-directory",), why="(deprecated) is the data sent, which the sweep sets", instead=("input_data",)),
    AnalyzerFlag(("-z",), value=False, why="(deprecated) sends zeros as the data, which the sweep sets", instead=("input_data",)),
    # the windows, and how a level is read
    AnalyzerFlag(
        ("--measurement-interval", "-p"),
        why=f"is the window length, {_WINDOWS}",
        instead=("round_window_ms", "measure.measurement_interval_ms"),
        slows="sets each window's length",
    ),
    AnalyzerFlag(
        ("--measurement-mode",),
        why=f"is the window kind, {_WINDOWS}",
        instead=("measure.measurement_mode",),
        slows="makes a window wait for a count of requests instead of a time",
    ),
    AnalyzerFlag(
        ("--measurement-request-count",),
        why=f"is a window's request count, {_WINDOWS}",
        instead=("measure.measurement_request_count",),
        slows="sets the requests each count window waits for",
    ),
    AnalyzerFlag(
        ("--request-count",),
        why=f"replaces the windows by a fixed number of requests, {_WINDOWS}",
        instead=("measure.measurement_mode", "measure.measurement_request_count"),
        slows="sends that many requests, however long they take",
    ),
    AnalyzerFlag(
        ("--stability-percentage", "-s"),
        why=f"is the stability rule, {_WINDOWS}",
        instead=("measure.stability_pct",),
        slows="adds windows until the last ones agree within it",
    ),
    AnalyzerFlag(
        ("--max-trials", "-r"),
        why=f"is the windows a level may take, {_WINDOWS}",
        instead=("measure.max_trials",),
        slows="sets how many windows a run may take",
    ),
    AnalyzerFlag(
        ("--percentile",),
        why="changes the latency perf_analyzer judges stability on and the CSV's latency columns",
        instead=("latency_percentile",),
    ),
    AnalyzerFlag(("--latency-report-file", "-f"), why=f"names the CSV, {_READ}"),
    AnalyzerFlag(("--verbose-csv",), value=False, why=f"adds the CSV's columns, {_READ}"),
    AnalyzerFlag(("--collect-metrics",), value=False, why=f"adds the server's metrics to the CSV, {_READ}"),
    AnalyzerFlag(
        ("--metrics-url",),
        why="is where the server's metrics are read, which the sweep sets per server",
        instead=("server.metrics_urls",),
    ),
    AnalyzerFlag(
        ("--metrics-interval",),
        why="is how often the metrics are read, which the sweep sets to the server's refresh",
        instead=("server.metrics_interval_ms",),
    ),
    AnalyzerFlag(
        ("--profile-export-file",),
        why="names one file, which every level's run would write (perf_analyzer refuses one that exists)",
    ),
    AnalyzerFlag(("--help", "-h", "-?"), value=False, why="prints perf_analyzer's help and exits (no level would be measured)"),
    # recheck of trial 16, R16-2: it went through and every level "failed" with the version string as its error
    AnalyzerFlag(("--version",), value=False, why="prints perf_analyzer's version and exits (no level would be measured)"),
    # the load generator's own settings: passed through
    AnalyzerFlag(("-v",), value=False),
    AnalyzerFlag(("--async", "-a"), value=False),
    AnalyzerFlag(("--sync",), value=False),
    AnalyzerFlag(("--max-threads",)),
    AnalyzerFlag(("--warmup-request-count",), slows="sends that many requests before each run's windows, at its load"),
    AnalyzerFlag(("--request-distribution",)),
    AnalyzerFlag(("--request-period",)),
    AnalyzerFlag(("--request-parameter",)),
    AnalyzerFlag(("--num-of-sequences",)),
    AnalyzerFlag(("--serial-sequences",), value=False),
    AnalyzerFlag(("--sequence-length",)),
    AnalyzerFlag(("--sequence-length-variation",)),
    AnalyzerFlag(("--sequence-id-range",)),
    AnalyzerFlag(("--string-length",)),
    AnalyzerFlag(("--string-data",)),
    AnalyzerFlag(("--shared-memory",)),
    AnalyzerFlag(("--output-shared-memory-size",)),
    AnalyzerFlag(("--input-tensor-format",)),
    AnalyzerFlag(("--output-tensor-format",)),
    AnalyzerFlag(("--streaming",), value=False),
    AnalyzerFlag(("--grpc-compression-algorithm",)),
    AnalyzerFlag(("-H",)),
    AnalyzerFlag(("--bls-composing-models",)),
    AnalyzerFlag(("--model-signature-name",)),
    AnalyzerFlag(("--endpoint",)),
    AnalyzerFlag(("--ssl-grpc-use-ssl",), value=False),
    *(
        AnalyzerFlag((f"--ssl-{name}",))
        for name in (
            "grpc-root-certifications-file",
            "grpc-private-key-file",
            "grpc-certificate-chain-file",
            "https-verify-peer",
            "https-verify-host",
            "https-ca-certificates-file",
            "https-client-certificate-file",
            "https-client-certificate-type",
            "https-private-key-file",
            "https-private-key-type",
        )
    ),
    *(AnalyzerFlag((f"--{name}",)) for name in ("trace-file", "trace-level", "trace-rate", "trace-count", "log-frequency")),
)

#: What the flags the sweep lets through do (said with a refusal).
TUNING = "tune the load generator, e.g. --max-threads, --string-length, -v"

_LONG = {n: f for f in ANALYZER_FLAGS for n in f.names if n.startswith("--")}
_SHORT = {n[1]: f for f in ANALYZER_FLAGS for n in f.names if len(n) == 2}


def passed_flags(args: tuple[str, ...] | list[str]) -> list[Passed]:
    """The perf_analyzer flags of ``args`` (each one ``--perf-analyzer-arg`` value, in order), read
    as perf_analyzer reads them (module docstring; the one reader, :func:`core.flag_refusals.read_passed`);
    a flag it does not know is left out (perf_analyzer says so itself), as is what follows ``--``."""
    return read_passed(args, PASS_FLAG, _LONG, _SHORT)


def pass_through_refusal(args: tuple[str, ...] | list[str], resumed: bool = False) -> FlagError | None:
    """The refusal of the perf_analyzer flags in ``args`` (the ``--perf-analyzer-arg`` values) that the
    sweep does not let through (:data:`ANALYZER_FLAGS`): what was passed, why, and the flag to use
    instead (a usage error of ``--perf-analyzer-arg``, :class:`core.errors.FlagError`); ``None`` when
    every one goes through. On a ``resumed`` run (which keeps its saved flags), the fix is a new run's."""
    refused = [p for p in passed_flags(args) if p.flag.why is not None]
    if not refused:
        return None
    said = [f"{p.given} is refused: perf_analyzer's {p.name}{_aka(p.flag, p.name)} {p.flag.why}" for p in refused]
    hint = "; ".join(dict.fromkeys(_fix(p.flag, p.name) for p in refused))
    if resumed:
        them = "it" if len(refused) == 1 else "them"
        hint = f"start a new run (--run-id NEW) without {them}: a resumed run keeps its saved {PASS_FLAG}; {hint}"
    return FlagError("; ".join(said), flag=PASS_FLAG, hint=f"{hint} ({PASS_FLAG} is for flags that only {TUNING})")


def visit_lengtheners(args: tuple[str, ...] | list[str]) -> str:
    """The flags of ``args`` (the ``--perf-analyzer-arg`` values) that change how long each perf_analyzer run takes
    (:attr:`AnalyzerFlag.slows`), as typed with what each does: ``"--perf-analyzer-arg=--warmup-request-count=20000
    (perf_analyzer's --warmup-request-count sends that many requests before each run's windows, at its load)"``;
    ``""`` for none. What a sweep says when its visits run far over their plan
    (:func:`perf.search.ending.out_of_time.slow_words`)."""
    said = [f"{p.given} (perf_analyzer's {p.name} {p.flag.slows})" for p in passed_flags(args) if p.flag.slows]
    return "; ".join(dict.fromkeys(said))


def direct_flag_advice(option: str) -> str | None:
    """What ``option``, a perf_analyzer flag given to the sweep itself (``-p``; a flag the sweep does not
    have), is to be instead: the sweep's flag, or where it tunes the load generator, the pass-through;
    ``None`` when it is not a perf_analyzer flag (:data:`ANALYZER_FLAGS`)."""
    flag = _LONG.get(option) if option.startswith("--") else _SHORT.get(option[1:]) if len(option) == 2 else None
    if flag is None:
        return None
    said = f"{option} is a perf_analyzer flag{_aka(flag, option)}, not the sweep's"
    if flag.why is not None:
        return f"{said}: it {flag.why}; {_fix(flag, option)}"
    long = next((n for n in flag.names if n.startswith("--")), None)
    through = f"{PASS_FLAG}={long}" + ("=VALUE" if flag.value else "") if long else f"{PASS_FLAG}={option}"
    if flag.value and not long:
        through += f" {PASS_FLAG}=VALUE"
    return f"{said}: pass it through, {through}"


def shadowed_repository(repository: object) -> tuple[str, str] | None:
    """What a sweep's missing ``--repository`` named by a number is (``perf/run_sweep.sh -r 5``: perf_analyzer's
    ``-r``, its max trials, read by the sweep as its own ``-r``, the repository), in one line, and what to do;
    ``None`` for another name."""
    if not str(repository).isdigit():
        return None
    flag = _SHORT["r"]
    said = f"model repository {repository} does not exist: the sweep's -r is {flag_of('server.repository')}, "
    return said + f"not perf_analyzer's -r{_aka(flag, '-r')}", _fix(flag, "-r")


def _aka(flag: AnalyzerFlag, name: str) -> str:
    """``" (--measurement-interval)"`` after ``-p``: the flag's other spellings."""
    others = [n for n in flag.names if n != name]
    return f" ({', '.join(others)})" if others else ""


def _fix(flag: AnalyzerFlag, name: str) -> str:
    """``"use --concurrency instead of --concurrency-range"``; ``"use --round-window (--design rounds) or
    --measurement-interval (--design sequential) instead of -p"``; ``"-f cannot be given to the sweep's perf_analyzer"``."""
    if not flag.instead:
        return f"{name} cannot be given to the sweep's perf_analyzer"
    flags = [flag_of(f) + (f" (--design {DESIGN_ONLY[f].design})" if f in DESIGN_ONLY else "") for f in flag.instead]
    return f"use {' or '.join(flags)} instead of {name}"
