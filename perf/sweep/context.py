"""The state and shared steps of one sweep run (:class:`SweepBase`): its options, plans and
results, its servers, the preparation of a loaded variant (served config, input data, cold start,
warm-up) and one level's measurement. The two designs build on it: interleaved rounds
(:mod:`perf.sweep.rounds`, the default) and one variant after another
(:mod:`perf.sweep.sequential`); :mod:`perf.sweep.run` chooses between them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builders.repository.measured_runs import record_run
from builders.repository.missing import repository_not_found
from builders.repository.view import Repository
from clients.request_refusals import past_table_line
from clients.runtimes.server_flags import server_arg_refusal
from clients.server import TritonServer
from core.errors import PerfError, ToolkitError
from perf.analysis.recommendation.budget_origin import budget_from, session_budget
from perf.analysis.recommendation.models import WHY, advice, named, several
from perf.coldstart import measure as coldstart
from perf.markdown import fmt_given
from perf.measure import analyzer, environment
from perf.measure.inputs import describe_dynamic, input_args
from perf.measure.level import HostCheck, Load, measure_level, measure_visit
from perf.measure.mixed import spec_at
from perf.measure.user_data import refused_words
from perf.records import results
from perf.records.levels import SERVER_DIED, LevelResult
from perf.records.measured_files import refuse_missing
from perf.records.results import RunResult, Session, VariantResult
from perf.records.resumed import resumed_budget
from perf.records.rounds import RoundsRecord
from perf.records.run_lock import hold_run
from perf.records.search import SearchRecord
from perf.search.events import log_event
from perf.search.plan import LevelKey, VariantPlan, plan_variant, to_measure
from perf.search.policy import AUTO, Budget, Search, ladder, resolve_mode
from perf.sweep.analyzer_flags import pass_through_refusal, shadowed_repository, visit_lengtheners
from perf.sweep.design_flags import other_design_refusal, window_hint
from perf.sweep.options import DEFAULT_TIME_BUDGET_S, Progress, SweepOptions
from perf.sweep.preflight import RAW_DIR, check_runtime, check_size_flags, new_run_folder, require_plannable
from perf.sweep.resuming import resumed_options, resumed_run
from perf.sweep.server import now
from perf.sweep.servers import ServerPool
from perf.sweep.variant_inputs import check_inputs, swept_shapes

log = logging.getLogger(__name__)


class SweepBase:
    """One sweep run's state (module docstring); :class:`perf.sweep.run.Sweep` runs it."""

    slow_why = ""  #: flags passed through that lengthen each visit (:func:`.analyzer_flags.visit_lengtheners`; R16-11)

    def __init__(self, opts: SweepOptions, progress: Progress | None = None):
        saved: RunResult | None = None
        if opts.resume:
            run_dir = resumed_run(opts.run_id, Path(opts.results_dir))
            self._hold = hold_run(run_dir, "this resume")  # before its read: its save keeps no other's (run_lock)
            saved = results.load(run_dir)
            opts = resumed_options(opts, dict(saved.settings))
        #: The budget to record (a resumed run's own total), and for a resumed run which one it plans against.
        self.recorded_budget_s, self.budget_note = opts.time_budget_s, None
        #: A resume given a --time-budget of its own (a new one, not what is left of the run's): rounds the run's own
        #: budget had ended go on with it (:attr:`perf.sweep.final.ResumedRounds.rounds_ended`).
        self.budget_given_again = False
        if saved is not None:
            again = "time_budget_s" in opts.given if opts.given is not None else opts.time_budget_s != DEFAULT_TIME_BUDGET_S
            self.budget_given_again = again
            left, self.recorded_budget_s, self.budget_note = resumed_budget(
                opts.time_budget_s, again, saved.rounds.budget if saved.rounds else None, saved.settings
            )
            opts = dataclasses.replace(opts, time_budget_s=left)
        self.opts = opts
        # a resumed run keeps its design and settings (resumed_options said what it ignored), its perf_analyzer
        # and server flags too: one the sweep sets would relabel its numbers (trial 16, T16-6; the server's are
        # checked again once the runtime is resolved)
        unread, again = other_design_refusal(opts, opts.design) if saved is None else None, saved is not None
        runtime = "remote" if opts.server.urls else opts.server.runtime
        pa, srv = opts.measure.extra_args, opts.server.extra_args
        if (refused := unread or pass_through_refusal(pa, again) or server_arg_refusal(srv, runtime, again)) is not None:
            raise refused
        self.progress, self.slow_why = progress or log_event, visit_lengtheners(pa)  # each message said once (events)
        repo = Path(opts.server.repository)
        if not repo.is_dir():  # before perf_analyzer is looked for and run: the more basic error first
            raise (
                PerfError(r[0], hint=r[1], flag="-r")
                if (r := shadowed_repository(repo))
                else repository_not_found(repo, error=PerfError)
            )
        self.pa = analyzer.find_perf_analyzer(opts.perf_analyzer)
        self.pa_version = analyzer.perf_analyzer_version(self.pa)
        self.repository = Repository(repo)
        if saved is not None:  # its variants' folders are there (make clean deletes them): one rule with colocate --resume
            refuse_missing(saved, [v.name for v in saved.variants], repo, "the resumed sweep")
        names = self.repository.names(opts.variants, indexed=False)  # every model folder: a hand-made repository too
        recorded = {n: e.variant.model for n, e in self.repository.served().items()}
        if (models := several(names, recorded)) is not None:  # one model's setups ranked (trial 25, T25-12)
            raise PerfError(
                f"the variants of this {'resumed run' if saved else 'sweep'} serve {named(models)}; {WHY}, so a sweep "
                "measures the variants of one model",
                hint=advice(models) + ("" if saved else " (--variants defaults to every model in the repository)"),
                flag="--resume" if saved else "--variants",
            )
        if isinstance(opts.concurrency, str) and opts.concurrency != AUTO:
            hint = f"pass --concurrency {AUTO} or levels such as --concurrency 1,2,4,8"
            raise PerfError(
                f"concurrency {opts.concurrency!r} is neither {AUTO!r} nor a list of levels", hint=hint, flag="--concurrency"
            )
        if not isinstance(opts.concurrency, str) and (any(c < 1 for c in opts.concurrency) or not opts.concurrency):
            raise PerfError(
                f"concurrency levels must be >= 1, got {list(opts.concurrency)}",
                hint=f"pass --concurrency {AUTO} or levels of 1 or more, such as --concurrency 1,2,4,8",
                flag="--concurrency",
            )
        rules = saved.search.rules if saved is not None and saved.search is not None else opts.search_rules
        levels, adaptive = ladder(opts.concurrency, rules)
        #: ``rounds`` or ``sequential``; a resumed run keeps its own (a run saved before rounds: sequential).
        self.design = opts.design if saved is None else ("rounds" if saved.rounds is not None else "sequential")
        self.levels, self.adaptive, self.names = levels, adaptive, names
        self.run_id = opts.run_id or results.new_run_id()
        self.run_dir = Path(opts.results_dir) / self.run_id
        check_size_flags(self.repository, names, opts.sweep_axes, opts.shapes, opts.batch_sizes, opts.input_data)
        self.shape_notes: dict[str, str] = {}
        self.plans: dict[str, VariantPlan] = {
            n: plan_variant(
                n,
                repo / n / "config.pbtxt",
                levels,
                opts.batch_sizes,
                opts.request_rates,
                opts.trials if self.design == "sequential" else 1,  # in rounds, a level's trials are its rounds
                swept_shapes(self.repository, n, opts, self.shape_notes),
            )
            for n in names
        }
        # the server is there and has some variant's backend; the others fail without a load
        unservable = check_runtime(opts.server, names, resumed=saved is not None)
        for n, why in unservable.items():
            log.warning("%s is not measured: %s", n, why)
            self.plans[n] = dataclasses.replace(self.plans[n], levels=[], error=why)
        check_inputs(self.repository, self.plans, opts)
        if saved is None:  # nothing is started or written for a sweep that cannot measure anything; then held (run_lock)
            require_plannable({n: p for n, p in self.plans.items() if n not in unservable}, opts.batch_sizes)
            self._hold = new_run_folder(self.run_dir, "this sweep")
        self.run = saved or RunResult(self.run_id, now())
        if saved is not None and not saved.sessions:  # saved before sessions were recorded: its earlier ones as one
            self.run.sessions.append(Session(saved.created))
        budget = session_budget(opts.latency_budget_ms, opts.latency_percentile)
        self.run.sessions.append(Session(now(), budget=budget, budget_from=budget_from(opts.latency_budget_ms)))
        #: This session's number (``RunResult.sessions``, 1 first): what its records are stamped with.
        self.session = len(self.run.sessions)
        if self.run.search is None:
            mode = resolve_mode(opts.search, len(names), rules, adaptive)
            if opts.search == "prune" and mode != "prune":
                log.warning("--search prune applies to --concurrency auto only: the explicit levels are measured whole")
            self.run.search = SearchRecord(mode, adaptive, rules)
        if self.design == "rounds" and self.run.rounds is None:
            self.run.rounds = RoundsRecord(
                seed=opts.seed if opts.seed is not None else _seed(self.run_id), rules=opts.rounds_rules
            )
        self.budget = Budget(ms, opts.latency_percentile, cores=environment.cores()) if (ms := opts.latency_budget_ms) else None
        self.search = Search(self.plans, self.run.search, levels, self.budget, opts.measure.stability_pct)
        (self.run_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)  # a resumed run's too
        record_run(repo, self.run_dir)  # before any measurement: a build finds it wherever --results-dir put it (s21k)
        self._lock = threading.RLock()  # several servers measure in parallel threads (perf.sweep.servers)
        # while a session's rounds run: records what they spent so far on the run's budget, at every save, so that a
        # killed sweep's record holds it (trial 27, T27-11: after kill -9 a resume said "0 s it spent" beside 7 visits)
        self.record_spent: Callable[[], None] | None = None
        self.servers = ServerPool(
            opts.server,
            self.run,
            self.run_dir,
            "run resumed" if saved is not None else "sweep started",
            self._save,
            opts.allow_shared_host,
            names,
        )

    def _spec_at(self, spec: Any, shape: str | None) -> Any:
        """``spec`` with the swept axes' ``opt`` size set to this level's fixed sizes (what :func:`input_args`
        sends; a mixed axis keeps its ``opt``, which no entry of the mix is sent at: each carries its own size,
        and a cold start's first requests are sent at the mix's first, :func:`perf.measure.mixed.first_size`)."""
        return spec_at(spec, results.parse_shape_text(shape or ""))

    def level_counts(self) -> tuple[int, int]:
        """``(planned, measured)``: the levels this run plans over every variant (skipped ones
        not counted) and how many of them already have numbers (a resumed run); ``(0, 0)`` in
        the rounds design, whose rounds say their size as they start."""
        if self.design == "rounds":
            return 0, 0
        planned = sum(len(p.levels) for p in self.plans.values())
        todo = sum(len(to_measure(p, self.run.variant(n) or VariantResult(n))) for n, p in self.plans.items())
        return planned, planned - todo

    # -- server ------------------------------------------------------------------------
    @property
    def server(self) -> TritonServer | None:
        """The current tritonserver (it may have exited)."""
        return self.servers.current

    def _server(self) -> TritonServer:
        return self.servers.get()

    def _log_name(self) -> str:
        return self.servers.log_name()

    def _record_command(self, what: str, line: str) -> None:
        with self._lock, open(self.run_dir / results.COMMANDS_FILE, "a") as f:
            f.write(f"# {what}\n{line}\n")

    def _save(self) -> None:
        with self._lock:
            if self.record_spent is not None:
                self.record_spent()
            results.save(self.run, self.run_dir)

    def _fail(self, vr: VariantResult, error: str, levels_left: int = 0) -> None:
        """Mark ``vr`` failed with ``error``, save, and report it once: as a ``variant_failed``
        progress event (the CLI prints it; ``levels_left``: its planned levels that will not be
        measured now, for the progress bar; without a listener a log warning, :mod:`perf.search.events`)."""
        vr.status, vr.error = "failed", error
        self._save()
        self.progress({"event": "variant_failed", "variant": vr.name, "error": error, "levels_left": levels_left})

    def _server_alive_after(self, vr: VariantResult, level: LevelResult) -> bool:
        """Whether the server outlived ``level``; if not, the level is failed (whatever
        perf_analyzer printed), the variant's error says where, and the next start is
        recorded with that cause."""
        if self.server and self.server.is_alive():
            return True
        load = f"request rate {fmt_given(level.request_rate, 0)}/s" if level.request_rate else f"concurrency {level.concurrency}"
        died = f"{SERVER_DIED} while measuring {vr.name} at {load} batch {level.batch_size} (its log: {self._log_name()})"
        level.error = died + (f"; perf_analyzer: {level.error}" if level.error else "")
        level.settle()
        vr.error = died
        self.servers.died(died)
        return False

    def ready(self, srv: TritonServer, vr: VariantResult, keys: list[LevelKey], cold: bool = True) -> dict[str | None, list[str]]:
        """Make a loaded variant ready to measure: read its served config, write its input data
        (one file per swept shape), send its first requests (its cold start; ``cold=False``: a
        variant loaded again, its cold start kept) at the batch sizes and shapes of ``keys``, and
        warm it up. Returns perf_analyzer's input flags per shape.

        Raises:
            ToolkitError: the served config cannot be read, or inputs cannot be made.
        """
        from clients.infer import make_client, model_io

        plan = self.plans[vr.name]
        with contextlib.closing(make_client(srv.http_url, "http")) as c:
            config = model_io(c, vr.name, "http", srv.http_url)
        served, o = self.repository.variant(vr.name).served_spec, self.opts
        vr.dynamic_axes = self.shape_notes.get(vr.name) or describe_dynamic(config, served, o.shapes, o.input_data)
        vr.axis_ranges = {a: list(r) for a, r in served.dynamic_axes.items()} if served else {}
        args: dict[str | None, list[str]] = {}
        for sh in plan.shapes:  # one generated data file per swept shape
            workdir = self.run_dir / ("inputs_" + sh.replace("=", "").replace(",", "_") if sh else "")
            workdir.mkdir(parents=True, exist_ok=True)
            spec, mixed = self._spec_at(served, sh), results.mixed_axes(sh)
            args[sh] = input_args(config, spec, workdir, self.opts.input_data, self.opts.shapes, mixed=mixed)
        if cold:
            coldstart.first_requests(
                srv,
                vr,
                config,
                self.repository.variant(vr.name),
                list(dict.fromkeys((k[1], k[4]) for k in keys)),
                self.opts.measure.protocol,
                self.opts.shapes,
                self._spec_at,
                self.opts.host_busy_threshold_pct,
            )
        self._warmup(srv, vr.name, next(iter(args.values())))
        return args

    def _warmup(self, srv: TritonServer, model: str, in_args: list[str]) -> None:
        """A short perf_analyzer run at concurrency 1 (not recorded) so the first level does
        not pay for lazy initialisation (thread pools, allocator growth)."""
        if self.opts.warmup_requests <= 0:
            return
        csv = self.run_dir / RAW_DIR / f"warmup_{model}.csv"
        cmd = analyzer.build_command(
            self.pa,
            model,
            srv.grpc_url if self.opts.measure.protocol == "grpc" else srv.http_url,
            1,
            1,
            csv,
            dataclasses.replace(
                self.opts.measure,
                collect_metrics=False,
                measurement_mode="count_windows",
                measurement_request_count=self.opts.warmup_requests,
            ),
            input_args=in_args,
            stability_pct=1e6,
            max_trials=3,
        )
        with contextlib.suppress(PerfError):
            analyzer.run_perf_analyzer(cmd, csv, timeout_s=120)
        csv.unlink(missing_ok=True)

    def _measure(
        self,
        model: str,
        concurrency: int,
        batch: int,
        trial: int,
        in_args: list[str],
        request_rate: float | None = None,
        shape: str | None = None,
    ) -> LevelResult:
        """One level (:func:`perf.measure.level.measure_level`); in a rounds sweep one visit
        (:func:`perf.measure.level.measure_visit`, windows of the rounds' ``window_ms``)."""
        o, rounds = self.opts, self.run.rounds
        measure = measure_visit if rounds is not None else measure_level  # a rounds visit: windows of its window_ms
        settings = dataclasses.replace(o.measure, measurement_interval_ms=rounds.rules.window_ms) if rounds else o.measure
        load = Load(model, concurrency, batch, trial, request_rate, shape)
        host = HostCheck(o.host_busy_threshold_pct, o.host_busy_pause_s)
        level = measure(self.pa, self._server(), load, in_args, settings, self.run_dir, self._record_command, host)
        if not level.ok and level.error and (o.input_data is not None or past_table_line(level.error)):  # in words
            try:
                spec = self.repository.variant(model).served_spec
            except ToolkitError:  # a repository without the toolkit's build manifest
                spec = None
            level.error = refused_words(level.error, o.input_data, spec)
        if level.error:  # perf_analyzer's "use a larger time window": the toolkit's flag for it
            vr = self.run.variant(model)
            p99 = [lv.latency_p99_ms for lv in (vr.levels if vr else []) if lv.ok and lv.latency_p99_ms]
            slowest = max(p99, default=None)
            level.error = window_hint(level.error, self.design, settings.measurement_interval_ms, slowest, o.resume)
        return level


def _seed(run_id: str) -> int:
    """A seed from the run id (recorded with the run, so its rounds' order can be replayed)."""
    return sum((i + 1) * ord(ch) for i, ch in enumerate(run_id)) % 1_000_003
