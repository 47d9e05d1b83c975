"""Served levels are compared with in-process points at the input size they were sent at (issue 26, F23:
the baseline timed the reference inputs only, time=8000, and a run at time=1000 and 16000 had no ratio, or
one at another size). A mixed range (its requests of many sizes, an in-process call of one) has none, said
by one rule (:func:`perf.analysis.efficiency.sizes_apart`) for the sweep, the baseline and the report."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.efficiency import efficiency_rows, other_shapes, sent_sizes, sizes_apart
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineSize, BaselineTarget
from perf.report.sections.efficiency import conclusion

KEY = BaselineKey(model="kws", format="onnx", precision="fp32", device="cpu", threads=1)
#: Per-call time (ms) of the in-process points at each size: a longer input takes longer.
CALL_MS = {"time=1000": 1.0, "time=8000": 8.0, "time=16000": 16.0}


def _run(shapes: list[str | None], timed: list[str], reference: str | None = "time=8000"):
    levels = [level_result(1, 500.0, 4.0, batch_size=1, shape=sh, avg_server_batch_size=1.0) for sh in shapes]
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {})
    points = [BaselinePoint(KEY, 1, s, latency_p50_ms=CALL_MS[s], throughput_infer_per_s=1e3 / CALL_MS[s]) for s in timed]
    sizes = [BaselineSize(s, [1]) for s in timed]
    target = BaselineTarget("v", KEY, 1, [1], None, reference, sizes)
    return run_result([variant_result("v", levels)], baseline=BaselineResult("now", settings, [target], points))


def test_each_level_is_compared_at_the_size_it_was_sent_at() -> None:
    run = _run(["time=1000", "time=16000"], ["time=1000", "time=16000"])
    assert sizes_apart(sent_sizes(run)) is None
    rows = efficiency_rows(run)
    assert [(r.in_process.shape, r.in_process.latency_ms) for r in rows if r.in_process] == [
        ("time=1000", CALL_MS["time=1000"]),
        ("time=16000", CALL_MS["time=16000"]),
    ]
    assert rows[0].in_process is not None and rows[0].in_process.how_text == "measured at batch 1, at time=1000"
    assert not conclusion(run, rows)[0].startswith("No ratio")


def test_a_level_not_swept_is_compared_at_the_reference_size() -> None:
    run = _run([None], ["time=8000"])
    (row,) = efficiency_rows(run)
    assert row.in_process is not None and (row.in_process.shape, row.in_process.latency_ms) == ("time=8000", CALL_MS["time=8000"])


def test_a_size_the_baseline_did_not_time_is_named_not_compared_at_another() -> None:
    """An older record timed the reference inputs only: a level at time=1000 is left out, never compared with time=8000."""
    run = _run(["time=1000", None], ["time=8000"])
    assert [r.in_process.shape for r in efficiency_rows(run) if r.in_process] == ["time=8000"]
    assert other_shapes(run) == ["v at time=1000"]


def test_only_a_run_of_mixed_ranges_has_no_size_to_compare() -> None:
    run = _run(["time=1000..16000"], [])
    why = sizes_apart(sent_sizes(run))
    assert why == (
        "every client workload is a mixed range (time=1000..16000 (mixed)): each request holds one of many drawn sizes, "
        "and an in-process call runs one, so no level has an in-process point to compare with"
    )
    (line,) = conclusion(run, efficiency_rows(run))
    assert line.startswith(f"No ratio to give: {why} (sweep a fixed size too") and "batch it formed" not in line
    assert other_shapes(run) == ["v at time=1000..16000 (mixed)"]
    assert sizes_apart({"v": ["time=1000..16000", "time=8000"]}) is None  # a fixed size beside it
    assert sizes_apart({"v": ["time=1000..16000"], "w": [None]}) is None  # another variant not swept
    assert sizes_apart({"v": []}) is None  # nothing sent: nothing said
