"""The paired ranking of a rounds sweep: each variant's operating point, the leader, what it
beats and its tie set, every verdict by the one paired rule (:func:`perf.analysis.stats.paired.paired`).

A rounds sweep (:mod:`perf.search.rounds`) measures every (variant, level) still in contention
once per round, in a shuffled order; :attr:`perf.records.levels.LevelResult.trial` is the round.
Two levels measured in the same round saw the same stretch of the host's background load, so
their throughput *ratio* in that round is free of whatever the host did between rounds, and the
shuffle spreads what it did within a round over every variant alike.

**Comparisons** (:func:`perf.analysis.ranking.operating.compare`): A (a variant at a level) against B over the rounds in which
both have numbers: the ratio ``T_A / T_B`` per round (T: infer/s) judged by the project's one
paired rule (:mod:`perf.analysis.stats.paired`: a sign test over 6 rounds, or a large gap over 3),
reported with the median ratio, its min–max, the rounds won, the p-value, and the median
per-round difference of the budget's latency percentile (ms). A pair still "not
distinguishable" is *settled* as a tie when even winning every round left (up to
``max_rounds``) could not reach the rule (:meth:`perf.analysis.ranking.operating.Comparison.can_separate`).

**Round-adjusted throughput** (:class:`perf.analysis.ranking.operating.Adjusted`): levels are not all measured in the same
rounds (a ladder grows, levels retire, variants are dropped), so their plain medians would
again mix in the host's moment. The rounds are the blocks of a randomised block design: log
throughput = level effect + round effect, fitted by Tukey's median polish over every level of
the ranked variants; ``exp(level effect)`` is the level's throughput in the median round. It
only *orders* levels and variants; every verdict is the paired rule.

**Operating point** (:func:`perf.analysis.ranking.operating.operating_point`): per variant, the concurrency level with the
highest round-adjusted throughput, among its levels with the rounds the earliest verdict needs
(3, a large gap's) when it has any (else all its levels); the leader is named at its best level
whatever its rounds (its peak), and compared through its levels that have them; under a latency
budget, among the levels whose latency percentile as the budget judges it
(:mod:`perf.analysis.ranking.budget_latency`: the median over its rounds, over those not host busy where
some were and enough were not) is within the budget (the report also says in how many of its rounds).
**Ranking** (:func:`rank_variants`): the leader is, of the variants no other beats by the rule,
the one with the highest round-adjusted throughput at its operating point unless another is ahead
of it in one-sided shared rounds or has a higher median over more rounds (:mod:`perf.analysis.ranking.leader`); the **tie set**: the leader and every variant
it does not beat whose operating point shared a round with its (else *not compared*, :func:`perf.analysis.ranking.standing.kind`). A pick is named alone only when the tie set has one member and none is not compared. The leader is compared with series of its own client
workload only (:mod:`perf.records.workloads`): an input size or a client batch size is the client's, not a setting to pick.

**Batching that formed no batch** (:func:`_batching_off_first`; trial 24, T24-8): where the leader's dynamic batching
formed no batch under its workload (a mixed one: Triton batches only requests of equal shapes; the finding the report
says, :func:`perf.analysis.stats.no_batch.formed_no_batch`) and its tie set holds the same variant with
batching off (otherwise the same settings), that variant is named first: the rule cannot separate them, and the
batching one's requests only wait the queue delay (a mixed-size run named ``db500`` first of a tie with ``nodb`` while
the same output said "serve them with batching off"). Only within a tie set, and only when named first at its peak the
batching-off variant still leaves the other in its tie set; a pick the rule separated is never moved.

**The pick's other levels**: the leader's operating point and a runner-up's may share fewer
rounds than the rule needs (levels join a ladder in different rounds). The leader's *variant*
beats a runner-up also when another of its levels (within the budget, under one) beats the
runner-up's operating point by the rule and none of its levels loses to it. Looking at several
of the pick's levels makes a tie set a little more likely to shrink than one comparison's 5 % says.

**Dropped by the search** (``--search prune``, :mod:`perf.search.rounds`): a variant the
search stopped measuring because a ranked variant beat it by the rule, at the levels the
search compared, stays beaten: its comparison is that one, re-computed on the recorded rounds
(``dropped``), so the tie set never holds a variant the console said was beaten; when the
rounds no longer back the drop (the verdict lost, or the level that beat it over the budget since:
:mod:`perf.search.drops`), it ranks like any other. A drop holds in the ranking it was made in only
(:mod:`perf.analysis.recommendation.recommend` passes ``dropped``): not on peaks, nor under another budget.
Such a runner-up is beaten by the variant that dropped it, not by the leader (:meth:`Ranking.beaten_through`): what the
pick beats counts its own comparisons only (:meth:`Ranking.beaten`), and every place that says it names the other
variant (:func:`perf.analysis.ranking.standing_words.through_parts`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from perf.analysis.ranking.budget_latency import judged, within
from perf.analysis.ranking.leader import choose, overtaken, unbeaten_of
from perf.analysis.ranking.operating import Adjusted, Comparison, Operating, Side, compare, levels_of, operating_point, records
from perf.analysis.stats.no_batch import formed_no_batch
from perf.analysis.stats.pairs import pairs
from perf.records.results import VariantResult
from perf.records.search import SearchDecision
from perf.records.workloads import workload

Drops = Mapping[str, tuple[str, int, int]]  #: the search's drops: name -> (who beat it, its level, the dropped one's)


@dataclasses.dataclass
class Ranking:
    """The paired ranking of a rounds sweep.

    Attributes:
        leader: The leader's operating point (module rule), ``None`` when no variant has one.
        tie_set: The leader and every variant it does not beat and shared a round with, leader first.
        comparisons: The leader vs each other ranked variant, by round-adjusted throughput.
        unranked: Variants without an operating point.
        other_sizes: Series at another client workload (input size, client batch size) than the leader's (not compared).
        budget_ms, latency_metric: The latency budget it ranks under (ms; ``None``: by peak) and the percentile field it is on.
        batching_off: Why the leader, a variant with batching off, is named first over its tie set's same variant with
            batching on, whose batching formed no batch (module docstring), in words; ``None`` otherwise.
    """

    leader: Operating | None
    tie_set: list[Operating]
    comparisons: list[Comparison]
    unranked: list[str] = dataclasses.field(default_factory=list)
    other_sizes: list[str] = dataclasses.field(default_factory=list)
    budget_ms: float | None = None
    latency_metric: str = "latency_p99_ms"
    batching_off: str | None = None

    @property
    def names(self) -> list[str]:
        """Tie-set variant names, leader first."""
        return [o.side.variant for o in self.tie_set]

    def beaten(self) -> list[Comparison]:
        """The comparisons the leader won by its own paired rounds (:meth:`own`): what the pick beats. A runner-up
        another variant beat in its place (:meth:`beaten_through`) is not among them."""
        return [c for c in self.comparisons if c.verdict == "a" and self.own(c)]

    def beaten_through(self) -> list[Comparison]:
        """The comparisons another variant won in the leader's place (module docstring, "Dropped by the search"): out
        of the tie set, but never compared with the leader itself, so never counted as the pick's verdicts (trial 26,
        T26-1: "beats every other ranked variant (7, 4 by the sign test ...)" of a pick compared with 3, three lines
        above "it beats 3 of the 7 others ...; 4 not compared" of the same level)."""
        return [c for c in self.comparisons if c.verdict == "a" and not self.own(c)]

    def own(self, c: Comparison) -> bool:
        """``c`` is the leader's variant's own comparison, at its level or another of its levels (module docstring,
        "The pick's other levels"), not another variant's."""
        return self.leader is not None and c.a.variant == self.leader.side.variant


