"""What a run of requests measured (:class:`RequestStats`), and which processes are its own
(:func:`own_processes`) for the host-load rule of every measurement (:mod:`core.host_load`)."""

from __future__ import annotations

import dataclasses
import os
import urllib.parse

import numpy as np

from clients.runtimes.remote import host_key
from core.console import interrupted_words
from core.host_load import NOT_SAMPLED_CONTAINER, NOT_SAMPLED_ELSEWHERE, HostLoad, listening_pid


@dataclasses.dataclass
class RequestStats:
    """The outcome of :func:`run_requests`.

    Attributes:
        outputs: Output name -> array of the last successful request.
        requests: Requests sent.
        concurrency: Requests in flight at once (worker threads).
        latencies_ms: Client-side latency of each successful request, in ms.
        wall_s: Wall-clock time of the whole run, in s.
        failures: Error message of each failed request.
        batch_size: Inferences per request as perf_analyzer counts them: the batch size (the
            inputs' leading dim) for a batching model, 1 for a ``max_batch_size: 0`` model.
        sent: Input name -> (shape, dtype) as sent, after the cast to the config's dtypes.
        host_load: Other processes' CPU while the requests ran (:mod:`core.host_load`: the
            busy-host rule of every measurement); not sampled for a server on another host, or for
            one request (a check, not a measurement).
        shm_outputs: With shared memory: each output's shape through it, or why the output came back in the
            response body (its size not known before the request: :func:`clients.shared_memory.output_shapes`).
    """

    outputs: dict[str, np.ndarray]
    requests: int
    concurrency: int
    latencies_ms: list[float]
    wall_s: float
    failures: list[str] = dataclasses.field(default_factory=list)
    batch_size: int = 1
    host_load: HostLoad = dataclasses.field(default_factory=HostLoad)
    sent: dict[str, tuple[list[int], str]] = dataclasses.field(default_factory=dict)
    shm_outputs: dict[str, tuple[int, ...] | str] = dataclasses.field(default_factory=dict)

    def load_note(self) -> str:
        """``""`` on a quiet host; else what makes the numbers untrustworthy or unchecked
        (``" [host busy: other processes used 143 % of one core]"``)."""
        h = self.host_load
        if h.host_busy:
            return f" [host busy: other processes used {h.host_busy_pct:,.0f} % of one core; not a measurement to compare]"
        if h.host_not_sampled:
            return f" [host load {h.host_not_sampled}]"
        return ""

    @property
    def requests_per_s(self) -> float:
        """Successful requests per second of wall time."""
        return len(self.latencies_ms) / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def throughput_infer_per_s(self) -> float:
        """Inferences per second: successful requests x :attr:`batch_size` per second of wall
        time (perf_analyzer's "Inferences/Second", so the two read alike for the same traffic)."""
        return self.requests_per_s * self.batch_size

    def latency_percentile_ms(self, q: float) -> float:
        """The ``q``-th percentile (0-100) of the request latencies, in ms (NaN if none)."""
        return float(np.percentile(self.latencies_ms, q)) if self.latencies_ms else float("nan")


class RequestsInterrupted(KeyboardInterrupt):
    """Ctrl-C while :func:`clients.infer.run_requests` sent its requests: still a ``KeyboardInterrupt``
    to a caller that does not look for it.

    Args:
        stats: The requests done before it (their latencies; ``requests`` is how many ended), or
            ``None`` when none ended.
        planned: The requests asked for.
    """

    def __init__(self, stats: RequestStats | None, planned: int):
        super().__init__("interrupted")
        self.stats, self.planned = stats, planned

    def text(self) -> str:
        """What was kept and what was not sent: ``"interrupted (Ctrl-C): 40 of 100 requests ended (0 failed)
        before it, latency p50 1.20 ms, p99 3.40 ms over those; 60 not sent; no outputs shown or saved"``."""
        s = self.stats
        if s is None:
            return f"{interrupted_words()}: none of the {self.planned} requests ended; nothing to show"
        return (
            f"{interrupted_words()}: {s.requests} of {self.planned} requests ended ({len(s.failures)} failed) before it, "
            f"latency p50 {s.latency_percentile_ms(50):.2f} ms, p99 {s.latency_percentile_ms(99):.2f} ms over those"
            f"{s.load_note()}; {self.planned - s.requests} not sent; no outputs shown or saved"
        )


def own_processes(url: str) -> tuple[list[int] | None, str | None]:
    """This process and the server's (found by the port it listens on) when the server is on this
    host; else ``None`` and why the host's load is not sampled."""
    parts = urllib.parse.urlsplit(f"//{url}")
    if host_key(parts.hostname or "localhost") != "this host":
        return None, NOT_SAMPLED_ELSEWHERE
    server = listening_pid(parts.port) if parts.port else None
    if server is None:
        return None, f"not sampled (no process of this host is seen listening on port {parts.port})"
    if _forwarder(server):  # the port is a container engine's proxy: the server's own processes are not its children
        return None, NOT_SAMPLED_CONTAINER
    return [os.getpid(), server], None


#: Process names of container engines' port forwarders (Docker, Podman rootless, containerd's nerdctl).
CONTAINER_FORWARDERS = ("docker-proxy", "rootlessport", "rootlesskit", "slirp4netns", "conmon")


def _forwarder(pid: int) -> bool:
    """Whether ``pid`` is a container engine's port forwarder (as :func:`perf.measure.host.own_roots`
    refuses to sample a container's server, so does ``clients infer``)."""
    import psutil

    try:
        return psutil.Process(pid).name() in CONTAINER_FORWARDERS
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def not_finite_lines(outputs: dict[str, np.ndarray]) -> list[str]:
    """A line for each floating output holding NaN or infinite values: how many of how many, and
    what commonly causes them (``clients infer`` printed ``nan`` in its table and nothing else,
    trial 10: an attention mask with a row of zeros)."""
    lines = []
    for name, values in outputs.items():
        v = np.asarray(values)
        if not np.issubdtype(v.dtype, np.floating) or v.size == 0:
            continue
        nan, inf = int(np.isnan(v).sum()), int(np.isinf(v).sum())
        if nan or inf:
            what = " and ".join(x for x in (f"{nan} NaN" if nan else "", f"{inf} infinite" if inf else "") if x)
            lines.append(
                f"warning: output {name!r} holds {what} of its {v.size} values: the model returned values that are not "
                "numbers for these inputs (an attention mask row with no 1, an input outside what the model was "
                "trained on, or an overflow at a lower precision)"
            )
    return lines
