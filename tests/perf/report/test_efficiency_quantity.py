"""Trial 24, T24-1: the Serving efficiency table's "served ÷ in-process" cell said "served faster than
in-process" beside a served throughput BELOW the in-process one (125.9 vs 159.3 infer/s): the verdict was
on compute infer (4,262 µs served vs 6,277 µs in-process), the column and the plot's axis on throughput; the
plot left the level out for the same words. And a 27x gap read "not significant" with no number for why.
Every verdict word now names its quantity, from one source for the table, the bullets and the plot
(:func:`perf.analysis.efficiency.faster_words`). Hand-made records; the plot read back from its artists."""

from __future__ import annotations

from pathlib import Path

from perf.analysis.efficiency import COMPUTE_BELOW, THROUGHPUT_ABOVE, efficiency_rows
from perf.plots.efficiency import RATIO_TITLE, write_plot
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.report.sections.efficiency import efficiency_section

KEY = BaselineKey("segnet", "onnx", "fp32", "cpu", 2)
SLOW, FAST, BEHIND = "segnet_onnx_cpu1_db500_mbs8", "segnet_onnx_cpu1_nodb_mbs8", "segnet_onnx_cpu2_nodb_mbs8"


def _level(c: int, thr: float, infer_us: float, spread: float = 5.0) -> LevelResult:
    return LevelResult(
        c,
        throughput_infer_per_s=thr,
        latency_p50_ms=1.0,
        latency_p99_ms=2.0,
        avg_server_batch_size=1.0,
        server_compute_infer_us=infer_us,
        server_queue_us=100.0,
        throughput_window_spread_pct=spread,
        host_busy_pct=1.0,
    )


def _run(rounds_ms: list[float] | None = None) -> RunResult:
    run = RunResult("r", "now", environment={"cpu_count": 2})  # type: ignore[typeddict-item]
    run.variants += [
        VariantResult(SLOW, status="ok", levels=[_level(1, 125.9, 4262.0)]),  # throughput below, compute below
        VariantResult(FAST, status="ok", levels=[_level(1, 200.0, 7000.0)]),  # throughput above (1.26x, 1 instance)
        VariantResult(BEHIND, status="ok", levels=[_level(1, 2.7, 341_713.0)]),  # 0.017x
    ]
    p = BaselinePoint(KEY, 1, latency_p50_ms=6.277, latency_median_ms=6.277, throughput_infer_per_s=159.3)
    p.rounds_ms = rounds_ms or [6.277] * 8
    p.host_busy_pct, p.host_busy = 2.0, False
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    targets = [BaselineTarget(SLOW, KEY, 1, [1], "python"), BaselineTarget(FAST, KEY, 1, [1], "python")]
    run.baseline = BaselineResult("now", settings, [*targets, BaselineTarget(BEHIND, KEY, 2, [1], "python")], [p])
    return run


def _row(text: str, variant: str) -> list[str]:
    (line,) = [x for x in text.splitlines() if x.startswith(f"| {variant} ")]
    return [c.strip() for c in line.strip("|").split("|")]


def test_each_verdict_names_the_quantity_it_is_on(tmp_path: Path) -> None:
    run = _run()
    rows = {r.variant: r for r in efficiency_rows(run)}
    assert rows[SLOW].note == COMPUTE_BELOW and rows[SLOW].ratio < 1  # the throughput ratio is 0.79x
    assert rows[FAST].note == THROUGHPUT_ABOVE and rows[FAST].ratio > 1
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    slow, fast = _row(text, SLOW), _row(text, FAST)
    assert slow[3:5] == ["125.9", "159.3"]  # served below in-process ...
    assert slow[5] == "— (served compute infer below in-process: not evidence)"  # ... so no "served faster" beside them
    assert "served faster" not in " ".join(slow)
    assert slow[8] == "-2,015 (compute infer below in-process: not evidence)"
    assert (
        fast[5] == "— (served throughput above what its instances can give in-process: not evidence)"
    )  # this one is about the throughput shown
    assert f"- {COMPUTE_BELOW}: `{SLOW}` c=1" in text and f"- {THROUGHPUT_ABOVE}: `{FAST}` c=1" in text  # the bullets
    # the plot: its axis is throughput; the legend leaves the levels out with the table's words, not "served faster"
    drawn = write_plot(list(rows.values()), tmp_path / "e.png")
    assert drawn is not None
    (note,) = [k for k in drawn[RATIO_TITLE] if "left out" in k]
    assert note.startswith(
        "2 levels left out: served throughput above what its instances can give in-process or served compute infer below in-process"
    )
    assert BEHIND in drawn[RATIO_TITLE] and SLOW not in drawn[RATIO_TITLE]


def test_not_significant_gives_the_noise_it_is_within(tmp_path: Path) -> None:
    # trial 24: in-process rounds of 2.3 .. 352 ms (host busy) cover a 27x gap; the cell says so with the number
    run = _run([2.3, 352.0, 6.277, 168.0, 2.3, 6.277, 6.277, 11.2])
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    behind = _row(text, BEHIND)
    assert behind[5].startswith("0.017×")
    assert behind[8] == "335,436 (+98 %); not significant (within ±366,786 µs of noise)"