def rank_variants(
    variants: Iterable[VariantResult],
    budget_ms: float | None = None,
    latency_metric: str = "latency_p99_ms",
    dropped: Drops | None = None,
    fit: Iterable[VariantResult] = (),
    *,
    cores: int | None,
) -> Ranking:
    """The paired ranking of ``variants`` (module docstring). Failed variants are left out.

    Args:
        variants: The sweep's variants (levels per round).
        budget_ms: Latency budget on ``latency_metric`` (ms); ``None``: best peak.
        latency_metric: The latency percentile field the budget is on.
        dropped: The search's drops (:data:`Drops`, from :func:`dropped_by_search`).
        fit: Other series of the run the round-adjusted throughput is fitted over too, never ranked
            (a named variant's level: its workload's series, as the report fits them; trial 12, F5).
        cores: The cores of the host the rounds ran on (:func:`perf.analysis.ranking.budget_latency.host_cores`;
            ``None``: unknown): each level's :class:`perf.analysis.ranking.budget_latency.Judged` carries them, so a
            level far over the budget is called so, not "not verified here" (trial 17, T17-3). Required, no default.
    """
    by_name = {v.name: v for v in variants if v.status != "failed"}
    adjusted = Adjusted([*by_name.values(), *(v for v in fit if v.status != "failed" and v.name not in by_name)])
    ops: list[Operating] = []
    peaks: dict[str, Operating] = {}  # each variant's best level whatever its rounds: a leader is named at it
    unranked = []
    for v in by_name.values():
        op = operating_point(v, budget_ms, latency_metric, adjusted, cores=cores)
        if op is None:
            unranked.append(v.name)
        else:
            ops.append(op)
            peaks[v.name] = operating_point(v, budget_ms, latency_metric, adjusted, backed=False, cores=cores) or op
    ops.sort(key=lambda o: -peaks[o.side.variant].adjusted_infer_per_s)

    said: dict[tuple[Side, Side], Comparison] = {}

    def cmp(x: Operating, y: Operating) -> Comparison:
        if (key := (x.side, y.side)) not in said:
            said[key] = compare(by_name[x.side.variant], x.side, by_name[y.side.variant], y.side, latency_metric)
        return said[key]

    leader = choose(ops, cmp, order=lambda o: (-peaks[o.side.variant].adjusted_infer_per_s,))
    if leader is None:
        return Ranking(None, [], [], unranked, budget_ms=budget_ms, latency_metric=latency_metric)
    leader = _named_at_peak(peaks[leader.side.variant], peaks, unbeaten_of(ops, cmp), by_name, cmp)

    def ranked(first: Operating) -> Ranking:  # the ranking with ``first`` named first, all else as given here
        return _ranked(first, ops, unranked, by_name, cmp, dropped, budget_ms, latency_metric, cores)

    return _batching_off_first(ranked(leader), peaks, by_name, ranked)


