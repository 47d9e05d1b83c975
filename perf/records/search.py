"""What a sweep's search decided, recorded in ``results.json`` (``"search"``).

The search policy itself lives in :mod:`perf.search.policy`; these are its records, pydantic
dataclasses like :mod:`perf.records.results` (which holds one optional :class:`SearchRecord` per
run): the thresholds of the stop and prune rules (:class:`SearchRules`, one place, recorded
with the run so a resumed run goes on with the same ones), the order the variants were
measured in, and one :class:`SearchDecision` per variant the search stopped or dropped,
with its evidence (the numbers it was decided on) and the sentence the report shows.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

_CONFIG = ConfigDict(extra="ignore")

#: ``brute``: every variant measured at every level it plans; ``prune``: variants that cannot
#: win are dropped after a probe level (:mod:`perf.search.policy`).
SearchMode = Literal["brute", "prune"]
SEARCH_MODES: tuple[str, ...] = ("brute", "prune")
#: Why a variant's levels ended: ``knee`` (a doubling of concurrency gained no more than the least gain a
#: step must make: flat, past the knee), ``noise`` (the sequential design's step whose gain its noise does
#: not tell: whether the peak lies above is not told, no knee claimed; issue 26: the report's table said
#: "past the knee" of it), ``budget`` (its latency went over the budget), ``cap`` (the ladder's highest
#: concurrency), ``failed`` (a level has no numbers), ``pruned`` (it cannot win: dropped).
DecisionRule = Literal["knee", "noise", "budget", "cap", "failed", "pruned"]
#: The rules that end a variant's ladder, not its measuring: no level above the decision's is
#: measured, but levels below it may still join (the neighbours of its best, the bisection toward
#: the budget's edge). ``failed`` and ``pruned`` end the variant.
LADDER_RULES: tuple[str, ...] = ("knee", "noise", "budget", "cap")


@dataclass(frozen=True, config=_CONFIG)
class SearchRules:
    """The thresholds of the search's rules (:mod:`perf.search.policy` applies them).

    Attributes:
        start: First concurrency of the adaptive ladder (``--concurrency auto``).
        growth: Factor from one adaptive level to the next (geometric growth).
        max_concurrency: Highest concurrency the adaptive ladder reaches.
        min_gain_pct: A step up the ladder still pays when throughput rises by more than
            this (% of the lower level) *and* by more than both levels' measured spread
            (:func:`perf.analysis.stats.trials.spread`); otherwise the ladder is past the knee.
        refine_steps: With a latency budget, bisection steps between the highest level
            under the budget and the lowest one over it (0: none).
        prune_above_variants: ``--search`` defaults to ``prune`` for grids of more variants
            than this, to ``brute`` otherwise.
    """

    start: int = 1
    growth: int = 2
    max_concurrency: int = 64
    min_gain_pct: float = 5.0
    refine_steps: int = 2
    prune_above_variants: int = 4

    def levels_from(self, start: int | None = None) -> tuple[int, ...]:
        """The geometric ladder ``start, start*growth, ... <= max_concurrency`` (``start`` default: :attr:`start`):
        the levels ``--concurrency auto`` climbs (:func:`perf.search.policy.ladder`), one rule."""
        levels, c = [], self.start if start is None else start
        while c <= self.max_concurrency:
            levels.append(c)
            c *= self.growth
        return tuple(levels)


@dataclass(frozen=True, config=_CONFIG)
class BeatingLevel:
    """A level of the variant that beat a dropped one (:attr:`SearchDecision.beaten_at`).

    Attributes:
        concurrency: Its concurrency.
        batch_size: Its client batch size. Default 1.
        shape: Its swept input size (``"seq=64"``); ``None`` when the run swept none.
    """

    concurrency: int
    batch_size: int = 1
    shape: str | None = None


@dataclass(config=_CONFIG)
class SearchDecision:
    """Why the search measured no more levels of one variant.

    Attributes:
        variant: Variant name.
        rule: :data:`DecisionRule`.
        concurrency: The level the decision was taken at (its last measured one, or the
            probe level of a pruned variant).
        reason: Why, in words (the report and the console say it after :meth:`words`' lead).
        measured: Concurrencies of its search series measured when it was decided.
        throughput_infer_per_s: Its best throughput then (median over trials).
        spread_infer_per_s: That level's measured spread (:func:`perf.analysis.stats.trials.spread`).
        latency_ms: Its latency at ``concurrency`` on the budget's percentile.
        best_variant: The best variant it was compared with (``pruned``), else ``None``.
        best_concurrency: The best's level.
        best_throughput_infer_per_s: The best's throughput.
        best_spread_infer_per_s: The best's spread.
        beaten_at: ``pruned``: the levels of ``best_variant`` that beat it, one per client workload it
            was beaten at (a drop of a run with several stands on each of them); empty in records
            written before it (then ``best_concurrency`` alone names the level).
        batch_size: The client batch size of the client workload whose ladder it ended, in a run that
            measures the variant at several (``--shapes``, ``--batch-sizes``: each workload's ladder stops on
            its own numbers, :mod:`perf.search.ladder`); ``None``: the variant's own (a drop, a run of one
            workload, a record written before).
        shape: That workload's swept input size (``"seq=128"``; ``None``: not swept, or the variant's own).
    """

    variant: str
    rule: DecisionRule
    concurrency: int
    reason: str
    measured: list[int] = dataclasses.field(default_factory=list)
    throughput_infer_per_s: float | None = None
    spread_infer_per_s: float | None = None
    latency_ms: float | None = None
    best_variant: str | None = None
    best_concurrency: int | None = None
    best_throughput_infer_per_s: float | None = None
    best_spread_infer_per_s: float | None = None
    beaten_at: list[BeatingLevel] = dataclasses.field(default_factory=list)
    batch_size: int | None = None
    shape: str | None = None

    @property
    def workload(self) -> tuple[int, str | None] | None:
        """``(batch_size, shape)`` of the client workload whose ladder it ended; ``None``: the variant's own."""
        return None if self.batch_size is None else (self.batch_size, self.shape)

    def words(self, past: bool = True) -> str:
        """The decision as the console (``past=False``) and the report say it: for a rule that ends
        the ladder (:data:`LADDER_RULES`) ``"its ladder went no higher than concurrency 16 because
        ..."`` (trial 9: the pick "not measured further because its p99 at concurrency 16 is over the
        budget", then measured at c=2 and c=8), else ``"not measured further because ..."``."""
        reason = self.reason.rstrip(".")
        if self.rule in LADDER_RULES:
            return f"its ladder {'went' if past else 'goes'} no higher than concurrency {self.concurrency} because {reason}"
        return f"not measured further because {reason}"


