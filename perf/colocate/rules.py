"""The decisions of the co-location search, for both objectives (``--objective``): which variant a
model starts from, which candidate of a move step is taken, and what the pick is, each with its
reason in words; and whether a move step is still undecided (:func:`undecided`: it measures another round). The
numbers come from :mod:`perf.colocate.judge`; this module only decides.

Every model must meet its **targets** in the combination: its median p99 within its own budget
and its median throughput at least its required throughput (where given). Then:

- **throughput** (the default): the highest weighted throughput. A candidate replaces the held
  combination when the paired rule (:func:`perf.analysis.stats.paired.paired`: a sign test at 5 % over at
  least 6 rounds, or a large, consistent gap sooner) says its weighted throughput is higher and it meets every target; of several,
  the one with the highest median ratio.
- **fewest-instances**: the fewest instances in all (the sum of every model's variant's instance
  count, :meth:`perf.records.colocation.ColocationRecord.instances`). A candidate that meets every
  target replaces the held combination when it has fewer instances, or as many and a weighted
  throughput higher by the paired rule; of several, the fewest instances, and among as many the
  highest median ratio against the held one (the others of that count are said tied with it, or
  beaten, by the paired rule over the same rounds).

Either way a held combination that misses a target gives way to the best candidate that meets
every one; when none does, to a candidate the paired rule calls nearer its targets than the held one
(:func:`perf.colocate.near.nearer`: the worst ratio of a number to its target, round by round), of several
the nearest by the median; a difference the rule does not call moves nothing (recheck of trial 16, R16-9: a move
on an untested 10 % p99 difference to a combination with 0.67× the weighted throughput in every round). The
verdict without a pick names the closest combination by the same rule (:func:`perf.colocate.closest.closest`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from core.wording import count
from perf.analysis.stats.paired import ALPHA, Paired, paired, sign_test_p
from perf.colocate import host, judge, near
from perf.markdown import fmt, fmt_given
from perf.records.colocation import ColocatedModel, ColocationRecord, MoveDecision, SearchStep


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One candidate of a move step against the held combination.

    Attributes:
        variant: The model's variant it moves to.
        paired: Its weighted throughput against the held one's, paired over the step's rounds.
        misses: The targets it misses, in words (empty: meets every one).
        instances: Its instances in all.
    """

    variant: str
    paired: Paired | None
    misses: list[str]
    instances: int

    @property
    def meets(self) -> bool:
        """Every target met, with numbers to say so."""
        return not self.misses and self.paired is not None


def best_alone(record: ColocationRecord, step: SearchStep, model: ColocatedModel) -> tuple[str, str]:
    """A model's start from its variants alone: of those that meet its targets, the highest median
    throughput (``fewest-instances``: the fewest instances, then the highest throughput); none:
    the one nearest its targets; none with a throughput to judge them on: the lowest latency at the budget's
    percentile (p99: a co-location's budgets are each model's p99); none measured: the first. A p99 said or
    compared is the one its targets are judged on (:func:`perf.colocate.judge.budget_p99`)."""
    rows = []
    for v in model.variants:
        combo = {model.name: v}
        thr = judge.median(
            judge.model_series(record.visits, step.index, combo, step.rounds, model.name, "throughput_infer_per_s")
        )
        p99 = judge.budget_p99(record.visits, step.index, combo, step.rounds, model.name)  # the number its targets are judged on
        missed = judge.misses(record.visits, step.index, combo, step.rounds, [model], cores=host.cores(record))
        rows.append((v, thr, p99, missed, judge.worst_ratio(record.visits, step.index, combo, step.rounds, [model])))
    ok = [r for r in rows if r[1] is not None and r[2] is not None and not r[3]]
    fewest = record.objective == "fewest-instances"
    if ok:
        v, thr, p99, _m, _w = max(ok, key=lambda r: (-model.instances_of(r[0]) if fewest else 0, r[1] or 0.0))
        said = f"{thr:,.0f} infer/s median, p99 {fmt(p99, 2)} ms" + _met_words(model) + _partly(record, step, model, v)
        if fewest:
            return v, f"the fewest instances alone that meet its targets ({model.instances_of(v)}): {said}"
        return v, f"best alone: {said}"
    judged = [r for r in rows if r[4] is not None]
    if judged:
        v, _thr, _p99, missed, _w = min(judged, key=lambda r: (r[4] or 0.0, model.instances_of(r[0])))
        return v, f"no variant meets its targets alone; the nearest alone ({'; '.join(missed)}){_partly(record, step, model, v)}"
    measured = [r for r in rows if r[2] is not None]
    if measured:
        v, _thr, p99, _m, _w = min(measured, key=lambda r: r[2] or 0.0)
        return v, f"no variant within the budget alone; the lowest p99 alone ({fmt(p99, 2)} ms){_partly(record, step, model, v)}"
    return model.variants[0], "no variant measured alone; the first variant"


