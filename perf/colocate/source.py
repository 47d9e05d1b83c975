"""The co-location search's measurement on a real server (:class:`ServerSource`, what
:mod:`perf.colocate.run` gives :class:`perf.colocate.search.CoordinateSearch`): before each step the
variants its targets need are loaded together (the others unloaded), each one's inputs prepared and
warmed up outside every measured window; a visit is one perf_analyzer per model, started together."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from builders.repository.view import Repository
from clients.runtimes.served import Loaded
from clients.server import TritonServer
from core.errors import PerfError
from perf.colocate import windows
from perf.colocate.gpu import GpuProbe
from perf.colocate.measure import ModelLoad, measure_together
from perf.colocate.options import ColocateOptions
from perf.measure import analyzer
from perf.measure.inputs import input_args
from perf.records.colocation import ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit
from perf.records.measured_files import refuse_reloaded
from perf.sweep.preflight import RAW_DIR

#: What a load's seconds (:attr:`SearchStep.load_s`, the console's "loaded" line) hold beside the load itself.
LOAD_HOLDS = "its inputs made and its warm-up included"


class ServerSource:
    """The search's measurement on a real server (module docstring).

    Args:
        opts: The run's options.
        record: The run's record (models, their concurrency).
        srv: The started server.
        pa: perf_analyzer.
        run_dir: The run folder.
        repo: The repository view (the build's input spec).
    """

    def __init__(
        self, opts: ColocateOptions, record: ColocationRecord, srv: TritonServer, pa: Path, run_dir: Path, repo: Repository
    ):
        self.opts, self.record, self.srv, self.pa, self.run_dir, self.repo = opts, record, srv, pa, run_dir, repo
        self.loaded: set[str] = set()
        self.args: dict[str, tuple[str, ...]] = {}
        #: The server's GPUs (set by the run when a variant has a KIND_GPU group).
        self.gpu: GpuProbe | None = None
        #: Progress events (set by the run): ``variant_loaded`` after each load, as the sweep sends it.
        self.events: Callable[[dict[str, Any]], None] = lambda _e: None

    def record_command(self, what: str, line: str) -> None:
        """Append a command to the run's ``commands.txt``."""
        with open(self.run_dir / "commands.txt", "a") as f:
            f.write(f"# {what}\n{line}\n")

    def prepare(self, step: SearchStep) -> None:
        """Load what the step's targets need (others unloaded), inputs made and warmed up; each unload's and load's
        seconds (the load with its inputs and warm-up) appended to ``step.unload_s`` and ``step.load_s``.

        Raises:
            ServerError: a variant does not load (Triton's reason and the server log's lines).
        """
        needed = {v for t in step.targets for v in t.values()}
        for v in sorted(self.loaded - needed):
            start = time.monotonic()
            self.srv.unload(v)
            self.loaded.discard(v)
            step.unload_s.append(round(time.monotonic() - start, 3))
        for v in sorted(needed - self.loaded):
            start = time.monotonic()
            self._load(v)
            self.loaded.add(v)
            if v not in self.args:
                self.args[v] = tuple(self._inputs(v))
            self._warmup(v)
            step.load_s.append(round(time.monotonic() - start, 3))
            # said as each load ends, as the sweep says its own (trial 21, T21-2: ~70 s of silence while 8 loaded)
            self.events({"event": "variant_loaded", "variant": v, "seconds": step.load_s[-1]})
        step.loaded = sorted(self.loaded)

    def _load(self, variant: str) -> None:
        """Load ``variant`` and record its files (:meth:`_stamp`); a KIND_GPU variant's first load
        also measures its GPU memory."""
        owner = next(m for m in self.record.models if variant in m.variants)
        measured = {g.variant for g in self.record.gpu_memory}
        if self.gpu is None or variant not in owner.gpus or variant in measured:
            self._stamp(variant, self.srv.load(variant))
            return
        got = self.gpu.model_memory(
            owner.name, variant, owner.gpus[variant], sorted(self.loaded), lambda: self._stamp(variant, self.srv.load(variant))
        )
        self.record.gpu_memory.append(got)

    def _stamp(self, variant: str, loaded: Loaded) -> None:
        """Record the files the first load of ``variant`` sent or found (``record.artifacts``);
        a later load (it is unloaded and loaded again between steps, and in a resumed session)
        must load the same ones (:func:`perf.records.measured_files.refuse_reloaded`).

        Raises:
            PerfError: other files than the first load's (a rebuild while the run went on).
        """
        now = loaded.served.artifact
        earlier = self.record.artifacts.get(variant)
        refuse_reloaded(variant, earlier, now, "the co-location run")
        if earlier is None:
            self.record.artifacts[variant] = now

    def _inputs(self, variant: str) -> list[str]:
        from clients.infer import make_client, model_io

        with contextlib.closing(make_client(self.srv.http_url, "http")) as c:
            config = model_io(c, variant, "http", self.srv.http_url)
        workdir = self.run_dir / "inputs"
        workdir.mkdir(parents=True, exist_ok=True)
        return input_args(config, self.repo.variant(variant).served_spec, workdir)

    def _warmup(self, variant: str) -> None:
        """A short perf_analyzer run at concurrency 1 (not recorded): lazy initialisation outside the windows."""
        if self.opts.warmup_requests <= 0:
            return
        csv = self.run_dir / RAW_DIR / f"warmup_{variant}.csv"
        settings = dataclasses.replace(
            self.opts.measure_settings(),
            collect_metrics=False,
            measurement_mode="count_windows",
            measurement_request_count=self.opts.warmup_requests,
        )
        url = self.srv.grpc_url if self.opts.protocol == "grpc" else self.srv.http_url
        cmd = analyzer.build_command(
            self.pa, variant, url, 1, 1, csv, settings, None, self.args[variant], stability_pct=1e6, max_trials=3
        )
        with contextlib.suppress(PerfError):
            analyzer.run_perf_analyzer(cmd, csv, timeout_s=120)
        csv.unlink(missing_ok=True)

    def visit(self, step: int, round_index: int, order: int, combination: Mapping[str, str]) -> ColocationVisit:
        """Measure ``combination`` once: one perf_analyzer per model, started together."""
        loads = [ModelLoad(m, v, self.record.model(m).concurrency, self.args[v]) for m, v in combination.items()]
        got = measure_together(
            self.pa,
            self.srv,
            loads,
            self.opts.measure_settings(),
            self.run_dir / RAW_DIR,
            f"s{step}_r{round_index}_o{order}",
            self.record_command,
            self.opts.host_busy_threshold_pct,
            self.gpu,
        )
        return ColocationVisit(
            step,
            round_index,
            order,
            dict(combination),
            windows.hinted(self.record, got.samples, self.opts.resume),  # a window miss: the flag that fixes it
            got.wall_s,
            got.host_busy_pct,
            got.host_busy,
            got.gpu_utilization_pct,
            got.gpu_memory_used_bytes,
        )
