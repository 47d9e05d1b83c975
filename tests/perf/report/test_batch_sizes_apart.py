"""A client batch size is the client's, like a swept input size (trial 9, F34): a sweep of
``--batch-sizes 1,8`` gets one pick per batch size, its b=1 levels never ranked against b=8 ones,
in the report, the console and export-deployment's choice."""

from __future__ import annotations

from factories import params
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table
from perf.deploy.choose import choose_variant
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload
from perf.report.write import size_lines

A, B = params(1), params(2, True)  # A leads at b=1; B at b=8, where every level has more infer/s than any b=1 one
#: (variant params, batch size) -> (infer/s at c=1, p99 ms at c=1); c=2 doubles throughput, +50 % p99
SPEED = {("A", 1): (1000.0, 3.0), ("B", 1): (600.0, 4.0), ("A", 8): (3000.0, 6.0), ("B", 8): (6000.0, 5.0)}


def _variant(which: str) -> VariantResult:
    p = A if which == "A" else B
    levels = [
        LevelResult(c, b, r, throughput_infer_per_s=SPEED[which, b][0] * c * (1 + r / 50), latency_p99_ms=SPEED[which, b][1] * (1 + (c - 1) / 2))
        for b in (1, 8)
        for c in (1, 2)
        for r in range(6)
    ]  # fmt: skip
    return VariantResult(p["name"], p, "ok", None, levels)


def _run() -> RunResult:
    run = RunResult("r", "now", {}, {"latency_budget_ms": 10.0, "batch_sizes": [1, 8]}, [_variant("A"), _variant("B")])
    run.rounds = RoundsRecord(seed=1)
    run.finished = "later"
    return run


def test_each_batch_size_gets_its_own_picks_never_ranked_against_the_other() -> None:
    run = split_by_workload(_run())
    assert [v.name for v in run.variants] == [f"{A['name']} [b=1]", f"{A['name']} [b=8]", f"{B['name']} [b=1]", f"{B['name']} [b=8]"]  # fmt: skip
    rec = recommend(run, 10.0)
    assert rec.best_under_budget.variant == f"{B['name']} [b=8]" and rec.best_under_budget.batch_size == 8
    for ranking in (rec.ranking_under_budget, rec.ranking):
        assert {c.b.batch_size for c in ranking.comparisons} == {8}  # the b=8 pick against b=8 series only
        assert {o.side.batch_size for o in ranking.tie_set} == {8}
    text = "\n".join(size_lines(run, rec))
    assert "the picks above are for clients sending b=8" in text
    # b=1 clients' own pick: a bullet a pick under the workload's (trial 19, T19-17: two picks on one line)
    assert f"  - b=1:\n    - best under the budget: `{A['name']} [b=1]` at concurrency 2" in text


def test_the_console_marks_each_batch_sizes_picks() -> None:
    console = Console(width=400, record=True)
    console.print(summary_table(_run()))
    text = " ".join(console.export_text().split())
    # each with what the one-workload row says beside its level (Choice.note; trial 27, T27-17): its ladder's top
    assert "best under budget for b=1 clients (c=2; the budget not reached: no higher c measured)" in text
    assert "best under budget for b=8 clients (c=2, b=8; the budget not reached: no higher c measured)" in text
    assert "is the client's, not a setting to pick: each has its own picks" in text


def test_export_deployment_bundles_the_reports_first_pick_and_names_its_batch_size() -> None:
    chosen = choose_variant(_run())
    assert chosen.variant == B["name"] and chosen.level.batch_size == 8
    assert "[b=8]" in chosen.level.describe()
    assert "for clients sending b=8" in chosen.why
    named = choose_variant(_run(), A["name"])  # A's own level at the first pick's workload, not its b=1 one
    assert named.level.batch_size == 8 and "at b=8 (the client workload of the report's first pick)" in named.why


def test_export_deployments_help_says_which_workloads_pick_it_bundles() -> None:
    from click.testing import CliRunner

    from perf.cli.deploy import export_deployment

    out = " ".join(CliRunner().invoke(export_deployment, ["--help"], terminal_width=400).output.split())
    assert "several --batch-sizes" in out and "deploys the report's first pick, at the workload it names" in out


def test_the_chosen_levels_caveats_and_the_counts_are_of_its_batch_sizes_series() -> None:
    from perf.analysis.recommendation.frontier import levels_words, operating_frontier
    from perf.analysis.stats.points import run_points
    from perf.report.conclusions.written import conclusions

    run = _run()
    for lv in run.variants[1].levels:
        lv.host_busy = lv.batch_size == 8 and lv.concurrency == 2  # B's pick level, at b=8 only
    chosen = choose_variant(run)
    assert chosen.level.batch_size == 8 and any("host busy" in c for c in chosen.caveats)
    view = split_by_workload(run)
    text = "\n".join(conclusions(view, recommend(view, 10.0)))
    assert "2 variants at 2 client batch sizes (b=1, b=8)" in text
    assert "at 2 client batch sizes (b=1, b=8)" in levels_words(operating_frontier(run_points(view)))