def _partly(record: ColocationRecord, step: SearchStep, model: ColocatedModel, variant: str) -> str:
    """Where ``variant`` alone had numbers in fewer of the step's rounds than were measured, how many, and that
    the start rests on them (trial 16, T16-14: a start held on 1 visit of 3, the other 2 without numbers, said
    as any other start); ``""`` where every round had numbers."""
    got = judge.model_series(record.visits, step.index, {model.name: variant}, step.rounds, model.name, "throughput_infer_per_s")
    k = sum(x is not None for x in got)
    if k == step.rounds:
        return ""
    return f"; numbers in only {k} of its {step.rounds} rounds, the others without: a start on {count(k, 'round')}"


def _met_words(model: ColocatedModel) -> str:
    parts = []
    if model.latency_budget_ms is not None:
        parts.append(f"within {fmt_given(model.latency_budget_ms, 0)} ms")
    if model.required_throughput is not None:
        parts.append(f"at least {fmt_given(model.required_throughput, 0)} infer/s")
    return f" ({', '.join(parts)})" if parts else ""


def candidates(record: ColocationRecord, step: SearchStep, held: Mapping[str, str], model: str) -> list[Candidate]:
    """Every variant of ``model`` but the held one, against the held combination in ``step``."""
    out = []
    for v in record.model(model).variants:
        if v == held[model]:
            continue
        cand = {**held, model: v}
        out.append(
            Candidate(
                v,
                judge.compare(record.visits, step.index, cand, held, step.rounds, record.models),
                judge.misses(record.visits, step.index, cand, step.rounds, record.models, cores=host.cores(record)),
                record.instances(cand),
            )
        )
    return out


def choose(
    record: ColocationRecord, held: Mapping[str, str], held_misses: list[str], rows: Sequence[Candidate]
) -> Candidate | None:
    """The candidate the objective takes (module docstring), ``None``: none (the closer rule aside)."""
    if record.objective == "fewest-instances":
        held_n = record.instances(dict(held))
        eligible = [
            c
            for c in rows
            if c.meets
            and (
                held_misses
                or c.instances < held_n
                or (c.instances == held_n and c.paired is not None and c.paired.verdict == "higher")
            )
        ]
        fewest = min((c.instances for c in eligible), default=None)
        eligible = [c for c in eligible if c.instances == fewest]
    else:
        eligible = [c for c in rows if c.meets and (held_misses or (c.paired is not None and c.paired.verdict == "higher"))]
    return max(eligible, key=lambda c: c.paired.median if c.paired else 0.0, default=None)


def closer(record: ColocationRecord, step: SearchStep, held: Mapping[str, str], model: str) -> str | None:
    """With the held combination missing a target and no candidate :func:`choose` takes: a candidate that meets
    every target without a paired comparison of weighted throughput (a move on the targets alone, recheck of trial
    16, R16-12; of several, the nearest by :func:`perf.colocate.judge.nearness`); else, every candidate missing a
    target too, of those the paired rule calls nearer their targets than the held one over the step's rounds
    (:func:`perf.colocate.near.nearer`, the rule the verdict's closest is named by), the one with the highest median
    ratio of closeness, then the fewest instances; ``None``: neither (a difference of the medians the rule does not
    call is no move: module docstring)."""
    visits, n = record.visits, step.rounds
    meets, called = [], []
    for v in record.model(model).variants:
        if v == held[model]:
            continue
        cand = {**held, model: v}
        if not judge.misses(visits, step.index, cand, n, record.models, cores=host.cores(record)):
            meets.append((judge.nearness(visits, step.index, cand, n, record) or (0.0, 0), v))
            continue
        p = near.nearer(visits, step.index, cand, held, n, record.models)
        if p is not None and near.called_nearer(p):
            called.append((-p.median, record.instances(cand), v))  # the highest median closeness first
    if meets:
        return min(meets)[1]
    return min(called)[2] if called else None


