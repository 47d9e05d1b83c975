"""A served model's state in the repository index, the one wait for a server's or a model's state
(:func:`wait_until`), unloading and waiting until it is gone, and the ``--load-model`` patterns matched
against a repository's model folders."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import tenacity

from core.errors import ServerError

log = logging.getLogger(__name__)

#: Readiness is asked this often while the server starts (s).
READY_POLL_S = 0.25
#: How long :meth:`TritonServer.unload` waits for a model to be gone (s).
UNLOAD_WAIT_S = 30.0


def wait_until(probe: Callable[[], bool], timeout_s: float, on_timeout: Callable[[], Any], poll_s: float = READY_POLL_S) -> Any:
    """The toolkit's one wait for a server's or a model's state: ``probe()`` every ``poll_s`` until it returns true,
    or until ``timeout_s`` passes (then ``on_timeout()``'s value, or what it raises). What ``probe`` raises ends the
    wait at once: a probe that sees the wait cannot end well (the server exited, Triton says the load failed) raises.
    Every wait for a server to be ready, a model to load or a model to be gone is this one
    (:meth:`clients.server.TritonServer.start`, :func:`clients.runtimes.loading.load_model`, :func:`unload_and_wait`).

    Returns:
        ``True`` once ``probe()`` did, else ``on_timeout()``'s value.
    """
    return tenacity.Retrying(
        stop=tenacity.stop_after_delay(timeout_s),
        wait=tenacity.wait_fixed(poll_s),
        retry=tenacity.retry_if_result(lambda done: not done),
        retry_error_callback=lambda state: on_timeout(),
    )(probe)


#: Repository-index states of a model that still holds its instances (Triton's
#: ``ModelReadyState``: a model being unloaded is no longer ready but still runs).
PRESENT_STATES = ("READY", "LOADING", "UNLOADING")


def model_state(client: Any, model: str) -> str | None:
    """The state of ``model`` in the server's repository index (``READY``, ``LOADING``,
    ``UNLOADING``, ``UNAVAILABLE``), ``None`` when the index does not list it.

    Args:
        client: A tritonclient HTTP or gRPC ``InferenceServerClient``.
        model: The model (variant) name.

    Raises:
        Exception: whatever the client raises (the server is unreachable).
    """
    if "grpc" in type(client).__module__:
        entries = client.get_model_repository_index(as_json=True).get("models", [])
    else:
        entries = client.get_model_repository_index()
    states = [e.get("state") for e in entries if e.get("name") == model]
    return next((st for st in states if st in PRESENT_STATES), states[0] if states else None)


def unload_and_wait(client: Any, model: str, timeout_s: float = UNLOAD_WAIT_S) -> bool:
    """Ask the server to unload ``model`` and poll until it is gone.

    Triton's unload request returns before the model is gone, and the model stops being
    *ready* as soon as unloading starts, while its instances still run (a python model's
    ``finalize()``, in-flight requests): it is gone only when the repository index no longer
    says ``READY``, ``LOADING`` or ``UNLOADING`` (:data:`PRESENT_STATES`). Whoever loads the
    next model or checks the state waits here.

    Args:
        client: A tritonclient HTTP or gRPC ``InferenceServerClient``.
        model: The model name.
        timeout_s: How long to wait for it to be gone (default 30 s), polled every
            :data:`READY_POLL_S`.

    Returns:
        Whether it was gone in time (a warning naming its state is logged when not).

    Raises:
        Exception: whatever the client raises (the server refused or is unreachable).
    """
    client.unload_model(model)

    def gone() -> bool:
        return not client.is_model_ready(model) and model_state(client, model) not in PRESENT_STATES

    def still_there() -> bool:
        now = "READY" if client.is_model_ready(model) else model_state(client, model)
        log.warning("%s still %s %g s after its unload request", model, now or "listed", timeout_s)
        return False

    return bool(wait_until(gone, timeout_s, still_there))


def expand_model_patterns(repository: Path, patterns: Sequence[str]) -> tuple[str, ...]:
    """Model names for ``--load-model`` values: names or shell patterns (``mlp_*``, ``*``)
    matched against the repository's model folders, by the rule ``--variants`` follows
    (:meth:`builders.repository.view.Repository.names`).

    Raises:
        ServerError: a pattern matches no model folder (the message lists them).
    """
    from builders.repository.view import Repository
    from core.errors import RepositoryError

    try:
        return tuple(Repository(repository).names(patterns, indexed=False))
    except RepositoryError as e:
        raise ServerError(f"--load-model {' '.join(patterns)}: {e.message}", hint=e.hint, flag="--load-model") from None
