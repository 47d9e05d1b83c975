"""The search policy of the sequential design (``--design sequential``; the rounds design has its
own: :mod:`perf.search.rounds`, :mod:`perf.search.ladder`): which concurrency to measure next on a
variant, when its levels end, which variants are dropped, and in which order they are measured: pure
functions over recorded levels and :class:`perf.records.search.SearchRules`; :class:`Search` drives it.

Rules (thresholds in :class:`~perf.records.search.SearchRules`, recorded with the run):

* **Adaptive concurrency** (``--concurrency auto``): the ladder starts at ``start`` and
  grows by ``growth`` up to ``max_concurrency``. A step up still pays when throughput still rises by
  the one rule (:class:`perf.analysis.saturation.rises.Rising`: beyond the noise *and* by more than
  ``min_gain_pct`` %), the noise judged as this design can (:func:`rising`: both levels' measured
  spread). The first step that does not ends the ladder: one level past the knee when its gain is at
  most ``min_gain_pct`` (flat: :func:`perf.analysis.saturation.rises.knee` then finds it), else said
  as not told from the noise, with no knee claimed. With a latency budget
  the ladder also ends at the first level over the budget, and up to ``refine_steps``
  bisection levels look for the highest concurrency under it. A failed level ends the
  ladder (a resumed run measures it again). An explicit ``--concurrency`` list: measured whole.
* **Pruning** (``--search prune``, the default above ``prune_above_variants`` variants): the
  first variant measures its ladder; every later one is first measured at the *probe
  level*, the concurrency of the best level so far (the best under the budget when one is
  set). A variant is dropped, and not measured further, when its best throughput plus its
  spread is below the best so far minus the best's spread: the search assumes that a
  variant behind at the best's own concurrency stays behind at the others (the successive
  halving model). A variant still climbing when compared (its last step up paid), or measured
  only below the best's concurrency yet (a resumed run's earlier probe), is not dropped. With a budget, a variant over it already at the ladder's lowest level is dropped
  too (:data:`perf.search.stops.OVER_BUDGET`). The others go on with their ladder.
* **Order** (:mod:`perf.search.order`): so an interrupted sweep already holds a useful recommendation.

Each client workload (``--batch-sizes``, ``--shapes``) climbs its own ladder: its steps, knee, budget stop
and bisection read that workload's levels only, and its stop is recorded for it (one ladder on the search
series' numbers ended every workload's at that series' knee). A drop is the variant's: it compares the
search series, its smallest client batch size at its smallest input (:mod:`perf.search.plan`), with the
others' (like with like), as a probe at the best's level.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from perf.analysis.ranking.budget_latency import latency_metric
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import best_under_budget
from perf.analysis.saturation.falls import Step
from perf.analysis.saturation.rises import Rising
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.analysis.stats.trials import DEFAULT_TOLERANCE_PCT, rank, spread
from perf.markdown import fmt, fmt_given
from perf.records.levels import HOST_BUSY, LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.search import SearchDecision, SearchMode, SearchRecord, SearchRules
from perf.search.order import order
from perf.search.plan import LevelKey, VariantPlan, at_workload, needs_measuring, series, workloads
from perf.search.stops import OVER_BUDGET, failed_reason, gain_pct, still_rose

#: ``--concurrency auto``: the adaptive ladder.
AUTO = "auto"


@dataclasses.dataclass(frozen=True)
class Budget:
    """A latency budget: ``ms`` on client latency percentile ``percentile`` (50, 90, 95, 99), judged on a host of
    ``cores`` cores (``None``: unknown; required, as by :func:`perf.analysis.ranking.budget_latency.judged`)."""

    ms: float
    percentile: int = 99
    cores: int | None = dataclasses.field(kw_only=True)

    @property
    def metric(self) -> str:
        """The :class:`perf.records.levels.LevelResult` field of the budget's percentile (``latency_p99_ms``...)."""
        return latency_metric(self.percentile)

    def over(self, p: Point) -> bool:
        """Whether ``p``'s latency on the budget's percentile is over the budget."""
        lat = p.get(self.metric)
        return lat is not None and lat > self.ms


def ladder(concurrency: Sequence[int] | str, rules: SearchRules) -> tuple[tuple[int, ...], bool]:
    """``(levels, adaptive)``: ``"auto"`` -> the geometric ladder ``start, start*growth, ...
    <= max_concurrency`` grown adaptively; a list -> its levels, sorted, measured whole."""
    if isinstance(concurrency, str):
        return rules.levels_from(), True
    return tuple(sorted(set(concurrency))), False


