"""What a co-location search costs, before and while it runs: one price per thing it spends time on,
and the steps one pass of the search measures, so that the run says up front what its time budget
covers (trial 15, T15-10: ``--time-budget 1m`` started a search that needed about 100 s without a
word, and ended after one round of its second step), and the search prices each step and round by
the same numbers (:meth:`perf.colocate.search.CoordinateSearch._fit`).

Prices (:func:`prices`), each the sweep's where the sweep has one:

* a **visit**: the mean wall time of the visits measured so far; before any, the sweep's estimate of
  one visit from the window (:func:`perf.search.budget.visit_s`; the perf_analyzers of a
  combination run together, in the same windows);
* a **load** (and warm-up): the mean of the run's loads timed so far (each step's :attr:`SearchStep.load_s`,
  every session's), before any at :data:`perf.search.budget.LOAD_S` (:func:`perf.sweep.load_cuts.load_s`, the
  sweep's one rule);
* an **unload** between steps: the mean of the unloads timed so far, before any at
  :data:`perf.search.budget.UNLOAD_S` (:func:`perf.sweep.load_cuts.unload_s`, the sweep's rule);
* the **server's start**, before anything is measured: the mean of the sessions' starts timed
  (:attr:`ColocationRecord.server_starts_s`), before any at :data:`START_S`;
* the **server's stop** at the end: :data:`STOP_S`, kept from the budget by every step and round
  (trial 15, T15-10: the search used its whole budget and the stop took the run 4 s over it).

The plan is said before the run (:func:`plan_words`) at these prices; once a session's loads are timed, the search
prices every later step by them, and the first time they change the estimate it says the plan fitted again
(:func:`perf.colocate.outcome.refit_words`, recorded in :attr:`ColocationRecord.refits`): recheck of trial 16, R16-4: the plan priced
each load at 5 s and said "60 s covers step 1 and step 2", then step 1 was cut; the ``--time-budget`` it gave for
the resume priced loads at 5 s too and fell short twice.

One **pass** (:func:`planned_steps`): the alone step (unless every model's start is given), one move
step per model with more than one variant, the final step; each at its fewest rounds. The search
measures more when a model moves (the others are tried again beside it) or a close call extends a
step, so the estimate is what the search needs at least. On a record that holds steps (a resumed
run), the pass goes on from them: their complete rounds are not measured again, the step it
resumes in loads its variants on the new server, and the move steps left are the search's own (:func:`moves_left`: a
model that moved has the others tried again); what one more move would add is :func:`move_s`.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence

from core.wording import count
from perf.analysis.recommendation.cuts import MARGIN, MARGIN_SAID, suggested_s  # the sweep's rule and words, one source
from perf.analysis.stats.paired import min_rounds as fewest_rounds
from perf.markdown import apart
from perf.records.colocation import ColocatedModel, ColocationRecord, StepKind, step_number
from perf.search.budget import LOAD_S, UNLOAD_S, visit_s
from perf.sweep import load_cuts

#: tritonserver's graceful stop at the end of a run: every loaded variant unloaded together and its
#: python-backend stubs gone (s; trial 15, T15-10: 4.1 s from the last visit to the saved record for
#: 6 variants on a 2-core host with another job on it).
STOP_S = 4.5
#: tritonserver's start until ready, before a session has timed one (s): a cautious guess; with explicit model
#: control (no model loaded at the start) the bundled server was ready in 0.12 s and 0.40 s on the project's
#: 2-core host (the co-location integration tests, 2026-12), a container runtime takes seconds more.
START_S = 5.0


def budget_flag(seconds: float) -> str:
    """``--time-budget``'s value for ``seconds``: ``"2m"`` for whole minutes, else ``"95s"``."""
    return f"{seconds / 60:g}m" if seconds % 60 == 0 else f"{seconds:g}s"


#: How :func:`suggested_s` is said beside the estimate it covers.
MARGIN_WORDS = f"{MARGIN_SAID}, in whole minutes"


@dataclasses.dataclass(frozen=True)
class Prices:
    """What one visit, load, unload, the server's start and stop cost (s; module docstring), and how many loads
    and unloads the load and unload prices rest on (0: assumed)."""

    visit_s: float
    load_s: float
    unload_s: float = UNLOAD_S
    stop_s: float = STOP_S
    start_s: float = START_S
    loads_timed: int = 0
    unloads_timed: int = 0
    visits_timed: int = 0


