"""A best under the budget below its workload's Pareto frontier says so in its own line, and the plot's mark
with it (perf.analysis.recommendation.dominated; trial 16, T16-1 and T16-5, run t16a: ``--shapes seq=8,128
--latency-budget-ms 25``). The seq=128 pick, ``onnx [seq=128]`` c=1 (116.5 infer/s, p99 23.92 ms over 5
rounds), rested on the one round it shared with ``ts [seq=128]`` c=1 (232.6 infer/s, p99 8.86 ms, within the
budget, on the report's frontier); the pick's line named it "best under the budget" and the plot drew a
plain star under the frontier. Here ``ts [seq=128]`` c=1 has two more rounds, the pick ahead in each: one shared
round no longer moves the leader (perf.analysis.ranking.leader, trial 19, T19-20), three do; and its p99 is 14.5 ms,
lower than the pick's but not 2x lower (a latency that far lower names it first: test_knee_pick, trial 22)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation, recommend
from perf.plots.picks import UNDER, pick_points
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload

TS, ONNX = "textenc_ts_cpu2_db500_mbs64", "textenc_onnx_cpu1_nodb_mbs64"
BUDGET_MS = 25.0
#: Run t16a's levels: (variant, size, concurrency) -> round -> (infer/s, p99 ms).
T16A = {
    (ONNX, "seq=128", 1): {0: (334.8, 16.07), 1: (110.7, 23.92), 2: (116.5, 21.17), 3: (247.5, 23.97), 4: (88.0, 32.03)},
    (ONNX, "seq=128", 2): {3: (201.0, 34.33), 4: (156.0, 33.5)},
    (ONNX, "seq=128", 4): {0: (281.5, 35.92), 1: (356.6, 41.99), 2: (307.9, 65.38)},
    (ONNX, "seq=8", 1): {0: (929.1, 5.62), 1: (587.1, 8.76), 2: (1213.8, 1.81), 3: (250.5, 14.52), 4: (363.0, 28.81)},
    (ONNX, "seq=8", 2): {3: (729.2, 12.68), 4: (325.2, 17.08)},
    (ONNX, "seq=8", 4): {0: (1699.3, 8.56), 1: (635.8, 36.61), 2: (649.9, 31.37)},
    (TS, "seq=128", 1): {0: (232.6, 14.0), 3: (200.0, 14.5), 4: (86.0, 15.0)},  # t16a: round 0 only (see the docstring)
    (TS, "seq=128", 4): {0: (362.8, 19.9), 1: (248.1, 44.75), 2: (343.9, 25.15), 3: (301.1, 29.73), 4: (277.1, 34.55)},
    (TS, "seq=8", 1): {0: (364.6, 6.55)},
    (TS, "seq=8", 4): {0: (1100.8, 9.71), 1: (804.7, 13.75), 2: (1009.4, 11.82), 3: (807.7, 13.46), 4: (831.3, 12.12)},
}  # fmt: skip


def _run(levels: dict[tuple[str, str, int], dict[int, tuple[float, float]]]) -> RunResult:
    variants = [
        variant_result(
            name,
            [
                level_result(c, thr, p99, spread=True, shape=shape, trial=r)
                for (n, shape, c), per in levels.items()
                if n == name
                for r, (thr, p99) in per.items()
            ],
        )
        for name in dict.fromkeys(n for n, _, _ in levels)
    ]
    run = run_result(variants, settings={"latency_budget_ms": BUDGET_MS, "latency_percentile": 99}, rounds=RoundsRecord(seed=764))
    return split_by_workload(run)


def _picks(levels: dict[tuple[str, str, int], dict[int, tuple[float, float]]]) -> dict[str, Recommendation]:
    run = _run(levels)
    return workload_recommendations(run, recommend(run, BUDGET_MS))


def test_a_pick_below_its_workloads_frontier_on_too_few_shared_rounds_is_not_decided_in_its_own_line() -> None:
    picks = _picks(T16A)
    pick = picks["seq=128"].best_under_budget
    assert pick is not None and (pick.variant, pick.concurrency) == (f"{ONNX} [seq=128]", 1)
    line = pick.describe()
    said = f"**not decided** between it and `{TS} [seq=128]` at concurrency 1 (measured in 3 rounds)"
    assert said in line and line.index(said) < line.index("the rule (paired rounds")  # before the verdict's words
    assert "200.0 infer/s, p99 14.50 ms over 3 rounds against the pick's 116.5 infer/s, 23.92 ms over 5 rounds" in line
    assert pick.note().startswith(f"not decided: `{TS} [seq=128]` c=1 (3 rounds)")
    seq8 = picks["seq=8"].best_under_budget
    assert seq8 is not None and seq8.dominated is None and "not decided" not in seq8.describe()  # on its frontier


def test_the_plot_mark_of_a_pick_below_the_frontier_says_it_is_not_decided() -> None:
    per = _picks(T16A)
    marks = {p.choice.variant: p.label for p in pick_points(per["seq=8"], per) if p.kind == UNDER}
    assert "not decided" in marks[f"{ONNX} [seq=128]"] and f"{TS} [seq=128] c=1" in marks[f"{ONNX} [seq=128]"]
    assert "not decided" not in marks[f"{TS} [seq=8]"]


def test_a_pick_the_rule_puts_ahead_of_the_frontiers_level_says_why_the_frontier_differs() -> None:
    """Its medians over different rounds: the rival, measured in the 3 rounds the pick led by 1.3x each, has the
    higher median over its own rounds than the pick over its 7 (4 of them slow for both, the rival not measured)."""
    levels = {
        (ONNX, "seq=128", 1): {
            0: (400.0, 20.0),
            1: (410.0, 20.0),
            2: (420.0, 20.0),
            3: (50.0, 20.0),
            4: (60.0, 20.0),
            5: (70.0, 20.0),
            6: (80.0, 20.0),
        },  # fmt: skip
        (TS, "seq=128", 1): {0: (300.0, 10.0), 1: (310.0, 10.0), 2: (320.0, 10.0)},
    }
    pick = _picks(levels)[""].best_under_budget
    assert pick is not None and pick.variant.startswith(ONNX)
    assert pick.dominated is not None and pick.dominated.startswith("below the Pareto frontier: by their medians")
    assert "in the 3 rounds they shared the rule put the pick ahead" in pick.dominated
    assert "not decided" not in pick.describe()


def test_the_console_row_of_a_sizes_pick_below_its_frontier_says_not_decided() -> None:
    """The console's "best under budget for seq=128 clients" said the level only (trial 21, T21-9: report.md's
    "not decided" was not in the row, where most users stop reading)."""
    import io
    import re

    from rich.console import Console
    from tables import table_rows

    from perf.cli.summary import summary_table

    out = io.StringIO()
    Console(file=out, width=250).print(summary_table(_run(T16A)))
    row = next(k for k in table_rows(out.getvalue()) if k.startswith(f"{ONNX} [seq=128]"))
    note = re.sub(r"\s+", " ", table_rows(out.getvalue())[row][-1])
    assert re.search(r"best under budget for seq=128 clients \(c=1: [^;]+; not decided: `" + re.escape(TS), note), note
    said = "c=1 (3 rounds) better on both by the medians; the pick ahead in 3 of 3 shared rounds"
    assert note.count(said) == 1 and note.count("the pick ahead in 3 of 3 shared rounds") == 1, note  # its rival once
