"""A co-location p99 is said as what it is (review of trial 11): the trade-off plot's x axis said
"median over rounds" under the p99 the budget judges, its quieter rounds' median where some rounds
were host busy, and a model's start alone quoted its median over every round beside "within" its
budget. The words come from the function that gives the number (:func:`perf.colocate.judge.p99_words`
beside :func:`perf.colocate.judge.judged_p99`); read back from the plot's artists."""

from __future__ import annotations

from pathlib import Path

import pytest

from perf.colocate import judge
from perf.colocate.rules import best_alone
from perf.markdown import fmt
from perf.records.colocation import ColocatedModel, ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample

ROUNDS = 6
BUSY = {0, 1, 2}  # rounds another process took the host: every p99 doubles
BUDGET_MS = 25.0
#: model -> variant -> (infer/s, p99 ms on a quiet round)
SPEED = {"mlp": {"mlp_a": (1000.0, 20.0), "mlp_b": (800.0, 14.0)}, "tiny": {"tiny_a": (3000.0, 5.0)}}


def _record(busy: set[int]) -> ColocationRecord:
    models = [ColocatedModel(m, list(vs), latency_budget_ms=BUDGET_MS) for m, vs in SPEED.items()]
    combos = [{"mlp": v, "tiny": "tiny_a"} for v in SPEED["mlp"]]
    alone = [{"mlp": v} for v in SPEED["mlp"]]
    visits = [
        ColocationVisit(
            step,
            r,
            i,
            dict(combo),
            [ModelSample(m, v, SPEED[m][v][0], SPEED[m][v][1] * (2.0 if r in busy else 1.0)) for m, v in combo.items()],
            wall_s=1.0,
            host_busy_pct=180.0 if r in busy else 10.0 + r,
            host_busy=r in busy,
        )
        for step, targets in ((0, alone), (1, combos))
        for r in range(ROUNDS)
        for i, combo in enumerate(targets)
    ]
    steps = [SearchStep(0, "alone", "mlp", {}, alone, ROUNDS), SearchStep(1, "brute", None, {}, combos, ROUNDS)]
    return ColocationRecord("r", "now", "repo", models, steps=steps, visits=visits, pick=combos[0])


@pytest.mark.parametrize("busy", [BUSY, set()], ids=["some rounds host busy", "a quiet host"])
def test_the_tradeoff_axis_says_which_p99_it_draws(tmp_path: Path, kept_figures: list, busy: set[int]) -> None:
    from perf.plots.colocation import plot_tradeoff

    record = _record(busy)
    assert plot_tradeoff(record, tmp_path / "t.png") is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    measured = {judge.key(c.combination): c for c in judge.measured_combinations(record)}
    xs = sorted(float(x) for ln in ax.get_lines() if ln.get_marker() in ("o", "x") for x in ln.get_xdata())
    assert xs == sorted(max(c.p99_ms.values()) for c in measured.values())  # the budget's own numbers
    quieter = any(
        j.quieter
        for c in measured.values()
        for m in c.combination
        if (j := judge.judged_p99(record.visits, c.step, c.combination, ROUNDS, m, cores=None)) is not None
    )
    assert quieter == bool(busy)
    assert judge.p99_words(quieter) in ax.get_xlabel()
    assert ("quieter rounds" in ax.get_xlabel()) == bool(busy)  # "median over rounds" only where it is so


def test_a_models_start_alone_quotes_the_p99_its_budget_judged() -> None:
    record = _record(BUSY)
    variant, why = best_alone(record, record.steps[0], record.models[0])
    assert variant == "mlp_a"  # within 25 ms on its quieter rounds (20 ms); 30 ms over all six
    judged = judge.budget_p99(record.visits, 0, {"mlp": "mlp_a"}, ROUNDS, "mlp")
    assert judged is not None and judged <= BUDGET_MS
    assert f"p99 {fmt(judged, 2)} ms (within {BUDGET_MS:g} ms)" in why  # latencies as the tables say them (T25-20)
