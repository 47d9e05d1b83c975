"""Retirement: which levels of a variant's concurrency ladder (:mod:`perf.search.ladder`) stop being
measured in a rounds sweep, judged after every round (:func:`retire`).

A level with ``min_rounds`` rounds, not among the top ``flat_window + 1``
of a ladder still growing, is no longer measured when the project's paired rule
(:func:`perf.analysis.stats.paired.paired`: the sign test, or a large consistent gap) calls the variant's own best level
(round-adjusted, :class:`perf.analysis.ranking.operating.Adjusted`) higher over their paired rounds, or when its latency
is over the budget; its rounds so far stay in the results. The median of the rounds' ratios alone never retires a
level (trial 26, T26-4: "concurrency 4 ahead by 15.6 % in the median of 5 paired rounds" retired c=16, ahead in 2 of
those 5 rounds and the higher of the two per-level medians). A level far behind the best (2x or more in every
round) retires by the same rule, never sooner: the rule calls such a gap from :data:`~perf.analysis.stats.paired.GAP_ROUNDS`
(3) rounds (its "every round more than 2x apart" tier), and a level retired after one round left report.md without
the rounds its verdict needs (s22z, Z-16: "c=1 ... no longer measured: 2x or more behind concurrency 4 in every round
both had (1 round)", then "c=4 ahead in the one round (host busy), but not called: too few rounds for the rule to call
it (a large gap needs 3, else 6)"). A retirement (:func:`behind`) so rests on the rule report.md states its verdicts
by, over the same rounds: the rounds it needs are measured before the level stops. A retired level comes back when the best moves to a
level it is not behind. A level sharing fewer than ``min_rounds`` rounds with the best (one
that joined after it retired) is judged against the other levels within the budget it shares
rounds with as well: one it is behind is behind the best too, so it stays retired.
While no contender has a level within the budget at a client workload, the engine ranks it by peak
(:func:`perf.search.drops.met`, per client workload), and retirement judges the levels as that ranking
does: no level retires for its latency, and the variant's best is its peak level, which stays
measured (its ladder still ends at a level over the budget: a higher one cannot meet it). Else
every level of a variant over the budget retired, the peak ranking had nothing left to measure,
and the rounds went on without a visit.

**Over the budget.** A level leaves the latency budget for the search (it retires for its latency, and no
refinement joins at or above it: :mod:`perf.search.ladder`) only on the budget's verified verdict
(:func:`left_budget`): its latency as the budget judges it (:mod:`perf.analysis.ranking.budget_latency`) over the
budget on at least that module's ``MIN_QUIET_ROUNDS`` (3) rounds not host busy, or far over it, by more than the CPU
the host's load took can explain. A level over the budget on fewer quiet rounds is "not verified here" in report.md,
and the search keeps measuring it: one host-busy, unstable p99 9 % over a 20 ms budget took c=4 out of a final
group's ladder for good (s22z, Z-16b: "round 7: ... c=4 b=1: 1,765.1 infer/s, p99 21.77 ms † host busy; unstable"),
and the report could then only say "c=4 not compared with the pick (1 round)". A p99 is an absolute number that
other processes' CPU inflates and that pairing cannot cancel, so one loaded round is no evidence that a quiet host
misses the budget; 3 quiet rounds are the fewest whose median one round cannot set. The variant's best level within
the budget is still the ranking's (:func:`best_level`: within on the median of its rounds), so retirement judges
the levels against the level report.md ranks; only the step that throws rounds away waits for the verdict.

**Per client workload.** A sweep measures each concurrency at every client workload (``--shapes``,
``--batch-sizes``), and each workload has its own ladder (:mod:`perf.search.ladder`, rule "Per client
workload"): its levels retire on that workload's own numbers (its best, its paired rounds, its ranking
under the budget or by peak), and a level is visited only at the workloads whose ladder keeps it. A size
or a batch size is the client's, never compared across workloads (:mod:`perf.records.workloads`). Trial
16 (T16-1): with ``--shapes seq=8,128`` the levels retired on the search series' numbers alone (seq=8: c=1
3x behind c=4 there), and the seq=128 workload lost its one level within the budget (c=1, p99 8.9 ms,
its c=4 over 25 ms) after one round: its pick under the budget was the other variant's level, which this
one beat on p99 and on the medians, on one shared round.
"""

from __future__ import annotations

import dataclasses

from core.wording import count
from perf.analysis.ranking.budget_latency import Judged
from perf.analysis.ranking.operating import Adjusted, Operating, best_of, summary
from perf.analysis.stats.paired import ALPHA, Paired, paired
from perf.markdown import fmt, fmt_given
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import LevelChange
from perf.search.plan import VariantPlan, side, step_gains
from perf.search.policy import Budget

#: A client workload of a level: its client batch size and swept size (:func:`perf.search.plan.workloads`).
Workload = tuple[int, "str | None"]