#: How a rounds ladder's measured levels changed (:class:`LevelChange`): ``retired`` (no longer measured),
#: ``joined`` (a level added: the ladder grows, or a neighbour of its best), ``measured again`` (a retired level
#: whose retirement no longer holds).
LevelChangeKind = Literal["retired", "joined", "measured again"]


@dataclass(frozen=True, config=_CONFIG)
class LevelChange:
    """One change of which levels a variant's rounds ladder measures (:mod:`perf.search.ladder`), said on the
    console as it happens (trial 20, T20-10: a level joined and a retired one came back without a word).

    Attributes:
        variant: Variant name.
        concurrency: The level.
        change: :data:`LevelChangeKind`.
        why: Why, in words (the console's line after the change).
        batch_size: The client batch size of the ladder's client workload.
        shape: That workload's swept input size (``None``: not swept).
        after_round: The rounds measured when it changed (``None``: not known).
    """

    variant: str
    concurrency: int
    change: LevelChangeKind
    why: str
    batch_size: int = 1
    shape: str | None = None
    after_round: int | None = None


@dataclass(config=_CONFIG)
class SearchRecord:
    """How a sweep chose its levels (``RunResult.search``).

    Attributes:
        mode: :data:`SearchMode` the run used.
        adaptive: Concurrency ``auto``: each variant's ladder grew until a stop rule.
        rules: The thresholds applied.
        order: Variants in the order they were measured (most promising first).
        decisions: One per variant whose levels ended early or were pruned; with several client workloads, one
            per workload whose ladder ended (:attr:`SearchDecision.workload`), or the variant's drop.
        level_changes: Each change of the levels a rounds ladder measures, in order (:class:`LevelChange`); empty
            in records written before it.
    """

    mode: SearchMode = "brute"
    adaptive: bool = False
    rules: SearchRules = dataclasses.field(default_factory=SearchRules)
    order: list[str] = dataclasses.field(default_factory=list)
    decisions: list[SearchDecision] = dataclasses.field(default_factory=list)
    level_changes: list[LevelChange] = dataclasses.field(default_factory=list)

    def decision(self, variant: str, workload: tuple[int, str | None] | None = None) -> SearchDecision | None:
        """The decision recorded for ``variant``, if any: at client ``workload`` (``(batch_size, shape)``) that
        workload's, else the variant's own (a drop, a run of one workload), never another workload's; without
        ``workload`` the variant's own, else its first workload's."""
        mine = [d for d in self.decisions if d.variant == variant]
        own = next((d for d in mine if d.workload is None), None)
        if workload is not None:
            return next((d for d in mine if d.workload == workload), own)
        return own or next(iter(mine), None)

    def record(self, decision: SearchDecision) -> None:
        """Keep ``decision`` as its variant's: a workload's replaces that workload's and the variant's own, the
        variant's own replaces every one of the variant's."""
        kept = decision.workload is not None
        self.decisions = [
            d for d in self.decisions if d.variant != decision.variant or (kept and d.workload not in (None, decision.workload))
        ] + [decision]

    def forget(self, variant: str, workload: tuple[int, str | None] | None = None) -> None:
        """Drop the decisions of ``variant``: at client ``workload`` only, or all of them (``None``)."""
        self.decisions = [d for d in self.decisions if d.variant != variant or (workload is not None and d.workload != workload)]