def decide(record: ColocationRecord, step: SearchStep, held: dict[str, str], model: str) -> list[MoveDecision]:
    """One decision per candidate of a move step (module docstring's rule)."""
    held_misses = judge.misses(record.visits, step.index, held, step.rounds, record.models, cores=host.cores(record))
    rows = candidates(record, step, held, model)
    best = choose(record, held, held_misses, rows)
    closest = None if best is not None or not held_misses else closer(record, step, held, model)
    taken = best.variant if best is not None else closest
    out = []
    for c in rows:
        p = c.paired
        out.append(
            MoveDecision(
                step=step.index,
                model=model,
                held=dict(held),
                candidate=c.variant,
                ratio=None if p is None else round(p.median, 4),
                low=None if p is None else round(p.low, 4),
                high=None if p is None else round(p.high, 4),
                wins=0 if p is None else p.wins,
                rounds=0 if p is None else p.rounds,
                p_value=None if p is None else round(p.decided_p, 6),
                p_tier="sign" if p is None else p.tier,
                verdict="not measured" if p is None else p.verdict,
                within_budget=not c.misses,
                accepted=c.variant == taken,
                reason=reason(record, step, held, c, held_misses, c.variant == taken, best, closest),
                instances=c.instances,
            )
        )
    return out


def reason(
    record: ColocationRecord,
    step: SearchStep,
    held: Mapping[str, str],
    c: Candidate,
    held_misses: list[str],
    accepted: bool,
    best: Candidate | None,
    taken_nearer: str | None = None,
) -> str:
    """The sentence of one decision (``taken_nearer``: the candidate :func:`closer` took, if any)."""
    v, p = c.variant, c.paired
    closeness, called = "", False
    if held_misses and c.misses:  # every one misses: a move is on closeness alone, by the paired rule (R16-9)
        q = near.nearer(record.visits, step.index, {**held, step.model or "": v}, held, step.rounds, record.models)
        closeness, called = ("" if q is None else near.nearer_words(q, "the held one")), near.called_nearer(q)
    if p is None:
        why = judge.unpaired(record.visits, step.index, {**held, step.model or "": v}, held, step.rounds, "the held combination")
        if accepted and held_misses and not c.misses:  # a move on the targets alone: said as one (recheck of trial 16, R16-12)
            return (
                f"moved to {v}: the held combination misses a target ({'; '.join(held_misses)}) and this one meets every "
                f"one, on the targets alone (no paired comparison of their weighted throughput: {why})"
            )
        if accepted:  # nearer its targets by the paired rule (closer), its weighted throughput not compared
            return f"moved to {v}: every candidate misses a target and this one is nearer them ({closeness}); it misses {'; '.join(c.misses)}; {why}"
        return f"{v}: {closeness + '; ' if closeness else ''}{why}"
    said = p.describe("higher weighted throughput", "lower weighted throughput")
    fewest = record.objective == "fewest-instances"
    count = f" ({c.instances} instances in all, the held {record.instances(dict(held))})" if fewest else ""
    weighted = f"its weighted throughput against the held one's: {p.describe()}"  # what a move on closeness costs
    if c.misses and accepted:
        return (
            f"moved to {v}: every candidate misses a target and the paired rule calls this one nearer them than the held "
            f"one ({closeness}); it misses {'; '.join(c.misses)}{count}; {weighted}"
        )
    if c.misses and closeness:
        other = f", but {taken_nearer} was taken (nearer by the median)" if taken_nearer and called else ""
        return f"{v}: misses a target ({'; '.join(c.misses)}){count}; {closeness}{other}; {weighted}"
    if c.misses:
        return f"{v}: misses a target ({'; '.join(c.misses)}){count}; {said}"
    if accepted and held_misses:
        return f"moved to {v}: the held combination misses a target ({'; '.join(held_misses)}) and this one meets every one{count}; {said}"
    if accepted and fewest and c.instances < record.instances(dict(held)):
        return f"moved to {v}: fewer instances{count}, every model at its targets; {said}"
    if accepted:
        return f"moved to {v}: {said}, every model at its targets{count}"
    if best is not None and fewest and c.instances > best.instances:
        return f"{v}: meets every target but {best.variant} needs fewer instances{count}; {said}"
    if best is not None and fewest and c.instances == best.instances:
        return f"{v}: as many instances as {best.variant}{count}; " + _versus(record, step, held, c, best)
    if fewest and c.instances > record.instances(dict(held)) and not held_misses:
        return f"{v}: kept the held variant: more instances{count}; {said}"
    if best is not None and p.verdict == "higher":
        return f"{v}: {said}, but {best.variant} gained more"
    return f"{v}: kept the held variant: {said}{count}"


