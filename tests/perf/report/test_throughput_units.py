"""What a throughput in infer/s counts, one rule (trial 23, T23-15): a sweep at client batch 4 reported "11,777.3
infer/s" in every table and line, never that it counts rows (requests × batch, perf_analyzer's convention), nor the
requests/s a service is sized by, which ``clients infer`` prints beside it. Where a level's client batch is above 1,
each table's legend says what infer/s counts (:data:`core.units.INFER_PER_S_MEANS`) and the picks' numbers give
requests/s (:func:`core.units.throughput_text`): the console's table and Recommendation line, report.md's
Recommendation and Conclusions."""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console

from core.units import INFER_PER_S_MEANS, throughput_text
from perf.cli.summary import summary
from perf.records import results
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord


def _run(batch: int) -> RunResult:
    """Two variants at client batch ``batch``, c=1 and c=2, 3 rounds each."""

    def levels(scale: float) -> list:
        return [
            level_result(c, scale * thr * (1 + 0.01 * r), p99, trial=r, batch_size=batch)
            for c, thr, p99 in ((1, 4000.0, 1.5), (2, 6000.0, 2.5))
            for r in range(3)
        ]

    run = run_result([variant_result("a", levels(1.0)), variant_result("b", levels(0.5))], settings={"design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    return run


def _console(run: RunResult) -> str:
    out = io.StringIO()
    Console(file=out, width=1000).print(summary(run).table)
    return out.getvalue()


def test_one_rule_for_a_throughput_and_its_requests() -> None:
    assert throughput_text(6312.66, 8) == "6,312.7 infer/s (789.1 requests/s of batch 8)"
    assert throughput_text(6312.66, 1) == "6,312.7 infer/s"  # an infer is a request: one number
    assert throughput_text(6312.66, 8, lambda x: f"{x:.1f}") == "6312.7 infer/s (789.1 requests/s of batch 8)"


def test_a_batch_4_run_says_what_infer_s_counts_and_gives_requests_per_s(tmp_path) -> None:
    from perf.report.write import write_report

    run = _run(4)
    view = summary(run)
    assert INFER_PER_S_MEANS in " ".join(_console(run).split())  # the console table's legend
    assert view.recommendation is not None and "6,060.0 infer/s (1,515.0 requests/s of batch 4)" in view.recommendation
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    rec = text[text.index("## Recommendation") : text.index("## Paired ranking")]
    pick = next(ln for ln in rec.splitlines() if ln.startswith("- **Best"))
    assert "6,060.0 infer/s (1,515.0 requests/s of batch 4)" in pick
    for section in ("## Pareto frontier", "## Results per concurrency level"):  # each table's legend says it
        legend = text[text.index(section) :].split("\n|", 1)[0]
        assert INFER_PER_S_MEANS in legend, section
    numbers = next(ln for ln in text.splitlines() if ln.startswith("**The numbers.**"))
    assert "requests/s of batch 4" in numbers


def test_a_batch_1_run_says_neither(tmp_path) -> None:
    from perf.report.write import write_report

    run = _run(1)
    assert INFER_PER_S_MEANS not in " ".join(_console(run).split())
    assert "requests/s" not in (summary(run).recommendation or "")
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert INFER_PER_S_MEANS not in text and "requests/s of batch" not in text


def test_the_plots_throughput_axes_say_it_at_a_batch_above_1(tmp_path, monkeypatch) -> None:
    import matplotlib.axes

    from core.units import throughput_label
    from perf.plots.figures import write_plots

    labels: list[str] = []
    real = matplotlib.axes.Axes.set_ylabel
    monkeypatch.setattr(
        matplotlib.axes.Axes, "set_ylabel", lambda ax, text, *a, **k: labels.append(text) or real(ax, text, *a, **k)
    )
    write_plots(_run(4), tmp_path)
    thr = [t for t in labels if t.startswith("throughput")]
    assert thr and all(t.startswith(throughput_label([4])) for t in thr), thr
    assert throughput_label([4]) != throughput_label([1]) == "throughput (infer/s)"


def test_report_htmls_hover_and_axes_say_it_too() -> None:
    from core.units import throughput_label
    from perf.analysis.stats.points import run_points
    from perf.report.html import _hover

    point = run_points(_run(4))["a"][0]
    assert "requests/s of batch 4" in _hover(None, point)
    assert "requests/s" not in _hover(None, run_points(_run(1))["a"][0])
    assert throughput_label([4]) != throughput_label([1])
