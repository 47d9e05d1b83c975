"""Which runtime: the registry of runtime classes and the ``auto`` choice.

``auto`` prefers a local ``tritonserver`` (native backends), then the container when a Docker
engine answers and a GPU is present, then the bundled CPU server; it says why. ``--url`` means
``remote`` (a server the toolkit did not start); ``auto`` never picks it otherwise.
"""

from __future__ import annotations

from clients.runtimes.base import Runtime
from clients.runtimes.bundled import BundledRuntime
from clients.runtimes.container import ContainerRuntime
from clients.runtimes.local import LocalRuntime
from clients.runtimes.options import ServerOptions
from clients.runtimes.remote import RemoteRuntime
from core.errors import ServerError

#: ``--runtime`` name -> the class that launches it.
RUNTIME_CLASSES: dict[str, type[Runtime]] = {c.name: c for c in (BundledRuntime, LocalRuntime, ContainerRuntime, RemoteRuntime)}
#: The order in which ``auto`` tries them.
AUTO_ORDER = ("local", "container", "bundled")
#: Every ``--runtime`` value.
RUNTIMES = ("auto", *RUNTIME_CLASSES)


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
        raise ServerError(
            f"--url names a server the toolkit did not start; --runtime {name} starts one",
            hint="pass --runtime remote (or leave --runtime out) with --url, or drop --url",
            flag="--url",
        )
    if opts.urls and name == "auto":
        return RemoteRuntime(opts), "--url given"
    if name == RemoteRuntime.name and not opts.urls:
        raise ServerError(
            "--runtime remote needs the server's address", hint="pass --url HOST:PORT (its HTTP endpoint)", flag="--url"
        )
    if name != "auto":
        return RUNTIME_CLASSES[name](opts), "asked for"
    for candidate in AUTO_ORDER:
        cls = RUNTIME_CLASSES[candidate]
        why = cls.detect(opts)
        if why:
            return cls(opts), why
    raise AssertionError("the bundled runtime is always a candidate")  # BundledRuntime.detect never says no