def resolve_mode(asked: str | None, n_variants: int, rules: SearchRules, adaptive: bool = True) -> SearchMode:
    """``brute`` for an explicit level list (measured whole), else the mode asked, else ``prune`` above the rule's count."""
    if not adaptive or asked in ("brute", "prune"):
        return "brute" if not adaptive else asked  # type: ignore[return-value]
    return "prune" if n_variants > rules.prune_above_variants else "brute"


def best_point(points: Mapping[str, Sequence[Point]], budget: Budget | None, tol: float) -> Point | None:
    """The best level of ``points`` (variant -> series) by the recommendation's ranking rule
    (:func:`perf.analysis.stats.trials.rank`): under ``budget`` when one is set."""
    cands = [p for pts in points.values() for p in pts if candidate(p)]
    return best_under_budget(cands, budget.ms, tol, budget.percentile) if budget is not None else rank(cands, tol)[0]


def rising(low: Point, high: Point, rules: SearchRules, tol: float) -> Rising:
    """The step from ``low`` to ``high`` concurrency by the one rule for "throughput still rises"
    (:class:`perf.analysis.saturation.rises.Rising`: beyond the noise and by more than ``min_gain_pct``;
    flat at most that gain; else not told), with the noise judged as the sequential design can.

    That rule judges the noise paired over the rounds both levels shared (a rounds run), else beyond the
    spread over trials (:func:`perf.analysis.saturation.falls.step`). This design measures its levels one
    after another, so no round is shared, and mostly once each, so the trials' own spread is unknown and
    that rule would tell no step. Its noise is therefore each level's own
    (:func:`perf.analysis.stats.trials.spread`: trial min–max, perf_analyzer's window spread, the
    stability tolerance ``tol`` for an unstable level): a step beyond both levels' spread rose or fell,
    one within it is not told, and the words (:meth:`perf.analysis.saturation.rises.Rising.words`) say
    which, with that spread, never more."""
    t0, t1 = low.value(THROUGHPUT), high.value(THROUGHPUT)
    noise = max(spread(low, tol), spread(high, tol))
    beyond = abs(t1 - t0) > noise
    said = f"{'more than' if beyond else 'within'} the levels' spread, {noise / t0 * 100.0:.1f} %" if t0 > 0 else "no throughput"
    gain = (t1 / t0 - 1.0) * 100.0 if t0 > 0 else None
    return Rising(gain, Step(("rose" if t1 > t0 else "fell") if beyond else None, said), rules.min_gain_pct)


def next_step(
    variant: str,
    own: Sequence[Point],
    levels: tuple[int, ...],
    adaptive: bool,
    rules: SearchRules,
    best: Point | None = None,
    budget: Budget | None = None,
    tol: float = DEFAULT_TOLERANCE_PCT,
) -> int | SearchDecision | None:
    """What the search does next on one variant.

    Args:
        variant: Its name.
        own: Its search series measured so far (:func:`series`; failed levels included).
        levels: The ladder (:func:`ladder`).
        adaptive: Grow the ladder by the stop rules (else measure every level).
        rules: Thresholds.
        best: The best level of the *other* variants (:func:`best_point`) when pruning;
            ``None`` in brute mode or before any other variant has numbers.
        budget: The latency budget, if any.
        tol: Stability tolerance (%) for :func:`perf.analysis.stats.trials.spread`.

    Returns:
        A concurrency to measure; a :class:`SearchDecision` when its levels end early or it
        is dropped; ``None`` when an explicit list is measured whole.
    """
    by_c = {p.concurrency: p for p in own}
    if not by_c:
        return best.concurrency if best is not None else levels[0]
    failed = [p for p in own if not p.ok]
    if adaptive and failed:
        p = failed[0]
        why = "; ".join(p.errors) or "no throughput"
        return _decision(variant, "failed", p, own, failed_reason(p.concurrency, why))
    proposal = _adaptive(variant, by_c, levels, rules, budget, tol) if adaptive else _explicit(by_c, levels)
    if isinstance(proposal, SearchDecision) and proposal.rule == "cap" and best is not None:
        # its ladder ends at the top (a probe at the best's concurrency may be its only level):
        # still compared with the best, so a variant that cannot win says so, not "top of the ladder"
        return _pruned(variant, own, max(by_c), levels, rules, best, budget, tol) or proposal
    if not isinstance(proposal, int) or best is None:
        return proposal
    return _pruned(variant, own, proposal, levels, rules, best, budget, tol) or proposal


def _explicit(by_c: Mapping[int, Point], levels: tuple[int, ...]) -> int | None:
    """The next level of an explicit list: those above the lowest measured first, ascending."""
    low = min(by_c)
    left = [c for c in levels if c not in by_c]
    return next((c for c in left if c > low), left[0] if left else None)


