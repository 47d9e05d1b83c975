"""The precision study's speed-ups are paired round by round (issue 24: "fp16 1.75× faster than fp32"
came from fp32 measured under load at 40.5 ms against 3.8 ms elsewhere): a speed-up inside the
noise is "not distinguishable at this noise"; a host-busy row carries its mark into the table
and the sentence. Hand-made rows, then the real study on the tiny model."""

from __future__ import annotations

import statistics

from perf.markdown import ratio_span, times
from perf.profile.precision_study import _speedups
from perf.records.profile import NOT_DISTINGUISHABLE, PrecisionRow
from perf.report.sections.profile import precision_lines


def _row(precision: str, rounds: list[float], busy: float | None = None) -> PrecisionRow:
    r = PrecisionRow(
        "eager PyTorch", "cpu", precision, "cast", computes_in=precision, latency_median_ms=statistics.median(rounds or [1.0])
    )
    r.rounds_ms = rounds
    if busy is not None:
        r.host_busy_pct, r.host_busy = busy, busy > 10.0
    return r


def test_a_speedup_inside_the_noise_is_not_distinguishable():
    fp32 = _row("fp32", [3.8, 40.5, 3.9, 4.1, 3.7, 4.0, 3.8, 3.9])  # one round under load
    fp16 = _row("fp16", [3.9, 23.0, 3.7, 4.2, 3.8, 3.9, 3.9, 3.8])  # the same load fell on it in that round
    _speedups([fp32, fp16])
    assert fp16.speedup_verdict == NOT_DISTINGUISHABLE and 0.9 < fp16.speedup_vs_fp32 < 1.1
    assert fp16.speedup_low < 1 < fp16.speedup_high
    text = "\n".join(precision_lines([fp32, fp16]))
    assert "1.75" not in text and "faster" not in text.split("## Precision study")[1].split("|")[0]
    assert f"fp16 against fp32: {times(fp16.speedup_vs_fp32, 3)} fp32's speed, not distinguishable at this noise" in text


def test_a_clear_paired_speedup_is_called_with_its_spread_and_a_busy_row_is_marked():
    fp32 = _row("fp32", [4.0, 4.1, 3.9, 4.2, 4.0, 4.1, 3.9, 4.0], busy=48.0)
    bf16 = _row("bf16", [2.0, 2.1, 2.0, 2.2, 1.9, 2.0, 2.1, 2.0], busy=48.0)
    _speedups([fp32, bf16])
    assert bf16.speedup_verdict == "faster" and bf16.speedup_p_value < 0.05
    text = "\n".join(precision_lines([fp32, bf16]))
    assert "measured † host busy" in text  # the table's status cell
    assert f"faster: {times(bf16.speedup_vs_fp32, 3)} fp32's speed ({ratio_span(bf16.speedup_low, bf16.speedup_high, 3)})" in text
    assert "On cpu, bf16 is faster than fp32: " in text and "over 8 interleaved rounds" in text
    assert "other processes used 48 % of one core † host busy" in text  # the sentence


def test_an_older_unpaired_record_is_not_measured_fairly():
    old = PrecisionRow("eager PyTorch", "cpu", "fp16", "cast", latency_median_ms=2.0, speedup_vs_fp32=1.75)
    text = "\n".join(precision_lines([_row("fp32", []), old]))
    assert "fp16: 1.75× fp32's speed, not measured fairly (an older record" in text


def test_ratios_spanning_more_than_a_factor_of_ten_are_not_measured_fairly_and_the_medians_are_the_rounds():
    """Trial 7 (F19): "vs fp32 1.64× (0.01–434)" beside medians of 63.127 and 0.562 ms, 112× apart."""
    from perf.profile.precision_study import _fill
    from perf.profile.timing import Timing

    fp32 = _row("fp32", [63.0, 0.5, 120.0, 0.6, 90.0, 0.55, 70.0, 0.5])
    bf16 = _row("bf16", [0.5, 50.0, 0.6, 0.4, 0.55, 0.5, 40.0, 0.5])
    _speedups([fp32, bf16])
    assert bf16.speedup_verdict == "not measured fairly at this load"
    text = "\n".join(precision_lines([fp32, bf16]))
    row = next(line for line in text.splitlines() if line.split("|")[1:3] and line.split("|")[2].strip() == "bf16")
    assert f"not measured fairly at this load (paired ratios {ratio_span(bf16.speedup_low, bf16.speedup_high, 3)})" in row
    assert times(bf16.speedup_vs_fp32, 3) not in row  # no ratio in the column
    assert "bf16 against fp32: not measured fairly at this load: its paired ratios over 8 interleaved rounds" in text
    assert "not the ratio of the two medians" in text  # the table says which statistic its ratio is
    t = Timing(0.063, 0.11, 0.0, 0.0, 1, 1, 1, 0, 0.0, 0.0, round_median_s=(0.004, 0.002, 0.003))
    row32 = PrecisionRow("eager PyTorch", "cpu", "fp32", "cast")
    _fill(row32, t, 4)  # the row's median and samples/s from the same per-round times the ratios pair
    assert (row32.latency_median_ms, row32.throughput_samples_per_s, row32.rounds_ms) == (3.0, 1333.333, [4.0, 2.0, 3.0])
