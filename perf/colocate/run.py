"""A co-location run on a real server: the models' variants resolved and checked, the server
started with explicit model control, the coordinate search (:mod:`perf.colocate.search`) run
with a :class:`perf.colocate.source.ServerSource`, everything recorded in ``RESULTS_DIR/RUN_ID/colocation.json``.

- **Loading**: before each step the variants its targets need are loaded together (the others
  unloaded), each one's inputs prepared and warmed up with a short perf_analyzer run; all of it
  outside every measured window (:meth:`perf.colocate.source.ServerSource.prepare`).
- **Visits**: one perf_analyzer per model of the target, started together
  (:func:`perf.colocate.measure.measure_together`); a target of one variant is that variant
  alone on the same server, measured in the same rounds.
- **GPU** (:mod:`perf.colocate.gpu`): KIND_GPU variants of several models share the devices their
  instance groups name (recorded per variant); each one's GPU memory is measured at its first
  load (device memory after minus before, and what its backend reports), and every visit samples
  the GPUs' utilisation and memory. No GPU where the server runs: refused, never measured on
  the CPU instead.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime
import logging
import time
from collections.abc import Callable
from pathlib import Path

from builders.repository.measured_runs import record_run
from builders.repository.view import Repository
from clients.runtimes.loading import LoadDeadline
from clients.server import TritonServer
from core.errors import PerfError, ServerError
from core.processes import held_stops
from perf.colocate import host, outcome, plan, resume
from perf.colocate.gpu import GpuProbe, check_devices
from perf.colocate.groups import groups_of
from perf.colocate.options import DEFAULT_TIME_BUDGET_S, EVERY_MODEL, ColocateOptions, for_model
from perf.colocate.resume import ReplaySource, server_failed
from perf.colocate.search import CoordinateSearch, Events
from perf.colocate.source import ServerSource
from perf.measure import analyzer
from perf.measure.environment import cores
from perf.records import colocation
from perf.records.build_check import read_checks
from perf.records.colocation import ColocatedModel, ColocationRecord
from perf.records.measured_files import SERVED, refuse_changed, refuse_missing
from perf.records.provenance import stamp
from perf.records.resumed import left_of_run
from perf.records.run_lock import RunHold, hold_run
from perf.sweep.preflight import RAW_DIR, check_runtime, new_run_folder
from perf.sweep.server import server_record

log = logging.getLogger(__name__)


def now() -> str:
    """The time now, ISO 8601 to the second."""
    return datetime.datetime.now().isoformat(timespec="seconds")


def remote_server(opts: ColocateOptions) -> bool:
    """The server runs elsewhere (``--runtime remote`` or ``--url``): this host's GPUs are not its own."""
    return opts.server.runtime == "remote" or bool(opts.server.urls)


def local_gpus() -> int:
    """GPUs this host shows a server it starts (NVML, ``CUDA_VISIBLE_DEVICES`` applied)."""
    from core.gpu import detect, visible_gpu_indices

    return len(visible_gpu_indices(len(detect()))) if detect() else 0


