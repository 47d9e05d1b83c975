"""The coordinate search over combinations: one variant per model, never the whole product.

Steps, each measured in **rounds** (every target of the step once per round, in an order
shuffled with ``random.Random(seed + 1000 * step + round)``, so that background load falls on
every target of a round alike and every comparison is paired within a round):

1. **alone** (unless every model's start is given): every variant of every model, alone on the
   server; each model starts from its best variant alone (:func:`perf.colocate.rules.best_alone`:
   of those that meet its targets, the highest median throughput, or the fewest instances).
2. **move** steps: one model's variants are tried while the others are held (the *held* combination is one of the
   targets). A move is accepted by the objective's rule (:mod:`perf.colocate.rules`): a weighted throughput higher by
   the paired rule (:mod:`perf.analysis.stats.paired`), or fewer instances, with every model still at its targets (p99
   within its own budget, throughput at least the required). A held combination that misses a target gives way to the
   best candidate that meets every one. A model is tried again only after another model moved (its neighbours
   changed); the search ends when every model was tried against the current neighbours without a move.
3. **final**: the pick and each of its variants alone, in the same rounds: what its neighbours
   cost each model.

A step measures ``min_rounds`` rounds (3 by default: the paired rule calls a large, consistent gap from 3; the final
and brute-force steps at least 6, the sign test's fewest), and more (up to ``max_rounds``) only while a candidate that
meets every target is ahead in the median but not yet called, and could still be called in the rounds left (with every
one missing a target, one ahead on closeness: :mod:`perf.colocate.near`). Before each round the time it will take is
estimated from the visits so far; a round that does not fit in the time budget is not measured, and the cut is recorded
(never silent). Nothing here starts a server: the measurement is a :class:`Source` given by the caller, so the same
code runs a real co-location run (:mod:`perf.colocate.run`) and the synthetic test.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from perf.colocate import host, judge, outcome, plan, rules, verdict
from perf.colocate.judge import Combination
from perf.markdown import apart
from perf.records.colocation import ColocationRecord, SearchStep, StepKind, step_number
from perf.records.colocation_measured import ColocationVisit

log = logging.getLogger(__name__)

Events = Callable[[dict[str, Any]], None]


class Source(Protocol):
    """What the search measures with."""

    def prepare(self, step: SearchStep) -> None:
        """Make the step's targets measurable (load what they need), outside every window; each load's and unload's
        seconds appended to ``step.load_s`` and ``step.unload_s`` (what later steps are priced by)."""

    def visit(self, step: int, round_index: int, order: int, combination: Combination) -> ColocationVisit:
        """Measure ``combination`` (one entry: that variant alone) once, every model at the same time.

        A source may also have ``replays(step, round_index) -> bool``: that round is answered from an earlier session
        (:meth:`perf.colocate.resume.ReplaySource.replays`), neither priced nor loaded for."""


class CutForTime(Exception):
    """The next round does not fit in the time budget; ``kind``: the kind of the step it cut (``"final"``, ...)."""

    def __init__(self, text: str, kind: str = ""):
        super().__init__(text)
        self.kind = kind


class CoordinateSearch:
    """Runs the search on ``record`` (its models, rules and seed) with ``source`` (module docstring).

    Args:
        record: The run's record; steps, visits, decisions, the pick and cuts are appended to it.
        source: The measurement.
        time_budget_s: Wall time the search may spend (s); ``None``: no budget.
        starts: Model -> the variant to start from (skips the alone step when every model has one).
        save: Called after every round (writes the record).
        events: Called with progress events (``{"event": "visit"|"decision"|"step", ...}``).
        clock: Monotonic clock (s); the test's is simulated.
        estimate_visit_s: A visit's assumed wall time before any was measured (s) [default: the sweep's
            estimate from the window, :func:`perf.colocate.plan.prices`].
        started: When the session began on ``clock`` (s; its server's start is spent from the time budget)
            [default: now].
        planned: The prices the plan said before the run was priced at (:func:`perf.colocate.plan.prices` of the
            record as it was) [default: the record's prices now]; the first loads timed that change its estimate
            are said as the plan fitted again (:func:`perf.colocate.outcome.refit_words`).
        forecast: What the plan said before the run does to the pass (:func:`perf.colocate.outcome.forecast`)
            [default: none said]; it and each fitting again are said against what ran (:meth:`said_what_ran`).
    """

    def __init__(
        self,
        record: ColocationRecord,
        source: Source,
        time_budget_s: float | None = None,
        starts: Mapping[str, str] | None = None,
        save: Callable[[], None] = lambda: None,
        events: Events = lambda _e: None,
        clock: Callable[[], float] = time.monotonic,
        estimate_visit_s: float | None = None,
        started: float | None = None,
        planned: plan.Prices | None = None,
        forecast: outcome.Forecast | None = None,
    ):
        self.record, self.source, self.budget_s = record, source, time_budget_s
        self.starts = dict(starts or {})
        self.save, self.events, self.clock = save, events, clock
        self.estimate_visit_s = estimate_visit_s
        self.started = clock() if started is None else started
        self.planned = planned or plan.prices(record, estimate_visit_s)
        self.refitted = False  # the plan was fitted again to the session's first loads timed
        #: Each plan prediction of this session: (who said it, what it said the budget does to the pass).
        self.forecasts: list[tuple[str, outcome.Forecast]] = [] if forecast is None else [(outcome.BEFORE, forecast)]
        self.loaded: set[str] = set()  # the variants the source holds after the last step's preparation
        self.measured: set[tuple[tuple[str, str], ...]] = set()
        self.record.combinations_total = 1
        for m in record.models:
            self.record.combinations_total *= len(m.variants)

    # -- the search --------------------------------------------------------------------------

    def run(self) -> dict[str, str] | None:
        """Run every step; returns the pick (also in ``record.pick``), ``None`` when none."""
        try:
            current = self._start()
            current = self._moves(current)
            self._final(current)
            self.said_what_ran(None)
        except CutForTime as cut:
            self.record.cuts.append(str(cut))
            current = self._current_after_cut()
            self.record.pick_reason = f"the time budget ended the search: {cut}; "
            self.said_what_ran(cut)
        self._settle_pick(current)
        verdict.settle(self.record)  # cut before its moves ended: no pick, the leader named (trial 15, T15-10)
        self.record.spent_s = round(self.clock() - self.started, 2)
        self.save()
        return self.record.pick

    def _start(self) -> dict[str, str]:
        models = self.record.models
        if all(m.name in self.starts for m in models):
            for i, m in enumerate(models):
                models[i] = _with_start(m, self.starts[m.name], "given (--start)")
            return {m.name: self.starts[m.name] for m in models}
        targets = [{m.name: v} for m in models for v in m.variants]
        step = self._step("alone", None, {}, targets)
        current: dict[str, str] = {}
        for i, m in enumerate(models):
            if m.name in self.starts:
                variant, why = self.starts[m.name], "given (--start)"
            else:
                variant, why = rules.best_alone(self.record, step, m)
            models[i] = _with_start(m, variant, why)
            current[m.name] = variant
        step.outcome = "start: " + judge.describe(current)
        self.save()
        return current

    def _moves(self, current: dict[str, str]) -> dict[str, str]:
        models = [m for m in self.record.models if len(m.variants) > 1]
        settled: dict[str, tuple[tuple[str, str], ...]] = {}
        while True:
            moved = False
            for m in models:
                context = judge.key({k: v for k, v in current.items() if k != m.name})
                if settled.get(m.name) == context:
                    continue
                new = self._move_step(current, m.name)
                settled[m.name] = context
                if new != current[m.name]:
                    current = {**current, m.name: new}
                    moved = True
            if not moved:
                return current

    def _move_step(self, held: dict[str, str], model: str) -> str:
        variants = self.record.model(model).variants
        targets = [{**held, model: v} for v in variants]
        step = self._step("move", model, held, targets)
        decisions = rules.decide(self.record, step, held, model)
        self.record.decisions.extend(decisions)
        for d in decisions:
            self.events({"event": "decision", "decision": d})
        chosen = next((d.candidate for d in decisions if d.accepted), held[model])
        step.outcome = f"{model}: " + (f"moved to {chosen}" if chosen != held[model] else f"kept {held[model]}")
        self.save()
        return chosen

    def _final(self, current: dict[str, str]) -> None:
        targets = [dict(current)] + [{m: v} for m, v in current.items()]
        step = self._step("final", None, current, targets, extend=False)
        step.outcome = "the pick and each of its variants alone, in the same rounds"
        self.save()

    def _current_after_cut(self) -> dict[str, str]:
        """The combination held when the budget ended the search (the last step's held one, or the starts)."""
        for step in reversed(self.record.steps):
            if step.held:
                return dict(step.held)
        return {m.name: m.start or m.variants[0] for m in self.record.models}

    def _settle_pick(self, current: dict[str, str]) -> None:
        """``record.pick`` and its reason from the last measurement of ``current`` (:func:`perf.colocate.rules.pick_reason`)."""
        rec = self.record
        rec.combinations_measured = len(self.measured)
        # the last step that measured it: a step cut before its first round has no numbers of it (trial 12, F7)
        last = next(
            (s for s in reversed(rec.steps) if s.rounds and any(judge.key(t) == judge.key(current) for t in s.targets)), None
        )
        if last is None:
            rec.pick, rec.pick_reason = None, rec.pick_reason + "no combination was measured"
            return
        missed = judge.misses(rec.visits, last.index, current, last.rounds, rec.models, cores=host.cores(rec))
        rec.pick, why = rules.pick_reason(rec, current, missed)
        rec.pick_reason += why

    # -- rounds ------------------------------------------------------------------------------

    def _step(
        self, kind: StepKind, model: str | None, held: Mapping[str, str], targets: list[dict[str, str]], extend: bool = True
    ) -> SearchStep:
        """Measure ``targets`` in rounds as one step (appended to the record)."""
        step = SearchStep(index=len(self.record.steps), kind=kind, model=model, held=dict(held), targets=targets)
        self.record.steps.append(step)
        needed = {v for t in targets for v in t.values()}
        replayed = self._replays(step, 0)  # answered from an earlier session: no time, no loads (trial 18, T18-6)
        if not replayed:  # what the source loads for it (the others it holds already) and unloads (trial 15, T15-10)
            self._fit(step, len(targets), *self._loads(needed))  # none for a step whose first round cannot fit (trial 12, F7)
        timed = self._timed()
        self.source.prepare(step)
        if not replayed:
            self._timed_here(step, timed)
            self.loaded = needed
        self._over("loads", step)
        self.events({"event": "step", "step": step})
        while step.rounds < self.record.max_rounds:
            if step.rounds >= self._min_rounds(kind) and not (extend and rules.undecided(self.record, step)):
                break
            replayed = self._replays(step, step.rounds)
            if not replayed and self.loaded != needed:  # its loads wait for its first round measured (a resumed run's)
                self._fit(step, len(targets), *self._loads(needed))
                self.loaded = needed
            elif not replayed:
                self._fit(step, len(targets))
            timed = self._timed()
            self._round(step)
            if not replayed:
                self._timed_here(step, timed)
            self._over(f"round {step.rounds}", step)
        return step

    def _replays(self, step: SearchStep, round_index: int) -> bool:
        """Whether the source answers round ``round_index`` of ``step`` from an earlier session
        (:meth:`perf.colocate.resume.ReplaySource.replays`): it costs no time and loads nothing, so no time check prices
        it, and its copied load times are not this session's (trial 18, T18-6: a resumed run priced its replayed steps
        and said step 3 "will be cut, leaving no pick", then measured step 3 and picked)."""
        replays = getattr(self.source, "replays", None)
        return bool(replays is not None and replays(step, round_index))

    def _loads(self, needed: set[str]) -> tuple[int, int]:
        """How many variants the source loads and unloads to hold ``needed`` after what it holds now."""
        return len(needed - self.loaded), len(self.loaded - needed)

    def _timed(self) -> int:
        """The loads and unloads the record's steps hold timed."""
        return sum(len(s.load_s) + len(s.unload_s) for s in self.record.steps)

    def _timed_here(self, step: SearchStep, before: int) -> None:
        """After the source measured (prepared or visited) for ``step``: the first time this session timed loads
        (more than the ``before`` the record held), the plan fitted again (:meth:`_refit`)."""
        if not self.refitted and self._timed() > before:
            self.refitted = True
            self._refit(step)

    def _min_rounds(self, kind: StepKind) -> int:
        return plan.min_rounds_of(self.record, kind)

    def _round(self, step: SearchStep) -> None:
        order = list(range(len(step.targets)))
        random.Random(self.record.seed + 1000 * step.index + step.rounds).shuffle(order)
        for place, i in enumerate(order):
            combo = step.targets[i]
            visit = self.source.visit(step.index, step.rounds, place, combo)
            self.record.visits.append(visit)
            if len(combo) > 1:
                self.measured.add(judge.key(combo))
            self.events({"event": "visit", "visit": visit})
        step.rounds += 1
        self.save()

    def _fit(self, step: SearchStep, visits: int, loads: int | None = None, unloads: int = 0) -> None:
        """Raise :class:`CutForTime` when a round of ``visits`` visits does not fit in the budget; before a
        step's ``loads`` and ``unloads`` (how many variants it loads and unloads; ``None``: after them), those
        and the round after them; always keeping the server's stop at the end. Each priced by
        :func:`perf.colocate.plan.prices` (a load by the sweep's one rule). Trial 12, F7: a step's loads were not
        counted, and a run of a 2m budget went 21 s over it, loading a step it then cut; issue 26: the first
        step's loads were counted as 0 s; trial 15, T15-10: the search spent its whole budget and the server's
        stop (4 s) took the run over it; a step's unloads were not priced."""
        if self.budget_s is None:
            return
        p = plan.prices(self.record, self.estimate_visit_s)
        load_s = (loads or 0) * p.load_s + unloads * p.unload_s
        need = load_s + p.visit_s * visits
        spent = self.clock() - self.started
        if spent + need + p.stop_s > self.budget_s:
            left = max(0.0, self.budget_s - spent)
            usable = max(0.0, left - p.stop_s)
            # the need against what the stop leaves, and the left beside it, each told apart (re-check 19: "≈5 s needed,
            # 5 s left of 70 s, 4.5 s of it kept for the server's stop"; perf.markdown.apart, as the sweep's cut lines)
            # and at least the stop's decimals, so that left less the stop is the usable printed
            d = max(apart(need, usable), apart(need, left), len(f"{p.stop_s:g}".partition(".")[2]))
            raise CutForTime(
                f"step {step_number(step.index)} ({step.kind}{' ' + step.model if step.model else ''}): "
                + ("not started" if loads is not None and not step.rounds else f"round {step.rounds + 1} and later not measured")
                + f" (≈{need:.{d}f} s needed{', its loads included' if load_s else ''}, {usable:.{d}f} s usable: "
                f"{left:.{d}f} s left of {self.budget_s:.0f} s less {p.stop_s:g} s kept for the server's stop)",
                step.kind,
            )

    def _refit(self, step: SearchStep) -> None:
        """After the session's first loads or unloads timed: the rest of the pass, from ``step`` (its loads done),
        priced by them against the prices it was planned at; said, recorded and logged where that changes the
        estimate (:func:`perf.colocate.outcome.refit_words`; recheck of trial 16, R16-4)."""
        brute = any(s.kind == "brute" for s in self.record.steps)
        rest = plan.planned_steps(self.record, self.starts, brute)
        if rest and rest[0].index == step.index:
            rest[0] = dataclasses.replace(rest[0], loads=0, unloads=0)
        elapsed = self.clock() - self.started
        left = None if self.budget_s is None else self.budget_s - elapsed
        now = plan.prices(self.record, self.estimate_visit_s)
        words = outcome.refit_words(rest, self.planned, now, elapsed, left)
        if words is None:
            return
        self.record.refits.append(f"step {step_number(step.index)}: {words}")
        fitted = outcome.forecast(outcome.refit_estimate(rest, now, left))
        self.forecasts.append((f"step {step_number(step.index)}'s fitting again", fitted))
        log.info("%s", words)
        self.events({"event": "plan", "text": words})

    def said_what_ran(self, cut: CutForTime | None) -> None:
        """The session's search ended (``cut``: by the time budget): what ran beside each plan prediction of the session
        (:func:`perf.colocate.outcome.ran_words`), recorded with the plan's fittings again, said and logged."""
        ran = "whole" if cut is None else "final" if cut.kind == "final" else "undecided"
        if (words := outcome.ran_words(self.forecasts, ran, self.clock() - self.started)) is not None:
            self.record.refits.append(words)
            log.info("%s", words)
            self.events({"event": "plan", "text": words})

    def _over(self, doing: str, step: SearchStep) -> None:
        """Say it when the search has passed its time budget (``doing`` passed it), when it happens."""
        over = self.clock() - self.started - (self.budget_s or 0.0)
        if self.budget_s is not None and over > 0:
            log.warning(
                "time budget passed: step %d's %s took the search %.0f s over its %.0f s",
                step_number(step.index),
                doing,
                over,
                self.budget_s,
            )


def _with_start(m: Any, variant: str, why: str) -> Any:
    """``m`` (a :class:`perf.records.colocation.ColocatedModel`) with its start set."""
    return dataclasses.replace(m, start=variant, start_reason=why)