def _adaptive(
    variant: str, by_c: Mapping[int, Point], levels: tuple[int, ...], rules: SearchRules, budget: Budget | None, tol: float
) -> int | SearchDecision:
    """The adaptive ladder: up until a stop rule; with a budget, down until a level meets it,
    then bisection toward its edge."""
    own = sorted(by_c.values(), key=lambda p: p.concurrency)
    top = own[-1]
    prev = own[-2] if len(own) > 1 else None
    end: SearchDecision | None = None
    if budget is not None and budget.over(top):
        end = _decision(
            variant,
            "budget",
            top,
            own,
            f"its p{budget.percentile} at concurrency {top.concurrency} is {fmt(top.get(budget.metric), 2)} ms, over the "
            f"budget of {fmt_given(budget.ms)} ms: {OVER_BUDGET}"
            + (still_rose(gain_pct(prev, top), prev.concurrency, top.concurrency) if prev is not None else "")
            + (
                " (measured while other processes kept the host busy: rerun on a quiet host to trust this stop)"
                if top.status == HOST_BUSY
                else ""
            ),
            budget,
        )
    elif prev is not None and not (step := rising(prev, top, rules, tol)).rises:
        end = _decision(
            variant,
            "knee" if step.flat else "noise",  # a gain within the noise: no knee claimed (DecisionRule)
            top,
            own,
            f"{step.words(prev.concurrency, top.concurrency)} ({fmt(prev.get(THROUGHPUT))} -> "
            f"{fmt(top.get(THROUGHPUT))} infer/s): "
            + ("past the knee" if step.flat else "its ladder ends here, whether its peak lies above it not told"),
        )
    else:
        above = [c for c in levels if c > top.concurrency]
        if above:
            return above[0]
        skipped = [c for c in levels if c < top.concurrency and c not in by_c]
        end = _decision(
            variant,
            "cap",
            top,
            own,
            f"concurrency {top.concurrency} is the top of the ladder (max {levels[-1]})"
            + (
                f"; lower levels {', '.join(map(str, skipped))} were not measured (it was probed at the best level so far)"
                if skipped
                else ""
            ),
        )
    if budget is None:
        return end
    low = own[0]
    below = [c for c in levels if c < low.concurrency]
    if budget.over(low) and below:  # a probe over the budget: down until a level meets it
        return below[-1]
    under = [p.concurrency for p in own if not budget.over(p)]
    over = [p.concurrency for p in own if budget.over(p)]
    refined = [c for c in by_c if c not in levels]
    if under and over and len(refined) < rules.refine_steps:
        lo = max(under)
        hi = min((c for c in over if c > lo), default=None)
        if hi is not None and hi - lo > 1:
            return (lo + hi) // 2
    return end


def _pruned(
    variant: str,
    own: Sequence[Point],
    proposal: int,
    levels: tuple[int, ...],
    rules: SearchRules,
    best: Point,
    budget: Budget | None,
    tol: float,
) -> SearchDecision | None:
    """The prune decision for a variant about to measure ``proposal``, or None to go on."""
    ok = sorted((p for p in own if p.ok), key=lambda p: p.concurrency)
    if not ok:
        return None
    if any(p.status == HOST_BUSY for p in ok):
        # other processes' CPU moved its numbers: no evidence that it cannot win (the demo on a
        # loaded host dropped the best variant on one host-busy p99); measured on instead
        return None
    if budget is not None and ok[0].concurrency == levels[0] and budget.over(ok[0]):
        return _decision(
            variant,
            "pruned",
            ok[0],
            own,
            f"its p{budget.percentile} at concurrency {ok[0].concurrency} is already {fmt(ok[0].get(budget.metric), 2)} ms, "
            f"over the budget of {fmt_given(budget.ms)} ms at the lowest load: {OVER_BUDGET}",
            budget,
            best,
            tol,
        )
    if proposal > ok[-1].concurrency and len(ok) > 1 and rising(ok[-2], ok[-1], rules, tol).rises:
        return None  # still climbing: its peak is not bounded yet
    if proposal > ok[-1].concurrency < best.concurrency:  # below the best's level yet (a resume's earlier probe):
        return None  # its ladder may still lift it; compared at the probe level first (trial 22, F-prune-c1)
    mine = max(ok, key=lambda p: p.value(THROUGHPUT))
    s, sb = spread(mine, tol), spread(best, tol)
    if mine.value(THROUGHPUT) + s >= best.value(THROUGHPUT) - sb:
        return None
    return _decision(
        variant,
        "pruned",
        mine,
        own,
        f"at concurrency {mine.concurrency} its throughput {fmt(mine.get(THROUGHPUT))} ± {fmt(s)} infer/s is below the best "
        f"so far (`{best.variant}` at concurrency {best.concurrency}: {fmt(best.get(THROUGHPUT))} ± {fmt(sb)} infer/s"
        + (f", under the p{budget.percentile} budget" if budget else "")
        + ") by more than both spreads",
        budget,
        best,
        tol,
    )


