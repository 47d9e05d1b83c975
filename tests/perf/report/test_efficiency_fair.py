"""Serving efficiency from fair numbers only (issue 24 items 3 and 4): a served call faster than the
same call in-process is flagged, never an efficiency above 1; a host-busy baseline point carries
its mark into the table, the plot and the sentence; an overhead inside the noise is not
significant. Hand-made records, plots read back from the matplotlib artists."""

from __future__ import annotations

from pathlib import Path

from perf.analysis.efficiency import SERVED_FASTER, THROUGHPUT_ABOVE, efficiency_rows, served_faster
from perf.plots.efficiency import RATIO_TITLE, TIME_TITLE, no_ratio_words, write_plot
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.report.sections.efficiency import efficiency_section

KEY = BaselineKey("mlp", "onnx", "fp32", "cpu", 2)
VARIANT = "mlp_onnx_cpu1_db500_mbs8"


def _point(batch: int, ms: float, rounds: list[float] | None = None, busy: float | None = None) -> BaselinePoint:
    p = BaselinePoint(KEY, batch, latency_p50_ms=ms, latency_median_ms=ms, throughput_infer_per_s=batch / ms * 1e3)
    p.rounds_ms = rounds or [ms] * 8
    p.host_busy_pct, p.host_busy = (busy, busy > 10.0) if busy is not None else (2.0, False)
    return p


def _level(c: int, thr: float, infer_us: float, spread: float | None = None) -> LevelResult:
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


def _run(levels: list[LevelResult], points: list[BaselinePoint]) -> RunResult:
    run = RunResult("r", "now", environment={"cpu_count": 2})  # type: ignore[typeddict-item]
    run.variants.append(VariantResult(VARIANT, status="ok", levels=levels))
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    run.baseline = BaselineResult("now", settings, [BaselineTarget(VARIANT, KEY, 1, [1], "python")], points)
    return run


def test_served_faster_than_in_process_is_flagged_never_an_efficiency_above_1(tmp_path: Path):
    # issue 24: "served ÷ in-process 24.14×" and "serving overhead −2,568 %"
    run = _run([_level(1, 400.0, 1000.0), _level(4, 2414.0, 37.5)], [_point(1, 10.0)])
    rows = efficiency_rows(run)
    c1, c4 = rows
    assert round(c1.ratio, 2) == 4.0 and c1.overhead_us < 0  # 400 vs 100 infer/s; compute 1 ms < 10 ms in-process
    assert round(c4.ratio, 2) == 24.14 and round(c4.overhead_pct) == -26567
    assert all(r.served_faster and r.note == THROUGHPUT_ABOVE in SERVED_FASTER and not r.evidence for r in rows)
    # one instance above its own in-process throughput is faster too; two instances may reach 2x
    assert served_faster(1.3, 50.0, 1) and not served_faster(1.3, 50.0, 2) and not served_faster(0.9, 50.0, 1)
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    assert "24.14×" not in text and "4.00×" not in text
    assert (
        "served throughput above what its instances can give in-process (a ratio above its instance count): "
        "not evidence; measured under different load" in text
    )
    drawn = write_plot(rows, tmp_path / "e.png")
    assert VARIANT not in drawn[RATIO_TITLE]  # nothing drawn above 1
    # every level left out: the panel says so in words (trial 21, T21-3), no legend note beside an empty frame
    words = no_ratio_words(2, 2, "served throughput above what its instances can give in-process")
    assert list(drawn[RATIO_TITLE]) == [words] and "all 2 levels with an in-process point" in words
    assert any("negative overhead" in k for k in drawn[TIME_TITLE])


def test_a_host_busy_baseline_point_is_flagged_in_table_plot_and_sentence(tmp_path: Path):
    run = _run([_level(1, 50.0, 12_000.0), _level(4, 80.0, 12_500.0)], [_point(1, 10.0, busy=64.0)])
    rows = efficiency_rows(run)
    assert all(r.note and r.note.startswith("not measured fairly: the in-process run") for r in rows)
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    assert "0.50× † host busy" in text and "0.80× † host busy" in text  # the ratios keep their numbers, marked
    assert "† host busy (64 % of one core)" in text  # the baseline table's status cell
    assert "1 of 1 points were measured while other processes used up to 64 % of one core" in text  # the sentence
    assert "other processes used 64 % of one core (host busy)" in text  # the conclusion names it
    drawn = write_plot(rows, tmp_path / "e.png")
    (ring,) = [k for k in drawn[RATIO_TITLE] if k.startswith("not measured fairly † host busy")]
    assert drawn[RATIO_TITLE][ring] == ([1.0, 4.0], [0.5, 0.8])


