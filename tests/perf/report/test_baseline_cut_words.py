"""An in-process baseline the time budget cut short says so where its rounds are said: the report's
settings line and the console (trial 12, F15: "over 8 interleaved rounds" in report.md of a model
timed in 2, the terminal silent; only the appendix's note said it). One count:
:meth:`perf.records.baseline.BaselineResult.rounds_timed`."""

from __future__ import annotations

from perf.cli.baseline import describe_event
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings
from perf.report.sections.inprocess import baseline_lines

PLANNED = 8
CUT = 2  # rounds the cut model was timed in


def _baseline() -> BaselineResult:
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {"torch": "2"}, rounds=PLANNED)
    points = [
        BaselinePoint(BaselineKey(model, "onnx", "fp32", "cpu", 1), 1, latency_median_ms=2.0, rounds_ms=[2.0] * n)
        for model, n in (("kws", CUT), ("mlp", PLANNED))
    ]
    return BaselineResult("now", settings, [], points)


def test_the_rounds_timed_are_counted_per_model() -> None:
    assert _baseline().cut_short() == {"kws": CUT}


def test_the_report_says_the_rounds_a_cut_model_was_timed_in() -> None:
    text = baseline_lines(_baseline())[0]
    assert f"over {PLANNED} interleaved rounds" in text
    assert f"the time budget ran out: `kws` timed in {CUT} rounds of them only" in text
    assert "`mlp` timed" not in text


def test_the_console_says_the_cut() -> None:
    note = f"`kws`: timed in {CUT} of {PLANNED} rounds: the sweep's time budget ran out"
    assert describe_event({"event": "baseline_cut", "model": "kws", "text": note}) == note