def _decision(
    variant: str,
    rule: Any,
    at: Point,
    own: Sequence[Point],
    reason: str,
    budget: Budget | None = None,
    best: Point | None = None,
    tol: float = DEFAULT_TOLERANCE_PCT,
) -> SearchDecision:
    return SearchDecision(
        variant=variant,
        rule=rule,
        concurrency=at.concurrency,
        reason=reason,
        measured=sorted(p.concurrency for p in own),
        throughput_infer_per_s=at.get(THROUGHPUT),
        spread_infer_per_s=spread(at, tol) if at.ok else None,
        latency_ms=at.get(budget.metric if budget else "latency_p99_ms"),
        best_variant=best.variant if best else None,
        best_concurrency=best.concurrency if best else None,
        best_throughput_infer_per_s=best.get(THROUGHPUT) if best else None,
        best_spread_infer_per_s=spread(best, tol) if best else None,
    )


class Search:
    """The sweep's search over its planned variants: asked, per variant, which levels next.

    Args:
        plans: Variant name -> its plan (:func:`perf.search.plan.plan_variant` over the ladder).
        record: The run's search record (mode, rules; decisions are added to it).
        levels: The ladder (:func:`ladder`).
        budget: The latency budget, if any.
        tol: Stability tolerance (%) of the run.
    """

    def __init__(
        self,
        plans: Mapping[str, VariantPlan],
        record: SearchRecord,
        levels: tuple[int, ...],
        budget: Budget | None = None,
        tol: float = DEFAULT_TOLERANCE_PCT,
    ):
        self.plans, self.record, self.levels, self.budget, self.tol = plans, record, levels, budget, tol

    def order(self) -> list[str]:
        """Variants in measuring order (the promise order when pruning, else as given)."""
        if self.record.mode == "brute":
            return list(self.plans)
        return order({n: p.config for n, p in self.plans.items()})

    def _series(self, vr: VariantResult, tried: set[LevelKey], plan: VariantPlan | None = None) -> list[Point]:
        """``vr``'s search series, or ``plan``'s (one client workload's: :func:`perf.search.plan.at_workload`)."""
        seen = [lv for lv in vr.levels if not needs_measuring(lv) or _key(lv) in tried]
        return series(seen, plan or self.plans[vr.name])

    def next_keys(self, vr: VariantResult, run: RunResult, tried: set[LevelKey]) -> list[LevelKey]:
        """The levels to measure next on ``vr`` (each client workload's next concurrency, every trial; its
        request-rate levels once its concurrency levels are done); ``[]`` when it is done. A decision that
        ends a workload's levels is recorded in :attr:`record`, that workload's at several (module docstring).

        Args:
            vr: The variant (its levels so far).
            run: The whole run (the other variants' levels: the best so far).
            tried: Keys measured in this session (a failed one is not measured again now).
        """
        plan = self.plans[vr.name]
        pending = [k for k in plan.levels if k not in tried and needs_measuring(vr.level(*k))]
        adaptive = self.record.adaptive
        if self.record.mode == "brute" and not adaptive:
            return pending  # the plan, as asked
        kept = self.record.decision(vr.name)
        if kept is not None and kept.rule == "pruned":  # a resumed run keeps its prune decisions
            return []
        best = None
        if self.record.mode == "prune":
            others = {v.name: self._series(v, tried) for v in run.variants if v.name != vr.name and v.status != "failed"}
            best = best_point(others, self.budget, self.tol)
        loads, keys = workloads(plan), list[LevelKey]()
        for load in loads:  # each client workload's own ladder; the search series' is the one compared for a drop
            at = at_workload(plan, load)
            own, rules, first = self._series(vr, tried, at), self.record.rules, load == loads[0]
            probe = best.concurrency if best is not None and not own and not first else None  # probed alike
            step = probe or next_step(vr.name, own, self.levels, adaptive, rules, best if first else None, self.budget, self.tol)
            if isinstance(step, SearchDecision):
                several = len(loads) > 1 and step.rule != "pruned"
                self.record.record(dataclasses.replace(step, batch_size=load[0], shape=load[1]) if several else step)
                if step.rule == "pruned":
                    return []
            elif isinstance(step, int):  # none left: measured already in this session (a failed trial)
                keys += [k for k in at.keys_at(step) if k not in tried and needs_measuring(vr.level(*k))]
        return keys or [k for k in pending if k[3] is not None]  # its request-rate levels, once


def _key(lv: LevelResult) -> LevelKey:
    return (lv.concurrency, lv.batch_size, lv.trial, lv.request_rate, lv.shape)