def prices(record: ColocationRecord, estimate_visit_s: float | None = None) -> Prices:
    """The prices from what ``record`` measured: its visits' walls, every step's loads and unloads timed, the
    sessions' server starts (module docstring); ``estimate_visit_s``: a visit's price before any was measured
    [default: :func:`perf.search.budget.visit_s`]."""
    walls = [v.wall_s for v in record.visits if v.wall_s is not None]
    first = estimate_visit_s if estimate_visit_s is not None else visit_s(record.window_ms)
    loads = [t for s in record.steps for t in s.load_s]
    unloads = [t for s in record.steps for t in s.unload_s]
    starts = record.server_starts_s
    return Prices(
        sum(walls) / len(walls) if walls else first,
        load_cuts.load_s(loads, LOAD_S),
        load_cuts.unload_s(unloads),
        STOP_S,
        sum(starts) / len(starts) if starts else START_S,
        len(loads),
        len(unloads),
        len(walls),
    )


def min_rounds_of(record: ColocationRecord, kind: StepKind) -> int:
    """``min_rounds`` for the search's own steps (alone, move); the final and brute-force steps, whose
    numbers the report states as verdicts, at least the sign test's 6."""
    return record.min_rounds if kind in ("alone", "move") else max(record.min_rounds, fewest_rounds())


@dataclasses.dataclass(frozen=True)
class PlannedStep:
    """One step of the pass: what it still measures and loads.

    Attributes:
        index: Its step number (0-based, as :attr:`perf.records.colocation.SearchStep.index`).
        label: ``"alone"``, ``"move a"``, ``"final"``, ``"brute"``.
        visits: Visits it still measures (targets x rounds left).
        loads, unloads: Variants it loads and unloads before its rounds.
    """

    index: int
    label: str
    visits: int
    loads: int
    unloads: int

    def cost(self, p: Prices) -> float:
        """Its time (s) at prices ``p``."""
        return self.loads * p.load_s + self.unloads * p.unload_s + self.visits * p.visit_s

    def name(self) -> str:
        """``"step 2 (move a)"``."""
        return f"step {step_number(self.index)} ({self.label})"


def planned_steps(record: ColocationRecord, starts: Mapping[str, str] | None = None, brute: bool = False) -> list[PlannedStep]:
    """One pass of the search (module docstring), from the steps ``record`` holds on; ``starts``: the variants given
    (``--start``); ``brute``: brute force (every combination in one step, then the final step)."""
    starts = dict(starts or {})
    models = record.models
    held = {m.name: starts.get(m.name) or m.start or m.variants[0] for m in models}
    for s in reversed(record.steps):  # where the search stood
        if s.held:
            held = dict(s.held)
            break
    todo: list[tuple[str, list[set[str]], int]] = []  # (label, each target's variants, rounds left)
    for s in record.steps:
        label = f"{s.kind} {s.model}" if s.model else s.kind
        left = max(0, min_rounds_of(record, s.kind) - s.rounds) if s is record.steps[-1] else 0
        todo.append((label, [set(t.values()) for t in s.targets], left))
    last = record.steps[-1] if record.steps else None
    movers = [m for m in models if len(m.variants) > 1]
    if brute:
        if last is None:
            every = [set(c) for c in itertools.product(*(m.variants for m in models))]
            todo.append(("brute", every, min_rounds_of(record, "brute")))
        final = last is None or last.kind == "brute"
    elif final := last is None or last.kind != "final":
        if last is None and not all(m.name in starts for m in models):
            todo.append(("alone", [{v} for m in models for v in m.variants], min_rounds_of(record, "alone")))
        moves, held = moves_left(record, held, [m.name for m in movers])
        for name, h in moves:
            variants = record.model(name).variants
            todo.append((f"move {name}", [set(h.values()) - {h[name]} | {v} for v in variants], record.min_rounds))
    if final:  # the combination held at the end, and each of its variants alone
        todo.append(("final", [set(held.values()), *({v} for v in held.values())], min_rounds_of(record, "final")))
    out: list[PlannedStep] = []
    loaded: set[str] = set()  # a new server (a resumed run's too) holds nothing
    for i, (label, targets, rounds) in enumerate(todo):
        if not rounds:
            continue
        needed = set().union(*targets)
        out.append(PlannedStep(i, label, len(targets) * rounds, len(needed - loaded), len(loaded - needed)))
        loaded = needed
    return out