def resolve_models(opts: ColocateOptions, repo: Repository) -> list[ColocatedModel]:
    """The run's models with their variants, traffic and weights.

    Raises:
        PerfError: fewer than two models, a variant claimed by two models, a mix, weight,
            start, latency budget or required throughput naming an unknown model, the
            fewest-instances objective without a required throughput, a start that is not one
            of its variants, or KIND_GPU variants on a host without a GPU (or naming device ids
            it does not have: :func:`perf.colocate.gpu.check_devices`).
    """
    if len(opts.models) < 2:
        raise PerfError(
            f"co-location needs two models at least; got {len(opts.models)}",
            hint="pass --model NAME=PATTERN once per model, e.g. --model mlp='mlp_onnx_*' --model tiny='tiny_onnx_*'",
            flag="--model",
        )
    named = (
        ("--mix", opts.mix),
        ("--weight", opts.weights),
        ("--start", opts.starts),
        ("--latency-budget-ms", {k: v for k, v in opts.latency_budget_ms.items() if k != EVERY_MODEL}),
        ("--required-throughput", {k: v for k, v in opts.required_throughput.items() if k != EVERY_MODEL}),
    )
    for flag, given in named:
        unknown = sorted(set(given) - set(opts.models))
        if unknown:
            raise PerfError(
                f"{flag} names {', '.join(unknown)}, not a --model of this run",
                hint=f"models: {', '.join(opts.models)}",
                flag=flag,
            )
    if opts.objective == "fewest-instances" and not opts.required_throughput:
        raise PerfError(
            "--objective fewest-instances needs a required throughput: without one, one instance of each model is the answer",
            hint="add --required-throughput NAME=INFER/S per model (e.g. --required-throughput mlp=500,tiny=200)",
            flag="--required-throughput",
        )
    owner: dict[str, str] = {}
    out = []
    remote = remote_server(opts)
    visible = 1 if remote else local_gpus()
    for name, patterns in opts.models.items():
        variants = repo.names(patterns, indexed=False, flag="--model")
        for v in variants:
            if v in owner:
                raise PerfError(
                    f"variant {v} is matched by both --model {owner[v]} and --model {name}",
                    hint="give each model its own patterns",
                    flag="--model",
                )
            owner[v] = name
        start = opts.starts.get(name)
        if start is not None and start not in variants:
            raise PerfError(
                f"--start {name}={start}: not one of its variants", hint=f"its variants: {', '.join(variants)}", flag="--start"
            )
        groups = {v: groups_of(repo.path, v, max(1, visible)) for v in variants}
        out.append(
            ColocatedModel(
                name,
                variants,
                opts.mix.get(name, 1),
                opts.weights.get(name, 1.0),
                latency_budget_ms=for_model(opts.latency_budget_ms, name),
                required_throughput=for_model(opts.required_throughput, name),
                instances={v: g.instances for v, g in groups.items()},
                gpus={v: list(g.gpu_ids) for v, g in groups.items() if g.gpu},
            )
        )
    if not remote:  # a remote server's GPUs are checked once it answers (Colocate.run)
        check_devices({v: tuple(ids) for m in out for v, ids in m.gpus.items()}, True, visible)
    return out


