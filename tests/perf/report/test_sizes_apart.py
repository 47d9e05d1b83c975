"""A shape sweep's sizes are never picked between (trial 7, F21): the console marks each size's
picks with the size they are for and says a size is the client's; the Pareto frontier never lets
a level of one input size dominate a level of another."""

from __future__ import annotations

from factories import run_result, variant_result
from rich.console import Console

from perf.analysis.recommendation.frontier import frontier_summary, operating_frontier
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.cli.summary import summary_table
from perf.records.levels import LevelResult
from perf.records.workloads import split_by_workload

NAME = "t_onnx_cpu2_db500_mbs64"


def _run():
    levels = [
        LevelResult(c, 8, t, throughput_infer_per_s=thr * c, latency_p99_ms=p99 * c, shape=shape)
        for shape, thr, p99 in (("ncat=1", 2500.0, 3.0), ("ncat=32", 2600.0, 2.9))  # ncat=32 better on both
        for c in (1, 4)
        for t in range(3)
    ]
    return run_result([variant_result(NAME, levels, params={"name": NAME})], finished="x")


def test_the_frontier_is_one_per_size():
    run = split_by_workload(_run())
    points = run_points(run)
    front = operating_frontier(points)
    assert {p.variant for p in front} == {f"{NAME} [ncat=1]", f"{NAME} [ncat=32]"}  # ncat=1 is not "dominated"
    said = frontier_summary(points, recommend(run))
    assert "one per client workload (input size, client batch size), never compared across workloads" in said
    assert "at ncat=1: from" in said and "at ncat=32: from" in said


def test_the_console_marks_each_sizes_picks_and_says_a_size_is_the_clients():
    console = Console(width=400, record=True)
    console.print(summary_table(_run()))
    text = console.export_text()
    assert "for ncat=1 clients (c=4, b=8)" in text and "for ncat=32 clients (c=4, b=8)" in text  # each size's own pick
    assert "a client workload [..] (size, b=batch size) is the client's, not a setting to pick" in " ".join(
        text.split()
    )  # the caption wraps