def moves_left(
    record: ColocationRecord, held: Mapping[str, str], movers: Sequence[str]
) -> tuple[list[tuple[str, dict[str, str]]], dict[str, str]]:
    """The move steps the search has still to take after the ones ``record`` holds, had no model moved from here on,
    each ``(model, the combination held)``, and the combination held at their end: the search's own loop
    (:meth:`perf.colocate.search.CoordinateSearch._moves`: a model tried again only after another moved) replayed over
    the record's move steps, each one's move from its accepted decision; an unfinished one moves nothing (trial 21,
    T21-4: a resume was priced with no move step after a model had moved, and the search then measured one more).
    ``held``: the combination the moves start from where the record holds no move step; ``movers``: the models with
    more than one variant, in the search's order."""
    done = [s for s in record.steps if s.kind == "move"]
    chosen = {d.step: d.candidate for d in record.decisions if d.accepted}
    current = dict(done[0].held if done else held)
    settled: dict[str, tuple[tuple[str, str], ...]] = {}
    todo: list[tuple[str, dict[str, str]]] = []
    steps = iter(done)
    while True:
        moved = False
        for m in movers:
            context = tuple(sorted((k, v) for k, v in current.items() if k != m))
            if settled.get(m) == context:
                continue
            settled[m] = context
            step = next(steps, None)
            if step is None:
                todo.append((m, dict(current)))
                continue
            new = chosen.get(step.index, current[m]) if step.outcome else current[m]
            moved, current = moved or new != current[m], {**current, m: new}
        if not moved:
            return todo, current


def move_s(record: ColocationRecord, p: Prices) -> float:
    """What one more move adds to a pass (s, at prices ``p``): a model that moves has every other model with more than
    one variant tried again beside it, each a move step at its fewest rounds (its variants but the held one loaded,
    as many unloaded); the most of that over the models (0: fewer than two such models)."""
    movers = [m for m in record.models if len(m.variants) > 1]
    n = record.min_rounds

    def tried(m: ColocatedModel) -> float:
        return PlannedStep(0, "move", len(m.variants) * n, len(m.variants) - 1, len(m.variants) - 1).cost(p)

    return max((sum(tried(o) for o in movers if o is not m) for m in movers), default=0.0)


@dataclasses.dataclass(frozen=True)
class Estimate:
    """One pass's cost and what a time budget covers of it.

    Attributes:
        steps: The pass (:func:`planned_steps`) with each step's cost (s) at the prices.
        total_s: All of it, the server's stop included (s).
        covered: How many of ``steps`` fit in the budget, one after another (all: no budget).
    """

    steps: list[tuple[PlannedStep, float]]
    total_s: float
    covered: int

    def budget_s(self) -> int:
        """The ``--time-budget`` (s) suggested for the pass: :func:`suggested_s` of :attr:`total_s`."""
        return suggested_s(self.total_s)


def estimate(steps: Sequence[PlannedStep], p: Prices, budget_s: float | None) -> Estimate:
    """``steps`` priced at ``p``, and how many fit in ``budget_s`` (``None``: no budget) with the server's start and
    stop kept (a start of 0: one already spent)."""
    priced = [(s, s.cost(p)) for s in steps]
    total = p.start_s + sum(c for _s, c in priced) + p.stop_s
    covered, spent = 0, p.start_s + p.stop_s
    for _s, c in priced:
        if budget_s is not None and spent + c > budget_s:
            break
        spent += c
        covered += 1
    return Estimate(priced, total, covered)


def priced_words(est: Estimate, p: Prices) -> str:
    """``"42 visits at about 1.2 s, 5 loads at about 5 s, the server's start 5 s and stop 4.5 s"``."""
    visits = sum(s.visits for s, _c in est.steps)
    loads = sum(s.loads for s, _c in est.steps)
    start = f"the server's start {p.start_s:.2g} s and stop" if p.start_s else "the server's stop"
    return f"{count(visits, 'visit')} at about {p.visit_s:.2g} s, {count(loads, 'load')} at about {p.load_s:.2g} s, {start} {p.stop_s:g} s"


def covers_words(est: Estimate, covers: str, whole_s: int) -> str:
    """``covers`` (``"the time budget of 60 s covers"``) with the steps that fit, what will be cut, and the
    ``--time-budget`` (``whole_s``, s: :func:`suggested_s`) that covers one pass."""
    fits = [s.name() for s, _c in est.steps[: est.covered]]
    cut = est.steps[est.covered][0]
    decided = all(s.label == "final" for s, _c in est.steps[est.covered :])  # the moves fit: only the final is cut
    after = (
        "its final rounds (the pick alone and together) will be cut: the pick without its numbers"
        if decided
        else f"{cut.name()} and later will be cut, leaving no pick decided"
    )
    return (
        f"{covers} "
        + (", ".join(fits) if fits else "no step")
        + f"; {after}: --time-budget {budget_flag(whole_s)} covers one pass (the estimate and {MARGIN:.0%}, in whole minutes)"
    )


