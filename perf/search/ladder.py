"""The concurrency ladder of one variant in a rounds sweep: which levels it measures next,
when it ends, and which of its levels stop being measured.

Pure functions over the variant's per-round numbers (:func:`perf.analysis.stats.paired.per_round`);
the rounds engine (:mod:`perf.search.rounds`) calls :func:`update` after every round.

Rules (thresholds: :class:`~perf.records.search.SearchRules` and
:class:`~perf.records.rounds.RoundRules`, recorded with the run):

* **Start, coarse first**: an adaptive ladder (``--concurrency auto``) first walks every
  ``first_step``-th level of the doubling ladder (``first_step`` 2: 1, 4, 16, 64, and always the
  ladder's top), its first ``first_levels`` such levels from the first round. Four levels then
  span 1 to 64, so the first rounds already show where each variant peaks, at the cost of
  three levels in a ladder capped at 16 instead of five. An explicit list is measured whole,
  every level in every round, and never ends early.
* **A step** (one level to the next) is judged by the report's rule of a rise (:mod:`perf.analysis.saturation.rises`)
  on its *paired* gains, ``T(high) / T(low) - 1`` per round both levels were measured in: *flat* at a median
  gain (:func:`perf.analysis.stats.paired.median_gain`) of at most ``min_gain_pct`` (5 %), counted as the doublings it spans; any other step may still pay
  (a rise beyond the noise, or one the noise does not tell yet: never said as "still rising").
* **Growth**: while fewer than ``flat_window`` doublings at the top look flat (on the rounds so
  far) and the top is within the latency budget, the next coarse levels are added: as many as
  it takes to see ``flat_window`` flat doublings, so that every level a verdict may need is
  measured from an early round (the rule needs 6 rounds of both sides, 3 for a large gap).
* **Refinement**: once a variant's best level (round-adjusted, within the budget) has
  ``min_rounds`` rounds, the doubling-ladder levels next to it (half and double, not above
  the ladder's top, not at or above a level whose latency is over the budget) join it, so the
  operating point is found at the doubling ladder's resolution; again around a new best. When
  the levels below the best are flat up to it (each behind it by no more than ``min_gain_pct``
  in the median of ``min_rounds`` paired rounds: a plateau, on which the best is whichever level
  the noise favoured), only the half below the plateau's lowest level joins: the levels between
  are on the plateau already, and only how low it reaches is open. Not
  the half below a best that is the ladder's top while the step into it still pays (median
  paired gain above ``min_gain_pct``): throughput is still rising there, and in a closed loop
  (perf_analyzer's concurrency mode) it does not fall as concurrency rises until past its peak,
  so the level below cannot be the operating point; its visits would only delay the verdicts.
* **Stop** (recorded as a :class:`~perf.records.search.SearchDecision`): ``knee`` when the
  top ``flat_window`` (2) doublings are flat, each step on at least ``min_rounds`` (3) paired
  rounds — one flat doubling is not enough (Model Analyzer waits for 4 levels without gain; 2
  doublings, 4x the load past the last gain, is what fits a few minutes' budget on a small host);
  ``budget`` when the top level's latency percentile, as the budget judges it
  (:mod:`perf.analysis.ranking.budget_latency`) on at least ``min_rounds`` rounds, is over the budget
  (a higher level only queues more requests); ``cap`` at the ladder's (or the time budget's)
  highest level; ``failed`` at once at a failed level (:mod:`perf.search.failed`). No other decision
  is taken on fewer rounds: a level flagged host busy or unstable in one round is measured again first.
* **Retirement** (:mod:`perf.search.retirement`): a level behind the variant's best stops being
  measured.
* **Per client workload**: a variant measured at several client workloads (``--shapes``, ``--batch-sizes``)
  has one ladder per workload (:data:`Lanes`, :func:`update_lanes`), and every rule above (growth, the
  knee, budget and cap stops, refinement, retirement, a failed level) is taken on that workload's own
  numbers: a workload whose throughput still rises climbs on while another's ladder has stopped at its
  knee or at the budget, and a workload's stop never stops another's. Its concurrencies are measured at
  that workload only. The stops are recorded per workload (:attr:`perf.records.search.SearchDecision.shape`,
  ``batch_size``). Trial 16's ``--shapes seq=8,seq=128``: one ladder read seq=8's numbers alone, so a
  seq=8 knee ended it while seq=128 still rose, and seq=128's best measured level was reported as its peak.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Set as AbstractSet

from perf.analysis.ranking.budget_latency import Judged, judged
from perf.analysis.ranking.operating import per_round, records, summary
from perf.analysis.saturation.peaks import Rise, rise_into
from perf.analysis.saturation.rises import paired_rise
from perf.analysis.stats.paired import median_gain
from perf.markdown import fmt, fmt_given
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchDecision, SearchRules
from perf.search.plan import VariantPlan, at_workload, side, step_gains, workloads
from perf.search.policy import Budget
from perf.search.retirement import Workload, best_level, left_budget, retire
from perf.search.stops import OVER_BUDGET, rise_clause


@dataclasses.dataclass
class Ladder:
    """The levels of one variant at one client workload in a rounds sweep (module rules; a variant
    measured at several has one per workload: :data:`Lanes`).

    Attributes:
        levels: Concurrencies in its ladder so far (measured or about to be), ascending.
        active: Those measured in the next round (its retired levels left out).
        end: Why no level is added any more (``None`` while it grows).
        capped: Its top is the time budget's cap (a cut when its throughput still rose into it: :func:`rising_top`).
        adaptive: It grows (``--concurrency auto``); an explicit list is measured whole and never climbs.
        retired_why: Per level of :attr:`levels` retired (module rule "Retirement"), why in words.
        joined_why: Per level the last :func:`update` added (rules "Growth", "Refinement"), why in words.
    """

    levels: list[int]
    active: list[int]
    end: SearchDecision | None = None
    capped: bool = False
    adaptive: bool = True
    retired_why: dict[int, str] = dataclasses.field(default_factory=dict)
    joined_why: dict[int, str] = dataclasses.field(default_factory=dict)


#: A variant's ladders, one per client workload it is measured at (:func:`perf.search.plan.workloads`;
#: module rule "Per client workload").
Lanes = dict[Workload, Ladder]


def full(ladder: tuple[int, ...], cap: int | None) -> list[int]:
    """The doubling ladder up to ``cap``."""
    return [c for c in ladder if cap is None or c <= cap]


def coarse(ladder: tuple[int, ...], rounds: RoundRules, cap: int | None) -> list[int]:
    """The first pass's levels: every ``first_step``-th level of the ladder and its top (module rule "Start")."""
    levels = full(ladder, cap)
    out = levels[:: max(1, rounds.first_step)]
    return out + [levels[-1]] if levels and levels[-1] not in out else out


