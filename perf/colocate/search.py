"""The coordinate search over combinations: one variant per model, never the whole product.

Steps, each measured in **rounds** (every target of the step once per round, in an order
shuffled with ``random.Random(seed + 1000 * step + round)``, so that background load falls on
every target of a round alike and every comparison is paired within a round):

1. **alone** (unless every model's start is given): every variant of every model, alone on the
   server; each model starts from its best variant alone: the highest median throughput among
   those whose median p99 is within the latency budget (none within it: the lowest p99).
2. **move** steps: one model's variants are tried while the others are held (the *held*
   combination is one of the targets). A move is accepted only when the paired rule
   (:mod:`perf.analysis.paired`: sign test at 5 %, at least 6 rounds) says the candidate's
   weighted throughput is higher than the held combination's and every model's median p99 is
   still within the budget; of several such moves, the one with the highest median ratio. A
   held combination over the budget gives way to the best candidate within it. A model is tried
   again only after another model moved (its neighbours changed); the search ends when every
   model was tried against the current neighbours without a move.
3. **final**: the pick and each of its variants alone, in the same rounds: what its neighbours
   cost each model.

A step measures ``min_rounds`` rounds, and more (up to ``max_rounds``) only while a candidate
within budget is ahead in the median but not yet called, and could still be called in the rounds
left. Before each round the time it will take is estimated from the visits so far; a round that
does not fit in the time budget is not measured, and the cut is recorded (never silent).

Nothing here starts a server: the measurement is a :class:`Source` given by the caller, so the
same code runs a real co-location run (:mod:`perf.colocate.run`) and the synthetic test.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from perf.analysis.paired import ALPHA, sign_test_p
from perf.colocate import judge
from perf.colocate.judge import Combination
from perf.records.colocation import ColocationRecord, ColocationVisit, MoveDecision, SearchStep, StepKind

log = logging.getLogger(__name__)

Events = Callable[[dict[str, Any]], None]


class Source(Protocol):
    """What the search measures with."""

    def prepare(self, step: SearchStep) -> None:
        """Make the step's targets measurable (load what they need), outside every window."""

    def visit(self, step: int, round_index: int, order: int, combination: Combination) -> ColocationVisit:
        """Measure ``combination`` (one entry: that variant alone) once, every model at the same time."""