#: What retired a level its variant's best beats (module rules): the paired rule, named with its level.
RULE_WORDS = f"higher by the rule (paired rounds at {ALPHA * 100:g} %)"


@dataclasses.dataclass
class Retired:
    """What :func:`retire` decided.

    Attributes:
        active: The ladder's levels measured in the next round.
        why: Per level retired, why in words (the console says it once).
    """

    active: list[int]
    why: dict[int, str]


def retire(
    levels: list[int],
    ended: bool,
    plan: VariantPlan,
    vr: VariantResult,
    rounds: RoundRules,
    budget: Budget | None,
    peak: bool = False,
) -> Retired:
    """The levels of one client workload's ladder measured in the next round (module rules), on that workload's
    numbers, and those retired, with why.

    Args:
        levels: The ladder's levels, ascending.
        ended: Whether it has ended (a ladder still growing keeps its top ``flat_window + 1`` levels).
        plan: The variant's plan at the ladder's one client workload (:func:`perf.search.plan.at_workload`).
        vr: Its record so far.
        rounds: The rounds' rules (``min_rounds``, ``flat_window``).
        budget: The latency budget, ``None`` without one.
        peak: The engine ranks that workload by peak, no contender having a level within ``budget`` there.
    """
    why = _active(levels, ended, plan, vr, rounds, None if peak else budget)
    return Retired([c for c in levels if c not in why], why)


def best_level(
    vr: VariantResult, plan: VariantPlan, levels: list[int], budget: Budget | None, min_rounds: int = 0
) -> Operating | None:
    """The best of ``levels`` by the rule that names every best level (:func:`perf.analysis.ranking.operating.best_of`:
    round-adjusted throughput unless another is ahead in the median of 3 or more shared rounds), among those within the budget and
    with ``min_rounds`` rounds when any has them (a level just added is not yet its best), at ``plan``'s search
    series (:func:`perf.search.plan.side`)."""
    metric = budget.metric if budget else "latency_p99_ms"
    adjusted, cores = Adjusted([vr]), budget.cores if budget else None  # cores judge a budget: none, none needed
    stats = [summary(vr, side(plan, c), budget.ms if budget else None, metric, adjusted, cores=cores) for c in levels]
    ranked = [s for s in stats if s is not None and _under(s, budget)]
    ranked = [s for s in ranked if s.rounds >= min_rounds] or ranked
    return best_of(vr, ranked, metric)  # the report's rule for a best level (issue 26: two rules for "best")


def changes(
    name: str,
    load: Workload,
    before: tuple[set[int], set[int]],
    after: tuple[list[int], dict[int, str], dict[int, str]],
    plan: VariantPlan,
    vr: VariantResult,
    budget: Budget | None,
    min_rounds: int,
    after_round: int | None = None,
) -> list[LevelChange]:
    """Each change of the levels one client workload's ladder measures in one update (trial 20, T20-10: the console
    said a level "no longer measured", then it was measured 3 more rounds beside a level that joined, neither said).

    Args:
        name: The variant.
        load: The ladder's client workload.
        before: Its levels and its retired levels before the update.
        after: Its levels, retired levels with why, and levels the update added with why
            (:attr:`perf.search.ladder.Ladder.joined_why`) after it.
        plan: The variant's plan at ``load`` (:func:`perf.search.plan.at_workload`).
        vr: Its record so far.
        budget: The latency budget retirement judged by (``None`` without one, or where it ranks by peak).
        min_rounds: The rounds a retirement needs (``RoundRules.min_rounds``).
        after_round: The rounds measured so far.
    """
    (old, gone), (levels, retired, joined) = before, after
    said: list[tuple[int, str, str]] = [(c, "retired", why) for c, why in retired.items() if c not in gone]
    said += [(c, "joined", joined.get(c, "added to its ladder")) for c in levels if c not in old and c not in retired]
    said += [
        (c, "measured again", _back(vr, plan, c, levels, budget, min_rounds)) for c in levels if c in gone and c not in retired
    ]
    return [LevelChange(name, c, kind, why, load[0], load[1], after_round) for c, kind, why in said]  # type: ignore[arg-type]


def _back(vr: VariantResult, plan: VariantPlan, c: int, levels: list[int], budget: Budget | None, min_rounds: int) -> str:
    """Why retired level ``c`` is measured again: the variant's best level (module rules) moved."""
    best, within = best_level(vr, plan, levels, budget, min_rounds), " within the budget" if budget is not None else ""
    if best is None or best.side.concurrency == c:
        return f"it is the variant's best level{within} now"
    b, n = best.side.concurrency, len(step_gains(vr, plan, c, best.side.concurrency))
    if n < min_rounds:
        return f"its best level{within} is now concurrency {b}, which it shares {count(n, 'round')} with, fewer than the {min_rounds} a retirement needs"  # fmt: skip
    return f"its best level{within} is now concurrency {b}, which the rule (paired rounds at {ALPHA * 100:g} %) does not call higher than it over their {count(n, 'paired round')}"  # fmt: skip


