"""A run of trials names one best level per variant, by the recommendation's rule (stable levels first,
:func:`perf.analysis.stats.trials.rank`), wherever one is named: the console's row named an unstable
level's higher median (210 infer/s at c=4 †) beside a pick of the stable c=2 (200 infer/s) marked "best
peak" in the same row, while the plots highlighted variants by the stable-first rule. The higher median
passed over is said in numbers (its lead and its spread)."""

from __future__ import annotations

from pathlib import Path

from factories import levels, params, run_result, variant_result
from rich.console import Console

from perf.analysis.recommendation.frontier import best_levels as frontier_levels
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.analysis.stats.trials import spread
from perf.cli.summary import summary
from perf.markdown import TOP_N, fmt
from perf.plots import figures as plots
from perf.plots.styles import ALL_DISTINCT, styles
from perf.records.results import RunResult

U = params(1)["name"]
#: U's c=4 is unstable and 5 % above its stable c=2: within its spread (the 10 % stability tolerance).
U_THR, U_P99 = [100.0, 200.0, 210.0], [1.0, 2.0, 4.0]


def _run(others: list[tuple[str, float]]) -> RunResult:
    rest = [variant_result(n, levels([t / 2, t], [1.5, 3.0])) for n, t in others]
    return run_result(
        [variant_result(params=params(1), levels=levels(U_THR, U_P99, unstable=(4,))), *rest], settings={"concurrency": [1, 2, 4]}
    )


def test_a_variants_best_level_is_its_picks_level_and_the_higher_median_is_said() -> None:
    run = _run([(params(2)["name"], 150.0)])
    points = run_points(run)
    rec = recommend(run)
    pick = rec.best_peak
    assert pick is not None and (pick.variant, pick.concurrency) == (U, 2)  # the stable level: the rule
    named = best_levels(run, points)[U]
    assert named.concurrency == pick.concurrency  # was c=4, the highest median
    assert frontier_levels(points, (), run)[U].concurrency == named.concurrency  # the plots' and the frontier's
    top = max(points[U], key=lambda p: p.value(THROUGHPUT))
    lead, margin = top.value(THROUGHPUT) - named.value(THROUGHPUT), spread(top)
    assert lead < margin  # the case: within its spread
    assert (
        f"it is {fmt(lead)} infer/s ahead of c=2's {fmt(named.get(THROUGHPUT))}, within its spread of {fmt(margin)} infer/s"
        in (pick.level_why or "")
    )
    console = Console(record=True, width=300)
    console.print(summary(run).table)
    row = next(r for r in console.export_text().splitlines() if U in r)
    cells = [c.strip() for c in row.split("│")]
    assert cells[2:4] == [fmt(named.get(THROUGHPUT)), "2"]  # the pick's level, not 210.0 at c=4 †
    assert f"c=4's median higher, {fmt(top.get(THROUGHPUT))} † unstable" in row


def test_the_plots_highlight_the_variants_the_table_ranks_first(tmp_path: Path) -> None:
    # TOP_N variants between U's stable 200 and its unstable 210: above U by the table's rule, below by medians
    run = _run([(f"m{i:02d}", 201.0 + 0.5 * i) for i in range(TOP_N)] + [("low", 50.0)])
    points = run_points(run)
    assert len(points) > ALL_DISTINCT
    rec = recommend(run)
    table = best_levels(run, points)
    first = sorted(table, key=lambda n: -table[n].value(THROUGHPUT))[:TOP_N]
    drawn = plots.plot_metric(points, THROUGHPUT, "infer/s", "T", tmp_path / "t.png", rec=rec, looks=styles(points, rec, run=run))
    (legend,) = drawn.values()  # the one panel (client batch size 1): its labelled curves, read from the artists
    assert U not in first  # was first: its 210 † topped every median
    assert all(n in legend for n in first)  # the table's top variants are the plot's coloured ones
