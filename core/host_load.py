"""Other processes' CPU during a measurement, and the busy-host rule: one rule for every number
the toolkit measures (a sweep level, an in-process baseline point, a precision-study row, a cold
start, ``clients infer --requests``).

- :class:`HostSampler` samples the host's CPU use through ``psutil`` and splits it: the
  measurement's own processes (a server and its children, perf_analyzer, this process) and
  other work on the host, which makes a measurement's numbers untrustworthy.
- :func:`is_host_busy` flags a measurement as ``host busy``; :class:`HostLoad` is what a
  record stores (:mod:`perf.records.load`).
- :func:`listening_pid`: the process of this host listening on a port (a server the toolkit
  did not start, found by its port).

Samples are stamped with ``time.monotonic()`` and summarised over a span ``(start, end)`` on
that clock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)


#: Why a measurement against a server on another machine has no host load: this host's load
#: is not the server's.
NOT_SAMPLED_ELSEWHERE = "not sampled (server on another host)"
#: Why a measurement against a server in a container has no host load: the container's processes
#: are not the launcher's children (a port is held by the engine's proxy), so they cannot be told
#: from other work.
NOT_SAMPLED_CONTAINER = "not sampled (server in a container: its processes are not told from other work)"

#: Default threshold of other processes' CPU use during a measurement (% of one core, mean).
HOST_BUSY_THRESHOLD_PCT = 10.0


def is_host_busy(other_pct: float | None, threshold_pct: float = HOST_BUSY_THRESHOLD_PCT) -> bool:
    """The busy-host rule, one for every measurement (sweep levels, in-process baseline points,
    precision-study rows, cold starts): other processes used more than ``threshold_pct`` % of
    one core on average (:meth:`HostSampler.other_pct`); never busy when not sampled (``None``)."""
    return other_pct is not None and other_pct > threshold_pct


@dataclasses.dataclass(frozen=True)
class HostLoad:
    """Other processes' load during one measurement, as a record stores it
    (:mod:`perf.records.load`: ``host_busy_pct``, ``host_busy``, ``host_not_sampled``)."""

    host_busy_pct: float | None = None
    host_busy: bool = False
    host_not_sampled: str | None = None

    @classmethod
    def of(cls, other_pct: float | None, threshold_pct: float = HOST_BUSY_THRESHOLD_PCT, why_not: str | None = None) -> HostLoad:
        """The load of a measurement whose other processes used ``other_pct`` (``None``: not
        sampled, ``why_not`` says why)."""
        if other_pct is None:
            return cls(None, False, why_not or "not sampled (psutil could not read this host's CPU times)")
        return cls(round(other_pct, 2), is_host_busy(other_pct, threshold_pct), None)

    def fill(self, record: Any) -> None:
        """Set the three load fields of ``record`` (a level, baseline point, precision row...)."""
        record.host_busy_pct, record.host_busy, record.host_not_sampled = (
            self.host_busy_pct,
            self.host_busy,
            self.host_not_sampled,
        )


def listening_pid(port: int) -> int | None:
    """The process listening on TCP ``port`` on this host (``psutil.net_connections``), or ``None``."""
    import psutil

    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, OSError) as e:
        log.debug("listening sockets unreadable: %s", e)
        return None
    return next((c.pid for c in conns if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid), None)


class HostSampler:
    """CPU used on this host by processes other than the measurement's own, every ``period_s``.

    Host CPU is ``psutil.cpu_times()`` summed over cores: user + nice + system + steal
    (steal: time a hypervisor gave to other guests, a busy neighbour too); idle, iowait and
    interrupt time are not counted (interrupts for loopback traffic are the measurement's
    own). The measurement's own processes are ``roots`` and their descendants, read each
    sample (user + system of each process): the server and its python-backend stubs,
    perf_analyzer (added by :meth:`add_root` once it runs) and this process (its threads
    only, not its children). What remains is other work competing for the same cores.

    Args:
        roots: Process ids whose trees are the measurement's own.
        period_s: Sampling period (default 0.2 s; psutil's CPU times tick every 10 ms).
    """

    def __init__(self, roots: Iterable[int], period_s: float = 0.2):
        self.roots = set(roots)
        self.period_s = period_s
        self.samples: list[tuple[float, float, dict[int, float]]] = []  # (t, host busy s, {pid: cpu s})
        self.tree: dict[int, int] = {}  # pid -> the root it descends from
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def add_root(self, pid: int) -> None:
        """Count ``pid`` (and its descendants) as the measurement's own from now on; sampled at once."""
        with self._lock:
            self.roots.add(pid)
        self._sample()

    @staticmethod
    def _host_busy_s() -> float:
        import psutil

        t = psutil.cpu_times()
        return t.user + t.nice + t.system + getattr(t, "steal", 0.0)

    def _own(self) -> dict[int, float]:
        import psutil

        me = psutil.Process().pid
        out: dict[int, float] = {}
        with self._lock:
            roots = list(self.roots)
        for root in roots:
            try:
                proc = psutil.Process(root)
                procs = [proc] + ([] if root == me else proc.children(recursive=True))
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            for q in procs:
                with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                    c = q.cpu_times()
                    out[q.pid] = c.user + c.system
                    with self._lock:
                        self.tree.setdefault(q.pid, root)
        return out

    def _sample(self) -> None:
        try:
            own, busy = self._own(), self._host_busy_s()
        except Exception as e:  # psutil missing or /proc unreadable: nothing is recorded (null)
            log.debug("host CPU sample failed: %s", e)
            return
        with self._lock:
            self.samples.append((time.monotonic(), busy, own))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.period_s)

    def __enter__(self) -> HostSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sample()

    def _deltas(self, span: tuple[float, float] | None) -> tuple[float, float, dict[int, float]] | None:
        """``(wall s, host busy CPU s, {pid: CPU s})`` between the samples around ``span``
        (all sampled when None); None with fewer than two samples. A process of the
        measurement that started inside counts from zero; one that ended inside, up to its
        last sample."""
        with self._lock:
            samples = list(self.samples)
        if len(samples) < 2:
            return None
        lo, hi = 0, len(samples) - 1
        if span is not None:
            lo = max([i for i, s in enumerate(samples) if s[0] <= span[0]], default=0)
            hi = min([i for i, s in enumerate(samples) if s[0] >= span[1]], default=len(samples) - 1)
        if hi <= lo:
            return None
        (t0, busy0, own0), (t1, busy1, _) = samples[lo], samples[hi]
        last: dict[int, float] = {}
        for _, _, own in samples[lo : hi + 1]:
            last.update(own)
        return t1 - t0, busy1 - busy0, {pid: max(0.0, v - own0.get(pid, 0.0)) for pid, v in last.items()}

    def other_pct(self, span: tuple[float, float] | None = None) -> float | None:
        """Mean CPU of other processes over ``span`` (monotonic s; default: all sampled), in
        % of one core; ``None`` with fewer than two samples. The span is widened to the
        samples just outside it."""
        d = self._deltas(span)
        if d is None:
            return None
        wall, busy, own = d
        import psutil

        cores = psutil.cpu_count() or 1  # CPU times tick in 10 ms steps: a short span can read above the host's cores
        return min(max(0.0, busy - sum(own.values())) / wall * 100.0, cores * 100.0)

    def load(self, span: tuple[float, float] | None = None, threshold_pct: float = HOST_BUSY_THRESHOLD_PCT) -> HostLoad:
        """:class:`HostLoad` over ``span`` (:meth:`other_pct`, :func:`is_host_busy`)."""
        return HostLoad.of(self.other_pct(span), threshold_pct)

    def cores(self, root: int | None, span: tuple[float, float] | None = None) -> float | None:
        """Mean cores used by ``root`` and its descendants over ``span`` (CPU s per wall s:
        1.0 = one core fully busy); ``None`` for an unknown root, one never read, or fewer
        than two samples."""
        d = self._deltas(span)
        if root is None or d is None:
            return None
        wall, _, own = d
        with self._lock:
            mine = [v for pid, v in own.items() if self.tree.get(pid) == root]
        return sum(mine) / wall if mine else None
