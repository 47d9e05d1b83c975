"""Trial 14 (T14-7): ``triton-perf report RUN --latency-percentile 95`` wrote a what-if view whose
report.md judged the budget on p95 while its plots kept p99: throughput_vs_p99.png's title and x axis
said p99, the "best under p95 budget" star sat at the pick's p99, and no budget line was drawn (the
run's own p99 plot draws one). Every plot draws the latency the budget is judged on, named in its
title, axis, legend and file name, with the budget line. Read back from the matplotlib artists; no
server (a synthetic run whose p95 is 0.9 of its p99)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.records.results import save
from perf.report.write import REPORT_FILE, write_report

P95 = "latency_p95_ms"
BUDGET_MS = 3.0


def _view(tmp_path: Path, kept_figures: list) -> tuple[Path, dict]:
    """A run swept with a 3 ms p99 budget, and its p95 what-if view; the view's figures by title."""
    run = make_run()
    run.settings["latency_budget_ms"] = BUDGET_MS
    save(run, tmp_path)
    report = write_report(tmp_path, latency_percentile=95)
    figures = {ax.get_title(): ax for fig in kept_figures for ax in fig.axes if ax.get_title()}
    return report, figures


def _pick(run_dir: Path):
    from perf.records.results import load

    rec = recommend(load(run_dir), BUDGET_MS, 95)
    assert rec.best_under_budget is not None and rec.latency_percentile == 95
    return rec.best_under_budget


def _budget_lines(ax) -> list:
    return [line for line in ax.get_lines() if line.get_label() == "p95 budget 3 ms"]


def test_a_p95_views_trade_off_plot_draws_p95_with_its_budget(tmp_path: Path, kept_figures: list) -> None:
    report, figures = _view(tmp_path, kept_figures)
    pick = _pick(tmp_path)
    level = next(p for p in run_points(make_run())[pick.variant] if (p.concurrency, p.batch_size) == (pick.concurrency, 1))
    assert level.value(P95) != pick.latency_p99_ms  # the two numbers the plot could put the star at differ
    ax = figures["Throughput vs p95 latency — client batch size 1"]
    assert ax.get_xlabel() == "client p95 latency (ms)"
    (star,) = [line for line in ax.get_lines() if line.get_label().startswith("best under p95 budget 3.00 ms")]
    assert (list(star.get_xdata()), list(star.get_ydata())) == ([level.value(P95)], [level.value(THROUGHPUT)])
    (budget,) = _budget_lines(ax)
    assert list(budget.get_xdata()) == [BUDGET_MS, BUDGET_MS]  # a vertical line at the budget, on the p95 axis
    # every curve point is at its level's p95
    curve = next(c.lines[0] for c in ax.containers if c.get_label() == pick.variant)
    assert list(curve.get_xdata()) == [p.value(P95) for p in run_points(make_run())[pick.variant]]


def test_a_p95_views_latency_and_frontier_plots_draw_p95_with_its_budget(tmp_path: Path, kept_figures: list) -> None:
    report, figures = _view(tmp_path, kept_figures)
    pick = _pick(tmp_path)
    ax = figures["p95 latency vs concurrency — client batch size 1"]
    assert ax.get_ylabel() == "client p95 latency (ms)"
    (budget,) = _budget_lines(ax)
    assert list(budget.get_ydata()) == [BUDGET_MS, BUDGET_MS]  # horizontal, at the budget
    front = figures["Pareto frontier: throughput vs p95, every level of every variant"]
    assert front.get_xlabel() == "client p95 latency (ms)"
    (star,) = [line for line in front.get_lines() if line.get_label().startswith("best under p95 budget 3.00 ms")]
    assert list(star.get_xdata()) == [pick.latency_at(95)]
    (budget,) = _budget_lines(front)
    assert list(budget.get_xdata()) == [BUDGET_MS, BUDGET_MS]
    assert not any("p99" in t for a in figures.values() for t in (a.get_title(), a.get_xlabel(), a.get_ylabel()))


def test_a_p95_views_plot_files_and_links_name_p95(tmp_path: Path, kept_figures: list) -> None:
    """The files are named by the percentile they draw (a p99 view keeps throughput_vs_p99.png), and report.md's
    links and their text match them."""
    report, _ = _view(tmp_path, kept_figures)
    view, text = report.parent, report.read_text()
    assert view.name == "report-p95"
    assert "![Throughput vs p95 latency](throughput_vs_p95.png)" in text
    assert "![p95 latency vs concurrency](p95_vs_concurrency.png)" in text
    assert (view / "throughput_vs_p95.png").is_file() and (view / "p95_vs_concurrency.png").is_file()
    assert not list(view.glob("*p99*.png")) and "p99.png" not in text and "p99_vs" not in text
    own = write_report(tmp_path).read_text()  # the run's own report: p99, as before
    assert "![Throughput vs p99 latency](throughput_vs_p99.png)" in own and (tmp_path / REPORT_FILE).is_file()


def test_a_p95_views_interactive_plot_draws_p95_with_its_budget(tmp_path: Path) -> None:
    pytest.importorskip("plotly")
    from perf.report.html import figures

    run = make_run()
    rec = recommend(run, BUDGET_MS, 95)
    trade, _ = figures(run, rec)
    assert trade.layout.xaxis.title.text == "client p95 latency (ms)"
    (star,) = [t for t in trade.data if (t.name or "").startswith("best under p95 budget 3.00 ms")]
    assert list(star.x) == [rec.best_under_budget.latency_at(95)]
    (line,) = [s for s in trade.layout.shapes if s.type == "line"]
    assert (line.x0, line.x1) == (BUDGET_MS, BUDGET_MS)


def test_a_p95_views_frontier_is_the_p95_one_in_its_plot_and_its_report(tmp_path: Path, kept_figures: list) -> None:
    """The Pareto plot draws the frontier on the latency it plots, and report.md's frontier section says the same
    levels: on p99 `slow95` (90 infer/s, p99 4 ms) is on the frontier beside `fast95` (100 infer/s, p99 10 ms); on
    p95 `fast95` (2 ms) beats it on both (3 ms)."""
    from factories import level_result, run_result, variant_result

    run = run_result(
        [
            variant_result("fast95", [level_result(1, 100.0, 10.0, latency_p95_ms=2.0)]),
            variant_result("slow95", [level_result(1, 90.0, 4.0, latency_p95_ms=3.0)]),
        ],
        settings={"latency_budget_ms": 20.0},
    )
    save(run, tmp_path)
    own = write_report(tmp_path).read_text()
    assert "`slow95`" in own.split("## Pareto frontier")[1].split("\n- ")[0]  # on the p99 frontier
    kept_figures.clear()
    view = write_report(tmp_path, latency_percentile=95).read_text()
    section = view.split("## Pareto frontier")[1].split("\n- ")[0]
    header = next(ln for ln in section.splitlines() if ln.startswith("| variant"))
    assert "beats on both throughput and p95" in section and "p95(ms)|p99(ms)" in header.replace(" ", "")
    assert "`fast95`" in section and "`slow95`" not in section
    (front,) = [ax for fig in kept_figures for ax in fig.axes if ax.get_title().startswith("Pareto frontier")]
    (line,) = [line for line in front.get_lines() if line.get_label().startswith("Pareto frontier (")]
    assert list(line.get_xdata()) == [2.0]  # fast95 at its p95, alone
