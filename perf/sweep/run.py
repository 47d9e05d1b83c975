"""The concurrency sweep (Python API behind ``perf/run_sweep.sh`` and ``triton-perf sweep``).

For each variant: load it alone (explicit model control), warm it up, run perf_analyzer
once per planned (client batch size, concurrency, trial) while sampling the server's
metrics, record the level, unload and check that it is gone (a variant still loaded after
``unload_timeout_s`` gets the server restarted, so the next one is measured alone).
Which levels, on which variants and in which order, the search decides (:mod:`perf.search.policy`:
the adaptive concurrency ladder, pruning across variants, the order); this loop only asks it
"what next?" after every concurrency and records its decisions with the run.
Levels that cannot run on a variant are skipped and listed (:mod:`perf.search.plan`). Results
are saved after every level, so Ctrl-C, a failing variant or a crashed server never lose
finished measurements; ``resume`` continues a run and measures again the levels that failed
or were interrupted. Every server start writes its own log in the run folder
(``server.log``, ``server-2.log``...), recorded in ``results.json`` with why it started, and
every error names the log that holds its cause.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import threading
from pathlib import Path
from typing import Any, cast

from builders.repository.view import Repository
from clients.server import TritonServer
from core.errors import PerfError, ServerError, ToolkitError
from perf.coldstart import measure as coldstart
from perf.measure import analyzer, environment
from perf.measure.inputs import describe_dynamic, input_args, resolve_shapes
from perf.measure.level import HostCheck, Load, measure_level
from perf.profile.baseline import measure_after_sweep
from perf.records import results
from perf.records.levels import LevelResult
from perf.records.results import Environment, RunResult, SweepSettings, VariantResult
from perf.records.search import SearchRecord
from perf.search.plan import LevelKey, VariantPlan, plan_variant, to_measure
from perf.search.policy import AUTO, Budget, Search, ladder, resolve_mode
from perf.sweep.options import DEFAULT_CONCURRENCY, Progress, SweepOptions, resumed_options, run_settings, server_settings
from perf.sweep.server import now
from perf.sweep.servers import ServerPool

__all__ = ["DEFAULT_CONCURRENCY", "Progress", "Sweep", "SweepOptions", "resumed_options", "run_sweep", "server_settings"]

log = logging.getLogger(__name__)


class Sweep:
    """One sweep run; :meth:`run_all` does the work. Kept as an object so the server can be
    restarted and the results saved from one place."""

    def __init__(self, opts: SweepOptions, progress: Progress | None = None):
        saved: RunResult | None = None
        if opts.resume:
            if not opts.run_id:
                raise PerfError(
                    "resuming needs the id of the run to continue", hint="pass --resume RUN_ID (a folder in results/)"
                )
            run_dir = Path(opts.results_dir) / opts.run_id
            if not (run_dir / results.RESULTS_FILE).is_file():
                have = sorted(p.parent.name for p in Path(opts.results_dir).glob(f"*/{results.RESULTS_FILE}"))
                raise PerfError(
                    f"there is no run {opts.run_id!r} to resume in {opts.results_dir}",
                    hint=f"runs there: {', '.join(have) or '(none)'}",
                )
            saved = results.load(run_dir)
            opts = resumed_options(opts, dict(saved.settings))
        self.opts = opts
        self.has_listener = progress is not None
        self.progress = progress or (lambda _e: None)
        self.pa = analyzer.find_perf_analyzer(opts.perf_analyzer)
        self.pa_version = analyzer.perf_analyzer_version(self.pa)
        repo = Path(opts.server.repository)
        if not repo.is_dir():
            raise PerfError(f"model repository {repo} does not exist", hint="run `builders build` first")
        self.repository = Repository(repo)
        names = self.repository.names(opts.variants, indexed=False)  # every model folder: a hand-made repository too
        if isinstance(opts.concurrency, str) and opts.concurrency != AUTO:
            raise PerfError(f"concurrency {opts.concurrency!r} is neither {AUTO!r} nor a list of levels")
        if not isinstance(opts.concurrency, str) and (any(c < 1 for c in opts.concurrency) or not opts.concurrency):
            raise PerfError(f"concurrency levels must be >= 1, got {list(opts.concurrency)}")
        rules = saved.search.rules if saved is not None and saved.search is not None else opts.search_rules
        levels, adaptive = ladder(opts.concurrency, rules)
        self.names = names
        self.run_id = opts.run_id or results.new_run_id()
        self.run_dir = Path(opts.results_dir) / self.run_id
        if self.run_dir.exists() and saved is None:
            raise PerfError(f"run folder {self.run_dir} already exists", hint="pass --resume to continue it, or another --run-id")
        self.shape_notes: dict[str, str] = {}
        self.plans: dict[str, VariantPlan] = {
            n: plan_variant(
                n,
                repo / n / "config.pbtxt",
                levels,
                opts.batch_sizes,
                opts.request_rates,
                opts.trials,
                self._swept_shapes(n),
            )
            for n in names
        }
        if opts.input_data is None:
            self._check_shapes()
        self.run = saved or RunResult(self.run_id, now())
        if self.run.search is None:
            self.run.search = SearchRecord(resolve_mode(opts.search, len(names), rules), adaptive, rules)
        budget = Budget(opts.latency_budget_ms, opts.latency_percentile) if opts.latency_budget_ms else None
        self.search = Search(self.plans, self.run.search, levels, budget, opts.measure.stability_pct)
        (self.run_dir / "raw").mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()  # several servers measure in parallel threads (perf.sweep.servers)
        self.servers = ServerPool(
            opts.server,
            self.run,
            self.run_dir,
            "run resumed" if saved is not None else "sweep started",
            self._save,
            opts.allow_shared_host,
        )

    def _check_shapes(self) -> None:
        """Every dynamic dim of every planned variant has a size (``--shape`` or the build's
        spec), read from its ``config.pbtxt``: a missing one stops the sweep before it starts.

        Raises:
            PerfError: names the variant, the input and the axis.
        """
        for name, plan in self.plans.items():
            if plan.config is None or not plan.levels:
                continue
            try:
                spec = self.repository.variant(name).served_spec
            except ToolkitError:  # an unreadable build record fails that variant when it is measured
                continue
            try:
                resolve_shapes(plan.config, spec, self.opts.shapes)
            except PerfError as e:
                raise PerfError(f"{name}: {e.message}", hint=e.hint) from None

    def _swept_shapes(self, name: str) -> tuple[str | None, ...]:
        """The swept shapes (``"seq=64"``...) variant ``name`` is measured at: every combination
        of ``opts.sweep_axes`` when its build's spec has those dynamic axes; ``(None,)`` (the
        default sizes) when none is swept, or when it lacks an axis (noted in the results).

        Raises:
            PerfError: a swept size outside the axis's ``[min, max]`` in the build's spec.
        """
        if not self.opts.sweep_axes:
            return (None,)
        try:
            spec = self.repository.variant(name).spec
        except ToolkitError:
            spec = None
        have = dict(spec.dynamic_axes) if spec else {}
        missing = [a for a in self.opts.sweep_axes if a not in have]
        if missing:
            self.shape_notes[name] = (
                f"not swept over {', '.join(missing)}: its build has no such dynamic axis "
                f"({', '.join(sorted(have)) or 'none'}); measured at its own shape"
            )
            log.warning("%s: %s", name, self.shape_notes[name])
            return (None,)
        for axis, sizes in self.opts.sweep_axes.items():
            lo, _, hi = have[axis]
            outside = [x for x in sizes if not lo <= x <= hi]
            if outside:
                raise PerfError(
                    f"{name}: --shapes {axis}={','.join(map(str, sizes))}: {outside} outside the axis's range "
                    f"[{lo}, {hi}] in the build's spec",
                    hint=f"sweep sizes within {lo}..{hi} (what the export was verified for)",
                )
        axes = list(self.opts.sweep_axes)
        return tuple(
            results.shape_text(dict(zip(axes, sizes))) for sizes in itertools.product(*(self.opts.sweep_axes[a] for a in axes))
        )

    def _spec_at(self, spec: Any, shape: str | None) -> Any:
        """``spec`` with the swept axes' ``opt`` size set to this level's (what :func:`input_args` sends)."""
        if not shape or spec is None:
            return spec
        sizes = results.parse_shape_text(shape)
        axes = {a: (lo, sizes.get(a, opt), hi) for a, (lo, opt, hi) in spec.dynamic_axes.items()}
        return dataclasses.replace(spec, dynamic_axes=axes)

    def level_counts(self) -> tuple[int, int]:
        """``(planned, measured)``: the levels this run plans over every variant (skipped ones
        not counted) and how many of them already have numbers (a resumed run)."""
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
            results.save(self.run, self.run_dir)

    # -- the sweep -----------------------------------------------------------------------
    def run_all(self) -> RunResult:
        """Sweep every variant; returns the run (also saved in ``run_dir``).

        Raises:
            KeyboardInterrupt: after saving what was measured (the caller reports it).
            PerfError / ServerError: when the server cannot be started at all.
        """
        o = self.opts
        env: dict[str, Any] = {**environment.collect(), "perf_analyzer": {"path": str(self.pa), "version": self.pa_version}}
        self.run.environment.update(cast(Environment, env))
        settings = run_settings(o, self.names, self.search.record.mode)
        self.run.settings = cast(SweepSettings, settings)
        for name in self.names:
            if self.run.variant(name) is None:
                entry = self.repository.variant(name).entry
                self.run.variants.append(VariantResult(name, entry.params if entry else None))
            vr, plan = self.run.variant(name), self.plans[name]
            vr.skipped = list(plan.skipped)  # type: ignore[union-attr]
            if plan.skipped:
                log.info("%s: %d asked levels skipped (%s)", name, len(plan.skipped), plan.skipped[0].reason)
        self.search.record.order = self.search.order()
        self._save()
        try:
            try:
                self.servers.start_all()
            except ToolkitError as e:  # recorded in the run, so its report says why nothing was measured
                for vr in self.run.variants:
                    if vr.status == "pending" and not vr.levels:
                        vr.status, vr.error = "skipped", f"not measured: the server did not start ({e.message})"
                raise
            self.servers.each(self.search.record.order, lambda i, name: self._sweep_variant(i, self.run.variant(name)))  # type: ignore[arg-type]
            self.run.finished = now()
        finally:
            self._save()
            self.servers.stop()
        if o.baseline and any(s.host != "this host" for s in self.run.servers):
            log.info("in-process baseline not measured: the servers ran on another host than this one")
        elif o.baseline:
            measure_after_sweep(self.run, self.run_dir, Path(o.server.repository), self.progress)
        return self.run

    def _sweep_variant(self, index: int, vr: VariantResult) -> None:
        plan = self.plans[vr.name]
        if plan.error:  # an unreadable config fails this variant, not the sweep
            self._fail(vr, plan.error)
            return
        if not plan.levels:
            vr.status, vr.error = (
                "skipped",
                "no asked level can run on it: " + "; ".join(sorted({s.reason for s in plan.skipped})),
            )
            log.warning("variant %s skipped: %s", vr.name, vr.error)
            self._save()
            return
        tried: set[LevelKey] = set()  # measured in this session (a failed level is not measured again now)
        keys = self._next_keys(vr, tried)
        if not keys:  # resumed run: every level the search asks for has numbers (or it was pruned)
            vr.status, vr.error = "ok", None
            return
        vr.status, vr.error = "pending", None
        srv = self._server()
        vr.server = srv.http_url
        try:
            coldstart.load(srv, vr)  # srv.load(vr.name), timed: the variant's cold start (perf.coldstart.measure)
        except ServerError as e:
            self._fail(vr, f"{e.message.splitlines()[0]} (server log: {self._log_name()})", levels_left=self._left(vr, tried))
            self._server()  # restart if the failed load took the server down
            return
        try:
            from clients.infer import make_client, model_io

            with contextlib.closing(make_client(srv.http_url, "http")) as c:
                config = model_io(c, vr.name, "http")
            served = self.repository.variant(vr.name).served_spec
            vr.dynamic_axes = self.shape_notes.get(vr.name) or describe_dynamic(config, served, self.opts.shapes)
            args_by_shape: dict[str | None, list[str]] = {}
            for sh in plan.shapes:  # one generated data file per swept shape
                workdir = self.run_dir / ("inputs_" + sh.replace("=", "").replace(",", "_") if sh else "")
                workdir.mkdir(parents=True, exist_ok=True)
                args_by_shape[sh] = input_args(config, self._spec_at(served, sh), workdir, self.opts.input_data, self.opts.shapes)
            coldstart.first_requests(
                srv,
                vr,
                config,
                self.repository.variant(vr.name),
                [(k[1], k[4]) for k in keys],
                self.opts.measure.protocol,
                self.opts.shapes,
                self._spec_at,
                self.opts.host_busy_threshold_pct,
            )
            self._warmup(srv, vr.name, next(iter(args_by_shape.values())))
            while keys:  # the search's next concurrency (every batch size, shape, trial), until it says done
                for c, b, t, r, sh in keys:
                    self.progress(
                        {
                            "event": "level_start",
                            "variant": vr.name,
                            "index": index,
                            "n_variants": len(self.names),
                            "concurrency": c,
                            "batch_size": b,
                            "trial": t,
                            "request_rate": r,
                            "shape": sh,
                        }
                    )
                    level = self._measure(vr.name, c, b, t, args_by_shape[sh], r, sh)
                    tried.add((c, b, t, r, sh))
                    alive = self._server_alive_after(vr, level)
                    vr.levels = sorted([lv for lv in vr.levels if lv.key != level.key] + [level], key=lambda lv: lv.key)
                    self._save()
                    self.progress({"event": "level_done", "variant": vr.name, "level": level})
                    if not alive:
                        self._fail(vr, vr.error or "tritonserver died", levels_left=self._left(vr, tried))
                        self._server()
                        return
                keys = self._next_keys(vr, tried)
            self._search_done(vr, tried)
            if any(lv.usable for lv in vr.levels):
                vr.status = "ok"
            else:  # no level can back a recommendation: say why
                self._fail(
                    vr,
                    next(
                        (lv.error or "; ".join(lv.notes) for lv in vr.levels if lv.error or lv.notes),
                        "no level produced a measurement",
                    ),
                )
        except ToolkitError as e:
            self._fail(vr, f"{str(e).splitlines()[0]} (server log: {self._log_name()})", levels_left=self._left(vr, tried))
        finally:
            self._save()
            self.servers.unload(vr.name, self.opts.unload_timeout_s)

    def _next_keys(self, vr: VariantResult, tried: set[LevelKey]) -> list[LevelKey]:
        """The search's next levels on ``vr`` (:meth:`perf.search.policy.Search.next_keys`), read
        while no other server's thread changes the run."""
        with self._lock:
            return self.search.next_keys(vr, self.run, tried)

    def _left(self, vr: VariantResult, tried: set[LevelKey]) -> int:
        """Planned levels of ``vr`` not measured (now): what the progress bar skips."""
        return sum(1 for k in to_measure(self.plans[vr.name], vr) if k not in tried)

    def _search_done(self, vr: VariantResult, tried: set[LevelKey]) -> None:
        """Save the search's decision on ``vr`` and report it (``search_decision`` event:
        the sentence and its planned levels that will not be measured)."""
        self._save()
        decision = self.search.record.decision(vr.name)
        left = self._left(vr, tried)
        if decision is not None:
            log.info("%s: not measured further because %s", vr.name, decision.reason)
        if left or decision is not None:
            self.progress({"event": "search_decision", "variant": vr.name, "decision": decision, "levels_left": left})

    def _fail(self, vr: VariantResult, error: str, levels_left: int = 0) -> None:
        """Mark ``vr`` failed with ``error``, save, and report it once: as a ``variant_failed``
        progress event when there is a listener (the CLI prints it; ``levels_left``: its
        planned levels that will not be measured now, for the progress bar), else as a log
        warning."""
        vr.status, vr.error = "failed", error
        self._save()
        if self.has_listener:
            log.info("variant %s failed: %s", vr.name, error)
            self.progress({"event": "variant_failed", "variant": vr.name, "error": error, "levels_left": levels_left})
        else:
            log.warning("variant %s failed: %s", vr.name, error)

    def _server_alive_after(self, vr: VariantResult, level: LevelResult) -> bool:
        """Whether the server outlived ``level``; if not, the level is failed (whatever
        perf_analyzer printed), the variant's error says where, and the next start is
        recorded with that cause."""
        if self.server and self.server.is_alive():
            return True
        load = f"request rate {level.request_rate:g}/s" if level.request_rate else f"concurrency {level.concurrency}"
        died = f"tritonserver died while measuring {vr.name} at {load} batch {level.batch_size} (its log: {self._log_name()})"
        level.error = died + (f"; perf_analyzer: {level.error}" if level.error else "")
        level.settle()
        vr.error = died
        self.servers.died(died)
        return False

    def _warmup(self, srv: TritonServer, model: str, in_args: list[str]) -> None:
        """A short perf_analyzer run at concurrency 1 (not recorded) so the first level does
        not pay for lazy initialisation (thread pools, allocator growth)."""
        if self.opts.warmup_requests <= 0:
            return
        csv = self.run_dir / "raw" / f"warmup_{model}.csv"
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
        """One level (:func:`perf.measure.level.measure_level`)."""
        o = self.opts
        return measure_level(
            self.pa,
            self._server(),
            Load(model, concurrency, batch, trial, request_rate, shape),
            in_args,
            o.measure,
            self.run_dir,
            self._record_command,
            HostCheck(o.host_busy_threshold_pct, o.host_busy_pause_s),
        )


def run_sweep(opts: SweepOptions, progress: Progress | None = None) -> tuple[RunResult, Path]:
    """Run a sweep; returns ``(run, run_dir)``. See :class:`Sweep`.

    Raises:
        PerfError: perf_analyzer missing, unknown variants, an existing run folder without ``resume``.
        ServerError: the server cannot be started.
        KeyboardInterrupt: re-raised after saving.
    """
    sweep = Sweep(opts, progress)
    run = sweep.run_all()
    return run, sweep.run_dir