def test_an_overhead_inside_the_noise_is_not_significant(tmp_path: Path):
    # compute 10.3 ms vs in-process 10.0 ms (rounds 9.5..10.5: 1 ms spread) and 4 % window spread: +0.3 ms is noise
    run = _run([_level(2, 95.0, 10_300.0, spread=4.0)], [_point(1, 10.0, rounds=[9.5, 10.5, 10.0, 9.8, 10.2, 10.1, 9.9, 10.0])])
    (r,) = efficiency_rows(run)
    assert r.overhead_significant is False and r.note is None
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    assert "300 (+3 %); not significant" in text
    # the conclusion's words agree: no "dominates" beside a share the noise covers
    why = next(line for line in text.splitlines() if line.startswith("**Why.**"))
    assert "computation dominates;" not in why and ": it dominates" not in why
    assert "is within the two measurements' noise (not significant)" in why
    # a clear overhead is significant
    run = _run([_level(2, 50.0, 20_000.0, spread=4.0)], [_point(1, 10.0, rounds=[9.5, 10.5, 10.0, 9.8, 10.2, 10.1, 9.9, 10.0])])
    assert efficiency_rows(run)[0].overhead_significant is True


def test_a_host_busy_served_level_marks_its_numbers_in_the_sentence_and_the_table(tmp_path: Path):
    busy = _level(4, 80.0, 12_500.0)
    busy.host_busy, busy.host_busy_pct = True, 121.0
    run = _run([_level(1, 50.0, 12_000.0), busy], [_point(1, 10.0)])
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    assert "is 80.0 infer/s † host busy in batches of" in text  # the numbers: the served level's mark
    assert "compute infer took 12,500 µs † host busy against 10,000 µs for" in text  # the why: only that side
    (row,) = [line for line in text.splitlines() if line.startswith(f"| {VARIANT}") and "|   4 |" in line]
    assert "80.0 † host busy" in row and "100.0 † host busy" not in row  # served marked, in-process quiet
    (quiet,) = [line for line in text.splitlines() if line.startswith(f"| {VARIANT}") and "|   1 |" in line]
    assert "†" not in quiet.split("|")[4]  # the unflagged level's served cell


def test_a_baseline_cut_for_time_says_so_not_no_baseline(tmp_path: Path):
    # the trial: "swept with --no-baseline, or before it existed" for a baseline the time budget skipped
    from perf.records.provenance import stamp
    from perf.records.results import RunResult
    from perf.records.rounds import Cut, RoundsRecord

    run = RunResult("r", "now")
    stamp(run)  # swept by today's code: its saved reason is today's (an older one's: perf.report.sections.said)
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("baseline", "skipped: 42 s of the time budget left, it needs an estimated 45 s")])
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    assert "the time budget: skipped: 42 s of the time budget left" in text and "--no-baseline" not in text


def test_a_skip_that_names_the_baseline_command_is_not_followed_by_it_again(tmp_path: Path) -> None:
    """Re-check 20, NEW-3: the skip's reason names `triton-perf baseline RUN` (trial 20, T20-2) and the section
    added it again in the same sentence."""
    from factories import make_run

    from perf.records.rounds import Cut, RoundsRecord

    run = make_run()
    run.rounds = RoundsRecord(seed=1)
    reason = (
        f"skipped: 4 s of the time budget left; `triton-perf baseline {tmp_path}` measures it afterwards, without a time budget"
    )
    run.rounds.cut(Cut("baseline", reason))
    text = " ".join(efficiency_section(run, tmp_path, tmp_path))
    assert text.count(f"`triton-perf baseline {tmp_path}`") == 1, text
    assert f"`triton-perf report {tmp_path}` then shows this section" in text


def test_a_reason_that_names_its_level_does_not_name_it_again(tmp_path: Path) -> None:
    """Trial 27, T27-16: "not measured fairly: the served level `X` c=1 was measured while ... (host busy): `X` c=1"."""
    busy = _level(4, 80.0, 12_500.0)
    busy.host_busy, busy.host_busy_pct = True, 121.0
    run = _run([_level(1, 50.0, 12_000.0), busy], [_point(1, 10.0)])
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    (line,) = [ln for ln in text.splitlines() if ln.startswith("- not measured fairly: the served level")]
    assert line.count(f"`{VARIANT}` c=4") == 1, line
