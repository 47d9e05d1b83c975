"""One best level per series of a run of several client workloads, and one answer to "which rounds did
two levels share" (trial 12, F5, run t12b: 2 variants x 2 input sizes x 2 client batch sizes, c=1..2,
interrupted by Ctrl-C in round 2 and resumed for rounds 3-5). The console table named
``nodb [time=16000, b=1]`` at c=2 (710.0 infer/s) while its own note and report.md named c=1 (762.4):
the table fitted the round-adjusted throughput over every series of the run, each workload's
recommendation over its own series; and the note said c=1 was "never measured in a round with c=2"
although they shared 5 rounds (a side built without the input size found no record). At
``time=16000, b=4`` the report named ``db500`` "first by throughput" beside ``nodb``'s higher median,
without saying that the rounds they shared put ``db500`` ahead."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterator
from typing import Any

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import table_rows

from perf.analysis.ranking.operating import per_round, shared, side_of
from perf.analysis.recommendation.frontier import best_level_frontier, frontier_section, workload_recommendations
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.peaks import higher_median
from perf.analysis.stats.points import run_points
from perf.cli.summary import summary_table
from perf.deploy.choose import choose_variant
from perf.markdown import fmt
from perf.records.results import RunResult, Session
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload, workload

A, B = "kws_onnx_cpu2_db500_mbs64", "kws_onnx_cpu2_nodb_mbs64"
#: The trial's levels: (variant, size, client batch size, concurrency) -> round -> (infer/s, p99 ms); round 2
#: is the one Ctrl-C cut (some levels have none), rounds 3-5 the resumed session's.
T12B = {
    (A, "time=1000", 1, 1): {0: (595.9, 6.184), 1: (359.272, 12.034), 2: (312.538, 13.165), 3: (276.219, 12.069), 4: (330.069, 12.698), 5: (340.167, 15.245)},
    (A, "time=1000", 1, 2): {0: (944.809, 6.341), 1: (1018.45, 7.824), 2: (508.772, 10.592), 3: (543.899, 14.338), 4: (528.671, 12.573), 5: (814.848, 8.677)},
    (A, "time=1000", 4, 1): {0: (2040.25, 9.818), 1: (2233.72, 5.664), 2: (1837.53, 8.989), 3: (1137.8, 29.74), 4: (1188.34, 16.655), 5: (981.2, 28.438)},
    (A, "time=1000", 4, 2): {0: (3134.21, 7.463), 1: (3463.75, 9.986), 2: (3853.26, 5.976), 3: (2791.46, 9.733), 4: (1219.49, 122.533), 5: (3059.54, 12.802)},
    (A, "time=16000", 1, 1): {0: (382.73, 9.065), 1: (393.268, 11.871), 3: (492.774, 7.755), 4: (281.271, 11.518), 5: (279.321, 24.11)},
    (A, "time=16000", 1, 2): {0: (534.03, 14.841), 1: (483.263, 18.389), 2: (513.305, 16.764), 3: (557.493, 15.819), 4: (505.917, 17.26), 5: (737.737, 11.66)},
    (A, "time=16000", 4, 1): {0: (1112.23, 11.879), 1: (1185.0, 13.54), 2: (1053.67, 23.645), 3: (823.385, 11.986), 4: (937.339, 12.771), 5: (818.252, 16.717)},
    (A, "time=16000", 4, 2): {0: (2345.69, 8.219), 1: (1909.46, 16.133), 2: (724.721, 28.08), 3: (1351.3, 23.09), 4: (1185.16, 23.606), 5: (840.03, 35.635)},
    (B, "time=1000", 1, 1): {0: (649.442, 8.701), 1: (850.463, 9.037), 3: (1234.39, 5.447), 4: (1575.11, 1.097), 5: (475.099, 10.477)},
    (B, "time=1000", 1, 2): {0: (1148.83, 9.082), 1: (1465.82, 10.819), 3: (849.852, 13.956), 4: (1326.17, 10.986), 5: (1571.23, 9.557)},
    (B, "time=1000", 4, 1): {0: (2454.83, 10.203), 1: (3173.26, 10.029), 3: (4831.05, 5.671), 4: (1506.26, 14.703), 5: (1338.55, 25.498)},
    (B, "time=1000", 4, 2): {0: (5929.29, 8.47), 1: (4885.35, 10.396), 2: (5136.74, 10.65), 3: (3124.21, 14.333), 4: (6105.52, 3.962), 5: (5768.68, 8.068)},
    (B, "time=16000", 1, 1): {0: (652.758, 7.225), 1: (968.493, 3.481), 2: (507.404, 13.267), 3: (313.032, 12.215), 4: (871.988, 8.497), 5: (929.515, 5.905)},
    (B, "time=16000", 1, 2): {0: (1152.37, 5.742), 1: (679.638, 14.846), 3: (710.041, 20.635), 4: (1111.52, 11.531), 5: (596.058, 18.775)},
    (B, "time=16000", 4, 1): {0: (1206.49, 10.587), 1: (1353.69, 12.026), 2: (1332.61, 10.648), 3: (1444.27, 19.104), 4: (918.078, 21.028), 5: (1093.63, 14.03)},
    (B, "time=16000", 4, 2): {0: (1874.19, 12.731), 1: (1448.78, 17.2), 3: (1250.32, 26.074), 4: (1879.14, 14.217), 5: (2342.15, 9.527)},
}  # fmt: skip
BUDGET_MS = 30.0
#: T12B with ``db500``'s time=16000, b=4 c=2 ahead of ``nodb``'s in each of the 5 rounds they shared, by 1 % or more,
#: round 2 (``nodb`` had none) as low as recorded: ``db500`` is named first by those one-sided rounds while ``nodb``'s
#: median over its 5 rounds (1,874.2) is higher than ``db500``'s over 6 (1,675.0). As recorded, the shared rounds
#: went 3 to 2, which names no one (trial 28, T28-1): ``nodb``, higher on both scales, is named first.
ONE_SIDED = T12B | {
    (A, "time=16000", 4, 2): {0: (1900.0, 8.219), 1: (1460.0, 16.133), 2: (724.721, 28.08), 3: (1260.0, 23.09), 4: (1890.0, 23.606), 5: (2350.0, 35.635)},
}  # fmt: skip


def _run(levels: dict[tuple[str, str, int, int], dict[int, tuple[float, float]]] = T12B) -> RunResult:
    """Run t12b as recorded: every level host busy, two sessions (the first interrupted), one round each."""
    variants = [
        variant_result(
            name,
            [
                level_result(c, thr, p99, spread=True, batch_size=b, shape=shape, trial=r, host_busy=True, host_busy_pct=130.0)
                for (n, shape, b, c), per in levels.items()
                if n == name
                for r, (thr, p99) in per.items()
            ],
        )
        for name in (A, B)
    ]
    return run_result(
        variants,
        settings={"latency_budget_ms": BUDGET_MS, "latency_percentile": 99, "batch_sizes": [1, 4]},
        finished="x",
        rounds=RoundsRecord(seed=756),
        sessions=[Session("s1", "interrupted"), Session("s2", "finished")],
    )


def _level(points, concurrency: int):
    return next(p for p in points if p.concurrency == concurrency)


def test_each_series_best_level_is_its_workloads_own_whichever_series_are_ranked_beside_it() -> None:
    view = split_by_workload(_run())
    points = run_points(view)
    everyone = best_levels(view, points)
    labels = {workload(v) for v in view.variants}
    assert len(labels) == 4  # 2 sizes x 2 client batch sizes
    for label in labels:
        alone = dataclasses.replace(view, variants=[v for v in view.variants if workload(v) == label])
        own = best_levels(alone, run_points(alone))
        assert {n: (p.concurrency, p.batch_size) for n, p in own.items()} == {
            n: (everyone[n].concurrency, everyone[n].batch_size) for n in own
        }, label


def test_the_console_row_names_the_level_its_workloads_pick_names() -> None:
    run = _run()
    view = split_by_workload(run)
    rec = recommend(view, BUDGET_MS)
    console = Console(record=True, width=400)
    console.print(summary_table(run))
    rows = {k: cells for k, cells in table_rows(console.export_text()).items() if "kws_" in k}
    picks = [c for sub in workload_recommendations(view, rec).values() for c in (sub.best_peak, sub.best_under_budget) if c]
    assert picks
    for c in picks:
        best, at = rows[c.variant][0], rows[c.variant][1]
        assert at.split(",")[0].split()[0] == str(c.concurrency) and best == fmt(c.throughput_infer_per_s), c.variant
        assert "never measured in a round with" not in rows[c.variant][-1]


def test_two_levels_of_a_series_that_shared_rounds_are_never_said_to_have_shared_none() -> None:
    view = split_by_workload(_run())
    points = run_points(view)
    for vr in view.variants:
        pts = points[vr.name]
        for at in pts:
            sides = [side_of(vr, p) for p in pts]
            together = [shared(vr, side_of(vr, at), vr, s)[0] for s in sides if s != side_of(vr, at)]
            said = higher_median(view, pts, at, short=True)
            if said is None:
                continue
            assert "never measured in a round with" not in said, vr.name
            assert any(f"of {len(r)} rounds" in said for r in together if r), (vr.name, said)


def _higher_runners_up(view: Any) -> Iterator[tuple[str, Any, Any, int, int]]:
    """Each tied pick of each workload with a tie-set member of a higher median: ``(workload label, pick,
    member, rounds they shared, rounds the pick was ahead in)``, from the ranking the words are checked against."""
    for label, sub in workload_recommendations(view, recommend(view, BUDGET_MS)).items():
        for c, ranking in ((sub.best_under_budget, sub.ranking_under_budget), (sub.best_peak, sub.ranking)):
            if c is None or ranking is None or not c.tied:
                continue
            lead = ranking.leader
            for o in ranking.tie_set[1:]:
                if o.throughput_infer_per_s <= lead.throughput_infer_per_s:
                    continue
                vr_b, vr_a = view.variant(o.side.variant), view.variant(lead.side.variant)
                rounds, ta, tb = shared(vr_a, lead.side, vr_b, o.side)
                assert statistics.median(per_round(vr_b, o.side).values()) == o.throughput_infer_per_s
                yield label, c, o, len(rounds), sum(1 for x, y in zip(ta, tb) if x > y)


def test_a_runner_up_with_a_higher_median_is_said_beside_named_first_in_numbers() -> None:
    said = 0
    for _, c, o, rounds, ahead in _higher_runners_up(split_by_workload(_run(ONE_SIDED))):
        text = c.describe()
        assert "named first by throughput in the rounds it shared with each" in text and "not by the medians" in text
        assert f"`{o.side.variant}`'s median at {o.side.level()} is higher, {fmt(o.throughput_infer_per_s)} infer/s" in text
        assert f"in the {rounds} rounds they shared the pick was ahead in {ahead}" in text
        said += 1
    assert said  # time=16000, b=4: nodb's 1,874.2 beside db500's 1,675.0 (ONE_SIDED)


def test_the_variant_frontier_takes_each_series_at_the_level_the_table_names() -> None:
    # c=2 measured only in the 3 fast rounds: its median (180) tops c=1's (150 over 6 rounds), behind c=1 in every shared round
    fast, slow = {r: 200.0 for r in range(3)}, {r: 100.0 for r in range(3, 6)}
    levels = [level_result(1, t, 5.0, spread=True, trial=r) for r, t in (fast | slow).items()]
    levels += [level_result(2, 180.0, 8.0, spread=True, trial=r) for r in fast]
    run = run_result([variant_result(A, levels)], finished="x", rounds=RoundsRecord(seed=1))
    points = run_points(run)
    table = best_levels(run, points)[A]
    assert table.concurrency != max(points[A], key=lambda p: p.get("throughput_infer_per_s") or 0).concurrency
    (front,) = best_level_frontier(points, (), run)
    assert (front.concurrency, front.batch_size) == (table.concurrency, table.batch_size)
    section = "\n".join(frontier_section(points, recommend(run), (), run))
    assert "**Variant frontier**" in section and f"`{A}`" in section


def test_export_deployment_of_a_named_variant_takes_the_level_the_table_names() -> None:
    # the trial's time=16000, b=1 alone: nodb's level fitted over its own series named c=2, the table's c=1
    run = _run()
    for v in run.variants:
        v.levels = [lv for lv in v.levels if (lv.shape, lv.batch_size) == ("time=16000", 1)]
    view = split_by_workload(run)
    table = best_levels(view, run_points(view))
    for name in (A, B):
        (series,) = [n for n in table if n.startswith(name)]
        chosen = choose_variant(run, name, BUDGET_MS)
        assert (chosen.level.concurrency, chosen.level.batch_size) == (table[series].concurrency, table[series].batch_size)


def test_the_consoles_note_of_a_pick_says_a_runner_up_with_a_higher_median_in_numbers() -> None:
    console = Console(record=True, width=1000)
    console.print(summary_table(_run(ONE_SIDED), BUDGET_MS))
    rows = {k: " ".join(cells) for k, cells in table_rows(console.export_text()).items()}
    said = 0
    for label, c, o, rounds, ahead in _higher_runners_up(split_by_workload(_run(ONE_SIDED))):
        row = rows[c.variant]
        assert f"clients (c={c.concurrency}" in row and label in row
        higher = f"`{o.side.variant}`'s median at {o.side.level()} higher, {fmt(o.throughput_infer_per_s)}: the pick ahead in {ahead} of {rounds} shared rounds"
        # a member better on both medians the pick was ahead of in one-sided shared rounds: "not decided" (trial 30, F10)
        below = f"not decided: `{o.side.variant}` c={o.side.concurrency} ({o.rounds} rounds) better on both by the medians; the pick ahead in {ahead} of {rounds} shared rounds"
        assert higher in row or below in row
        said += 1
    assert said  # time=16000, b=4: nodb's 1,874.2 in its own row beside db500's pick at 1,675.0 (ONE_SIDED)


def test_three_of_five_shared_rounds_name_no_pick_below_a_member_higher_on_both_scales() -> None:
    """As recorded, ``db500`` (1,268.2 infer/s over 6 rounds, round-adjusted 1,386.0) was named first at time=16000,
    b=4 over ``nodb`` (1,874.2 over 5, round-adjusted 1,621.7) for being ahead in 3 of the 5 rounds they shared
    (trial 28, T28-1: not one-sided enough to move the leader)."""
    view = split_by_workload(_run())
    picks = {label: sub.best_under_budget for label, sub in workload_recommendations(view, recommend(view, BUDGET_MS)).items()}
    pick = picks["time=16000, b=4"]
    assert pick is not None and pick.variant.startswith(B) and fmt(pick.throughput_infer_per_s) == "1,874.2"
    assert len(pick.tie_set) == 2  # still not separated by the rule
