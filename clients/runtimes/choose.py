"""Which runtime: the registry of runtime classes and the ``auto`` choice.

``auto`` prefers a local ``tritonserver`` (native backends), then the container when a Docker
engine answers and a GPU is present, then the bundled CPU server; it says why. ``--url`` means
``remote`` (a server the toolkit did not start); ``auto`` never picks it otherwise.
"""

from __future__ import annotations

from collections.abc import Collection

from clients.runtimes.base import Runtime
from clients.runtimes.bundled import BundledRuntime
from clients.runtimes.container import ContainerRuntime
from clients.runtimes.local import LocalRuntime
from clients.runtimes.options import ServerOptions, image_for_tag
from clients.runtimes.remote import RemoteRuntime
from core.errors import ServerError
from core.flag_refusals import Unread, refuse_unread
from core.flag_words import flag_name
from core.options import fields

#: ``--runtime`` name -> the class that launches it.
RUNTIME_CLASSES: dict[str, type[Runtime]] = {c.name: c for c in (BundledRuntime, LocalRuntime, ContainerRuntime, RemoteRuntime)}
#: The order in which ``auto`` tries them.
AUTO_ORDER = ("local", "container", "bundled")
#: Every ``--runtime`` value.
RUNTIMES = ("auto", *RUNTIME_CLASSES)
#: The :class:`ServerOptions` fields only one runtime reads, and that runtime: given while another one
#: starts (or reaches) the server, they would be ignored, so they are refused (:func:`ignored_flags`).
RUNTIME_FIELDS: dict[str, str] = {
    "tag": ContainerRuntime.name,
    "image": ContainerRuntime.name,
    "gpus": ContainerRuntime.name,
    "shm_size": ContainerRuntime.name,
    "binary": LocalRuntime.name,
    "metrics_urls": RemoteRuntime.name,
    "remote_repository": RemoteRuntime.name,
    "max_upload_bytes": RemoteRuntime.name,
    "deploy": RemoteRuntime.name,
    "replace_models": RemoteRuntime.name,
}

#: The :class:`ServerOptions` fields only a server the toolkit starts reads (its command line, its ports, its log): a
#: server at ``--url`` runs already, started with its own, so they would be ignored there (:func:`refuse_unread_launch`).
LAUNCH_FIELDS = (
    "http_port",
    "grpc_port",
    "metrics_port",
    "address",
    "model_control",
    "load_models",
    "log_file",
    "log_verbose",
    "metrics_interval_ms",
)


def given_server_fields(opts: ServerOptions) -> frozenset[str]:
    """The fields of ``opts`` the user gave, by one rule for every refusal of an unread server flag (break-it F1:
    ``--runtime bundled --gpus all`` passed, its value the default, while ``--url H --http-port 0`` was refused): the
    flags typed on the command line (``opts.given``, click's parameter source), a default's value too, so a command that
    sets one itself (a sweep's log in its run folder) is not refused; for a Python caller (``opts.given`` is ``None``),
    the fields whose value is not their default (an image made from ``tag`` is not a second one)."""
    if opts.given is not None:
        return opts.given
    defaults = {f.name: f.default for f in fields(ServerOptions) if not f.flag.skip}
    made = {"image": image_for_tag(opts.tag)} if opts.tag else {}
    return frozenset(n for n, d in defaults.items() if getattr(opts, n) not in (d, made.get(n, d)))


def refuse_unread_launch(opts: ServerOptions, reads: Collection[str] = ()) -> None:
    """Refuse the flags of a server the toolkit would start (:data:`LAUNCH_FIELDS`) given beside ``--url``, which
    reaches one that runs (s19: ``clients check --url H --http-port 9000 --log-file x.log`` checked that server and
    ignored both), by the rule of every unread flag (:func:`core.flag_refusals.refuse_unread`); given as
    :func:`given_server_fields` says, as for :func:`ignored_flags`.

    Args:
        opts: The server options (``opts.urls``: the running servers).
        reads: The fields the command reads with ``--url`` too (a sweep scrapes metrics every ``metrics_interval_ms``).

    Raises:
        FlagError: one or more of them given with ``--url`` (exit 2), each named, with what to do.
    """
    typed = given_server_fields(opts)
    hit = [flag_name(ServerOptions, f) for f in LAUNCH_FIELDS if f in typed and f not in reads]
    if not opts.urls or not hit:
        return
    # the hint's command is taken: a flag only a --url server reads goes with --url (ignored_flags refuses it otherwise)
    remote = [flag_name(ServerOptions, f) for f, r in RUNTIME_FIELDS.items() if r == RemoteRuntime.name and f in typed]
    refuse_unread(
        typed,
        [
            Unread(
                f,
                flag_name(ServerOptions, f),
                f not in reads,
                f"--url {','.join(opts.urls)} names a running server, started with its own settings, and the toolkit "
                "starts none to give them to",
                f"drop {' and '.join(hit)}, or drop {' and '.join(('--url', *remote))} to have the toolkit start a server "
                + ("with it" if len(hit) == 1 else "with them"),
            )
            for f in LAUNCH_FIELDS
        ],
    )