def start(plan: VariantPlan, ladder: tuple[int, ...], adaptive: bool, rounds: RoundRules, cap: int | None) -> Ladder:
    """The ladder before the first round: its first coarse levels (adaptive) or the whole list."""
    first = coarse(ladder, rounds, cap)[: rounds.first_levels] if adaptive else full(ladder, cap)
    return Ladder(list(first), list(first), adaptive=adaptive)


def resume(
    plan: VariantPlan, vr: VariantResult, ladder: tuple[int, ...], adaptive: bool, rounds: RoundRules, cap: int | None
) -> Ladder:
    """The ladder of a resumed run at ``plan``'s one client workload (:func:`perf.search.plan.at_workload`): its
    first levels and every concurrency already measured there (the plan's ``cap`` is never below them:
    :func:`perf.search.promise.measured_top`)."""
    fresh = start(plan, ladder, adaptive, rounds, cap)
    levels = sorted(set(fresh.levels) | seen(vr, one_workload(plan)))
    return Ladder(levels, list(levels), adaptive=adaptive)


def lanes(
    plan: VariantPlan, vr: VariantResult, ladder: tuple[int, ...], adaptive: bool, rounds: RoundRules, cap: int | None
) -> Lanes:
    """A variant's ladders, one per client workload (module rule "Per client workload"), each :func:`resume`'d
    from what was measured at it (fresh in a new run)."""
    return {load: resume(at_workload(plan, load), vr, ladder, adaptive, rounds, cap) for load in workloads(plan)}