class Colocate:
    """One co-location run (module docstring): checked and prepared here, measured by :meth:`run`.

    Args:
        opts: The run's options.
        events: Progress events (:data:`perf.colocate.search.Events`).

    Raises:
        PerfError: bad models or options (:func:`resolve_models`), an existing run folder, no perf_analyzer.
    """

    def __init__(self, opts: ColocateOptions, events: Events | None = None):
        self._hold: RunHold | None = None  # this command's hold on the run folder (perf.records.run_lock)
        try:
            self._setup(opts, events)
        except BaseException:  # a refused run holds nothing
            if self._hold is not None:
                self._hold.release()
            raise

    def _setup(self, opts: ColocateOptions, events: Events | None) -> None:
        """:meth:`__init__`'s checks and record; the run folder held from before its first read."""
        self.opts = opts
        self.events: Events = events or (lambda _e: None)
        self.repo = Repository(Path(opts.server.repository))
        #: The interrupted run's record (``--resume``), as saved; ``None`` for a new run.
        self.previous: ColocationRecord | None = None
        #: This session's (visits measured, seconds spent), set by :meth:`run`; ``None``: it measured nothing.
        self.session: tuple[int, float] | None = None
        #: Why a resumed run measures nothing (it had ended), else ``None``.
        self.nothing_left: str | None = None
        #: A resume's words for the time budget it runs under (:func:`perf.records.resumed.left_of_run`), else ``None``.
        self.budget_note: str | None = None
        #: The resume runs under what is left of the run's own time budget (:attr:`budget_note` says it).
        self.budget_left = False
        #: The run's record: the resumed run's (:meth:`_resume`), else a new one (below).
        self.record: ColocationRecord
        if opts.resume:
            self._resume()
            self.prices = plan.prices(self.record)
            self.estimate = plan.estimate(
                plan.planned_steps(self.record, opts.starts, opts.brute), self.prices, self.opts.time_budget_s
            )
            return
        models = resolve_models(opts, self.repo)
        self.pa = analyzer.find_perf_analyzer(opts.perf_analyzer)
        # the sweep's checks before a server starts or a folder is written; the search needs every variant
        check_runtime(opts.server, [v for m in models for v in m.variants], every="--model")
        self.run_id = opts.run_id or "colocate-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.run_dir = Path(opts.results_dir) / self.run_id
        # one that holds no measurement is taken again, as a sweep's; held from here (perf.records.run_lock)
        self._hold = new_run_folder(self.run_dir, "this co-location run", f"--resume --run-id {self.run_id}")
        seed = opts.seed if opts.seed is not None else sum((i + 1) * ord(ch) for i, ch in enumerate(self.run_id)) % 1_000_003
        self.record = ColocationRecord(
            run_id=self.run_id,
            created=now(),
            repository=str(Path(opts.server.repository).resolve()),
            models=models,
            objective=opts.objective,
            kind="KIND_GPU" if any(m.gpus for m in models) else "KIND_CPU",
            min_rounds=opts.min_rounds,
            max_rounds=max(opts.min_rounds, opts.max_rounds),
            window_ms=opts.window_ms,
            seed=seed,
            time_budget_s=opts.time_budget_s,
            session_budgets_s=[opts.time_budget_s],
            build_checks=read_checks(  # the builds it measures, said beside their names (issue 26)
                self.repo, [v for m in models for v in m.variants], remote_server(opts) and not opts.server.deploy
            ),
        )
        record_run(Path(self.record.repository), self.run_dir)  # `builders remove`, `make clean` see it (s23r, M4)
        #: The prices the plan is said at before the run (:func:`perf.colocate.plan.prices`; a resumed run's, from
        #: what its earlier sessions timed): what the search's first timed loads are compared with.
        self.prices = plan.prices(self.record)
        #: What one pass needs and what the time budget covers of it, said before the run (:func:`perf.colocate.plan.plan_words`)
        #: and, at its end, beside what ran (:meth:`perf.colocate.search.CoordinateSearch.said_what_ran`).
        self.estimate = plan.estimate(plan.planned_steps(self.record, opts.starts, opts.brute), self.prices, opts.time_budget_s)

    def close(self) -> None:
        """Let go of the run folder without running (a Colocate made to read its plan); :meth:`run`
        does it when it returns. A second call does nothing."""
        if self._hold is not None:
            self._hold.release()

    def _resume(self) -> None:
        """Take the run to resume (:mod:`perf.colocate.resume`): its record, folder and checks."""
        folder = Path(self.opts.results_dir) / (self.opts.run_id or "")
        if self.opts.run_id and folder.is_dir():  # before its read: its save keeps no other's (perf.records.run_lock)
            self._hold = hold_run(folder, "this resume")
        self.previous = resume.previous_run(self.opts)
        self.record = copy.deepcopy(self.previous)
        self.run_id, self.run_dir = self.record.run_id, Path(self.opts.results_dir) / self.record.run_id
        self.nothing_left = resume.nothing_left(self.previous)
        self.pa = analyzer.find_perf_analyzer(self.opts.perf_analyzer)
        if self.nothing_left is not None:
            return
        self._resumed_budget()
        variants = [v for m in self.record.models for v in m.variants]
        # every variant's folder is there (make clean deletes them), as a sweep's --resume checks; then
        # what it measures further must be the files its earlier sessions measured
        refuse_missing(self.previous, variants, self.repo.path, "the resumed search")
        refuse_changed(self.previous, variants, self.repo.path, "resumed measurement", SERVED)
        check_runtime(self.opts.server, variants, every="--model")
        if not remote_server(self.opts):
            check_devices({v: tuple(ids) for m in self.record.models for v, ids in m.gpus.items()}, True, local_gpus())
        record_run(Path(self.record.repository), self.run_dir)  # as a new run: one begun before it was, too (s24c)

    def _resumed_budget(self) -> None:
        """A resume given no ``--time-budget`` runs under what is left of the run's own (its first session's, less
        what every session spent), by the sweep's rule (:func:`perf.records.resumed.left_of_run`; trial 20, T20-11: the
        resume printed at Ctrl-C ran on a fresh 10-minute default, 257 s spent against the 180 s asked); the words
        say which budget it runs under, given again or not."""
        o = self.opts
        again = "time_budget_s" in o.given if o.given is not None else o.time_budget_s != DEFAULT_TIME_BUDGET_S
        own, spent = self.record.time_budget_s, self.record.spent_s
        if again:
            self.budget_note = (
                "no time budget" if o.time_budget_s is None else f"{o.time_budget_s:g} s"
            ) + ", given on this resume"
            return
        if own is None:  # as the sweep's resume of a run that had none
            self.budget_note = "no time budget, as the run had none (--time-budget gives one)"
            self.opts = dataclasses.replace(o, time_budget_s=None)
            return
        left, _own, self.budget_note = left_of_run(own, spent if spent is not None else None)
        self.opts, self.budget_left = dataclasses.replace(o, time_budget_s=left), True

    def _gpu(self, srv: TritonServer) -> GpuProbe | None:
        """With KIND_GPU variants: the server's GPUs, recorded and checked (a remote server that
        reports none is refused here, before anything is measured); ``None`` without any."""
        gpu_variants = {v: tuple(ids) for m in self.record.models for v, ids in m.gpus.items()}
        if not gpu_variants:
            return None
        remote = remote_server(self.opts)
        probe = GpuProbe(srv.metrics_url, srv.http_url, srv.opts.metrics_interval_ms / 1000, local=not remote)
        self.record.gpu_devices = probe.devices()
        if remote:
            check_devices(gpu_variants, False, 0, self.record.gpu_devices)
        self.save()
        return probe

    def save(self) -> None:
        """Write the record."""
        colocation.save(self.record, self.run_dir)

    def run(self, start_server: Callable[[ColocateOptions, Path], TritonServer] | None = None) -> ColocationRecord:
        """Start the server, run the search, stop the server; returns the record (also saved). The run
        folder is another command's to write once this returns (:mod:`perf.records.run_lock`).

        Raises:
            ServerError: the server does not start, or a variant does not load.
        """
        try:
            return self._run(start_server)
        finally:
            self.close()

    def _run(self, start_server: Callable[[ColocateOptions, Path], TritonServer] | None) -> ColocationRecord:
        """:meth:`run`, the folder held."""
        if self.nothing_left is not None:
            return self.record
        (self.run_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        before_s = (self.previous.spent_s or 0.0) if self.previous is not None else 0.0
        starts = dict(self.opts.starts)
        if self.previous is not None:
            starts = resume.restart(self.record)
            if not self.record.session_budgets_s:  # a record written before each session's was kept
                self.record.session_budgets_s = [self.record.time_budget_s]
            self.record.session_budgets_s.append(self.opts.time_budget_s)  # the time this session may spend
        stamp(self.record)  # the sentences this session saves are this code's (perf.records.provenance)
        self.save()
        log_name = f"tritonserver-{len(self.record.resumed) + 2}.log" if self.previous is not None else "tritonserver.log"
        server_opts = dataclasses.replace(
            self.opts.server, model_control="explicit", load_models=(), log_file=self.run_dir / log_name
        )
        srv = start_server(self.opts, self.run_dir) if start_server else TritonServer(server_opts)
        if (budget := self.opts.time_budget_s) is not None:  # a load waits no longer than this session's budget (T30 F21)
            srv.load_deadline = LoadDeadline(started + budget, f"what was left of this session's {budget:g} s --time-budget")
        with open(self.run_dir / "commands.txt", "a") as f:
            f.write(f"# tritonserver\n{srv.command_line}\n")
        source: ServerSource | ReplaySource | None = None

        def save_spent() -> None:  # every round's save holds the time spent: a killed run's too (trial 27, T27-11)
            self.record.spent_s = round(before_s + time.monotonic() - started, 2)
            self.save()

        ended = "failed"  # what the session's record says unless its search ends: never "finished" (trial 12, F21)
        try:
            begun = time.monotonic()
            srv.start()
            self.record.server_starts_s.append(round(time.monotonic() - begun, 2))  # a resume's start is priced by it
            self.record.environment = {
                **self.record.environment,  # an earlier session's keys this one does not set are kept
                "server": server_record(srv),
                "perf_analyzer": str(self.pa),
                host.CORES_KEY: cores(),  # what its p99s are judged with, on any host (perf.colocate.host)
            }
            server = ServerSource(self.opts, self.record, srv, self.pa, self.run_dir, self.repo)
            server.gpu, server.events = self._gpu(srv), self.events
            source = server
            if self.previous is not None:
                source = ReplaySource(server, self.previous)
            search = CoordinateSearch(
                self.record,
                source,
                self.opts.time_budget_s,  # from the session's start: the server's start is spent from it
                starts,
                save_spent,
                self.events,
                started=started,
                planned=self.prices,
                forecast=outcome.forecast(self.estimate),
            )
            if self.opts.brute:
                from perf.colocate.brute import run_brute

                run_brute(search)
            else:
                search.run()
            ended = "finished"
        except ServerError:
            self.record.pick_reason = self.record.pick_reason or server_failed(self.opts.server.urls)
            raise
        except KeyboardInterrupt:
            ended = "interrupted"
            raise
        finally:  # whole: a stop that comes meanwhile is raised once the record is saved (break-it F24's second case)
            with held_stops():
                with contextlib.suppress(Exception):
                    srv.stop()
                self.record.finished = now() if ended == "finished" else None
                self.record.spent_s = round(before_s + time.monotonic() - started, 2)
                measured = source.measured if isinstance(source, ReplaySource) else len(self.record.visits) if source else 0
                self.session = (measured, self.record.spent_s - before_s)
                if isinstance(source, ReplaySource):
                    self.record.resumed.append(
                        f"{now()}: {source.replayed} visits of complete rounds replayed, {source.measured} measured"
                        + ("" if ended == "finished" else f"; the session {ended}")
                    )
                self.save()
        return self.record