def resolve_runtime(opts: ServerOptions) -> tuple[Runtime, str]:
    """The runtime for ``opts.runtime`` (``auto`` resolved) and why it was chosen.

    Nothing is checked beyond the choice; :meth:`Runtime.check` says whether its server is there.

    Returns:
        ``(runtime, why)``; ``why`` is ``"asked for"`` unless ``auto`` chose.

    Raises:
        ServerError: unknown runtime name.
    """
    name = opts.runtime
    if name not in RUNTIMES:
        raise ServerError(f"unknown server runtime {name!r}", hint=f"choose one of {', '.join(RUNTIMES)}")
    if opts.urls and name not in ("auto", RemoteRuntime.name):
        given = given_server_fields(opts)  # dropping --url: the flags only a --url server reads go with it (F16's kind)
        remote = [flag_name(ServerOptions, f) for f, r in RUNTIME_FIELDS.items() if r == RemoteRuntime.name and f in given]
        raise ServerError(
            f"--url names a server the toolkit did not start; --runtime {name} starts one",
            hint=f"pass --runtime remote (or leave --runtime out) with --url, or drop {' and '.join(['--url', *remote])}",
            flag="--url",
        )
    if opts.urls and name == "auto":
        return _checked(RemoteRuntime(opts), "--url given")
    if name == RemoteRuntime.name and not opts.urls:
        raise ServerError(
            "--runtime remote needs the server's address", hint="pass --url HOST:PORT (its HTTP endpoint)", flag="--url"
        )
    if name != "auto":
        return _checked(RUNTIME_CLASSES[name](opts), "asked for")
    for candidate in AUTO_ORDER:  # local first: a binary the user named is used or refused, never passed over
        cls = RUNTIME_CLASSES[candidate]
        why = cls.detect(opts)
        if why:
            return _checked(cls(opts), why)
    raise AssertionError("the bundled runtime is always a candidate")  # BundledRuntime.detect never says no


def _checked(runtime: Runtime, why: str) -> tuple[Runtime, str]:
    """``(runtime, why)``, once no flag of another runtime was given (:func:`ignored_flags`)."""
    refusal = ignored_flags(runtime.opts, runtime.name, why)
    if refusal is not None:
        raise refusal
    return runtime, why


def ignored_flags(opts: ServerOptions, runtime: str, why: str) -> ServerError | None:
    """The refusal of the flags given in ``opts`` that ``runtime`` does not read (:data:`RUNTIME_FIELDS`:
    ``--tag`` with the bundled server, ``--tritonserver`` with ``--url``, ``--no-deploy`` without it),
    as a usage error naming each flag, the runtime that reads it, and why ``runtime`` was chosen;
    ``None`` when every given flag is read (trial 21: ``clients serve --tag 24.08`` started the bundled server
    without a word). Given: as :func:`given_server_fields` says (typed, a default's value too: break-it F1).

    Args:
        opts: The launch options.
        runtime: The runtime that serves (``bundled``, ``local``, ``container``, ``remote``).
        why: Why it was chosen (``"asked for"``, or what ``auto`` found).
    """
    given = given_server_fields(opts)
    unread = [(flag_name(ServerOptions, n), reader) for n, reader in RUNTIME_FIELDS.items() if reader != runtime and n in given]
    if not unread:
        return None
    said = ", ".join(f"{flag} (read by the {reader} runtime)" for flag, reader in unread)
    readers = sorted({reader for _, reader in unread})
    chosen = f"--runtime {runtime} was asked for" if why == "asked for" else f"--runtime auto chose it: {why}"
    # the hint's command is taken (break-it F16's kind): --url and --runtime R name one runtime, so the one that
    # serves now is dropped for the one asked for, with the flags only it reads; several readers: one at a time
    also = [flag_name(ServerOptions, n) for n, r in RUNTIME_FIELDS.items() if r == runtime and n in given]
    drop = " and ".join(["--url", *also]) if runtime == RemoteRuntime.name else f"--runtime {runtime}"
    asked = runtime == RemoteRuntime.name or why == "asked for"

    def way(reader: str) -> str:
        named = "--url HOST:PORT" if reader == RemoteRuntime.name else f"--runtime {reader}"
        return f"drop {drop} and pass {named}" if asked else f"pass {named}"

    flags = [f for f, _ in unread]
    if len(readers) == 1:
        ask = f"{way(readers[0])} to use {'it' if len(unread) == 1 else 'them'}"
    else:
        ask = "; or ".join(f"{way(r)} with {' and '.join(f for f, x in unread if x == r)} alone" for r in readers)
    return ServerError(
        f"{said} would be ignored: the {runtime} runtime serves ({chosen})",
        hint=f"{ask}; or drop {' and '.join(flags)}" if len(readers) > 1 else f"{ask}, or drop {' and '.join(flags)}",
        flag=unread[0][0],
    )
