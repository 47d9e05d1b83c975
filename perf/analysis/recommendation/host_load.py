"""The host load a pick's paired verdicts were measured under, said beside them (:func:`load_words`).

A paired verdict cancels a load that falls on both sides of a round alike; it does not make the ranking independent
of the load. Under CPU contention the operating system shares the cores among threads, so a variant with more
instances (more threads) wins a larger share of a busy host than one with fewer: the same grid on the same 2-core
host ranked ``mlp_onnx_cpu1_nodb_mbs64`` ahead of ``mlp_ts_cpu2_db500_mbs64`` by 1.30-1.56x in 4 rounds where other
processes used 0 % of one core, and behind it by 1.29-1.73x in 4 rounds under two CPU burners (72-118 % of one core
during their visits), each by the large-gap tier (``benchmarks/bench_busy_host.py``, session 23). Both verdicts were
right for their load; neither said which load that was. So every statement of a pick's verdicts (the recommendation,
which report.md, the console's summary and ``export-deployment`` read) says the load its visits were measured under:
the other processes' CPU (:attr:`perf.records.levels.LevelResult.host_busy_pct`, % of one core) over the visits of the
pick's level and of each level it was compared with, in the rounds they shared.
"""

from __future__ import annotations

from perf.analysis.ranking.operating import records
from perf.analysis.ranking.rank import Ranking
from perf.markdown import fmt
from perf.records.results import VariantResult


def visit_loads(ranking: Ranking, variants: dict[str, VariantResult]) -> list[float | None]:
    """Other processes' CPU (% of one core) in each visit the leader's comparisons rest on: both sides' visits in the
    rounds each comparison shared; ``None`` for a visit whose load was not sampled (a server on another host, a span
    no sample fell in). Each visit once: the leader's own are in each of its comparisons."""
    out: dict[int, float | None] = {}
    for comp in ranking.comparisons:
        for side in (comp.a, comp.b):
            vr = variants.get(side.variant)
            for lv in records(vr, side) if vr is not None else []:
                if lv.trial in comp.rounds and lv.ok:
                    out[id(lv)] = lv.host_busy_pct
    return list(out.values())


def load_words(ranking: Ranking, variants: dict[str, VariantResult]) -> str | None:
    """``"host load 72–118 % of one core"`` (other processes' CPU in the visits; module docstring), said inside the
    parenthesis of the rule a pick's verdicts are by, as what they hold for
    (:meth:`perf.analysis.recommendation.choice.Choice.verdict`: ``"(...; paired rounds at 5 %, host load 72–118 % of
    one core)"``; short: report.md of a small run is at its read-line bound with it); where some visits' load was not
    sampled, how many of the visits it is of (``"host load 72–118 % of one core in 7 of 8 visits"``: one unsampled
    visit hid a busy host's load from the verdict before); ``None`` without a compared visit whose load was sampled."""
    visits = visit_loads(ranking, variants)
    loads = [x for x in visits if x is not None]
    if not loads:
        return None
    lo, hi = fmt(min(loads), 0), fmt(max(loads), 0)
    some = f" in {len(loads)} of {len(visits)} visits" if len(loads) < len(visits) else ""
    return f"host load {lo if lo == hi else f'{lo}–{hi}'} % of one core{some}"
