"""When one combination is nearer its targets than another: the rule a move on closeness is taken by
(:func:`perf.colocate.rules.closer`, with the held combination and every candidate missing a target) and the
verdict's closest is named by (:func:`perf.colocate.closest.closest`).

A combination's **worst ratio** in one round is the largest, over its models, of p99 ÷ its own budget and
required ÷ measured throughput, on that round's numbers (1 = at the target; :func:`perf.colocate.judge.worst_ratio`
is the same on the step's medians, what the tables show); its **closeness** is 1 ÷ that (higher is nearer, so that
the paired rule's "higher" and "ahead in N rounds" read as nearer). One combination is **nearer** its targets than
another only where the project's paired rule (:func:`perf.analysis.stats.paired.paired`, the one that judges every
move) calls its closeness higher over the rounds both were measured in. A difference of the medians the rule does not
call is *not distinguishable at this noise* and moves nothing, whatever the medians say (recheck of trial 16,
R16-9: with every combination over the budget, the search moved in each round to a combination whose weighted
throughput was 0.67× the held one's, lower in every round, on a 10 % p99 difference no test had called).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from perf.analysis.stats.paired import Paired, paired
from perf.colocate import judge
from perf.colocate.judge import Combination, Measured
from perf.records.colocation import ColocatedModel, ColocationRecord
from perf.records.colocation_measured import ColocationVisit


def worst_series(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, models: Sequence[ColocatedModel]
) -> list[float | None]:
    """The combination's worst ratio to a target in each round of ``step`` (module docstring); ``None`` for a round
    where a model has no numbers, and in every round when no model has a target."""
    targets = {m.name: m for m in models}
    p99 = {m: judge.model_series(visits, step, combination, rounds, m, "latency_p99_ms") for m in combination}
    thr = {m: judge.model_series(visits, step, combination, rounds, m, "throughput_infer_per_s") for m in combination}
    out: list[float | None] = []
    for r in range(rounds):
        ratios: list[float] = []
        for m in combination:
            p, t, target = p99[m][r], thr[m][r], targets.get(m)
            if p is None or not t:
                ratios = []
                break
            if target is not None and target.latency_budget_ms:
                ratios.append(p / target.latency_budget_ms)
            if target is not None and target.required_throughput is not None:
                ratios.append(target.required_throughput / t)
        out.append(max(ratios) if ratios else None)
    return out


def nearer(
    visits: Sequence[ColocationVisit],
    step: int,
    a: Combination,
    b: Combination,
    rounds: int,
    models: Sequence[ColocatedModel],
) -> Paired | None:
    """``a``'s closeness to its targets against ``b``'s, paired over the step's rounds: verdict ``"higher"``: ``a`` is
    nearer its targets, ``"lower"``: farther, else not distinguishable (module docstring); ``None`` without a round
    with the numbers of both."""

    def closeness(c: Combination) -> list[float | None]:
        return [None if w is None or w <= 0 else 1.0 / w for w in worst_series(visits, step, c, rounds, models)]

    return paired(closeness(a), closeness(b))


def called_nearer(p: Paired | None) -> bool:
    """The paired rule called the first combination of :func:`nearer` nearer its targets."""
    return p is not None and p.verdict == "higher"


#: What :func:`nearer` compares, for a sentence.
CLOSENESS = "closeness to its targets (1 ÷ the worst ratio to a target)"


def nearer_words(p: Paired | None, other: str) -> str:
    """What the paired rule said of one combination's closeness against ``other`` (``"the held one"``):
    ``"closeness to its targets (...) against the held one's: nearer its targets: 1.3× median of the per-round
    ratios (...)"``; where it did not call it nearer, that a move on closeness needs it to."""
    if p is None:
        return f"its {CLOSENESS} not compared with {other}'s (no round with numbers of both)"
    said = f"{CLOSENESS} against {other}'s: {p.describe('nearer its targets', 'farther from its targets')}"
    return said if called_nearer(p) else f"{said}; a move on closeness needs the paired rule to call it nearer"


@dataclasses.dataclass(frozen=True)
class Status:
    """Whether a combination meets its targets, in each place's words (:func:`status`).

    Attributes:
        met: Every model meets every target it has, with numbers to say so.
        cell: A table's words: ``"every one met"``, else the targets missed (:func:`perf.colocate.judge.misses`).
        label: A plot legend's words for every combination of the same ``met`` and ``verified``, naming the run's
            kinds of target: ``"every model meets its p99 budget and required throughput"``, ``"a model misses its
            p99 budget or required throughput"``, or :data:`UNVERIFIED_LABEL`.
        verified: ``False`` where every target missed is a p99 over its budget "not verified here" (the host's
            load may explain it: :attr:`perf.colocate.judge.Measured.unverified`), as the table's cell says.
    """

    met: bool
    cell: str
    label: str
    verified: bool = True


#: The legend's words for a combination whose only misses are p99s "not verified here" (trial 21, T21-5: the plot
#: marked one "a model misses its p99 budget" where the table said "not verified here: every round host busy").
UNVERIFIED_LABEL = "a model's p99 over its budget, not verified here (the host's load may explain it)"


def status(record: ColocationRecord, c: Measured) -> Status:
    """The one status of a combination as last measured (``c``: its targets missed, :attr:`Measured.over`, and whether
    only unverified ones), that the report's table and the trade-off plot's legend and marks both say (re-check 19,
    NEW-2: the legend said "a model over its budget" of combinations under the p99 budget that missed only a required
    throughput; trial 21, T21-5: it said a miss of one the table said "not verified here")."""
    kinds = [
        kind
        for kind, given in (
            ("p99 budget", any(m.latency_budget_ms is not None for m in record.models)),
            ("required throughput", any(m.required_throughput is not None for m in record.models)),
        )
        if given
    ]
    over = c.over
    if not over:
        return Status(True, "every one met", f"every model meets its {' and '.join(kinds)}" if kinds else "no target set")
    if c.unverified:
        return Status(False, "; ".join(over), UNVERIFIED_LABEL, verified=False)
    return Status(False, "; ".join(over), f"a model misses its {' or '.join(kinds)}" if kinds else "a model has no numbers")
