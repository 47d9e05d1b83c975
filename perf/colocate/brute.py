"""Brute force over the combinations: every combination measured in the same rounds, the
highest median weighted throughput within every model's budget picked — the product the
coordinate search (:mod:`perf.colocate.search`) avoids, for comparing its cost and its pick
(``benchmarks/bench_colocation.py``).

One ``brute`` step measures every combination once per round (``min_rounds`` rounds, shuffled
as the search's rounds are); of those that meet every model's targets, the highest median
weighted throughput (``fewest-instances``: the fewest instances, then the highest median); then
the pick and each of its variants alone are measured in a ``final`` step, as the search's pick is.
"""

from __future__ import annotations

import itertools

from perf.colocate import host, judge, verdict
from perf.colocate.search import CoordinateSearch, CutForTime


def run_brute(search: CoordinateSearch) -> dict[str, str] | None:
    """Measure every combination of ``search.record``'s models with ``search``'s source, budget
    and record; returns the pick (also in ``record.pick``), ``None`` when none is within budget."""
    rec = search.record
    names = [m.name for m in rec.models]
    targets = [dict(zip(names, vs)) for vs in itertools.product(*(m.variants for m in rec.models))]
    best: dict[str, str] | None = None
    try:
        step = search._step("brute", None, {}, targets, extend=False)
        for t in targets:
            search.measured.add(judge.key(t))
        within = [
            (judge.median(judge.series(rec.visits, step.index, t, step.rounds, rec.models)), t)
            for t in targets
            if not judge.misses(rec.visits, step.index, t, step.rounds, rec.models, cores=host.cores(rec))
        ]
        scored = [(w, t) for w, t in within if w is not None]
        fewest = rec.objective == "fewest-instances"
        best = max(scored, key=lambda x: (-rec.instances(x[1]) if fewest else 0, x[0]))[1] if scored else None
        targets_met = judge.targets_words(rec)
        step.outcome = f"best within {targets_met}: {judge.describe(best)}" if best else f"no combination within {targets_met}"
        search.save()
        if best is not None:
            search._final(best)
        rec.pick_reason = (
            f"brute force: of every combination within {judge.targets_words(rec)}, "
            + ("the fewest instances, then " if fewest else "")
            + "the highest median weighted throughput; "
        )
        search.said_what_ran(None)
    except CutForTime as cut:
        rec.cuts.append(str(cut))
        rec.pick_reason = f"the time budget ended brute force: {cut}; "
        search.said_what_ran(cut)
    rec.combinations_measured = len(search.measured)
    if best is None:
        rec.pick = None
        rec.pick_reason += "no combination picked"
    else:
        rec.pick = dict(best)
        rec.pick_reason += judge.describe(best)
    verdict.settle(rec)  # cut in its one step: no pick, the leader named (perf.colocate.verdict)
    search.save()
    return rec.pick