def _versus(record: ColocationRecord, step: SearchStep, held: Mapping[str, str], c: Candidate, best: Candidate) -> str:
    """``c`` against ``best`` (two candidates of the same step) by the paired rule: the tie rule."""
    model = step.model or ""
    p = paired(
        judge.series(record.visits, step.index, {**held, model: c.variant}, step.rounds, record.models),
        judge.series(record.visits, step.index, {**held, model: best.variant}, step.rounds, record.models),
    )
    if p is None:
        return judge.unpaired(
            record.visits, step.index, {**held, model: c.variant}, {**held, model: best.variant}, step.rounds, best.variant
        )
    if p.verdict == "lower":
        return f"{best.variant}'s weighted throughput is higher by the paired rule: {p.spread_text()}"
    if p.verdict == "higher":
        return f"higher than {best.variant} by the paired rule ({p.spread_text()}), but its gain over the held one is smaller"
    if p.uncalled() is not None:  # every round one way: not "not distinguishable" (trial 15, T15-2)
        return f"against {best.variant}: {p.describe()}; {best.variant} kept for its higher median"
    return f"tied with {best.variant} (not distinguishable at this noise: {p.spread_text()}); {best.variant} kept for its higher median"


def pick_reason(record: ColocationRecord, current: dict[str, str], missed: list[str]) -> tuple[dict[str, str] | None, str]:
    """The pick and why, from the combination the search ended on and the targets it misses."""
    targets = judge.targets_words(record)
    if missed:  # the closest measured is said beside it, from the record (perf.colocate.closest)
        word = "not achieved: " if record.objective == "fewest-instances" else ""
        return (
            None,
            f"{word}no combination found within {targets} (the last held: {judge.describe(current)}: {'; '.join(missed)})",
        )
    # a cut before the moves ended leaves no pick (perf.colocate.verdict.settle); one in the final step, the moves' own
    # reason, after the cut's (perf.colocate.search.CoordinateSearch.run)
    if record.objective == "fewest-instances":
        per = ", ".join(f"{m} {record.model(m).instances_of(v)}" for m, v in current.items())
        return dict(current), (
            f"the fewest instances found that meet {targets} ({record.instances(current)}: {per}): no move of one model to "
            "fewer instances kept every model at its targets, and none with as many raised the weighted throughput by the "
            "paired rule"
        )
    return dict(current), f"no move of any model raised the weighted throughput by the paired rule with {targets} met"


def uncalled(record: ColocationRecord, d: MoveDecision) -> str | None:
    """Why the paired rule did not call decision ``d``'s candidate against its held combination although every
    round went one way (:meth:`perf.analysis.stats.paired.Paired.uncalled`, on the step's rounds again: trial 15,
    T15-2), for the report's tie set; ``None`` otherwise."""
    step = next((s for s in record.steps if s.index == d.step), None)
    if step is None or d.verdict != "not distinguishable":
        return None
    moved = judge.series(record.visits, d.step, {**d.held, d.model: d.candidate}, step.rounds, record.models)
    p = paired(moved, judge.series(record.visits, d.step, d.held, step.rounds, record.models))
    return p.uncalled() if p is not None else None


def undecided(record: ColocationRecord, step: SearchStep) -> bool:
    """Whether a move step measures another round (:class:`perf.colocate.search.CoordinateSearch`): a candidate that
    meets every target is ahead in the median, not yet called, and could be called in the rounds left (every one of
    them a win); for ``fewest-instances``, only a candidate with as many instances as the held combination (the paired
    rule decides those). With the held combination missing a target, a candidate that misses one too likewise on
    closeness (:func:`perf.colocate.near.nearer`: a move on closeness needs the rule's call)."""
    if step.kind != "move" or step.model is None:
        return False
    left = record.max_rounds - step.rounds
    visits, n, models, cores = record.visits, step.rounds, record.models, host.cores(record)
    held_n = record.instances(step.held)
    held_misses = bool(judge.misses(visits, step.index, step.held, n, models, cores=cores))
    for target in step.targets:
        if judge.key(target) == judge.key(step.held):
            continue
        if judge.misses(visits, step.index, target, n, models, cores=cores):
            if held_misses and could_call(near.nearer(visits, step.index, target, step.held, n, models), left):
                return True
            continue
        if record.objective == "fewest-instances" and record.instances(target) != held_n:
            continue
        if could_call(judge.compare(visits, step.index, target, step.held, n, models), left):
            return True
    return False


def could_call(p: Paired | None, left: int) -> bool:
    """``p`` is ahead in the median (higher: more weighted throughput, or nearer the targets), not yet called, and
    the sign test could call it in the ``left`` rounds to come, every one of them a win."""
    if p is None or p.significant or p.median <= 1.0:
        return False
    return sign_test_p(p.wins + left, p.losses) <= ALPHA
