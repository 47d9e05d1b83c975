"""The concurrency sweep (Python API behind ``perf/run_sweep.sh`` and ``triton-perf sweep``).

Two designs, one run folder:

- **rounds** (the default, :mod:`perf.sweep.rounds`): the variants in contention are loaded
  together and measured in interleaved, shuffled rounds, compared pairwise within each round
  (:mod:`perf.search.rounds`, :mod:`perf.analysis.ranking.rank`), inside a time budget
  (:mod:`perf.search.budget`): the estimate is reported before the first load, the real time at
  the end, and what was cut for time is recorded.
- **sequential** (``--design sequential``, and runs saved before rounds existed,
  :mod:`perf.sweep.sequential`): one variant after another, each level until perf_analyzer's
  windows agree.

Either way results are saved after every level, so Ctrl-C, a failing variant or a crashed server
never lose finished measurements; ``resume`` continues a run in its own design. Every server
start writes its own log in the run folder, recorded in ``results.json`` with why it started. The
in-process baseline (:mod:`perf.profile.baseline`, :mod:`perf.sweep.baseline_step`) follows the sweep, inside the same budget:
skipped, with the reason recorded, when what is left of it would not cover its estimate.
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import Any, Literal, cast

from clients.runtimes.host import not_ours
from clients.runtimes.loading import LoadDeadline
from core.console import stop_name
from core.errors import FlagError, ToolkitError
from core.processes import held_stops
from core.wording import count, join_once
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.saturation.above_cap import lift_words, lifted_cap
from perf.markdown import apart, fmt
from perf.measure import environment
from perf.records.build_check import read_checks
from perf.records.measured_files import LOADED, SERVED, refuse_changed
from perf.records.provenance import stamp
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import TIME_SPENT, BudgetRecord, Cut
from perf.records.settings import Environment, SweepSettings
from perf.search import budget as budgets
from perf.search import promise
from perf.search.rounds import Rounds, Setup
from perf.sweep import budget_scope as scope
from perf.sweep.baseline_step import BaselineStep
from perf.sweep.baseline_words import baseline_yields
from perf.sweep.budget_scope import spent_words
from perf.sweep.final import ResumedRounds
from perf.sweep.options import DEFAULT_CONCURRENCY, Progress, SweepOptions
from perf.sweep.preflight import RAW_DIR
from perf.sweep.resuming import resumed_options, run_settings, server_settings
from perf.sweep.rounds import of_budget
from perf.sweep.sequential import Sequential
from perf.sweep.server import now

__all__ = ["DEFAULT_CONCURRENCY", "Progress", "Sweep", "SweepOptions", "resumed_options", "run_sweep", "server_settings"]

log = logging.getLogger(__name__)


class Sweep(Sequential, ResumedRounds, BaselineStep):
    """One sweep run; :meth:`run_all` does the work (module docstring). From its construction until
    :meth:`run_all` returns (or :meth:`close`) it holds its run folder: another command that would
    write it stops with one error (:mod:`perf.records.run_lock`).

    Args:
        opts: The sweep's options.
        progress: Called with each event (:mod:`perf.search.events`).
        invoked_at: When the command started, on :func:`time.monotonic`'s clock (the CLI: its process's start,
            :func:`perf.sweep.budget_scope.process_started`); default: now. Its start-up, from then to the time
            budget's clock, is timed and said (``Session.startup_s``).
    """

    def __init__(self, opts: SweepOptions, progress: Progress | None = None, invoked_at: float | None = None):
        self.invoked_at = time.monotonic() if invoked_at is None else invoked_at
        try:
            super().__init__(opts, progress)
        except BaseException:  # a refused sweep holds nothing
            if (hold := getattr(self, "_hold", None)) is not None:
                hold.release()
            raise

    def close(self) -> None:
        """Let go of the run folder without running (a Sweep made to read its plan); :meth:`run_all`
        does it when it returns. A second call does nothing."""
        self._hold.release()

    def _settings(self) -> dict[str, Any]:
        """What the run saves of its options (:func:`perf.sweep.resuming.run_settings`), with its design and seed."""
        out = run_settings(self.opts, self.names, self.search.record.mode)
        out["design"] = self.design
        out["time_budget_s"] = self.recorded_budget_s  # before the first round: a resume plans against it
        if self.run.rounds is not None:
            out["seed"] = self.run.rounds.seed
        return out

    def run_all(self) -> RunResult:
        """Sweep every variant; returns the run (also saved in ``run_dir``), its session
        recorded as finished or interrupted (``RunResult.sessions``).

        Raises:
            KeyboardInterrupt: after saving what was measured (the caller reports it).
            PerfError / ServerError: when the server cannot be started at all.
        """
        try:
            try:
                run = self._run_all()
            except KeyboardInterrupt:
                self._end_session("interrupted")
                raise
            self._end_session("finished")
        finally:
            self.close()  # the last save is done: another command may write the folder (run_lock)
        return run

    def _end_session(self, ended: Literal["finished", "interrupted"]) -> None:
        """Record how this session ended, its start-up and time on the budget's clock (``Session``; budget_scope), and save
        the run: whole, a stop that comes meanwhile is raised once it is saved (held_stops; break-it F24's second case)."""
        session = self.run.sessions[-1]
        with held_stops():
            session.ended, session.stopped_by = ended, stop_name() if ended == "interrupted" else session.stopped_by
            if self.clock_started is not None:
                session.startup_s = round(self.clock_started - self.invoked_at, 1)
                session.budget_clock_s = round(time.monotonic() - self.clock_started, 1)
            self._save()

    def _run_all(self) -> RunResult:
        o = self.opts
        if o.resume and not self.nothing_to_measure:  # what it measures further must be the files it measured
            refuse_changed(self.run, self.names, self.repository.path, "resumed measurement", SERVED)
        started = self.clock_started = time.monotonic()  # the time budget's clock (perf.sweep.budget_scope)
        deadline = None if o.time_budget_s is None else started + o.time_budget_s
        if deadline is not None:  # a load waits no longer than the budget (trial 30, F21: 120 s of a 60 s budget)
            self.servers.bound_loads(LoadDeadline(deadline, f"what was left of the {o.time_budget_s:g} s --time-budget"))
        env: dict[str, Any] = {**environment.collect(), "perf_analyzer": {"path": str(self.pa), "version": self.pa_version}}
        self.run.environment.update(cast(Environment, env))
        stamp(self.run)  # the code whose words this session saves (perf.records.provenance)
        self.run.settings = cast(SweepSettings, self._settings())
        own = o.server.runtime == "remote" and not o.server.deploy  # the server's own models: no build of ours
        unread = [n for n in self.names if (v := self.run.variant(n)) is None or v.build_check is None]
        checks = read_checks(self.repository, unread, own)  # the build the sweep measures, recorded (issue 26)
        for name in self.names:
            if self.run.variant(name) is None:
                entry = self.repository.variant(name).entry
                self.run.variants.append(VariantResult(name, entry.params if entry else None))
            vr, plan = self.run.variant(name), self.plans[name]
            if name in checks:  # a resumed run keeps its own (the files it measured are checked unchanged)
                vr.build_check = checks[name]  # type: ignore[union-attr]
            vr.skipped = list(plan.skipped)  # type: ignore[union-attr]
            if plan.skipped:
                log.info("%s: %d asked levels skipped (%s)", name, len(plan.skipped), plan.skipped[0].reason)
        self.search.record.order = self.search.order()
        self._refuse_unfit(started)
        self.reopen()  # a resume that measures: unfinished until this session ends (perf.sweep.final)
        self._save()
        if self.nothing_to_measure:
            if self.finished_before():  # it loads the artifacts: they must be the ones the run measured
                refuse_changed(self.run, self.names, self.repository.path, "baseline filed under the run", LOADED)
                self._baseline(deadline)
            return self.run
        try:
            try:
                self.servers.start_all()
            except ToolkitError as e:  # recorded in the run, so its report says why nothing was measured
                for vr in self.run.variants:
                    if vr.status == "pending" and not vr.levels:
                        vr.status, vr.error = "skipped", f"not measured: the server did not start ({e.message})"
                if not o.resume:  # its log stays for the reason (one the sweep started); the same command starts over
                    where = f"{self.run_dir} keeps the server log, and the same --run-id starts over in it"
                    if o.server.urls:  # none is there: the toolkit did not start it
                        where = f"{not_ours(*o.server.urls)}; the same --run-id starts over in {self.run_dir}"
                    e.hint = (f"{e.hint}; " if e.hint else "") + f"nothing was measured: {where}"
                raise
            if self.design == "rounds":
                self._rounds(started, deadline)
            else:
                self.run_sequential()
            self.run.finished = now()
        finally:
            self._save()
            self.servers.stop()  # a server the toolkit did not start: left with the models it was found with
            self._save()
        self._baseline(deadline)
        return self.run

    def _measurable(self) -> list[str]:
        """The variants the rounds measure, most promising first; the others are failed (an
        unreadable config), skipped (no level fits) or already done (a resumed run's prune)."""
        out = []
        assert self.run.search is not None
        for name in self.run.search.order:
            vr, plan = self._variant(name), self.plans[name]
            kept = self.run.search.decision(name)
            if plan.error:
                self._fail(vr, plan.error)
            elif not plan.levels:
                vr.status, vr.error = (
                    "skipped",
                    "no asked level can run on it: " + "; ".join(sorted({s.reason for s in plan.skipped})),
                )
            elif kept is not None and kept.rule == "pruned" and vr.levels:
                vr.status = "ok"
            else:
                out.append(name)
        return out

    def _fit(self, names: list[str], left: float | None, t: scope.Terms | None = None) -> budgets.Fit:
        """:func:`perf.search.budget.fit` of the rounds of ``names`` into ``left`` seconds, in the
        order of :func:`perf.search.promise.by_measurements` (what the run measured before first), on the run's
        :class:`~perf.sweep.budget_scope.Terms` (``t``, read before this session's budget record replaces the last):
        its prices, its rounds of them and an earlier session's cap (:func:`perf.sweep.budget_scope.choose`)."""
        assert self.run.rounds is not None
        t = t or scope.terms(self.run.rounds, names)
        return scope.choose(t, self.levels, self._planner(names, left, t))

    def _planner(self, names: list[str], left: float | None, t: scope.Terms) -> scope.Plan:
        """:func:`perf.search.budget.fit` of ``names`` into ``left`` seconds at ``t``'s prices, over a ladder after rounds."""
        assert self.run.rounds is not None and self.run.search is not None
        rr, rules = self.run.rounds, self.run.search.rules
        order = promise.by_measurements(names, self.run, self.budget, self._configs())
        args = (self.adaptive, self.keys_per_level(), rr.rules, rules, left)
        baseline = self.opts.baseline and self._baseline_unusable() is None and self._baseline_s
        measured, top = {n for n in names if promise.has_numbers(self.run, n)}, promise.measured_top(self.run, names)
        return lambda ladder, done: budgets.fit(order, ladder, *args, baseline, measured, top, prices=t.prices, done=done)

    def _too_few_rounds(self, names: list[str], fit: budgets.Fit, left: float | None, t: scope.Terms) -> str:
        """The plan line's words for a plan of fewer rounds than a verdict needs (:data:`MIN_ROUNDS`, the paired
        rule's minimum), said up front with the smallest whole-minute ``--time-budget`` whose plan (:meth:`_fit` of
        the same ``names``, after the same set-up) gives them (trial 17, T17-18: "about 3 rounds" started, and only
        the end said "3 of the 6 rounds a verdict needs", 80 s later); ``""`` with enough rounds, no budget, or a
        ``max_rounds`` below the minimum (no budget gives more). After the run's rounds of them (a resume's), the
        rounds it lacks, in the words and at the price of the no-budget resume's advice (trial 29, T29-5)."""
        o, rr = self.opts, self.run.rounds
        if left is None or o.time_budget_s is None or rr is None or fit.rounds + fit.done >= min(MIN_ROUNDS, rr.rules.max_rounds):
            return ""
        if fit.done:
            lack = scope.lacking(t, len(names), self.levels, self.adaptive, self.keys_per_level(), rr)  # cut ones too (F4)
            return (
                f"; with the run's {fit.done}, {fit.done + fit.rounds} of the {MIN_ROUNDS} rounds a verdict needs unless the "
                f"gap is large (the paired rule's minimum): {scope.lacking_words(lack, fit.done, self.run_id)}"
            )
        spent, first = o.time_budget_s - left, int(o.time_budget_s // 60) + 1
        every = len(names)  # a budget whose plan cuts none of them: never fewer seconds than a cut line says they need
        fits = ((m, self._fit(names, m * 60 - spent, t)) for m in range(first, first + 60))
        minutes = next((m for m, f in fits if f.rounds >= MIN_ROUNDS and len(f.variants) >= every), None)
        them = f"them to all {every} variants" if len(fit.variants) < every else "them"  # trial 30, F4
        hint = (f"--resume {self.run_id} " if o.resume else "") + f"--time-budget {minutes}m gives {them}" if minutes else ""
        return (
            f"; fewer than the {MIN_ROUNDS} rounds a verdict needs unless the gap is large (the paired rule's minimum): "
            f"{hint or 'a longer --time-budget gives them'}"
        )

    def _keep_words(self, names: list[str], left: float | None, t: scope.Terms, kept: int | None) -> str:
        """The plan line's words of an earlier session's cap the plan keeps (:func:`perf.sweep.budget_scope.keep_words`)."""
        o = self.opts
        if kept is None or left is None or o.time_budget_s is None:
            return ""
        spent, first = o.time_budget_s - left, int(o.time_budget_s // 60) + 1
        lift = scope.lift_minutes(t, self.levels, lambda s: self._planner(names, s - spent, t)(self.levels, 0), first)
        return scope.keep_words(kept, lift, self.run_id)

    def _refuse_unfit(self, started: float) -> None:
        """A new rounds run whose time budget does not fit one round is refused before anything
        is started or written: its run folder (made empty by :class:`~perf.sweep.context.SweepBase`)
        is taken away again, rather than left with a server log and a results.json of skipped variants.

        Raises:
            FlagError: ``--time-budget``, with the estimate and what to give instead.
        """
        o = self.opts
        if self.design != "rounds" or o.resume or o.time_budget_s is None or self.run.search is None:
            return
        names = [n for n in self.run.search.order if not self.plans[n].error and self.plans[n].levels]
        left = max(0.0, o.time_budget_s - (time.monotonic() - started))
        fit = self._fit(names, left)
        if not names or fit.rounds > 1 or fit.estimate_s <= left:
            return
        raw = self.run_dir / RAW_DIR
        for folder in (raw, self.run_dir):  # only what the sweep made, and only while it is empty
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        gone = "no run folder was left" if not self.run_dir.exists() else f"{self.run_dir} is kept (it was not empty)"
        raise FlagError(
            f"the time budget of {fmt(o.time_budget_s, 0)} s does not fit one round of {count(len(names), 'variant')} "
            f"(estimated {fmt(fit.estimate_s, 0)} s, loads included): nothing was started or measured, and {gone}",
            flag="--time-budget",
            hint=f"give --time-budget {math.ceil(fit.estimate_s)}s or more (or none), or fewer --variants",
        )

    def _rounds(self, started: float, deadline: float | None) -> None:
        """The rounds design: fit the budget, report the estimate, run the rounds, record the time."""
        o, rounds = self.opts, self.run.rounds
        assert rounds is not None and self.run.search is not None
        if self.rounds_ended is not None:  # no more rounds of what it ranked: the final group of its cut variants
            self.run_final(started, deadline)
            return
        names = self._measurable()
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        t = scope.terms(rounds, names)  # before this session's budget record replaces the last
        fit = self._fit(names, left, t)
        kept = scope.kept(t, fit)  # an earlier session's cap: the rounds a verdict lacks first (T29-5)
        self.plan_terms = ([c for c in self.levels if kept is None or c <= kept], t.prices, fit.done)
        self.baseline_keeps, self.baseline_keeps_at = self._keeps_baseline(names, left), (names, left)
        self.baseline_planned_s = fit.baseline_s or None  # the start the plan line says is the one checked
        self.baseline_reserved_s = fit.reserve_s if left is not None else 0.0  # "kept from the budget" (rounds_end)
        old, lifted = rounds.budget, lifted_cap(rounds, fit.cap)  # an earlier session's cap this plan lifts (T21-6)
        rounds.cuts = [c for c in rounds.cuts if c.kind != "rounds"]  # an earlier session's: its rounds go on (T31 F14)
        before = old.spent_s if old is not None else None  # a resumed run's earlier sessions
        sessions = (old.sessions + 1) if old is not None and before is not None else 1
        b = BudgetRecord(
            self.recorded_budget_s, round(fit.visit_s, 3), round(fit.load_s, 2), round(fit.estimate_s, 1), fit.rounds, fit.cap
        )
        first = old.lifted_cap if old is not None and old.lifted_cap is not None else lifted  # the run's first cap lifted
        rounds.budget, b.sessions, b.session_budget_s, b.lifted_cap = b, sessions, o.time_budget_s, first
        b.baseline_s = old.baseline_s if old is not None else None  # an earlier session's baseline, spent (T23-4)
        for cut in fit.cuts:
            rounds.cut(cut)
            if cut.kind == "variant" and cut.variant and not promise.has_numbers(self.run, cut.variant):
                vr = self._variant(cut.variant)
                # the cut's reason already says "not measured: ..."; the status says skipped
                vr.status, vr.error = "skipped", f"cut for time: {cut.reason.removeprefix('not measured: ')}"
            elif cut.kind == "variant" and cut.variant:  # numbers from before: they stand, its status from them
                vr = self._variant(cut.variant)
                vr.status, vr.error = "pending", None
                self._settle(vr)
        text = (
            f"rounds: {count(len(fit.variants), 'variant')}, about {count(fit.rounds, 'round')} of {fit.prices.visit_words()}: "
            f"estimated {fmt(fit.estimate_s, 0)} s"
            + of_budget(o.time_budget_s, left)
            + (
                self._baseline_plan_words(fit)
                + (
                    ""
                    if left is None
                    else ", kept from the budget"
                    if fit.reserve_s
                    else baseline_yields(fit, self.baseline_keeps)
                )
                if fit.baseline_s
                else f"; no in-process baseline: {why}"
                if o.baseline and (why := self._baseline_unusable())
                else ""
            )
            + (
                f"; cut for time: {join_once([(f'{c.variant} ' if c.variant else '') + c.reason for c in fit.cuts])}"
                if fit.cuts
                else ""
            )
            + lift_words(lifted, old, fit.cap or self.levels[-1])
            + self._keep_words(names, left, t, kept)
            + self._too_few_rounds(names, fit, left, t)
            + (scope.plan_words(self._startup_s()) if left is not None else "")
        )
        self.progress({"event": "plan", "text": text, "estimate_s": fit.estimate_s})  # said once (perf.search.events)
        if left is not None and fit.rounds <= 1 and fit.estimate_s > left:  # not one round fits: nothing is loaded
            d = apart(left, fit.estimate_s)  # said apart (trial 19, T19-8)
            why = f"the time budget ({fmt(left, d)} s left) does not fit one round (estimated {fmt(fit.estimate_s, d)} s)"
            rounds.cut(Cut("rounds", f"no round measured: {why}"))
            rounds.end(f"{TIME_SPENT}: {why}", "time")
            for n in fit.variants:
                vr = self._variant(n)
                vr.status, vr.error = "skipped", f"not measured: {why} (a longer --time-budget measures it)"
            log.warning("no round measured: %s", why)
            return
        search = self.run.search
        setup = Setup(self.plans, self.levels, self.adaptive, search.rules, rounds.rules, search.mode, self.budget, fit.cap)
        rounds_end = None if deadline is None else deadline - fit.reserve_s  # the baseline's time kept (budget.fit)
        engine = Rounds(self.run, setup, fit.visit_s, time.monotonic, rounds_end, self._save, self.progress, self.slow_why)
        engine.kept_s = fit.reserve_s if deadline is not None else 0.0  # said beside the rounds' time left
        since = (len(rounds.rounds), len(rounds.groups))  # this session's rounds and groups come after

        record_spent = scope.spent_recorder(rounds, since, time.monotonic, started, before)  # at every save too
        self.record_spent = record_spent
        try:
            self.run_rounds(engine, fit.variants, fit)
        finally:
            record_spent()
            self.record_spent, now_s = None, time.monotonic() - started
            self.progress({"event": "spent", "text": spent_words(rounds, since, now_s, fit.estimate_s, before)})


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
