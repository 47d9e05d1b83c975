"""A co-location report says what each number is, and the trade-off plot's title says what its x axis
is (trial 11, F24): the table's "weighted infer/s" (1,010) beside mlp 338 and tabnet 644 with weights
1 and 1 read as a sum that did not add up, the header saying only "Medians over the rounds"; the
plot's title said "the slowest model's p99" over an axis of the largest p99 / its model's budget.
Read back from the report's lines and the plot's artists."""

from __future__ import annotations

import statistics
from pathlib import Path

from perf.colocate import judge
from perf.records.colocation import ColocatedModel, ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample
from perf.report.colocation import combinations_section

#: model -> (weight, p99 budget ms)
MODELS = {"mlp": (1.0, 50.0), "tabnet": (2.0, 10.0)}
#: round -> model -> (infer/s, p99 ms): the two models' slow rounds fall apart, so the median of the
#: rounds' weighted sums is not the weighted sum of each model's median
ROUNDS = [
    {"mlp": (340.0, 20.0), "tabnet": (500.0, 12.0)},
    {"mlp": (200.0, 30.0), "tabnet": (650.0, 11.0)},
    {"mlp": (338.0, 21.0), "tabnet": (640.0, 15.0)},
    {"mlp": (350.0, 22.0), "tabnet": (300.0, 19.0)},
    {"mlp": (100.0, 40.0), "tabnet": (644.0, 14.0)},
]
COMBO = {"mlp": "mlp_a", "tabnet": "tabnet_a"}


def _record() -> ColocationRecord:
    models = [ColocatedModel(m, [COMBO[m]], weight=w, latency_budget_ms=b) for m, (w, b) in MODELS.items()]
    visits = [
        ColocationVisit(0, r, 0, dict(COMBO), [ModelSample(m, COMBO[m], *nums[m]) for m in MODELS], wall_s=1.0)
        for r, nums in enumerate(ROUNDS)
    ]
    steps = [SearchStep(0, "brute", None, {}, [dict(COMBO)], len(ROUNDS))]
    return ColocationRecord("r", "now", "repo", list(models), steps=steps, visits=visits, pick=dict(COMBO))


def _number(cell: str) -> float:
    return float(cell.split("/")[0].strip().replace(",", ""))


def test_the_table_says_the_weighted_column_is_the_median_of_the_rounds_sums() -> None:
    lines = combinations_section(_record())
    head = next(i for i, ln in enumerate(lines) if ln.startswith("| combination"))
    cols = [c.strip() for c in lines[head].strip("|").split("|")]
    row = dict(zip(cols, (c.strip() for c in lines[head + 2].strip("|").split("|"))))
    sums = [sum(MODELS[m][0] * nums[m][0] for m in MODELS) for nums in ROUNDS]
    own = {m: statistics.median(nums[m][0] for nums in ROUNDS) for m in MODELS}
    of_medians = sum(MODELS[m][0] * own[m] for m in MODELS)
    assert abs(_number(row["weighted infer/s"]) - statistics.median(sums)) < 1  # the median of the rounds' sums
    assert abs(statistics.median(sums) - of_medians) > 1  # which is not the sum of the medians shown beside it
    assert all(abs(_number(row[m]) - own[m]) < 1 for m in MODELS)
    intro = " ".join(lines[:head])
    assert judge.WEIGHTED_WORDS in intro and "each round's weighted sum" in intro  # what the column is, in words
    assert "need not equal the weighted sum of the models' own medians" in intro


def test_the_tradeoff_title_names_its_x_axis(tmp_path: Path, kept_figures: list) -> None:
    from perf.records import colocation
    from perf.report.colocation import write_report

    record = _record()
    colocation.save(record, tmp_path)
    report = write_report(tmp_path).read_text()
    (fig,) = kept_figures  # the report's plot
    (ax,) = fig.axes
    budgets = {m: b for m, (_, b) in MODELS.items()}
    (x,) = [float(v) for ln in ax.get_lines() if ln.get_marker() in ("o", "x") for v in ln.get_xdata()]
    (c,) = judge.measured_combinations(record)
    assert x == max(c.p99_ms[m] / budgets[m] for m in MODELS)  # budgets differ: each p99 over its own
    words = ax.get_xlabel().split(" (")[0]  # what the x axis is, before its units and how the p99 was taken
    assert "budget" in words
    assert ax.get_title().endswith(f" vs {words}")  # the title says the axis
    assert f"![{ax.get_title()}]" in report  # and the report's words for the plot are its title
    assert judge.WEIGHTED_WORDS in ax.get_ylabel().replace("\n", " ")
