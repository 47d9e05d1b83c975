"""Loading a model on a running server (:meth:`clients.server.TritonServer.load`): the load request, the
wait until the model is ready, and the error of a load that failed or ran out of time, in the server log's words."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from clients.runtimes.diagnosis import failed_hint, first_line, not_ready_hint, read_log
from clients.runtimes.host import log_size
from clients.runtimes.models import unload_and_wait
from clients.runtimes.remote import load_failed
from clients.runtimes.served import Loaded
from core.errors import ServerError


def load_model(srv: Any, model: str, timeout_s: float | None = None) -> Loaded:
    """Load ``model`` on ``srv`` (a :class:`clients.server.TritonServer`, started): :meth:`clients.server.TritonServer.load`.

    Raises:
        ServerError: as :meth:`clients.server.TritonServer.load`.
    """
    import tritonclient.http as th
    from tritonclient.utils import InferenceServerException

    srv.check_servable(model)
    timeout_s = srv.opts.start_timeout_s if timeout_s is None else timeout_s
    offset = log_size(srv.log_path)
    started = time.monotonic()
    if srv.tenancy is None:
        raise ServerError(
            "the server was not started (TritonServer.start) before loading a model",
            hint="a bug in the caller: use the server as a context manager (with TritonServer(opts) as srv) or call start()",
        )
    tenancy, impl = srv.tenancy, srv.runtime_impl
    try:
        with contextlib.closing(th.InferenceServerClient(srv.http_url, network_timeout=timeout_s)) as c:
            return tenancy.load(
                c, model, lambda: impl.load_model(c, model), lambda m: unload_and_wait(c, m), impl.mismatch_hint()
            )
    except ServerError:  # the runtime's or the tenancy's own refusal, already worded
        raise
    except Exception as e:  # Triton refused it; a timeout, or connection refused/reset: the load took the server down
        if not impl.launches:  # not started here: no log of it on this host (s16's left open), Triton's words
            raise load_failed(srv.http_url, model, e) from e
        if isinstance(e, InferenceServerException):
            why = first_line(e.message())  # a python stub's frames are in the log, not in the error (T25-21)
            raise ServerError(
                f"tritonserver could not load model {model!r}: {why}",
                log_path=str(srv.log_path),
                hint=failed_hint(
                    why + "\n" + read_log(srv.log_path, offset), impl.explain(why + "\n" + srv.log_since(offset)), ""
                )
                or None,
            ) from e
        since = srv.log_since(offset)
        if srv.is_alive() and time.monotonic() - started >= 0.9 * timeout_s:
            raise ServerError(
                f"model {model!r} was not ready within {timeout_s:g} s (--start-timeout); server log since the load request:\n{since}",
                hint=not_ready_hint(
                    read_log(srv.log_path, offset), srv.runtime_impl.explain(since), timeout_s, server_started=True
                ),
                log_path=str(srv.log_path),
            ) from e
        state = "still running" if srv.is_alive() else "no longer running"
        raise ServerError(
            f"loading model {model!r} failed: {type(e).__name__}: {e} (tritonserver is {state}); "
            f"server log since the load request:\n{since}",
            hint=failed_hint(read_log(srv.log_path, offset), srv.runtime_impl.explain(since), "read the server log"),
            log_path=str(srv.log_path),
        ) from e
