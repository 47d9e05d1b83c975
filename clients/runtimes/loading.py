"""Loading a model on a running server (:meth:`clients.server.TritonServer.load`): the load request, the
wait until the model is ready, and the error of a load that failed or ran out of time, in the server log's words.

The load request is Triton's repository API, which answers when the load ended. It is sent from a thread of
its own while the one wait (:func:`clients.runtimes.models.wait_until`) watches what Triton says meanwhile: a
load Triton reports failed ends the wait at once with Triton's reason, whether the request answers it or not
(trial 30, F21: a python model folder without its ``model.py`` left the load request unanswered and the model
``LOADING`` in the repository index, while the server log said why 0.04 s after the request; the sweep waited its
whole 120 s ``--start-timeout``). A wait is bounded by ``--start-timeout`` and by a time budget's end where the
caller set one (:class:`LoadDeadline`: the sweep's ``--time-budget``, a co-location run's).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from clients.runtimes.diagnosis import failed_hint, failed_loads, first_line, not_ready_hint, read_log
from clients.runtimes.host import log_size
from clients.runtimes.models import READY_POLL_S, unload_and_wait, wait_until
from clients.runtimes.remote import load_failed
from clients.runtimes.served import Loaded
from core.errors import ServerError

#: How long one look at the repository index during a load may take (s).
INDEX_TIMEOUT_S = 2.0
#: The shortest wait a load is given when a time budget's end is near (s): its answer, if it comes at once.
MIN_LOAD_WAIT_S = 1.0


@dataclasses.dataclass(frozen=True)
class LoadDeadline:
    """A time no model load on a server waits past, beside ``--start-timeout`` (a time budget's end).

    Attributes:
        at: The end, a ``time.monotonic()`` value.
        words: The bound as an error names it (``"what was left of the 60 s --time-budget"``).
        flag: The flag that gives a load more time (``"--time-budget"``).
    """

    at: float
    words: str
    flag: str = "--time-budget"


class LoadFailed(Exception):
    """Triton's reason a load failed, seen while the load request was still unanswered (its log, its repository
    index); ``message()`` as tritonclient's errors give theirs."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    def message(self) -> str:
        """Triton's reason."""
        return self.reason


def load_limit(srv: Any, timeout_s: float | None) -> tuple[float, str, str]:
    """How long a load on ``srv`` may wait, the bound in words and the flag that raises it: ``timeout_s`` (default
    the server's ``--start-timeout``), or what is left until ``srv.load_deadline`` (:class:`LoadDeadline`) when
    that ends sooner (at least :data:`MIN_LOAD_WAIT_S`)."""
    limit = srv.opts.start_timeout_s if timeout_s is None else timeout_s
    deadline: LoadDeadline | None = getattr(srv, "load_deadline", None)
    if deadline is not None and deadline.at - time.monotonic() < limit:
        return max(deadline.at - time.monotonic(), MIN_LOAD_WAIT_S), deadline.words, deadline.flag
    return limit, "--start-timeout", "--start-timeout"


