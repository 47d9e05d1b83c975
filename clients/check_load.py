"""``clients check`` on a running server: the load of a variant that is not ready (:func:`load_variant`).

Its folder is on this host (``-r``): a load that fails for certain (a python model without its ``model.py``, no
version folder: :func:`builders.repository.version_checks.load_blockers`, the rule of ``builders validate``) is refused
before the server is asked. Trial 31, F13: a running server keeps such a model ``LOADING`` in its repository index
and says why only in its own log, so the check waited its whole ``--start-timeout`` and said "no answer" without a
reason or a hint. A load that is asked and runs out of time says what to check.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from builders.repository.version_checks import load_blockers
from clients.runtimes.loading import load_by_name


def timeout_hint(repository: Path) -> str:
    """What to check after a load a running server did not answer in time: the folder (``builders validate``) and
    that server's own log (the toolkit keeps none of a server it did not start)."""
    return (
        f"a model whose backend failed to start (a python stub) stays LOADING and only the server's own log says why: "
        f"run `builders validate {repository}`, and read that server's log (scripts/launch_tritonserver.sh printed "
        "its path as `log:`); a load that is only slow needs a larger --start-timeout"
    )


def load_variant(
    repository: Path, name: str, url: str, protocol: str, timeout_s: float, new_client: Callable[[], Any]
) -> str | None:
    """Ask the server at ``url`` to load variant ``name`` of ``repository`` (:func:`load_by_name`, at most
    ``timeout_s``); ``None`` when it loaded, else the row's words of why not. Not asked where its folder cannot load
    (:func:`load_blockers`)."""
    blockers = load_blockers(repository / name)
    if blockers:
        what = "; ".join(f"{Path(p.file).relative_to(repository)}: {p.problem}: {p.fix}" for p in blockers)
        return (
            f"not ready, and its folder cannot load (not asked of the server, which keeps such a model LOADING and "
            f"says why only in its own log): {what} (`builders validate {repository}` lists every problem)"
        )
    try:
        load_by_name(new_client, url, protocol, name, timeout_s)
    except TimeoutError as e:
        return f"not ready and could not be loaded: {e} (--start-timeout): {timeout_hint(repository)}"
    except Exception as e:  # noqa: BLE001 - any refusal is that variant's failure
        msg = e.message() if hasattr(e, "message") and callable(e.message) else str(e)
        return f"not ready and could not be loaded: {msg}"
    return None
