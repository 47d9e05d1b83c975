"""``triton-perf compare`` of two runs of one variant at other input sizes (trial 12, F11): "share no
measured level" with advice to sweep "the same variant names at the same concurrency and batch sizes",
which they had; the input size, the only thing that differed, was not said."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result

from core.errors import PerfError
from perf.analysis.comparison.runs import compare_runs
from perf.records.results import save
from perf.sweep.refused_run import refused_flags_text

OPT = "time=8000 (the build's opt size of axis time)"


def _save(folder: Path, run_id: str, shapes: list[str | None]) -> Path:
    levels = [level_result(1, 500.0, 4.0, batch_size=1, shape=sh) for sh in shapes]
    variant = variant_result("kws_onnx_cpu2_db500_mbs64", levels, dynamic_axes=OPT)
    save(run_result([variant], run_id=run_id, created=run_id, settings={"protocol": "grpc"}), folder / run_id)
    return folder / run_id


def test_runs_at_other_input_sizes_are_refused_naming_the_sizes(tmp_path: Path) -> None:
    opt, swept = _save(tmp_path, "t12a", [None]), _save(tmp_path, "t12b", ["time=1000", "time=16000"])
    with pytest.raises(PerfError) as e:
        compare_runs(opt, swept, refused=refused_flags_text)
    assert e.value.message == (
        "runs t12a and t12b share no measured level: both measured kws_onnx_cpu2_db500_mbs64 at c=1 b=1, but at "
        f"other input sizes (t12a: {OPT}; t12b: time=1000, time=16000)"
    )
    assert "sweep the same input sizes in both runs (the same --shapes" in (e.value.hint or "")
    same = _save(tmp_path, "t12c", ["time=1000"])
    assert (
        "Matched by variant name, input size and (concurrency, batch size)"
        in compare_runs(swept, same, refused=refused_flags_text).read_text()
    )