def await_answer(send: Callable[[], Any], failed: Callable[[], str | None], timeout_s: float, what: str) -> Any:
    """``send()``'s answer, sent from a thread of its own while :func:`clients.runtimes.models.wait_until` asks
    ``failed()`` every :data:`READY_POLL_S` whether the server already said it failed.

    Raises:
        LoadFailed: ``failed()`` gave a reason before ``send()`` answered.
        TimeoutError: no answer within ``timeout_s``.
        Exception: what ``send()`` or ``failed()`` raised.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = send()
        except BaseException as e:  # noqa: BLE001 - raised in the waiting thread
            box["error"] = e

    thread = threading.Thread(target=run, name=what, daemon=True)  # unanswered: left to its client's timeout
    thread.start()

    def answered() -> bool:
        thread.join(READY_POLL_S)  # ends the moment the request is answered (a load's time is measured around it)
        if not thread.is_alive():
            return True
        why = failed()
        if why:
            raise LoadFailed(why)
        return False

    def no_answer() -> None:
        raise TimeoutError(f"{what} had no answer within {timeout_s:g} s")

    wait_until(answered, timeout_s, no_answer, poll_s=0)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def index_entry(url: str, model: str, protocol: str = "http") -> dict[str, Any] | None:
    """``model``'s entry in the repository index of the server at ``url`` (``state``, ``reason``); ``None`` when it is
    not listed or the index cannot be read within :data:`INDEX_TIMEOUT_S` (a server that restricts the API: the load
    request's answer then says). Over a connection of its own: one opened before a load request waits with it (a
    bundled tritonserver answered nothing on it until the load ended)."""
    if protocol == "grpc":
        import tritonclient.grpc as tg

        with contextlib.suppress(Exception), contextlib.closing(tg.InferenceServerClient(url)) as g:
            found = g.get_model_repository_index(as_json=True, client_timeout=INDEX_TIMEOUT_S).get("models", [])
            return next((e for e in found if e.get("name") == model), None)
        return None
    import tritonclient.http as th

    with contextlib.suppress(Exception), contextlib.closing(th.InferenceServerClient(url, network_timeout=INDEX_TIMEOUT_S)) as c:
        return next((e for e in c.get_model_repository_index() if e.get("name") == model), None)
    return None


def unavailable(before: dict[str, Any] | None, now: dict[str, Any] | None) -> str | None:
    """Triton's reason a load failed, where the model's index entry ``now`` says ``UNAVAILABLE`` with a reason and is
    not the entry ``before`` the load request (an earlier unload's or failure's); else ``None``."""
    if now is None or now == before or now.get("state") != "UNAVAILABLE" or not now.get("reason"):
        return None
    return str(now["reason"])


def load_by_name(new_client: Callable[[], Any], url: str, protocol: str, model: str, timeout_s: float) -> None:
    """Ask the server at ``url`` (a client of it: ``new_client()``) to load ``model`` from its own repository, and wait
    by the one rule (:func:`await_answer`): at most ``timeout_s``, ended at once by an index entry that says the load
    failed (:func:`unavailable`; a server not started here: no log of it to read).

    Raises:
        LoadFailed: the index says it failed before the request answered.
        TimeoutError: no answer within ``timeout_s``.
        Exception: what the load request raised (Triton refused it).
    """
    before = index_entry(url, model, protocol)

    def send() -> None:
        with contextlib.closing(new_client()) as own:  # a client of its own: it belongs to the thread that sends
            own.load_model(model)

    await_answer(send, lambda: unavailable(before, index_entry(url, model, protocol)), timeout_s, "its load request")


def _since(srv: Any, offset: int) -> str:
    """The server log's lines since byte ``offset`` under their heading, on lines after a message's first; ``""``
    when it logged none (a heading followed by nothing, in a line cut to its first: trial 30, F21)."""
    since = srv.log_since(offset)
    return "" if since in ("(nothing logged)", "(no log)") else f"\nserver log since the load request:\n{since}"


def load_model(srv: Any, model: str, timeout_s: float | None = None) -> Loaded:
    """Load ``model`` on ``srv`` (a :class:`clients.server.TritonServer`, started): :meth:`clients.server.TritonServer.load`.

    Raises:
        ServerError: as :meth:`clients.server.TritonServer.load`; each message's first line says what happened
            and why; where Triton gave no reason of its own (a wait that ended, a lost server), the server log's
            lines since the request follow it.
    """
    import tritonclient.http as th
    from tritonclient.utils import InferenceServerException

    srv.check_servable(model)
    timeout_s, bound, flag = load_limit(srv, timeout_s)
    offset = log_size(srv.log_path)
    started = time.monotonic()
    if srv.tenancy is None:
        raise ServerError(
            "the server was not started (TritonServer.start) before loading a model",
            hint="a bug in the caller: use the server as a context manager (with TritonServer(opts) as srv) or call start()",
        )
    tenancy, impl = srv.tenancy, srv.runtime_impl

    def send() -> Any:  # a client of its own: this one belongs to the thread that sends it
        with contextlib.closing(th.InferenceServerClient(srv.http_url, network_timeout=timeout_s)) as own:
            return impl.load_model(own, model)

    try:
        with contextlib.closing(th.InferenceServerClient(srv.http_url, network_timeout=timeout_s)) as c:
            before = index_entry(srv.http_url, model)

            def failed() -> str | None:  # what Triton said of the load while its request is unanswered
                if impl.launches and not srv.is_alive():
                    raise ConnectionError("tritonserver exited while it loaded the model")
                said = failed_loads(read_log(srv.log_path, offset)).get(model) if impl.launches else None
                return said or unavailable(before, index_entry(srv.http_url, model))

            def request() -> Any:
                return await_answer(send, failed, timeout_s, f"the load request of {model}")

            return tenancy.load(c, model, request, lambda m: unload_and_wait(c, m), impl.mismatch_hint())
    except ServerError:  # the runtime's or the tenancy's own refusal, already worded
        raise
    except Exception as e:  # Triton refused it; a timeout, or connection refused/reset: the load took the server down
        if not impl.launches:  # not started here: no log of it on this host (s16's left open), Triton's words
            raise load_failed(srv.http_url, model, e) from e
        since = _since(srv, offset)
        if isinstance(e, LoadFailed):  # said failed, its request unanswered: Triton never ends it, nor its own stop
            srv.hung_load = model
        if isinstance(e, (InferenceServerException, LoadFailed)):
            why = first_line(e.message())  # a python stub's frames are in the log, not in the error (T25-21)
            raise ServerError(
                f"tritonserver could not load model {model!r}: {why}",  # one line; the log keeps the rest (T25-21)
                log_path=str(srv.log_path),
                hint=failed_hint(why + "\n" + read_log(srv.log_path, offset), impl.explain(why + "\n" + since), "") or None,
            ) from e
        if srv.is_alive() and time.monotonic() - started >= 0.9 * timeout_s:
            raise ServerError(
                f"model {model!r} was not ready within {round(timeout_s, 1):g} s ({bound}){since}",
                hint=not_ready_hint(
                    read_log(srv.log_path, offset), impl.explain(since), timeout_s, server_started=True, flag=flag
                ),
                log_path=str(srv.log_path),
            ) from e
        state = "still running" if srv.is_alive() else "no longer running"
        raise ServerError(
            f"loading model {model!r} failed: {type(e).__name__}: {e} (tritonserver is {state}){since}",
            hint=failed_hint(read_log(srv.log_path, offset), impl.explain(since), "read the server log"),
            log_path=str(srv.log_path),
        ) from e
