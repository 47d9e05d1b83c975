"""What a server answers on its health endpoints, in words, for the messages of a server that is
not live (:meth:`clients.server.TritonServer.start` on a server the toolkit did not start).

Triton's ``/v2/health/ready`` answers 200 only when every model it was asked to load is ready
under strict readiness (``--strict-readiness``, on by default): one model that failed to load
makes the whole server answer 400 while it serves the others (seen on the bundled 2.51:
``ready 400, live 200`` after one failed load). The toolkit therefore waits on a server's
liveness and each model's own readiness, never the server's readiness, when it did not start it.
"""

from __future__ import annotations

import urllib.error
import urllib.request

from core.errors import ServerError


def health_answer(http_url: str) -> str:
    """What the server at ``http_url`` (``host:port``) answers on ``/v2/health/live`` and
    ``/v2/health/ready``: ``"live: HTTP 200, ready: HTTP 400 (...)"``, or why it did not answer."""
    said = []
    for what in ("live", "ready"):
        try:
            with urllib.request.urlopen(f"http://{http_url}/v2/health/{what}", timeout=5) as r:  # noqa: S310 (the server's own URL)
                said.append(f"{what}: HTTP {r.status}")
        except urllib.error.HTTPError as e:
            said.append(f"{what}: HTTP {e.code}")
        except OSError as e:
            return f"no answer ({getattr(e, 'reason', e)})"
    text = ", ".join(said)
    if said == ["live: HTTP 200", "ready: HTTP 400"]:
        text += (
            " (live but not ready: with strict readiness, Triton's default, a model that failed to load makes the "
            "whole server answer not ready)"
        )
    return text


def not_live(http_url: str, timeout_s: float) -> ServerError:
    """The error for a server the toolkit did not start that was not live within ``timeout_s``,
    saying what it answered (:func:`health_answer`)."""
    return ServerError(
        f"the Triton server at {http_url} was not live within {timeout_s:g} s (--start-timeout); it answered: "
        f"{health_answer(http_url)}",
        hint="check that it runs and that --url names its HTTP endpoint (curl http://HOST:PORT/v2/health/live)",
    )
