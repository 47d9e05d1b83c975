"""tritonserver's own flags, as the toolkit meets them passed through (``--server-arg``, and the
launcher's ``-- FLAGS``). One table (:data:`SERVER_FLAGS`) says, per flag, whether the toolkit lets it
through and, where not, why and which of its own flags to use instead; every refusal of a
tritonserver flag is made from it (:func:`server_arg_refusal`), by every command that starts a
server (:class:`clients.server.TritonServer`, before the server starts) and, before anything else,
by those that run long (the sweep).

Trial 16 (T16-6) found a perf_analyzer flag passed through silently overriding what the sweep set
per level; ``--server-arg`` came last on tritonserver's command in the same way, so
``--server-arg=--http-port=9000`` or ``--server-arg=--http-address=0.0.0.0`` won over the ports the
clients talk to and the 127.0.0.1 the toolkit listens on by default. A flag the toolkit sets itself,
or one that changes what is measured or said (the repository the records name, the APIs and metrics
the toolkit reads, the log it reads to say why a model failed), is refused; a flag that only tunes
the server (threads, memory pools, gRPC keep-alive, rate limiting, tracing...) goes through, and so
do the few the toolkit itself advises or relies on (``--disable-auto-complete-config``,
``--exit-timeout-secs``, ``--exit-on-error``, ``--strict-readiness``).

The flags are tritonserver's ``--help`` (the bundled 2.51; Triton's ``command_line_parser.cc``),
read as its ``getopt_long`` (no short flags) reads them: ``--flag=V``, ``--flag V``, and a long
flag's unambiguous prefix (``--http-p=9000``; ``--model-store`` is ``--model-repository``'s alias).
A flag it does not know, or an argument that is not a flag, tritonserver refuses itself at start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from core.errors import FlagError
from core.flag_refusals import Passed, read_passed

#: The toolkit's flag that passes a flag through to tritonserver.
PASS_FLAG = "--server-arg"


class ServerFlag(NamedTuple):
    """One tritonserver flag (:data:`SERVER_FLAGS`).

    Attributes:
        names: Its spellings (``("--model-repository", "--model-store")``: an alias).
        value: Whether it takes a value (every one but ``--help`` and ``--disable-auto-complete-config``).
        why: Why the toolkit refuses it passed through (follows "tritonserver's FLAG"); ``None``: it
            goes through.
        instead: The toolkit's flags that do what it was meant for (as typed); none: it cannot be given.
        runtimes: The runtimes whose command sets it (refused there only); empty: refused with every one.
        where: The commands that have ``instead`` when not every one does, said after it (recheck of trial 16,
            R16-8: the sweep was told "use --model-control none", a flag only the launcher has).
    """

    names: tuple[str, ...]
    value: bool = True
    why: str | None = None
    instead: tuple[str, ...] = ()
    runtimes: tuple[str, ...] = ()
    where: str = ""


_SETS = "which the toolkit sets on every server it starts"
_PORTS = f"{_SETS} (the clients, perf_analyzer and the metrics reader use the port it chose; the last flag wins)"
_ADDRESS = f"{_SETS} (127.0.0.1 unless --address says otherwise: a flag passed through would expose the server unseen)"
_API = "turns off an endpoint the toolkit talks to (readiness, loads, perf_analyzer's requests, the metrics it records)"
_LOG = "changes the server log the toolkit reads to say why the server or a model failed"
_OPENS = "opens another endpoint, which --address does not bind (SageMaker's listens on 0.0.0.0): it would expose the server"

#: Where a flag only the launcher has is given (:attr:`ServerFlag.where`).
_LAUNCHER_ONLY = "the launcher's flag (scripts/launch_tritonserver.sh, clients serve); a sweep, check or coldstart: drop it"

#: Every tritonserver flag the toolkit knows (``tritonserver --help``); those the toolkit sets or
#: reads first, then those that go through.
SERVER_FLAGS: tuple[ServerFlag, ...] = (
    # what is served, and where
    ServerFlag(
        ("--model-repository", "--model-store"),
        why=f"names the repository served, {_SETS} (the one the toolkit checks, loads from and the records name; "
        "a second one would serve models it never checked)",
        instead=("--repository",),
    ),
    ServerFlag(
        ("--model-config-name",),
        why="makes the server load another config than the config.pbtxt the toolkit reads, checks and records "
        "(build the variant with the settings wanted: builders build)",
    ),
    ServerFlag(
        ("--model-control-mode",),
        why=f"is the model control, {_SETS} (explicit: load/unload on request; the sweep, check and coldstart "
        "load each variant themselves)",
        instead=("--model-control",),
        where=_LAUNCHER_ONLY,
    ),
    ServerFlag(
        ("--load-model",),
        why="loads a model at start, which the toolkit does itself (it matches patterns and checks the model can be "
        "served; the sweep, check and coldstart load each variant themselves)",
        instead=("--load-model",),
        where=_LAUNCHER_ONLY,
    ),
    ServerFlag(("--http-port",), why=f"is the HTTP port, {_PORTS}", instead=("--http-port",)),
    ServerFlag(("--grpc-port",), why=f"is the gRPC port, {_PORTS}", instead=("--grpc-port",)),
    ServerFlag(("--metrics-port",), why=f"is the metrics port, {_PORTS}", instead=("--metrics-port",)),
    ServerFlag(("--http-address",), why=f"is the HTTP listen address, {_ADDRESS}", instead=("--address",)),
    ServerFlag(("--grpc-address",), why=f"is the gRPC listen address, {_ADDRESS}", instead=("--address",)),
    ServerFlag(("--metrics-address",), why=f"is the metrics listen address, {_ADDRESS}", instead=("--address",)),
    ServerFlag(
        ("--reuse-http-port",),
        why="lets another server listen on the same HTTP port, and requests be spread between them (the numbers "
        "would not be this server's alone)",
    ),
    ServerFlag(
        ("--reuse-grpc-port",),
        why="lets another server listen on the same gRPC port, and requests be spread between them (the numbers "
        "would not be this server's alone)",
    ),
    ServerFlag(("--allow-http",), why=_API),
    ServerFlag(("--allow-grpc",), why=_API),
    ServerFlag(("--allow-metrics",), why=f"{_API}; the toolkit sets it true"),
    ServerFlag(("--allow-cpu-metrics",), why=f"{_API}; the toolkit sets it true"),
    ServerFlag(
        ("--allow-gpu-metrics",),
        why="turns off the GPU metrics the records read (their GPU numbers would read as 'no GPU')",
    ),
    ServerFlag(
        ("--http-restricted-api",),
        why="restricts APIs the toolkit uses (loads, statistics, health) to requests with a header it does not send",
    ),
    ServerFlag(
        ("--grpc-restricted-protocol",),
        why="restricts APIs perf_analyzer uses (statistics, inference) to requests with a header it does not send",
    ),
    ServerFlag(("--allow-sagemaker",), why=_OPENS),
    ServerFlag(("--allow-vertex-ai",), why=_OPENS),
    ServerFlag(
        ("--metrics-interval-ms",),
        why=f"is how often the metrics refresh, {_SETS} (the sweep reads them at that interval)",
        instead=("--metrics-interval-ms",),
    ),
    ServerFlag(
        ("--backend-directory",),
        why="is where the server finds its backends, which the bundled runtime sets (its python backend, with the stub "
        "the toolkit put there)",
        instead=("--runtime local",),
        runtimes=("bundled",),
    ),
    # the log the toolkit reads
    ServerFlag(
        ("--log-file",),
        why=f"is where the log goes, {_SETS} ({_LOG}; a sweep writes it in its run folder)",
        instead=("--log-file",),
        where=_LAUNCHER_ONLY,
    ),
    ServerFlag(("--log-verbose",), why=f"is the log's verbosity, {_SETS}", instead=("--log-verbose",)),
    ServerFlag(("--log-error",), why=f"{_LOG}: it hides the error lines"),
    ServerFlag(("--log-format",), why=f"{_LOG}: it is read in Triton's default format"),
    ServerFlag(("--help",), value=False, why="prints tritonserver's help and exits (no server would start)"),
    # what the toolkit advises or relies on being given: passed through
    ServerFlag(("--disable-auto-complete-config",), value=False),  # the toolkit's own advice (Runtime.mismatch_hint)
    ServerFlag(("--strict-model-config",)),  # its deprecated form
    ServerFlag(("--exit-timeout-secs",)),  # a stop waits for the value given (exit_timeout_s)
    ServerFlag(("--exit-on-error",)),  # a model that fails at start: the toolkit checks each model's state itself
    ServerFlag(("--strict-readiness",)),  # Triton's default (true) as a stock server runs: readiness waits on every model
    # the server's own settings: passed through
    *(
        ServerFlag((f"--{name}",))
        for name in (
            "id",
            "log-info",
            "log-warning",
            "repository-poll-secs",
            "model-load-thread-count",
            "model-load-retry-count",
            "model-namespacing",
            "enable-peer-access",
            "http-header-forward-pattern",
            "http-thread-count",
            "grpc-header-forward-pattern",
            "grpc-infer-allocation-pool-size",
            "grpc-use-ssl",
            "grpc-use-ssl-mutual",
            "grpc-server-cert",
            "grpc-server-key",
            "grpc-root-cert",
            "grpc-infer-response-compression-level",
            "grpc-keepalive-time",
            "grpc-keepalive-timeout",
            "grpc-keepalive-permit-without-calls",
            "grpc-http2-max-pings-without-data",
            "grpc-http2-min-recv-ping-interval-without-data",
            "grpc-http2-max-ping-strikes",
            "grpc-max-connection-age",
            "grpc-max-connection-age-grace",
            "sagemaker-port",
            "sagemaker-safe-port-range",
            "sagemaker-thread-count",
            "vertex-ai-port",
            "vertex-ai-thread-count",
            "vertex-ai-default-model",
            "metrics-config",
            "trace-config",
            "backend-config",
            "repoagent-directory",
            "cache-config",
            "cache-directory",
            "rate-limit",
            "rate-limit-resource",
            "pinned-memory-pool-byte-size",
            "cuda-memory-pool-byte-size",
            "cuda-virtual-address-size",
            "min-supported-compute-capability",
            "buffer-manager-thread-count",
            "host-policy",
            "model-load-gpu-limit",
            "response-cache-byte-size",
            "trace-file",
            "trace-level",
            "trace-rate",
            "trace-count",
            "trace-log-frequency",
        )
    ),
)

#: What the flags the toolkit lets through do (said with a refusal).
TUNING = "tune the server, e.g. --log-info=false, --http-thread-count=8, --disable-auto-complete-config"

_LONG = {n: f for f in SERVER_FLAGS for n in f.names}


def passed_flags(args: Sequence[str], via: str = PASS_FLAG) -> list[Passed]:
    """The tritonserver flags of ``args`` (each one ``--server-arg`` value, in order; ``via="--"``: the arguments
    after the launcher's ``--``, said so), read as tritonserver reads them (module docstring; the one reader,
    :func:`core.flag_refusals.read_passed`: no short flags); a flag it does not know is left out (tritonserver says so
    itself), as is what follows ``--``."""
    return read_passed(args, via, _LONG)


def refused_names() -> str:
    """The tritonserver flags the toolkit refuses, for a help text (trial 25, T25-13: the launcher's help said flags
    after ``--`` went to tritonserver verbatim): ``--model-repository, ...``; one a runtime sets itself
    (``--backend-directory``) with that runtime."""
    names = [f.names[0] + (f" ({', '.join(f.runtimes)})" if f.runtimes else "") for f in SERVER_FLAGS if f.why is not None]
    return ", ".join(names)


def server_arg_refusal(
    args: Sequence[str], runtime: str | None = None, resumed: bool = False, via: str = PASS_FLAG
) -> FlagError | None:
    """The refusal of the tritonserver flags in ``args`` (the ``--server-arg`` values) that the toolkit
    does not let through (:data:`SERVER_FLAGS`): what was passed, why, and the flag to use instead (a
    usage error of ``--server-arg``); ``None`` when every one goes through.

    Args:
        args: The pass-through arguments.
        runtime: The runtime that starts the server (``None`` or ``auto``: not known yet, so the flags
            one runtime sets are left to the check made once it is); ``remote``: a server the toolkit
            does not start, so every flag is refused (it would be ignored).
        resumed: A resumed sweep (which keeps its saved flags): the fix is a new run's.
        via: How ``args`` were given: ``--server-arg`` values, or ``"--"``: after the launcher's ``--`` (each
            refused one named as typed).
    """
    if runtime == "remote" and args:
        return FlagError(
            f"{' '.join(f'{PASS_FLAG}={a}' for a in args)} would be ignored: with --runtime remote the toolkit starts no "
            "server, and the one at --url keeps the flags it was started with",
            flag=PASS_FLAG,
            hint="drop --server-arg, or start that server with the flag",
        )
    known = runtime not in (None, "auto")
    refused = [
        p
        for p in passed_flags(args, via)
        if p.flag.why is not None and (not p.flag.runtimes or (known and runtime in p.flag.runtimes))
    ]
    if not refused:
        return None
    said = [f"{p.given} is refused: tritonserver's {p.name}{_aka(p.flag, p.name)} {p.flag.why}" for p in refused]
    hint = "; ".join(dict.fromkeys(_fix(p) for p in refused))
    if resumed:
        them = "it" if len(refused) == 1 else "them"
        hint = f"start a new run (--run-id NEW) without {them}: a resumed run keeps its saved {PASS_FLAG}; {hint}"
    what = "flags after --" if via == "--" else PASS_FLAG
    return FlagError(
        "; ".join(said), flag=via, hint=f"{hint} ({what} {'are' if via == '--' else 'is'} for flags that only {TUNING})"
    )


def passed_value(args: Sequence[str], name: str) -> str | None:
    """The value tritonserver takes for flag ``name`` from ``args`` (the last one given wins), or ``None``."""
    values = [p.value for p in passed_flags(args) if p.name == name or name in p.flag.names]
    return values[-1] if values else None


def _aka(flag: ServerFlag, name: str) -> str:
    """``" (--model-store)"`` after ``--model-repository``: the flag's other spellings."""
    others = [n for n in flag.names if n != name]
    return f" ({', '.join(others)})" if others else ""


def _fix(p: Passed) -> str:
    """``"use --address instead of --http-address"``, with the value given (``--http-port 9000``);
    ``"--allow-http cannot be given to the toolkit's tritonserver"``."""
    if not p.flag.instead:
        return f"{p.name} cannot be given to the toolkit's tritonserver"
    valued = len(p.flag.instead) == 1 and p.value and " " not in p.flag.instead[0]
    use = f"{p.flag.instead[0]} {p.value}" if valued else " or ".join(p.flag.instead)
    same = p.flag.instead == (p.name,)
    where = f" ({p.flag.where})" if p.flag.where else ""
    return (f"use the toolkit's own {use} instead" if same else f"use {use} instead of {p.name}") + where
