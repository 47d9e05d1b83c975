"""A resumed rounds run whose rounds had ended (trial 13, T13-5), decided before anything is started.

Its rounds had ended when the run finished them (``finished`` recorded; rounds its time budget ended go on when the
resume gives a new ``--time-budget`` and the rule below has not ended them: :attr:`ResumedRounds.given_more_time`) or when the rule that ends a
group's rounds (:func:`perf.search.ending.ends.ended_before`: decided, or ``max_rounds``) says so of
the variants it ranked, as after a Ctrl-C between the last round and the end of the run. Such a run
gets no more rounds of them (its ranking was decided on the rounds it has); the variants without
numbers (cut for time) are planned as after any rounds (:func:`perf.search.late.late`, from the
run's measured visit and load times, within this session's time budget): those that fit meet the
tie set in a final group, measured in rounds of its own; the others' cuts give the numbers. When none
fits, nothing is loaded and no server starts (:attr:`ResumedRounds.nothing_to_measure`). The resume's
first line says this same plan (:func:`perf.sweep.opening.resume_line`).

A final group is recorded as under way (:attr:`perf.records.rounds.RoundsRecord.late`) before its first load, here
and after a fresh sweep's rounds (:meth:`perf.sweep.rounds.RoundsSweep._late`), and taken away when its rounds end; a
resume that measures into a finished run takes its ``finished`` away first (:meth:`ResumedRounds.reopen`). A stop at
any point of it (Ctrl-C, SIGTERM) so leaves a run that did not finish, its late variants part-measured (report.md and
``export-deployment`` say so), whose ``--resume`` measures that final group again, its rounds so far counted (break-it
F23: the stopped group was lost: "no round (its rounds had ended ...)", and the run read as finished).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time

from core.wording import count
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.recommendation import cuts as cut_advice
from perf.records.results import VariantResult
from perf.records.rounds import BudgetRecord, Cut, EndedBy, LateGroup
from perf.search import budget as budgets
from perf.search import promise
from perf.search.ending.ends import ended_before, ending_before, start_ladders
from perf.search.ending.tie import tie_set
from perf.search.late import Final, Late, late
from perf.search.rounds import Rounds, Setup
from perf.sweep import budget_scope as scope
from perf.sweep import load_cuts
from perf.sweep.budget_scope import spent_words
from perf.sweep.opening import cut_words
from perf.sweep.resuming import baseline_missing
from perf.sweep.rounds import NO_LEVEL, RoundsSweep
from perf.sweep.server import now


class ResumedRounds(RoundsSweep):
    """The ended rounds of a resumed run (module docstring)."""

    def _engine(self, deadline: float | None = None) -> Rounds:
        """The rounds scheduler of this run's plans and rules (capped where its plan capped the ladder)."""
        rr, search = self.run.rounds, self.run.search
        assert rr is not None and search is not None
        cap = rr.budget.max_concurrency if rr.budget is not None else None
        setup = Setup(self.plans, self.levels, self.adaptive, search.rules, rr.rules, search.mode, self.budget, cap)
        return Rounds(self.run, setup, self._visit_s(), self.clock, deadline, self._save, self.progress, self.slow_why)

    def clock(self) -> float:
        """The time budget's clock (s, monotonic)."""
        return time.monotonic()

    def _plannable(self) -> list[str]:
        """The variants a round could measure, most promising first (failed ones and those without levels left out)."""
        assert self.run.search is not None
        names = [n for n in self.run.search.order if n in self.plans and not self.plans[n].error and self.plans[n].levels]
        names = [n for n in names if (vr := self.run.variant(n)) is None or vr.status != "failed" or stopped_as_failed(vr)]
        return promise.by_measurements(names, self.run, self.budget, {n: p.config for n, p in self.plans.items()})

    def ranked_names(self) -> list[str]:
        """The variants the run's rounds ranked: those with numbers, most promising first; not those a final group
        measures further (:meth:`measured_further`)."""
        again = self.measured_further()
        return [n for n in self._plannable() if promise.has_numbers(self.run, n) and n not in again]

    def measured_further(self) -> set[str]:
        """Cut variants with numbers that a final group measures further: those of a final group stopped before its
        rounds ended (:attr:`perf.records.rounds.RoundsRecord.late`), and those a final group's price cut after the
        rounds (a ``final`` cut: its words say ``--resume RUN --time-budget ...`` measures them further; that resume
        measured nothing)."""
        rr = self.run.rounds
        if rr is None:
            return set()
        last = {c.variant: c for c in rr.cuts if c.kind == "variant" and c.variant}
        late = set(rr.late.variants if rr.late else [])
        if any(g.ended and late <= set(g.variants) for g in rr.groups):  # its rounds had ended: stopped in its unloads
            late = set()
        # with numbers only: one cut before any (or stopped in the final group's loads, trial 23, T23-4) is not measured
        return {n for n in late | {n for n, c in last.items() if c.final} if promise.has_numbers(self.run, n)}

    @property
    def rounds_ended(self) -> str | None:
        """Why a resumed rounds run's rounds had ended (module docstring); ``None`` while they go on."""
        return self.rounds_ending[0] if self.rounds_ending is not None else None

    @functools.cached_property
    def rounds_ending(self) -> tuple[str, EndedBy | None] | None:
        """:attr:`rounds_ended`, and what ended them (:data:`~perf.records.rounds.EndedBy`; ``None``: not known)."""
        rr = self.run.rounds
        if not self.opts.resume or rr is None or self.run.search is None:
            return None
        if rr.late is not None:  # a final group stopped: its end if its rounds had ended, else that of the rounds before
            held = set(rr.late.variants)
            own = next((g for g in rr.groups if g.ended and held <= set(g.variants)), None)
            if own is not None and own.ended:
                return own.ended, own.ended_by
            return (rr.late.after, rr.late.after_by) if rr.late.after else ("they had ended before its final group", None)
        if self.run.finished is not None and not self.given_more_time:
            return (rr.ended, rr.ended_by) if rr.ended else ("the run had finished them", None)
        ranked = self.ranked_names()  # not decided by its rounds (nor ended at max_rounds): they go on (s22z, Z-14)
        end = ending_before(self._engine(), ranked) if ranked else None
        return (end.words, end.by) if end is not None else None

    @property
    def given_more_time(self) -> bool:
        """A resume given a new ``--time-budget`` of a run whose rounds its time budget ended (:meth:`~perf.records.rounds.RoundsRecord.by_time`), not a
        decision: they go on where the rule that ends a group's rounds has not ended them (s22z, Z-14: refused, "this
        resume measures nothing", its 4 of the 6 rounds a verdict needs thrown away for a new run)."""
        rr = self.run.rounds
        return self.budget_given_again and rr is not None and rr.by_time()

    def more_time_words(self) -> str | None:
        """What gives a finished run more rounds where its time budget ended them (:meth:`~perf.records.rounds.RoundsRecord.by_time`) and the rule
        has not (:func:`ended_before`): ``"`--resume RUN --time-budget 2m` gives its rounds the 2 of the 6 a verdict
        needs (about 70 s: the loads and rounds as measured; ...)"``; ``None`` for rounds that ended otherwise, or a
        resume given a new budget (s22z, Z-14: "a new --run-id measures again" threw its rounds away)."""
        rr, ranked = self.run.rounds, self.ranked_names()
        if rr is None or self.given_more_time or not rr.by_time() or not ranked:
            return None
        if ended_before(self._engine(), ranked) is not None:
            return None
        t = scope.terms(rr, ranked)  # priced as the resume's plan prices them, its hint the same words (T29-5)
        lack = scope.lacking(t, len(ranked), self.levels, self.adaptive, self.keys_per_level(), rr)
        return scope.lacking_words(lack, t.done, self.run_id)

    def _visit_s(self) -> float:
        """One visit's time (s): the mean of the run's measured visits, else the plan's estimate (``scope.run_prices``)."""
        assert self.run.rounds is not None
        return scope.run_prices(self.run.rounds).visit_s

    def _load_s(self) -> float:
        """One variant's load time (s): the run's measured group loads per variant, else the plan's estimate."""
        assert self.run.rounds is not None
        return scope.run_prices(self.run.rounds).load_s

    @functools.cached_property
    def final_group(self) -> Final | None:
        """What the final group of a run whose rounds had ended is priced on (:func:`perf.search.late.late`'s
        arguments but the times): its variants without numbers, most promising first, and the tie set;
        ``None`` when its rounds go on."""
        if self.rounds_ended is None:
            return None
        assert self.run.rounds is not None and self.run.search is not None
        engine, ranked, tie = self._engine(), self.ranked_names(), self.final_tie
        start_ladders(engine, tie)
        todo = [n for n in self._plannable() if n not in ranked]
        rr, cap = self.run.rounds, engine.setup.cap
        ladder = [c for c in self.levels if cap is None or c <= cap]
        per_round = budgets.levels_by_round(ladder, self.adaptive, rr.rules, max(rr.rules.max_rounds, MIN_ROUNDS))
        before = frozenset(n for n in todo if promise.has_numbers(self.run, n))  # a stopped final group's: part-measured
        done = tuple(len(rr.rounds_of([*tie, *todo[: k + 1]])) for k in range(len(todo))) if before else ()
        return Final(todo, tie, len(engine.visits(tie, 0)), [n * self.keys_per_level() for n in per_round], before, done)

    @functools.cached_property
    def final(self) -> Late | None:
        """The final group of a run whose rounds had ended: its variants without numbers that fit this
        session's time budget with the tie set (:func:`perf.search.late.late`); ``None`` when its rounds go on."""
        if (group := self.final_group) is None:
            return None
        assert self.run.rounds is not None
        left = math.inf if self.opts.time_budget_s is None else self.opts.time_budget_s
        unload = load_cuts.unload_s(load_cuts.recorded_unload_times(self.run.rounds.groups))  # the run's, measured
        load, visit = self._load_s(), self._visit_s()
        args = (load, visit, left, unload, group.measured)
        return late(group.variants, group.tie, group.tie_visits, group.visits, *args, done=group.done)

    @functools.cached_property
    def final_tie(self) -> list[str]:
        """The tie set the final group measures again: the one the rounds recorded when they ended (their last
        group's), else that of the variants they ranked by the rule (:func:`perf.search.ending.tie.tie_set`)."""
        engine, ranked = self._engine(), self.ranked_names()
        assert self.run.rounds is not None
        kept = next((g.tie_set for g in reversed(self.run.rounds.groups) if g.ended and g.tie_set), [])
        kept = self.run.rounds.late.tie if self.run.rounds.late is not None else kept  # a stopped final group's
        if any(n in ranked for n in kept):
            return [n for n in kept if n in ranked]
        start_ladders(engine, ranked)
        return tie_set(engine, engine.contenders(ranked)) if ranked else []

    @property
    def nothing_to_measure(self) -> bool:
        """A resumed run with nothing left to send: a rounds run whose rounds had ended and whose variants
        without numbers fit no final group (:attr:`final`), or a sequential run whose every planned level has
        numbers. Such a run starts no server; only a missing in-process baseline is measured."""
        if self.rounds_ended is not None:
            return not (self.final is not None and self.final.variants)
        if not self.opts.resume or self.design != "sequential":
            return False
        planned, done = self.level_counts()
        return planned == done

    def finished_before(self) -> bool:
        """A resumed run with nothing left to measure (:attr:`nothing_to_measure`), recorded, saved and said: no server
        is started, no round is added to a decided ranking (its verdicts rest on the rounds it had); returns whether an
        in-process baseline it was stopped before is owed (the sweep measures it within this session's time budget,
        :meth:`perf.sweep.baseline_step.BaselineStep._baseline`'s start and stop rule)."""
        kept = self.run.rounds is not None and self.run.finished is not None  # its recorded cuts stand
        if kept and self.run.rounds is not None:
            done = f"finished its rounds at {self.run.finished}" + (
                f" ({self.run.rounds.ended})" if self.run.rounds.ended else ""
            )
        elif self.run.rounds is not None:  # stopped after its rounds had ended (module docstring)
            done = f"had ended its rounds ({self.rounds_ended})"
            self.run.rounds.end(*(self.rounds_ending or (None, None)))
            self.run.finished = now()
            for n in self.ranked_names():
                self._settle(self._variant(n))
        else:
            done = "has numbers for every planned level"
            self.run.finished = self.run.finished or now()
            self._save()
        if not kept:  # its variants without numbers: the time budget fits no final group of them
            self.record_final_cuts()
        cuts = self.final.cuts if self.final is not None else []
        self._save()
        missing = baseline_missing(self.run, self.opts)
        more = self.more_time_words() or self.final_group_words(cuts)  # what a resume given the time measures (Z-14, T31 F4)
        # a baseline it owes is measured now, said first: "nothing more" beside it read as a contradiction (T31 F7)
        owed = ": its in-process baseline is measured now, and" if missing else ":"
        end = f"{owed} nothing more is measured into it ({more or 'a new --run-id measures again'})"
        # a listener that printed the resume line (perf.sweep.opening), which says why and the cuts, says it short (T18-13)
        text, short = f"run {self.run_id} {done}{end}", f"run {self.run_id} {done.split(' (', 1)[0]}{end}"
        if cuts and kept:  # what it finished with is kept; this session's finding is said beside it
            kept_words = f"its {count(len(cuts), 'variant')} cut for time keep the reasons recorded when it finished"
            text += f"; {kept_words}; within this session's time budget: {cut_words(cuts)}"
            short += f"; {kept_words} (this session's: the resume line above)"
        elif cuts:
            text += f"; {cut_words(cuts)}"
            short += f"; {count(len(cuts), 'variant')} cut for time (the resume line above)"
        self.progress({"event": "plan", "text": text, "after_opening": short, "estimate_s": 0.0})
        return missing

    def final_group_words(self, cuts: list[Cut]) -> str | None:
        """The resume that measures the variants this session's time budget ``cuts`` from the final group, at their price
        (the last cut's: the group of them all): ``"`--resume r2 --time-budget 2m` measures them (in a final group with
        the tie set: about 79 s ...)"``; ``None`` for none (trial 31, F4: a no-budget resume of a run with 2 cut
        variants said "nothing more is measured into it (a new --run-id measures again)", and the next command,
        ``--resume r2 --time-budget 2m``, measured both into it)."""
        need = max((c.need_s for c in cuts if c.need_s is not None), default=None)
        if need is None:
            return None
        them = "them" if len(cuts) > 1 else "it"
        return cut_advice.budget_words(need, them, self.run_id, cut_advice.failed_budget_s(self.run))

    def record_final_cuts(self) -> None:
        """The variants without numbers the final group leaves out, cut with the numbers they were judged on."""
        rr, late = self.run.rounds, self.final
        if rr is None or late is None:
            return
        out = {c.variant for c in late.cuts} | set(late.variants)
        rr.cuts = [c for c in rr.cuts if not (c.kind == "variant" and c.variant in out)]
        for c in late.cuts:
            rr.cut(c)
            vr = self._variant(c.variant or "")
            if promise.has_numbers(self.run, vr.name):  # a stopped final group's: its numbers stand, said as cut
                vr.status, vr.error = "pending", None
                self._settle(vr)
                continue
            vr.status, vr.error = "skipped", f"cut for time: {c.reason.removeprefix('not measured: ')}"
        if not late.variants:  # a stopped final group this session's time budget fits no more: cut, with its numbers
            rr.late = None

    def begin_late(self, variants: list[str], tie: list[str]) -> None:
        """The final group of ``variants`` and the ``tie`` set, after rounds that ended so (:attr:`rounds_ending`),
        recorded as under way and saved before its first load (:attr:`perf.records.rounds.RoundsRecord.late`, module
        docstring)."""
        assert self.run.rounds is not None
        after, by = self.rounds_ending or ("", None)
        self.run.rounds.late = LateGroup(list(variants), list(tie), after, by)
        self._save()

    def reopen(self) -> None:
        """A resume that measures into its run (not :attr:`nothing_to_measure`), before anything is loaded and saved:
        the final group it measures is recorded as under way (:meth:`begin_late`), and a finished run is unfinished
        until this session ends (``finished`` taken away): a stop meanwhile is never read as a finished run (module
        docstring). Nothing for a new run, or a resume that measures nothing."""
        if not self.opts.resume or self.nothing_to_measure:
            return
        if self.final is not None and self.final.variants:
            for vr in filter(stopped_as_failed, map(self._variant, self.final.variants)):  # measured now (T23-4)
                vr.status, vr.error = "pending", None
            self.begin_late(self.final.variants, self.final_tie)
        self.run.finished = None
        self._save()

    def run_final(self, started: float, deadline: float | None) -> None:
        """This session's only rounds: the final group of :attr:`final` (module docstring), its time recorded."""
        rr, late = self.run.rounds, self.final
        assert rr is not None and late is not None and late.variants
        before = rr.budget.spent_s if rr.budget is not None else None
        sessions = (rr.budget.sessions + 1) if rr.budget is not None and before is not None else 1
        cap = rr.budget.max_concurrency if rr.budget is not None else None
        lifted = rr.budget.lifted_cap if rr.budget is not None else None  # a cap an earlier resume lifted stays lifted
        rr.budget = BudgetRecord(
            self.recorded_budget_s,
            round(self._visit_s(), 3),
            round(self._load_s(), 2),
            round(late.estimate_s, 1),
            MIN_ROUNDS,
            cap,
            baseline_s=rr.budget.baseline_s if rr.budget is not None else None,  # spent: the run's own budget counts it
        )
        rr.budget.sessions, rr.budget.session_budget_s, rr.budget.lifted_cap = sessions, self.opts.time_budget_s, lifted
        self.record_final_cuts()
        tie = self.final_tie
        text = f"rounds: no more rounds of the {count(len(self.ranked_names()), 'ranked variant')} ({self.rounds_ended}); {late.reason}"
        text += scope.plan_words(self._startup_s()) if deadline is not None else ""
        self.progress({"event": "plan", "text": text, "estimate_s": late.estimate_s})  # said once (perf.search.events)
        engine = self._engine(deadline)
        self.start_session(None, refitted=True)
        assert self.final_group is not None  # its loads priced as the group was (perf.sweep.load_cuts.fit_final)
        self._final = dataclasses.replace(self.final_group, variants=late.variants)
        since = (len(rr.rounds), len(rr.groups))

        record_spent = scope.spent_recorder(rr, since, self.clock, started, before)  # at every save too
        self.record_spent = record_spent
        self.begin_late(late.variants, tie)
        try:
            self._groups(engine, [*tie, *late.variants], late.reason)
            rr.late = None  # its rounds ended: no longer under way
        finally:
            for n in [*self.ranked_names(), *(late.variants if rr.late is None else [])]:  # stopped: part-measured
                self._settle(self._variant(n))
            record_spent()
            self.record_spent, now_s = None, self.clock() - started
            self.progress({"event": "spent", "text": spent_words(rr, since, now_s, late.estimate_s, before)})


def stopped_as_failed(vr: VariantResult) -> bool:
    """A variant recorded ``failed`` with no level at all and no words but :data:`perf.sweep.rounds.NO_LEVEL`: never
    visited. An earlier version recorded so the variants of a resume's final group stopped in its loads (trial 23,
    T23-4: "failed: no level produced a measurement", and every later resume measured nothing); a resume measures it
    as the cut variant it was (:meth:`ResumedRounds._plannable`, :meth:`ResumedRounds.reopen`)."""
    return vr.status == "failed" and not vr.levels and vr.error == NO_LEVEL
