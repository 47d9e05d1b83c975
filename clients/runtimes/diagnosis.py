"""Why a tritonserver did not start or a model did not load, read from the server's own log.

A server that is not ready in time, exits during start-up, or fails a load leaves the reason
in its log. :func:`known_causes` names the causes it recognises there, each with what to do
(:data:`CAUSES`); :func:`still_loading` lists the models whose load had started and not ended
when the wait ran out. :func:`not_ready_hint` puts them in order: a runtime's own explanation
(:meth:`clients.runtimes.base.Runtime.explain`: a container's ``/dev/shm``), then the known
causes, and only when neither is found and a model was still loading, raising
``--start-timeout``; a log that shows none of these says so, instead of guessing.

Log lines as Triton writes them (``model_lifecycle.cc``, ``pb_stub.cc``, ``http_server.cc``):
``loading: NAME:1``, ``successfully loaded 'NAME'``, ``failed to load 'NAME' version 1: REASON``,
``Python model file not found in 'PATH'``, ``Socket 'HOST:PORT' already in use``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from clients.runtimes.host import _HARMLESS
from core.wording import count

#: Most bytes of a log read back for a diagnosis (its end).
READ_LIMIT = 2 << 20

#: Each known cause: a pattern over one log line, and the cause with what to do, in words.
CAUSES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(r"Python model file not found in '([^']+)'"),
        lambda m: (
            f"{m[1]} is missing: the python backend runs the model.py that `builders build` writes beside "
            "the artifact; rebuild the variant (builders build) or put the file back"
        ),
    ),
    (
        re.compile(r"unable to find backend library for backend '([^']+)'"),
        lambda m: (
            f"this tritonserver has no '{m[1]}' backend: serve the repository with a runtime that has it "
            "(--runtime container), or build it for the python backend (builders build --serving python)"
        ),
    ),
    (
        re.compile(r"(?:ModuleNotFoundError|ImportError): (.+?)(?:\"|$)"),
        lambda m: (
            f"the python backend could not import a module ({first_line(m[1])}): install it where the server's python "
            "backend runs"
        ),
    ),
    (
        re.compile(r"failed to load '([^']+)' version \d+: (.+?)\"?$"),
        lambda m: f"model {m[1]!r} failed to load: {first_line(m[2])}",
    ),
    (
        re.compile(r"(?:failed to start (\w+) service.*)?Socket '([^']+)' already in use"),
        lambda m: (
            f"{m[1] or 'a'} port is already in use ({m[2]}): stop what listens there, or pass another port (0 picks a free one)"
        ),
    ),
    (
        re.compile(r"[Aa]ddress already in use"),
        lambda m: "a port is already in use: stop what listens there, or pass another port (0 picks a free one)",
    ),
    (
        re.compile(r"error while loading shared libraries: (\S+)"),
        lambda m: f"a library tritonserver needs is missing ({m[1].rstrip(':')}): install it, or use --runtime container",
    ),
)

_ERROR = re.compile(r"^E\d{4} ")
_FAILED_LOAD = re.compile(r"failed to load '([^']+)' version \d+: (.+?)\"?$")
#: A python-backend stub that failed before it could answer its backend (``pb_stub.cc``): Triton never ends that
#: load (the model stays ``LOADING`` in its repository index and the load request unanswered; trial 30, F21).
_STUB_FAILED = re.compile(r"pb_stub\.cc:\d+\]\s+(Failed to preinitialize Python stub.+?)\"?$")
#: The model a stub's line names: its folder in the path of its ``model.py`` (``.../NAME/1/model.py``).
_MODEL_FILE = re.compile(r"/([^/'\"\s]+)/\d+/model\.py")


def first_line(text: str) -> str:
    """The first line of an error Triton logged (its lines escaped as backslash-n within one log line: a python-backend
    stub's message, then ``At:`` and its Python frames; trial 25, T25-21 printed them all, escapes included)."""
    return re.split(r"\\n|\n", text.strip(), maxsplit=1)[0].strip()


def failed_loads(text: str) -> dict[str, str]:
    """The models a server log shows failed to load (``failed to load 'NAME' version N: REASON``, and a python stub that
    failed before it could say so: :func:`hung_loads`), each once, in order: name -> the first line of its error
    (:func:`first_line`)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if (m := _FAILED_LOAD.search(line)) is not None:
            found.setdefault(m[1], first_line(m[2]))
        found.update((k, v) for k, v in hung_loads(line).items() if k not in found)
    return found


def hung_loads(text: str) -> dict[str, str]:
    """The models whose python stub the log shows failed before it answered its backend (``Failed to preinitialize
    Python stub: Python model file not found in '.../NAME/1/model.py'``): loads Triton never ends, its repository
    index saying ``LOADING`` and the load request unanswered; name -> the stub's words (:func:`first_line`)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if (m := _STUB_FAILED.search(line)) is not None and (f := _MODEL_FILE.search(line)) is not None:
            found.setdefault(f[1], first_line(m[1]))
    return found


def exited_words(text: str, what: str, tail: str, hint: str, repository: Path, load_models: Sequence[str]) -> tuple[str, str]:
    """The message and hint of a server that exited during start-up (``what``: how it exited; ``hint``: what
    :func:`failed_hint` found). When its log shows models that failed to load (a server loading models at start
    exits on the first that fails), one line per model, the first line of its error, and what to do: `builders
    validate` names what is wrong, or leave the model out of ``--load-model`` to start the rest (trial 25, T25-21: 38
    lines of raw log, the stub's Python frames, then the same advice with its backslash-n escapes, nothing to do); else
    the log's last lines (``tail``)."""
    failed = failed_loads(text)
    if not failed:
        return f"{what} during start-up; last lines of its log:\n{tail}", hint
    n = len(failed)
    head = (
        f"{n} of the {len(load_models)} models it was to load failed"
        if len(load_models) > n
        else f"{count(n, 'model')} failed to load"
    )
    lines = "\n".join(f"  {name}: {why}" for name, why in failed.items())
    rest = [m for m in load_models if m not in failed]
    named = ", ".join(failed)
    todo = f"`builders validate {repository}` names what is wrong" + (
        f"; or leave {named} out of --load-model to start the rest ({', '.join(rest)})" if rest else ""
    )
    others = [c for c in hint.split("; ") if c and not c.startswith("model '")]  # the causes not said per model
    return f"{what} during start-up: {head}:\n{lines}", "; ".join([*others, todo])


def hung_words(hung: dict[str, str], hint: str, repository: Path, load_models: Sequence[str]) -> tuple[str, str]:
    """The message and hint of a server whose start-up waits on loads Triton never ends (``hung``:
    :func:`hung_loads`; ``hint``: what :func:`failed_hint` found): each model with its stub's words on the first
    line, and :func:`exited_words`' advice (`builders validate`, or leave them out of ``--load-model``)."""
    said = "; ".join(f"{name}: {why}" for name, why in hung.items())
    _, todo = exited_words(
        "\n".join(f"failed to load '{n}' version 1: {w}" for n, w in hung.items()), "", "", hint, repository, load_models
    )
    return (
        f"tritonserver could not start: the python stub of {count(len(hung), 'model')} failed before it answered, a load "
        f"Triton never ends ({said})",
        todo,
    )


_STARTED = re.compile(r"Started (?:HTTPService|GRPCInferenceService)")
_LOADING = re.compile(r"loading: ([^:\"\s]+):\d+")
_LOAD_ENDED = re.compile(r"(?:successfully loaded|failed to load|successfully unloaded) '([^']+)'")


def read_log(path: Path, offset: int = 0) -> str:
    """The server log at ``path`` from byte ``offset`` (at most its last :data:`READ_LIMIT`
    bytes); ``""`` when it cannot be read."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(offset, f.tell() - READ_LIMIT))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def known_causes(text: str) -> list[str]:
    """The causes :data:`CAUSES` recognises in ``text`` (a server log or Triton's error), each
    once, in the order the log shows them, each with what to do."""
    found: list[str] = []
    for line in text.splitlines():
        for pattern, words in CAUSES:
            m = pattern.search(line)
            if m:
                said = words(m)
                if said not in found:
                    found.append(said)
                break
    return found


def still_loading(text: str) -> list[str]:
    """Models whose load the log shows started (``loading: NAME:1``) and not ended (loaded,
    failed, unloaded), in the order they started."""
    started: list[str] = []
    for line in text.splitlines():
        m = _LOADING.search(line)
        if m and m[1] not in started:
            started.append(m[1])
            continue
        ended = _LOAD_ENDED.search(line)
        if ended and ended[1] in started:
            started.remove(ended[1])
    return started


def error_lines(text: str) -> list[str]:
    """The error lines of a server log (glog ``E<mmdd> ...``), start-up noise of a host without
    a GPU left out (:data:`clients.runtimes.host._HARMLESS`)."""
    return [ln for ln in text.splitlines() if _ERROR.match(ln) and not any(h in ln for h in _HARMLESS)]


def not_ready_hint(
    text: str, explained: str | None, timeout_s: float, *, server_started: bool | None = None, flag: str = "--start-timeout"
) -> str:
    """What to do when a server or a model was not ready within ``timeout_s`` (s).

    Args:
        text: The server log (since the load request, for a model).
        explained: The runtime's own reading of it (:meth:`clients.runtimes.base.Runtime.explain`).
        timeout_s: How long was waited (``--start-timeout``).
        server_started: Whether the server had started its endpoints; ``None``: read from
            ``text`` (Triton's ``Started HTTPService`` line).
        flag: What gives it more time (``--start-timeout``; a load bounded by a time budget: ``--time-budget``).

    Returns:
        The runtime's explanation and every known cause; else the error lines it does not
        recognise; else, when a model was still loading or the server still starting, raising
        ``--start-timeout`` (the only cases where waiting longer can help); else that the log
        shows none of these.
    """
    causes = [c for c in (explained, *known_causes(text)) if c]
    if causes:
        return "; ".join(causes)
    errors = error_lines(text)
    if errors:
        return (
            f"the log shows {count(len(errors), 'error line')} this toolkit does not recognise (above); waiting longer "
            "would not help: read them"
        )
    loading = still_loading(text)
    if loading:
        return (
            f"{', '.join(loading)} was still loading when the {timeout_s:g} s ran out and the log shows no error: "
            f"if it is only slow, raise {flag}"
        )
    started = bool(_STARTED.search(text)) if server_started is None else server_started
    if not started:
        return (
            f"tritonserver had not started its endpoints when the {timeout_s:g} s ran out and its log shows no error: "
            "if it is only slow (a first image pull, many models to load), raise --start-timeout"
        )
    return "the log shows no error and no model still loading: read it (its path is below)"


def failed_hint(text: str, explained: str | None, otherwise: str) -> str:
    """What to do when a server exited or a load failed: the runtime's explanation and every
    known cause in ``text``, else ``otherwise``."""
    return "; ".join(c for c in (explained, *known_causes(text)) if c) or otherwise