def _ranked(
    leader: Operating,
    ops: list[Operating],
    unranked: list[str],
    by_name: Mapping[str, VariantResult],
    cmp: Callable[[Operating, Operating], Comparison],
    dropped: Drops | None,
    budget_ms: float | None,
    latency_metric: str,
    cores: int | None,
) -> Ranking:
    """The ranking of ``ops`` with ``leader`` named first: its comparisons, tie set, the series of other workloads."""
    at = {o.side.variant: (o.side.shape, workload(by_name[o.side.variant])) for o in [*ops, leader]}  # client workloads
    other_sizes, ops = [o.side.variant for o in ops if at[o.side.variant] != at[leader.side.variant]], [o for o in ops if at[o.side.variant] == at[leader.side.variant]]  # fmt: skip
    own = workload(by_name[leader.side.variant])  # trial 10, F12: another workload's series without a level is no rival
    other_sizes, unranked = other_sizes + [n for n in unranked if workload(by_name[n]) not in (None, own)], [n for n in unranked if workload(by_name[n]) in (None, own)]  # fmt: skip
    lead_v = by_name[leader.side.variant]
    others = [s for s in levels_of(lead_v) if s != leader.side and _within(lead_v, s, budget_ms, latency_metric, cores)]
    comparisons = [
        _as_dropped(
            _other_levels(cmp(leader, o), lead_v, others, by_name, latency_metric),
            by_name,
            dropped,
            latency_metric,
            budget_ms,
            cores,
        )
        for o in ops
        if o.side.variant != leader.side.variant
    ]
    rest = [o for o in ops if o.side.variant != leader.side.variant]
    ties = [leader] + [o for o, c in zip(rest, comparisons) if c.verdict != "a" and c.result is not None]
    return Ranking(leader, ties, comparisons, unranked, other_sizes, budget_ms, latency_metric)


