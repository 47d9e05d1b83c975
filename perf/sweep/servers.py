"""The servers of a sweep: :class:`ServerPool`.

- One server the toolkit starts (``bundled``, ``local``, ``container``), or one or more it did
  not start (``--runtime remote --url a,b,...``): one :class:`perf.sweep.server.SweepServer`
  ("lane") each.
- Several lanes measure in parallel, one variant per server at a time (:meth:`ServerPool.each`:
  one thread per server running the sweep's own per-variant measurement); the results are one run.
- What each server says about itself is recorded (:func:`identify`: URL, Triton version, host,
  GPU UUIDs and CPU memory from its metrics endpoint; ``RunResult.servers``), and each variant
  names the server that measured it (``VariantResult.server``).
- Servers that share a host or a GPU compete for it when they measure at once, so their
  numbers would be wrong: :func:`shared_hardware` finds them and :meth:`ServerPool.start_all`
  refuses to run them in parallel unless ``allow_shared_host`` (``--allow-shared-host``).
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from clients.runtimes.loading import LoadDeadline
from clients.runtimes.remote import RemoteRuntime, host_key
from clients.server import ServerOptions, TritonServer
from core.errors import PerfError
from core.processes import held_stops
from core.wording import count
from perf.records.results import RunResult
from perf.records.servers import DeployMode, MeasuringServer
from perf.sweep.server import SweepServer

#: Unload requests sent at once at the end of a group (:meth:`Servers.unload_all`).
MAX_PARALLEL_UNLOADS = 8

log = logging.getLogger(__name__)


#: How long :func:`metrics_identity` waits for Triton's first metrics poll (s): a server's
#: CPU-memory gauge reads 0 until then (``--metrics-interval-ms``, 2000 by default).
FIRST_POLL_WAIT_S = 3.0
#: How often it scrapes again meanwhile (s).
FIRST_POLL_STEP_S = 0.25


def metrics_identity(
    metrics_url: str, timeout_s: float = 5.0, first_poll_wait_s: float = FIRST_POLL_WAIT_S
) -> tuple[list[str], float | None]:
    """``(GPU UUIDs, total CPU memory bytes)`` from a Triton metrics endpoint (the ``gpu_uuid``
    label of its ``nv_gpu_*`` metrics, ``nv_cpu_memory_total_bytes``; Triton docs, "Metrics");
    ``([], None)`` when it does not answer.

    Triton's CPU gauges read 0 until its first poll, one metrics interval after the start, and
    the sweep asks right after the server is ready: a resumed session's server read "0.0 GiB"
    (trial 7, F12). A total of 0 is scraped again every :data:`FIRST_POLL_STEP_S` for up to
    ``first_poll_wait_s``; still 0 is ``None`` (not recorded, never a host without memory)."""
    import time

    deadline = time.monotonic() + first_poll_wait_s
    while True:
        text = _scrape(metrics_url, timeout_s)
        if text is None:
            return [], None
        uuids, memory = _identity(text)
        if memory != 0 or time.monotonic() >= deadline:  # None: no such gauge (CPU metrics off), nothing to wait for
            return uuids, memory or None
        time.sleep(FIRST_POLL_STEP_S)


def _scrape(metrics_url: str, timeout_s: float) -> str | None:
    url = metrics_url if metrics_url.startswith("http") else f"http://{metrics_url}"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310 (the server's own metrics URL)
            return str(r.read().decode())
    except OSError as e:
        log.warning("metrics endpoint %s did not answer (%s): its GPUs and memory are not recorded", url, e)
        return None


def _identity(text: str) -> tuple[list[str], float | None]:
    from prometheus_client.parser import text_string_to_metric_families

    uuids: dict[str, None] = {}
    memory = None
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if "gpu_uuid" in s.labels:
                uuids[s.labels["gpu_uuid"]] = None
            if s.name == "nv_cpu_memory_total_bytes":
                memory = float(s.value)
    return list(uuids), memory


def deploy_mode(opts: ServerOptions, remote: bool) -> DeployMode:
    """How variants reach a server started on ``opts`` (or reached by ``opts.urls``)."""
    if not remote:
        return "started on the repository"
    if not opts.deploy:
        return "already loaded"
    return "loaded by name" if opts.remote_repository else "uploaded"


def identify(srv: TritonServer, version: str | None) -> MeasuringServer:
    """What ``srv`` says about itself (module docstring)."""
    impl = srv.runtime_impl
    remote = isinstance(impl, RemoteRuntime)
    uuids, memory = metrics_identity(srv.metrics_url)
    return MeasuringServer(
        url=srv.http_url,
        grpc_url=srv.grpc_url,
        metrics_url=srv.metrics_url,
        runtime=srv.runtime,
        version=version,
        host=host_key(impl.host()) if remote else "this host",
        gpu_uuids=uuids,
        cpu_memory_total_bytes=memory,
        deploy=deploy_mode(srv.opts, remote),
        remote_repository=srv.opts.remote_repository if remote and srv.opts.deploy else None,
        models_found=list(srv.tenancy.found) if srv.tenancy is not None else [],
    )


def shared_hardware(servers: Sequence[MeasuringServer]) -> list[tuple[MeasuringServer, MeasuringServer, str]]:
    """Pairs of servers that share a host or a GPU, with what they share in words."""
    out = []
    for i, a in enumerate(servers):
        for b in servers[i + 1 :]:
            why = []
            if a.host is not None and a.host == b.host:
                why.append(f"the same host ({a.host})")
            gpus = sorted(set(a.gpu_uuids) & set(b.gpu_uuids))
            if gpus:
                why.append(f"GPU {', '.join(gpus)}")
            if why:
                out.append((a, b, " and ".join(why)))
    return out


class ServerPool:
    """The sweep's servers (module docstring); the :class:`SweepServer` interface the sweep
    uses is answered by the calling thread's lane.

    Args:
        opts: The launch options; ``opts.urls``: one lane per URL (remote), else one lane.
        run, run_dir, first_reason, save: As :class:`SweepServer` takes them.
        allow_shared_host: Measure in parallel on servers that share a host or GPU.
        models: The variants the sweep will load (:class:`perf.sweep.server.SweepServer`).
    """

    def __init__(
        self,
        opts: ServerOptions,
        run: RunResult,
        run_dir: Path,
        first_reason: str,
        save: Callable[[], None],
        allow_shared_host: bool = False,
        models: Sequence[str] = (),
    ):
        urls: list[str | None] = [*opts.urls] or [None]
        metrics = list(opts.metrics_urls)
        if metrics and len(metrics) != len(urls):
            raise PerfError(
                f"--metrics-url gives {count(len(metrics), 'endpoint')} for {count(len(urls), '--url server')}",
                hint="give one metrics endpoint per server, in the --url order, or none (the default layout)",
                flag="--metrics-url",
            )
        if len(urls) > 1 and not opts.deploy:
            raise PerfError(
                f"--no-deploy with {len(urls)} servers: each variant goes to whichever server is free, but each server "
                "only has its own models loaded",
                hint="sweep one --url at a time with --no-deploy, or let the toolkit deploy the variants (drop --no-deploy)",
                flag="--no-deploy",
            )
        self.lanes = [
            SweepServer(
                dataclasses.replace(opts, urls=(u,) if u else (), metrics_urls=(metrics[i],) if metrics else ()),
                run,
                run_dir,
                first_reason,
                save,
                models,
            )
            for i, u in enumerate(urls)
        ]
        self.run = run
        self.allow_shared_host = allow_shared_host
        self._local = threading.local()

    def _lane(self) -> SweepServer:
        return getattr(self._local, "lane", self.lanes[0])

    # -- the SweepServer interface, per thread ------------------------------------------------
    @property
    def current(self) -> TritonServer | None:
        """This thread's lane's running server, or ``None``."""
        return self._lane().current

    def get(self) -> TritonServer:
        """This thread's lane's server, started (again) when needed (:meth:`perf.sweep.server.SweepServer.get`)."""
        return self._lane().get()

    def log_name(self) -> str:
        """This thread's lane's server log, as errors name it."""
        return self._lane().log_name()

    def died(self, reason: str) -> None:
        """Record why this thread's lane's server is gone (its next start says so)."""
        self._lane().died(reason)

    def restart_before_next(self, reason: str) -> None:
        """Stop this thread's lane's server; the next :meth:`get` starts a fresh one, recorded with ``reason``."""
        self._lane().restart_before_next(reason)

    def unload(self, model: str, timeout_s: float) -> bool:
        """Unload ``model`` from this thread's lane's server within ``timeout_s`` (s); returns whether it
        was gone (:meth:`perf.sweep.server.SweepServer.unload`)."""
        return self._lane().unload(model, timeout_s)

    def unload_all(self, models: Sequence[str], timeout_s: float) -> list[bool]:
        """Unload ``models`` from this thread's lane's server at once (one request each, in
        threads: Triton unloads models independently, and each unload mostly waits for the
        model's backend, e.g. a python-backend stub, to exit) and check each is gone within
        ``timeout_s`` (s); returns whether each was gone (:meth:`unload`)."""
        lane = self._lane()
        if len(models) < 2:
            return [lane.unload(m, timeout_s) for m in models]
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_UNLOADS, len(models)), thread_name_prefix="unload") as pool:
            return list(pool.map(lambda m: lane.unload(m, timeout_s), models))

    def stop(self) -> None:
        """Stop every server the toolkit started (remote ones are left running); a stop that comes meanwhile is raised
        once all are stopped and recorded (:func:`core.processes.held_stops`)."""
        with held_stops():
            for lane in self.lanes:
                lane.stop()

    # -- the pool ----------------------------------------------------------------------------
    def bound_loads(self, deadline: LoadDeadline) -> None:
        """No load on any server waits past ``deadline`` (the time budget's end), beside ``--start-timeout``."""
        for lane in self.lanes:
            lane.load_deadline = deadline
            if lane.current is not None:
                lane.current.load_deadline = deadline

    def start_all(self) -> None:
        """Start (or reach) every server, record what each says about itself in
        ``run.servers``, and refuse servers that share hardware when there are several.

        Raises:
            ServerError: a server does not start or answer.
            PerfError: several servers share a host or GPU and ``allow_shared_host`` is off.
        """
        found = []
        for lane in self.lanes:
            srv = lane.get()
            found.append(identify(srv, lane.version()))
        clashes = shared_hardware(found) if len(found) > 1 else []
        if clashes and not self.allow_shared_host:
            said = "; ".join(f"{a.url} and {b.url} share {why}" for a, b, why in clashes)
            raise PerfError(
                f"the servers would be measured in parallel, but {said}: at once they compete for its CPU/GPU, "
                "so every number would include the other server's load",
                hint="give servers on different hosts and GPUs, sweep on one --url at a time, or pass "
                "--allow-shared-host to measure anyway (the report flags it)",
            )
        for a, b, why in clashes:
            log.warning("%s and %s share %s: measured in parallel anyway (--allow-shared-host)", a.url, b.url, why)
            a.shares_with.append(b.url)
            b.shares_with.append(a.url)
        for s in found:
            s.session = len(self.run.sessions) or None
        known = {s.url for s in self.run.servers}
        self.run.servers += [s for s in found if s.url not in known]
        for s in found:  # a resumed run: the server as it is now
            self.run.servers = [s if old.url == s.url else old for old in self.run.servers]

    def each(self, names: Sequence[str], fn: Callable[[int, str], None]) -> None:
        """Call ``fn(index, name)`` for every name: in this thread with one server; with several,
        one thread per server, each taking the next name when its previous one is done. The
        first error a thread raises stops the others from taking more and is raised here."""
        if len(self.lanes) == 1:
            for i, name in enumerate(names):
                fn(i, name)
            return
        todo: queue.Queue[tuple[int, str]] = queue.Queue()
        for item in enumerate(names):
            todo.put(item)
        failed: list[BaseException] = []
        stop = threading.Event()

        def work(lane: SweepServer) -> None:
            self._local.lane = lane
            while not stop.is_set():
                try:
                    i, name = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    fn(i, name)
                except BaseException as e:  # noqa: BLE001 - handed to the calling thread
                    failed.append(e)
                    stop.set()
                    return

        threads = [
            threading.Thread(target=work, args=(lane,), name=f"sweep-{i}", daemon=True) for i, lane in enumerate(self.lanes)
        ]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except BaseException:
            stop.set()
            raise
        if failed:
            raise failed[0]