def _edge(est: Estimate, p: Prices, budget_s: float, move: float) -> str:
    """Where ``budget_s`` covers the pass by less than :data:`MARGIN` of it: that it is at the edge, what the estimate
    rests on, and the ``--time-budget`` that covers the pass, a move (``move``, s: :func:`move_s`) and the margin; else
    ``""`` (trial 21, T21-4: "one pass needs about 179 s" for a 180 s budget said nothing, on a load price assumed; the
    run needed three sessions)."""
    if est.total_s * (1.0 + MARGIN) <= budget_s:
        return ""
    assumed = [w for w, n in (("a load", p.loads_timed), ("a visit", p.visits_timed)) if not n]
    on = f"times assumed, not measured yet ({' and '.join(assumed)})" if assumed else "the times measured so far"
    moves = f" (a model that moves adds about {math.ceil(move)} s)" if move else ""
    whole = budget_flag(suggested_s(est.total_s + move))
    return (
        f"; at the edge of the time budget of {budget_s:g} s: within {MARGIN:.0%} of an estimate that rests on {on} and is "
        f"the least a pass needs{moves}: --time-budget {whole} covers the pass{', a move' if move else ''} and {MARGIN:.0%}"
    )


def plan_words(est: Estimate, p: Prices, budget_s: float | None, rest: bool = False, move: float = 0.0) -> str:
    """The plan line's estimate: ``"one pass needs about 98 s (...)"`` (``rest``: a resumed run's, ``"the rest of one
    pass needs about ..."``: its replayed rounds cost nothing), and, where the time budget does not cover it, what will
    be cut and the ``--time-budget`` that covers it (module docstring; the sweep's plan line says its own); where it
    covers it by less than :data:`MARGIN`, that it is at the edge (:func:`_edge`; ``move``: :func:`move_s`)."""
    what = "the rest of one pass of the search" if rest else "one pass of the search"
    cut = budget_s is not None and est.covered < len(est.steps)
    # said against the budget: the decimals that tell them apart (perf.markdown.apart), never both rounded up to one number
    d = apart(est.total_s, budget_s) if cut and budget_s is not None else None
    need = f"{math.ceil(est.total_s)}" if d is None else f"{est.total_s:.{d}f}"
    said = f"{what} needs about {need} s ({priced_words(est, p)}); more when a model moves or a close call needs more rounds"
    if budget_s is None or not cut:
        return said + ("" if budget_s is None else _edge(est, p, budget_s, move))
    given = f"{budget_s:.{d}f}" if d else f"{budget_s:g}"  # the budget as given where whole seconds tell them apart
    return f"{said}; " + covers_words(est, f"the time budget of {given} s covers", est.budget_s())


def rest_of(record: ColocationRecord) -> tuple[list[PlannedStep], Prices]:
    """What is left of one pass of ``record``'s search (:func:`planned_steps`, brute force where its steps are) and
    the prices of what the run measured (:func:`prices`): what a resume of it measures, priced."""
    return planned_steps(record, brute=any(s.kind == "brute" for s in record.steps)), prices(record)


def resume_budget(record: ColocationRecord, budget_s: float | None, spent_s: float | None) -> tuple[float | None, str]:
    """The ``--time-budget`` the resume command printed at an interruption carries, and what it covers in words: what
    is left of this session's ``budget_s`` after its ``spent_s`` (s; trial 20, T20-11) where that covers the next step
    of the rest of the pass (:func:`rest_of`), else :func:`suggested_s` of the next step (re-check 20, NEW-7: the
    command carried ``--time-budget 47s``, the seconds left, which covered no step: following it measured nothing).
    One rule with every ``--time-budget`` colocate suggests (the plan line's, :func:`perf.colocate.verdict.finish_words`):
    it covers at least the next step it names, by this run's own prices, the server's start and stop included.

    Returns:
        ``(the --time-budget in s, its words)``; ``(None, "")`` where the session had no time budget (a resume runs
        with none, as the run had none) or nothing of the pass is left.
    """
    steps, p = rest_of(record)
    if budget_s is None or not steps:
        return None, ""
    left = max(0, math.floor(budget_s - (spent_s or 0.0)))
    from_left = left >= 1 and estimate(steps, p, left).covered >= 1
    given = left if from_left else suggested_s(estimate(steps[:1], p, None).total_s)
    est = estimate(steps, p, given)
    covered = est.steps[: est.covered]
    cost = p.start_s + sum(c for _s, c in covered) + p.stop_s
    rest = est.covered == len(steps)
    names = ", ".join(s.name() for s, _c in covered)
    what = "the rest of one pass" if rest else f"{names}, the next {'step' if len(covered) == 1 else 'steps'}"
    how = f"about {math.ceil(cost)} s by this run's own prices, the server's start and stop included"
    flag = budget_flag(given)
    said = (
        f"its --time-budget {flag}, what is left of this session's time budget, covers {what}: {how}"
        if from_left
        else f"the {left} s left of this session's time budget cover no step: its --time-budget {flag} covers {what}: "
        f"{how}; {MARGIN_WORDS}"
    )
    if not rest:
        whole = budget_flag(suggested_s(est.total_s))
        said += f"; the rest of one pass needs about {math.ceil(est.total_s)} s: --time-budget {whole} covers it"
    return given, said