def _batching_off_first(
    ranking: Ranking,
    peaks: Mapping[str, Operating],
    by_name: Mapping[str, VariantResult],
    ranked: Callable[[Operating], Ranking],
) -> Ranking:
    """``ranking``, or the same ranking with the leader's variant with batching off named first (module docstring,
    "Batching that formed no batch"): the leader's dynamic batching formed no batch under its workload
    (:func:`perf.analysis.stats.no_batch.formed_no_batch`) and a tie-set member is the same variant with
    batching off (:func:`perf.analysis.stats.pairs.pairs`), which, named first at its peak, keeps the leader in its tie
    set (neither beats the other by the rule); ``ranked``: the same ranking with another leader named first."""
    lead = ranking.leader
    if lead is None or len(ranking.tie_set) < 2:
        return ranking
    held = formed_no_batch([by_name[lead.side.variant]]).get(lead.side.variant)
    if held is None:
        return ranking
    twins = {
        p.reference.name for p in pairs(list(by_name.values())) if p.kind == "batching" and p.changed.name == lead.side.variant
    }
    for o in ranking.tie_set[1:]:
        if o.side.variant not in twins:
            continue
        off = ranked(peaks[o.side.variant])
        back = next((c for c in off.comparisons if c.b.variant == lead.side.variant), None)
        if back is None or back.result is None or back.verdict in ("a", "b"):
            continue  # named first at its peak, it is not tied with the leader: the rule's order stays
        off.batching_off = (
            f"its batching off (batching formed no batch: `{lead.side.variant}`, the same variant with dynamic batching "
            f"on, held at most {held:.2f} requests per execution under the mixed sizes sent, so its requests only wait "
            "the queue delay)"
        )
        return off
    return ranking


def _named_at_peak(
    lead: Operating,
    peaks: Mapping[str, Operating],
    unbeaten: list[Operating],
    by_name: Mapping[str, VariantResult],
    cmp: Callable[[Operating, Operating], Comparison],
) -> Operating:
    """The leader at its peak (its best level whatever its rounds), or the peak of another unbeaten variant of its
    client workload that overtakes it there (:func:`perf.analysis.ranking.leader.overtaken`; trial 21, T21-9: the
    leader chosen at its level of 4 rounds was named at its 1-round peak, below a rival's peak on both medians and
    behind it in the one round they shared)."""
    at = (lead.side.shape, workload(by_name[lead.side.variant]))
    rivals = [
        peaks[o.side.variant]
        for o in unbeaten
        if o.side.variant != lead.side.variant and (o.side.shape, workload(by_name[o.side.variant])) == at
    ]
    return overtaken(lead, rivals, cmp)


def _within(vr: VariantResult, side: Side, budget_ms: float | None, latency_metric: str, cores: int | None) -> bool:
    """``side``'s latency percentile as the budget judges it is within ``budget_ms`` (always, without one)."""
    return within(judged(records(vr, side), latency_metric, cores=cores), budget_ms)


def _other_levels(
    c: Comparison, lead: VariantResult, others: list[Side], by_name: Mapping[str, VariantResult], latency_metric: str
) -> Comparison:
    """``c``, or the leader's variant at another level beating ``c.b`` (module docstring, "The pick's other levels")."""
    if c.verdict == "a" or not others:
        return c
    alt = [compare(lead, s, by_name[c.b.variant], c.b, latency_metric) for s in others]
    if c.verdict == "b" or any(x.verdict == "b" for x in alt):
        return c
    won = [x for x in alt if x.verdict == "a"]
    return max(won, key=lambda x: (len(x.rounds), -(x.result.p_value if x.result else 1.0))) if won else c


def _as_dropped(
    c: Comparison,
    by_name: Mapping[str, VariantResult],
    dropped: Drops | None,
    metric: str,
    budget_ms: float | None,
    cores: int | None,
) -> Comparison:
    """``c``, or the comparison that dropped ``c.b`` in the search when it still holds (module docstring)."""
    if c.verdict == "a" or dropped is None or c.b.variant not in dropped:
        return c
    by, at_by, at = dropped[c.b.variant]
    va, vb = by_name.get(by), by_name.get(c.b.variant)
    a = next((s for s in levels_of(va) if s.concurrency == at_by), None) if va else None
    b = next((s for s in levels_of(vb) if s.concurrency == at), None) if vb else None
    if va is None or vb is None or a is None or b is None or not _within(va, a, budget_ms, metric, cores):
        return c
    search = compare(va, a, vb, b, metric)
    return search if search.verdict == "a" else c


def dropped_by_search(decisions: Iterable[SearchDecision]) -> dict[str, tuple[str, int, int]]:
    """The ``dropped`` argument of :func:`rank_variants` from a run's search decisions (``pruned`` ones)."""
    return {
        d.variant: (d.best_variant, d.best_concurrency, d.concurrency)
        for d in decisions
        if d.rule == "pruned" and d.best_variant is not None and d.best_concurrency is not None
    }