def one_workload(plan: VariantPlan) -> Workload:
    """The one client workload of ``plan`` (narrowed by :func:`perf.search.plan.at_workload`). Raises ValueError
    when it has several: a ladder's rules read one workload's numbers (module rule "Per client workload")."""
    every = workloads(plan)
    if len(every) != 1:
        raise ValueError(f"{plan.name}: a ladder is one client workload's, not {len(every)} (narrow with at_workload)")
    return every[0]


def seen(vr: VariantResult, load: Workload | None = None) -> set[int]:
    """The concurrencies ``vr`` has numbers at (a resumed run's earlier sessions): at client workload ``load``,
    or at any (``None``)."""
    return {
        lv.concurrency
        for lv in vr.levels
        if lv.request_rate is None and lv.ok and (load is None or (lv.batch_size, lv.shape) == load)
    }


def _latency(vr: VariantResult, plan: VariantPlan, c: int, budget: Budget) -> tuple[float | None, int, str]:
    """The level's latency as the budget judges it (:mod:`perf.analysis.ranking.budget_latency`), its
    rounds, and how it was taken in words."""
    j = _judged(vr, plan, c, budget)
    if j is None:
        return None, 0, ""
    return j.ms, j.all_rounds, j.basis()


def _judged(vr: VariantResult, plan: VariantPlan, c: int, budget: Budget) -> Judged | None:
    """Level ``c``'s latency as the budget judges it (:mod:`perf.analysis.ranking.budget_latency`)."""
    return judged(records(vr, side(plan, c)), budget.metric, cores=budget.cores)


def _flat_steps(
    vr: VariantResult, plan: VariantPlan, levels: list[int], min_gain: float, min_rounds: int
) -> tuple[int, int, int]:
    """``(tentative, firm, low)``: the doublings spanned by consecutive flat steps at the top of
    ``levels`` on any rounds, those of them judged on at least ``min_rounds`` rounds (counted
    from the top while firm), and the lowest level of the firm ones."""
    tentative = firm = 0
    firm_run, low_firm = True, levels[-1] if levels else 0
    for low, high in reversed(list(zip(levels, levels[1:]))):
        gains = step_gains(vr, plan, low, high)
        if not gains or not paired_rise(vr, side(plan, low), side(plan, high), min_gain).flat:
            break
        span = max(1, round(math.log2(high / low)))
        tentative += span
        firm_run = firm_run and len(gains) >= min_rounds
        if firm_run:
            firm, low_firm = firm + span, low
    return tentative, firm, low_firm


def rising_top(vr: VariantResult, plan: VariantPlan, top: int, rules: SearchRules) -> Rise | None:
    """How throughput still rose into level ``top`` of the search series (:func:`side`) by the rule of every
    "still rose" sentence (:func:`perf.analysis.saturation.peaks.rise_into`); ``None``: it did not, or no numbers."""
    r = rise_into(vr, side(plan, top), rules.min_gain_pct)
    return r if r is not None and r.rising else None


def _still_rose(vr: VariantResult, plan: VariantPlan, levels: list[int], min_gain_pct: float) -> str:
    """:func:`perf.search.stops.rise_clause` of the step into the top (:func:`perf.analysis.saturation.peaks.rise_into`)."""
    r = rise_into(vr, side(plan, levels[-1]), min_gain_pct) if levels else None
    low = r.below.concurrency if r is not None and r.below is not None else None
    return rise_clause(r, levels[-1] if levels else 0, step_gains(vr, plan, low, levels[-1]) if low is not None else [])


def decision(plan: VariantPlan, vr: VariantResult, rule: str, at: int, reason: str, budget: Budget | None) -> SearchDecision:
    """The ladder's stop ``rule`` at concurrency ``at``, with its numbers there (module rule "Stop"), at the search
    series' client workload (one ladder's: :func:`perf.search.plan.at_workload`)."""
    at_side = side(plan, at)
    s = summary(vr, at_side, None, budget.metric if budget else "latency_p99_ms", cores=budget.cores if budget else None)
    load = (at_side.batch_size, at_side.shape)
    return SearchDecision(
        variant=plan.name,
        rule=rule,  # type: ignore[arg-type]
        concurrency=at,
        reason=reason,
        measured=sorted({lv.concurrency for lv in vr.levels if lv.request_rate is None and (lv.batch_size, lv.shape) == load}),
        throughput_infer_per_s=s.throughput_infer_per_s if s else None,
        latency_ms=s.latency_ms if s else None,
    )


