"""Which processes are a measurement's own, for a given server; the sampler and the busy-host rule
live in :mod:`core.host_load` (one rule for every measurement, ``clients infer`` too) and are
re-exported here.

- :func:`own_roots`: the processes that are a measurement's own for a given server (a server
  the toolkit started, or one it did not start on this host, found by its port).
- :class:`HostSampler`, :func:`is_host_busy`, :class:`HostLoad`, :func:`listening_pid`: see
  :mod:`core.host_load` (Triton's ``nv_cpu_utilization`` is the whole host's, perf_analyzer
  included, so the split is psutil's).
"""

from __future__ import annotations

import os
from typing import Any

from core.host_load import (
    HOST_BUSY_THRESHOLD_PCT,
    NOT_SAMPLED_CONTAINER,
    HostLoad,
    HostSampler,
    is_host_busy,
    listening_pid,
)

__all__ = ["HOST_BUSY_THRESHOLD_PCT", "HostLoad", "HostSampler", "is_host_busy", "listening_pid", "own_roots"]


def own_roots(srv: Any) -> tuple[list[int] | None, str | None]:
    """The process ids whose trees are a measurement's own when it talks to ``srv`` (a
    :class:`clients.server.TritonServer`): this process and the server; or ``None`` and why
    the host's load cannot be sampled for it.

    A server the toolkit started here is its child process; a server it did not start
    (``--runtime remote``) on this host (a loopback or own address) is found by the port it
    listens on, and gets the same sampling; one on another host is
    :data:`core.host_load.NOT_SAMPLED_ELSEWHERE`. A container's processes cannot be told from
    other work (they are not the launcher's children).
    """
    from clients.request_stats import own_processes

    if srv.container_name:
        return None, NOT_SAMPLED_CONTAINER
    if srv.pid is not None:
        return [os.getpid(), srv.pid], None
    return own_processes(srv.http_url)  # one it did not start: by the port it listens on (clients infer's rule)
