"""Contenders a ranking under a latency budget leaves out on a budget miss this host cannot verify
(:meth:`perf.analysis.ranking.budget_latency.Judged.unverified_why`): a level over the budget on rounds
that were (nearly) all host busy, which a quiet host might bring within it.

Such a level is no evidence against its variant: the rounds engine (:mod:`perf.search.ending.decided`) does
not call a ranking decided while a level of it, not beaten by the leader by the paired rule, is
excluded only so and rounds are left that could verify it (trial 12, F6: "ranking under the p99
budget decided" on an exclusion the same report called "not verified here", against which the pick
was not separated). When no round is left, the end words say what the decision assumes (:func:`assuming`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perf.analysis.ranking.budget_latency import judged
from perf.analysis.ranking.operating import compare, levels_of, records
from perf.analysis.ranking.rank import Ranking
from perf.records.results import VariantResult


def rivals(rank: Ranking, variants: Mapping[str, VariantResult], percentile: int, *, cores: int | None) -> dict[str, str]:
    """The variants of ``variants`` (by name; the leader's among them) with a level over the budget
    of ``rank`` that this host cannot verify and that the leader does not beat by the rule, each with
    why the first such level is not verified (``"every round host busy; p99 23.90 ms over all 3"``);
    ``{}`` for a ranking without a budget or a leader. ``cores``: the run's (:func:`perf.analysis.ranking.budget_latency.host_cores`):
    a level far over the budget, more than the host's load explains, is over it, not unverified (trial 17, T17-3: without
    them such a level was kept in the tie set and named "not verified here" while the report called it far over)."""
    lead = rank.leader
    if lead is None or rank.budget_ms is None or lead.side.variant not in variants:
        return {}
    lead_v, out = variants[lead.side.variant], {}
    for name, vr in variants.items():
        if name == lead.side.variant:
            continue
        for side in levels_of(vr):
            j = judged(records(vr, side), rank.latency_metric, cores=cores)
            why = j.unverified_why(percentile, rank.budget_ms) if j is not None else None
            if why and compare(lead_v, lead.side, vr, side, rank.latency_metric).verdict != "a":
                out[name] = why
                break
    return out


def assuming(found: Mapping[str, str], percentile: int, names: Sequence[str] = ()) -> str:
    """The clause a decided ranking's words end with when :func:`rivals` found some and no round was
    left to verify them: ``", assuming `b`'s p99 over the budget, not verified here (every round host
    busy; ...), holds"``; of several not verified for one reason, that reason said once (trial 23, T23-13: five
    variants' "'s p99 over the budget, not verified here (every round host busy; ...)" in one console line):
    ``", assuming the p99 over the budget of `b` (p99 6.58 ms over all 3), `c` (...) holds, not verified here (every
    round host busy)"``; ``""`` for none. ``names``: the order to name them in (default: as found)."""
    if not found:
        return ""
    order = [n for n in (names or found) if n in found]
    whys = {found[n].split("; ", 1)[0] for n in order}
    if len(order) > 1 and len(whys) == 1 and all("; " in found[n] for n in order):  # their shared why said once (T23-13)
        each = ", ".join(f"`{n}` ({found[n].split('; ', 1)[1]})" for n in order)
        return f", assuming the p{percentile} over the budget of {each} holds, not verified here ({whys.pop()})"
    said = [f"`{n}`'s p{percentile} over the budget, not verified here ({found[n]})" for n in order]
    return ", assuming " + "; ".join(said) + ", holds"