def update(
    lad: Ladder,
    plan: VariantPlan,
    vr: VariantResult,
    ladder: tuple[int, ...],
    adaptive: bool,
    rules: SearchRules,
    rounds: RoundRules,
    budget: Budget | None,
    cap: int | None,
    peak: bool = False,
) -> Ladder:
    """The ladder of ``plan``'s one client workload (:func:`perf.search.plan.at_workload`; :func:`update_lanes`
    updates each of a variant's) after a round: grown, ended (module rules) and with its beaten levels retired,
    on that workload's numbers; ``peak``: the engine ranks that workload by peak, no contender having a level
    within ``budget`` there (module rule "Retirement"). Raises ValueError for a plan of several workloads."""
    one_workload(plan)
    if not adaptive:
        return lad
    levels = sorted(lad.levels)
    top = levels[-1]
    above = [c for c in coarse(ladder, rounds, cap) if c > top]
    tentative, firm, low = _flat_steps(vr, plan, levels, rules.min_gain_pct, rounds.min_rounds)
    lat, n, basis = _latency(vr, plan, top, budget) if budget else (None, 0, "")
    end: SearchDecision | None = None
    joined: dict[int, str] = {}
    if budget is not None and lat is not None and lat > budget.ms and n >= rounds.min_rounds:
        end = decision(
            plan,
            vr,
            "budget",
            top,
            f"its p{budget.percentile} at concurrency {top} is {fmt(lat, 2)} ms ({basis}), over the budget "
            f"of {fmt_given(budget.ms)} ms: {OVER_BUDGET}" + _still_rose(vr, plan, levels, rules.min_gain_pct),
            budget,
        )
    elif firm >= rounds.flat_window:
        end = decision(
            plan,
            vr,
            "knee",
            top,
            f"its throughput gained no more than {fmt(rules.min_gain_pct)} % (median of the paired rounds) over the "
            f"{firm} doublings from concurrency {low} to {top}: past the knee",
            budget,
        )
    elif not above:
        capped = cap is not None and cap < ladder[-1]
        end = decision(
            plan,
            vr,
            "cap",
            top,
            f"concurrency {top} is the top of the ladder"
            + (f" the time budget allows (the ladder goes to {ladder[-1]})" if capped else f" (max {ladder[-1]})"),
            budget,
        )
        lad.capped = capped
    elif above and tentative < rounds.flat_window and not (budget is not None and lat is not None and lat > budget.ms):
        grown = above[: math.ceil((rounds.flat_window - tentative) / max(1, rounds.first_step))]
        why = f"its ladder grows above concurrency {top}: a knee needs {rounds.flat_window} flat doublings at its top (gains of no more than {fmt(rules.min_gain_pct)} %), it has {tentative} so far"  # fmt: skip
        joined = dict.fromkeys(grown, why)
        levels += grown
    lad.levels, lad.end = levels, end
    joined |= _refined(lad, plan, vr, full(ladder, cap), rules, rounds, budget)
    lad.levels, lad.joined_why = sorted(set(lad.levels) | set(joined)), joined
    done = retire(lad.levels, lad.end is not None, plan, vr, rounds, budget, peak)
    lad.active, lad.retired_why = done.active, done.why
    return lad


def update_lanes(
    lanes_: Lanes,
    plan: VariantPlan,
    vr: VariantResult,
    ladder: tuple[int, ...],
    adaptive: bool,
    rules: SearchRules,
    rounds: RoundRules,
    budget: Budget | None,
    cap: int | None,
    peak: AbstractSet[Workload] = frozenset(),
) -> Lanes:
    """Each of a variant's ladders after a round (:func:`update`), each on its own client workload's numbers
    (module rule "Per client workload"); ``peak``: the workloads the engine ranks by peak."""
    for load, lad in lanes_.items():
        update(lad, at_workload(plan, load), vr, ladder, adaptive, rules, rounds, budget, cap, load in peak)
    return lanes_