def _active(
    levels: list[int],
    ended: bool,
    plan: VariantPlan,
    vr: VariantResult,
    rounds: RoundRules,
    budget: Budget | None,
) -> dict[int, str]:
    """The levels of ``levels`` retired at ``plan``'s search series (module rules), each with why in words; every
    other level is measured in the next round."""
    keep_top = set(levels[-(rounds.flat_window + 1) :]) if not ended else set()
    metric = budget.metric if budget else "latency_p99_ms"
    adjusted, cores = Adjusted([vr]), budget.cores if budget else None
    stats = {c: summary(vr, side(plan, c), budget.ms if budget else None, metric, adjusted, cores=cores) for c in levels}
    best = best_level(vr, plan, levels, budget, rounds.min_rounds)
    inside = [c for c, s in stats.items() if s is not None and s.rounds >= rounds.min_rounds and _under(s, budget)]
    out: dict[int, str] = {}
    for c in levels:
        s = stats[c]
        judges = _judges(vr, plan, c, best.side.concurrency, inside, rounds.min_rounds) if best is not None else []
        if c in keep_top or s is None or s.rounds < rounds.min_rounds or (best is not None and c == best.side.concurrency):
            continue
        elif budget is not None and s.latency is not None and left_budget(s.latency, budget):
            out[c] = over_words(s.latency, budget)
        elif (hit := next(((j, v) for j in judges if (v := behind(vr, plan, c, j, rounds.min_rounds))), None)) is not None:
            out[c] = f"concurrency {hit[0]} {RULE_WORDS}: {hit[1].spread_text()}"
    return out


def left_budget(judge: Judged | None, budget: Budget) -> bool:
    """Whether the search takes a level out of ``budget`` (module rule "Over the budget"): its latency as the budget
    judges it is over, on at least :data:`~perf.analysis.ranking.budget_latency.MIN_QUIET_ROUNDS` rounds not host busy
    or far over what the host's load explains (the budget's verdict is verified:
    :meth:`~perf.analysis.ranking.budget_latency.Judged.unverified_why` has nothing to say); never on one round."""
    return judge is not None and judge.ms > budget.ms and judge.unverified_why(budget.percentile, budget.ms) is None


def over_words(judge: Judged, budget: Budget) -> str:
    """Why a level left the budget (:func:`left_budget`), naming the rule: ``"its p99 30.00 ms (median of 3 rounds,
    none host busy) is over the budget of 25.00 ms"``, ``"... (median of its 3 rounds not host busy of 5 (...)) ..."``,
    or, on rounds host busy, ``"...; far over the budget; more than the CPU host load took explains (...)"``."""
    basis = judge.basis() + (", none host busy" if judge.busy_rounds == 0 else "")
    said = f"its p{budget.percentile} {fmt(judge.ms, 2)} ms ({basis}) is over the budget of {fmt_given(budget.ms)} ms"
    far = judge.far_over(budget.percentile, budget.ms) if judge.loaded else None
    return f"{said}; {far}" if far else said


def _under(s: Operating, budget: Budget | None) -> bool:
    """Within the budget as the ranking judges it (:func:`perf.analysis.ranking.budget_latency.within`):
    always without a budget, never without a latency."""
    return budget is None or (s.latency_ms is not None and s.latency_ms <= budget.ms)


def _judges(vr: VariantResult, plan: VariantPlan, c: int, best: int, within: list[int], min_rounds: int) -> list[int]:
    """The levels ``c`` is judged against (module rules): the variant's best; when ``c``
    shares fewer than ``min_rounds`` rounds with it (the best moved to a level that joined after
    ``c`` retired), also the other levels ``within`` (``min_rounds`` rounds, within the budget) it
    was measured beside: one it is behind is behind the best as well, and ``c`` stays retired.
    None for the best itself."""
    if c == best:
        return []
    if len(step_gains(vr, plan, c, best)) >= min_rounds:
        return [best]
    return [best, *(x for x in within if x not in (c, best))]


def behind(vr: VariantResult, plan: VariantPlan, c: int, best: int, min_rounds: int) -> Paired | None:
    """The paired rule's comparison of level ``best`` with level ``c`` when ``c`` shares at least ``min_rounds`` paired
    rounds with it and the rule calls ``best`` higher over them (module rules; never the median of their ratios
    alone, nor a gap of fewer rounds than the rule calls: a far gap too waits for the rule's 3), else ``None``."""
    gains = step_gains(vr, plan, c, best)
    verdict = paired([1.0 + g for g in gains], [1.0] * len(gains))
    return verdict if verdict is not None and verdict.rounds >= min_rounds and verdict.verdict == "higher" else None
