"""A group's tie set when its rounds end (:meth:`perf.search.rounds.Rounds.run_group`): what the rounds
did not separate from the leader (:func:`perf.analysis.ranking.standing.contention`), per client workload
where there are several (:mod:`perf.search.by_workload`), and the contenders a ranking under the latency
budget leaves out only on a budget miss this host cannot verify (:func:`perf.search.ending.unverified.rivals`:
no evidence against them, so a final group measures them with the rest; trial 12, F6)."""

from __future__ import annotations

from collections.abc import Sequence

from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.rank import Ranking
from perf.analysis.ranking.standing import contention
from perf.records.results import VariantResult
from perf.records.workloads import variant_of
from perf.search.ending import unverified
from perf.search.ending.decided import Rounds


def tie_set(sched: Rounds, alive: Sequence[str]) -> list[str]:
    """The tie set of the contenders ``alive`` (module docstring): leader first, then the others not
    separated from it, those never compared with it and those left out unverified; with several client
    workloads each workload's, its variants once, in order; every contender when nothing could be ranked."""
    b = sched.setup.budget
    pct = b.percentile if b is not None else 99
    cores = host_cores(sched.run)  # the far-over rule's (trial 17, T17-3)
    per = sched.workloads(alive)
    if per is None:
        return _kept(sched.ranked(alive), {n: sched.run_variant(n) for n in alive}, pct, cores)
    tie: list[str] = []
    for label, group in per.items():
        for n in _kept(sched.rank_series(group), {sr.name: sr for sr in group}, pct, cores):
            if (v := variant_of(n, label)) not in tie:
                tie.append(v)
    return tie or list(alive)


def _kept(ranked: tuple[Ranking, bool], variants: dict[str, VariantResult], percentile: int, cores: int | None) -> list[str]:
    """The names of ``variants`` (variants, or one workload's series) the ranking keeps: its contention and,
    under the budget (``ranked[1]``), those a budget miss this host cannot verify leaves out."""
    rank, met = ranked
    if rank.leader is None:
        return list(variants)  # one never compared is not out
    kept = contention(rank)
    return kept + [n for n in (unverified.rivals(rank, variants, percentile, cores=cores) if met else {}) if n not in kept]
