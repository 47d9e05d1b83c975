"""A run whose every level was sent at other input sizes than the in-process baseline's reference inputs
(trial 12, F23: a run at time=1000 and 16000, the baseline at time=8000): the report blamed "the batch it
formed" for having no ratio; the reason is the input size."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.efficiency import efficiency_rows, sizes_apart
from perf.records.baseline import BaselineKey, BaselineResult, BaselineSettings, BaselineTarget
from perf.report.sections.efficiency import conclusion

KEY = BaselineKey(model="kws", format="onnx", precision="fp32", device="cpu", threads=1)


def _run(shapes: list[str | None], reference: str | None = "time=8000"):
    levels = [level_result(1, 500.0, 4.0, batch_size=1, shape=sh, avg_server_batch_size=1.0) for sh in shapes]
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {})
    baseline = BaselineResult(
        created="now", settings=settings, targets=[BaselineTarget("v", KEY, 1, [1], None, reference)], points=[]
    )
    return run_result([variant_result("v", levels)], baseline=baseline)


def test_the_missing_ratio_names_the_input_sizes() -> None:
    run = _run(["time=1000", "time=16000"])
    why = sizes_apart(run, {"v": "time=8000"})
    assert why == (
        "the run sent time=1000, time=16000 only, and the in-process baseline times the build's reference inputs at "
        "time=8000, a size no level sent: no level has an in-process point to compare with"
    )
    (line,) = conclusion(run, efficiency_rows(run))
    assert line.startswith(f"No ratio to give: {why} (sweep the build's reference size too") and "batch it formed" not in line
    assert sizes_apart(_run(["time=1000", "time=8000"]), {"v": "time=8000"}) is None  # a level at its size
    assert sizes_apart(_run([None]), {"v": "time=8000"}) is None  # not swept: sent at the reference size
    assert sizes_apart(_run(["time=1000"]), {"v": None}) is None  # no reference size known


def test_a_mixed_range_is_never_at_the_reference_size() -> None:
    """One rule for "sent at the reference size" (perf.analysis.efficiency.at_reference), the sweep's
    up-front check's too (tests/perf/sweep/test_shape_sweep_baseline.py)."""
    assert sizes_apart(_run(["time=1000..16000"]), {"v": "time=8000"}) is not None
    assert sizes_apart(_run(["seq=64,time=8000"]), {"v": "time=8000,seq=64"}) is None  # the axes in another order