def _refined(
    lad: Ladder,
    plan: VariantPlan,
    vr: VariantResult,
    doubling: list[int],
    rules: SearchRules,
    rounds: RoundRules,
    budget: Budget | None,
) -> dict[int, str]:
    """The doubling-ladder levels next to the variant's best (module rule "Refinement"), each with why in words."""
    best = best_level(vr, plan, lad.levels, budget)
    if best is None or best.rounds < rounds.min_rounds:
        return {}
    c = best.side.concurrency
    low = _plateau_low(vr, plan, lad.levels, c, rules.min_gain_pct, rounds.min_rounds)
    if low < c:  # a flat stretch up to the best: only whether it reaches lower is open
        why = (
            f"the half below concurrency {low}, the lowest level within {fmt(rules.min_gain_pct)} % of its best (concurrency {c})"
        )
        return {n: why for n in (low // 2,) if n in doubling and n not in lad.levels}
    over = [x for x in lad.levels if budget is not None and left_budget(_judged(vr, plan, x, budget), budget)]
    ceiling = min(over, default=max(lad.levels) + 1)
    near = [n for n in (c // 2, c * 2) if n in doubling and n <= max(lad.levels) and n < ceiling and n not in lad.levels]
    within = " within the budget" if budget is not None else ""
    return {
        n: f"next to its best level{within}, concurrency {c}"
        for n in near
        if not (n < c and _rising_top(lad, plan, vr, c, rules))
    }


def _plateau_low(vr: VariantResult, plan: VariantPlan, levels: list[int], best: int, min_gain_pct: float, min_rounds: int) -> int:
    """The lowest level of the flat stretch ending at ``best``: walking down ``levels`` from it while
    each is behind ``best`` by no more than ``min_gain_pct`` (median of at least ``min_rounds``
    paired rounds); ``best`` itself when the level below it is behind."""
    low = best
    for c in sorted((x for x in levels if x < best), reverse=True):
        gains = step_gains(vr, plan, c, best)
        if len(gains) < min_rounds or median_gain(gains) * 100.0 > min_gain_pct:
            break
        low = c
    return low


def _rising_top(lad: Ladder, plan: VariantPlan, vr: VariantResult, c: int, rules: SearchRules) -> bool:
    """``c`` is the ladder's top and the step into it still pays (module rule "Refinement")."""
    levels = sorted(lad.levels)
    if c != levels[-1] or len(levels) < 2:
        return False
    r = paired_rise(vr, side(plan, levels[-2]), side(plan, c), rules.min_gain_pct)
    return r.gain_pct is not None and not r.flat


def exploring(lad: Ladder, plan: VariantPlan, vr: VariantResult, rounds: RoundRules) -> bool:
    """Whether an adaptive ladder (of ``plan``'s one client workload) still measures a level that has fewer than
    ``min_rounds`` rounds with numbers (one just added, e.g. by refinement): its ranking may still move."""
    return lad.adaptive and any(len(per_round(vr, side(plan, c))) < rounds.min_rounds for c in lad.active)


def climbing(lad: Ladder, plan: VariantPlan, vr: VariantResult, rules: SearchRules) -> bool:
    """Whether the ladder (of ``plan``'s one client workload) may still lift the variant's best there: it has
    not ended and its top step paid (or has not been measured in a common round yet). An explicit list never climbs."""
    if not lad.adaptive:
        return False
    if lad.end is not None or len(lad.levels) < 2:
        return lad.end is None
    return not paired_rise(vr, side(plan, lad.levels[-2]), side(plan, lad.levels[-1]), rules.min_gain_pct).flat


def climbing_at(lanes_: Lanes, plan: VariantPlan, vr: VariantResult, rules: SearchRules, load: Workload | None = None) -> bool:
    """:func:`climbing` of the variant's ladder at client workload ``load``, or of any of its ladders (``None``)."""
    return any(climbing(lad, at_workload(plan, w), vr, rules) for w, lad in lanes_.items() if load in (None, w))


def exploring_at(lanes_: Lanes, plan: VariantPlan, vr: VariantResult, rounds: RoundRules, load: Workload | None = None) -> bool:
    """:func:`exploring` of the variant's ladder at client workload ``load``, or of any of its ladders (``None``)."""
    return any(exploring(lad, at_workload(plan, w), vr, rounds) for w, lad in lanes_.items() if load in (None, w))