class CutForTime(Exception):
    """The next round does not fit in the time budget."""


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
        estimate_visit_s: A visit's assumed wall time before any was measured (s).
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
        estimate_visit_s: float = 2.0,
    ):
        self.record, self.source, self.budget_s = record, source, time_budget_s
        self.starts = dict(starts or {})
        self.save, self.events, self.clock = save, events, clock
        self.estimate_visit_s = estimate_visit_s
        self.started = clock()
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
        except CutForTime as cut:
            self.record.cuts.append(str(cut))
            current = self._current_after_cut()
            self.record.pick_reason = f"the time budget ended the search: {cut}; "
        self._settle_pick(current)
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
                variant, why = self._best_alone(step, m.variants, m.name)
            models[i] = _with_start(m, variant, why)
            current[m.name] = variant
        step.outcome = "start: " + judge.describe(current)
        self.save()
        return current

    def _best_alone(self, step: SearchStep, variants: list[str], model: str) -> tuple[str, str]:
        """The model's start: best median throughput alone within budget (none within: lowest p99)."""
        rows = []
        for v in variants:
            combo = {model: v}
            thr = judge.median(
                judge.model_series(self.record.visits, step.index, combo, step.rounds, model, "throughput_infer_per_s")
            )
            p99 = judge.median(judge.model_series(self.record.visits, step.index, combo, step.rounds, model, "latency_p99_ms"))
            rows.append((v, thr, p99))
        budget = self.record.model(model).latency_budget_ms
        ok = [r for r in rows if r[1] is not None and r[2] is not None and (budget is None or r[2] <= budget)]
        if ok:
            v, thr, p99 = max(ok, key=lambda r: r[1] or 0.0)
            return v, f"best alone: {thr:,.0f} infer/s median, p99 {p99:.3g} ms" + (f" (within {budget:g} ms)" if budget else "")
        measured = [r for r in rows if r[2] is not None]
        if measured:
            v, _thr, p99 = min(measured, key=lambda r: r[2] or 0.0)
            return v, f"no variant within the budget alone; the lowest p99 alone ({p99:.3g} ms)"
        return variants[0], "no variant measured alone; the first variant"

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
        decisions = self._judge(step, held, model, variants)
        self.record.decisions.extend(decisions)
        for d in decisions:
            self.events({"event": "decision", "decision": d})
        chosen = next((d.candidate for d in decisions if d.accepted), held[model])
        step.outcome = f"{model}: " + (f"moved to {chosen}" if chosen != held[model] else f"kept {held[model]}")
        self.save()
        return chosen

    def _judge(self, step: SearchStep, held: dict[str, str], model: str, variants: list[str]) -> list[MoveDecision]:
        """One decision per candidate of the step (module docstring's rule)."""
        visits, n, models = self.record.visits, step.rounds, self.record.models
        held_over = judge.over_budget(visits, step.index, held, n, models)
        rows = []
        for v in variants:
            if v == held[model]:
                continue
            cand = {**held, model: v}
            rows.append(
                (
                    v,
                    judge.compare(visits, step.index, cand, held, n, self.record.models),
                    judge.over_budget(visits, step.index, cand, n, models),
                )
            )
        if held_over:
            eligible = [r for r in rows if not r[2] and r[1] is not None]
        else:
            eligible = [r for r in rows if not r[2] and r[1] is not None and r[1].verdict == "higher"]
        best = max(eligible, key=lambda r: r[1].median if r[1] else 0.0, default=None)
        closer = None if best is not None or not held_over else self._closer(step, held, model, variants)
        out = []
        for v, p, over in rows:
            accepted = v == (best[0] if best is not None else closer)
            reason = _reason(v, p, over, held_over, accepted, best[0] if best else None)
            out.append(
                MoveDecision(
                    step=step.index,
                    model=model,
                    held=dict(held),
                    candidate=v,
                    ratio=None if p is None else round(p.median, 4),
                    low=None if p is None else round(p.low, 4),
                    high=None if p is None else round(p.high, 4),
                    wins=0 if p is None else p.wins,
                    rounds=0 if p is None else p.rounds,
                    p_value=None if p is None else round(p.p_value, 4),
                    verdict="not measured" if p is None else p.verdict,
                    within_budget=not over,
                    accepted=accepted,
                    reason=reason,
                )
            )
        return out

    def _closer(self, step: SearchStep, held: dict[str, str], model: str, variants: list[str]) -> str | None:
        """With the held combination and every candidate over the budget: the candidate whose
        worst model is nearest its budget, when nearer than the held one's (``None``: none)."""
        visits, n, models = self.record.visits, step.rounds, self.record.models
        start = judge.worst_ratio(visits, step.index, held, n, models)
        scored = [(judge.worst_ratio(visits, step.index, {**held, model: v}, n, models), v) for v in variants if v != held[model]]
        best = min(((r, v) for r, v in scored if r is not None), default=None)
        return best[1] if best is not None and start is not None and best[0] < start else None

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
        """``record.pick`` and its reason from the last measurement of ``current``."""
        rec = self.record
        rec.combinations_measured = len(self.measured)
        last = next((s for s in reversed(rec.steps) if any(judge.key(t) == judge.key(current) for t in s.targets)), None)
        if last is None:
            rec.pick, rec.pick_reason = None, rec.pick_reason + "no combination was measured"
            return
        over = judge.over_budget(rec.visits, last.index, current, last.rounds, rec.models)
        if over:
            rec.pick = None
            rec.pick_reason += (
                f"no combination found within every model's budget (the last held: {judge.describe(current)}: {'; '.join(over)})"
            )
            return
        rec.pick = dict(current)
        rec.pick_reason += (
            "no move of any model raised the weighted throughput by the paired rule with every model within its budget"
            if not rec.cuts
            else "the combination held when the search stopped"
        )

    # -- rounds ------------------------------------------------------------------------------

    def _step(
        self, kind: StepKind, model: str | None, held: Mapping[str, str], targets: list[dict[str, str]], extend: bool = True
    ) -> SearchStep:
        """Measure ``targets`` in rounds as one step (appended to the record)."""
        step = SearchStep(index=len(self.record.steps), kind=kind, model=model, held=dict(held), targets=targets)
        self.record.steps.append(step)
        self.source.prepare(step)
        self.events({"event": "step", "step": step})
        while step.rounds < self.record.max_rounds:
            if step.rounds >= self.record.min_rounds and not (extend and self._undecided(step)):
                break
            self._fit(step, len(targets))
            self._round(step)
        return step

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

    def _fit(self, step: SearchStep, visits: int) -> None:
        """Raise :class:`CutForTime` when a round of ``visits`` visits does not fit in the budget."""
        if self.budget_s is None:
            return
        walls = [v.wall_s for v in self.record.visits if v.wall_s is not None]
        per_visit = sum(walls) / len(walls) if walls else self.estimate_visit_s
        spent = self.clock() - self.started
        if spent + per_visit * visits > self.budget_s:
            raise CutForTime(
                f"step {step.index + 1} ({step.kind}{' ' + step.model if step.model else ''}): round {step.rounds + 1} "
                f"and later not measured (≈{per_visit * visits:.0f} s needed, {max(0.0, self.budget_s - spent):.0f} s left "
                f"of {self.budget_s:g} s)"
            )

    def _undecided(self, step: SearchStep) -> bool:
        """A candidate within budget is ahead in the median, not yet called, and could be called
        in the rounds left (every one of them a win)."""
        if step.kind != "move" or step.model is None:
            return False
        left = self.record.max_rounds - step.rounds
        visits, n = self.record.visits, step.rounds
        for target in step.targets:
            if judge.key(target) == judge.key(step.held):
                continue
            p = judge.compare(visits, step.index, target, step.held, n, self.record.models)
            if p is None or p.significant or p.median <= 1.0:
                continue
            if judge.over_budget(visits, step.index, target, n, self.record.models):
                continue
            if sign_test_p(p.wins + left, p.losses) <= ALPHA:
                return True
        return False


def _with_start(m: Any, variant: str, why: str) -> Any:
    """``m`` (a :class:`perf.records.colocation.ColocatedModel`) with its start set."""
    import dataclasses

    return dataclasses.replace(m, start=variant, start_reason=why)


def _reason(v: str, p: Any, over: list[str], held_over: list[str], accepted: bool, best: str | None) -> str:
    """The sentence of one decision."""
    if p is None:
        return f"{v}: not measured in the same rounds as the held combination"
    said = p.describe("higher weighted throughput", "lower weighted throughput")
    if over and accepted:
        return f"moved to {v}: every candidate is over the p99 budget and this one is nearest it ({'; '.join(over)}); {said}"
    if over:
        return f"{v}: over the p99 budget ({'; '.join(over)}); {said}"
    if accepted and held_over:
        return f"moved to {v}: the held combination is over the budget ({'; '.join(held_over)}) and this one is within it; {said}"
    if accepted:
        return f"moved to {v}: {said}, every model within its p99 budget"
    if best is not None and p.verdict == "higher":
        return f"{v}: {said}, but {best} gained more"
    return f"{v}: kept the held variant: {said}"
