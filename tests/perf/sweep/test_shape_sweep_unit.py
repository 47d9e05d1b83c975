"""A dynamic axis swept as a level dimension (``triton-perf sweep --shapes seq=16,64,128``) and the
report saying what sizes the dynamic axes had (issue 19, item 11), without a server."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from factories import level_result, params, run_result, variant_result

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from perf.analysis.stats.pairs import pairs
from perf.analysis.stats.points import run_points
from perf.measure.inputs import describe_dynamic, input_args
from perf.records.levels import LevelResult
from perf.records.results import RunResult, parse_shape_text, shape_text
from perf.records.workloads import series_name, split_by_workload
from perf.report.sections.run import dynamic_axes_lines as _dynamic_axes_lines
from perf.report.sections.tables import level_tables
from perf.search.plan import plan_levels
from perf.sweep.flags import parse_shapes_flag

SPEC = ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 49)),), (), {"seq": (1, 24, 128)})
CONFIG = {"name": "m", "max_batch_size": 8, "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]}]}


def test_the_shapes_flag() -> None:
    assert parse_shapes_flag("seq=16,64,128") == ("seq", (16, 64, 128))
    for bad in ("seq", "seq=", "=4", "seq=0", "seq=a"):
        with pytest.raises(click.BadParameter):
            parse_shapes_flag(bad)
    assert shape_text({"seq": 64, "img": 3}) == "seq=64,img=3" and parse_shape_text("seq=64,img=3") == {"seq": 64, "img": 3}


def test_levels_are_planned_at_every_shape() -> None:
    plan = plan_levels("m", 8, concurrency=(1, 2), batch_sizes=(1,), shapes=("seq=16", "seq=64"))
    assert plan.levels == [
        (1, 1, 0, None, "seq=16"),
        (2, 1, 0, None, "seq=16"),
        (1, 1, 0, None, "seq=64"),
        (2, 1, 0, None, "seq=64"),
    ]


def test_perf_analyzer_gets_the_swept_size(tmp_path: Path) -> None:
    from perf.sweep.run import Sweep

    at64 = Sweep._spec_at(None, SPEC, "seq=64")  # type: ignore[arg-type]
    assert at64.dynamic_axes == {"seq": (1, 64, 128)}
    a = input_args(CONFIG, at64, tmp_path)
    assert a[a.index("--shape") + 1] == "ids:64"
    b = input_args(CONFIG, SPEC, tmp_path)
    assert b[b.index("--shape") + 1] == "ids:24"  # the opt size when not swept
    assert describe_dynamic(CONFIG, SPEC) == "seq=24 (the build's opt size of axis seq)"
    assert describe_dynamic(CONFIG, None, {"ids": (12,)}) == "ids [12] per sample (--shape)"
    assert (
        describe_dynamic(
            {"name": "f", "max_batch_size": 8, "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4]}]}, None
        )
        is None
    )


def test_a_file_of_inputs_is_said_as_its_entries_shapes_not_the_opt_size(tmp_path: Path) -> None:
    """The report's 'Dynamic input dims' line said the build's opt size (or --shape) of a run whose
    --input-data file's entries, each with its own shape, were what was sent (the kind of break test B6)."""
    data = tmp_path / "d.json"
    data.write_text("{}")
    said = describe_dynamic(CONFIG, SPEC, {"ids": (12,)}, data)
    assert said == f"each entry's own shape in --input-data {data} (what is sent)"
    assert describe_dynamic(CONFIG, SPEC, {}, Path("random")) == "seq=24 (the build's opt size of axis seq)"
    assert describe_dynamic(CONFIG, SPEC, {}, tmp_path) == "seq=24 (the build's opt size of axis seq)"  # raw files: sized so


def _lv(c: int, shape: str | None, tput: float) -> LevelResult:
    """A level at one size of ``seq`` whose p99 falls as its throughput grows."""
    return level_result(c, tput, 10.0 / tput * 100, batch_size=1, shape=shape)


def _run() -> RunResult:
    return run_result(
        [
            variant_result(
                params=params(1, model="m", max_batch_size=8),
                levels=[_lv(1, "seq=16", 900), _lv(2, "seq=16", 1000), _lv(1, "seq=128", 200), _lv(2, "seq=128", 210)],
            ),
            variant_result(
                params=params(2, model="m", max_batch_size=8),
                levels=[_lv(1, "seq=16", 800), _lv(2, "seq=16", 1200), _lv(1, "seq=128", 150), _lv(2, "seq=128", 300)],
            ),
        ],
        settings={"sweep_axes": {"seq": [16, 128]}},
    )


def test_a_shape_sweep_is_reported_one_series_per_size() -> None:
    run = split_by_workload(_run())
    names = [v.name for v in run.variants]
    assert names == [
        "m_onnx_cpu1_nodb_mbs8 [seq=16]",
        "m_onnx_cpu1_nodb_mbs8 [seq=128]",
        "m_onnx_cpu2_nodb_mbs8 [seq=16]",
        "m_onnx_cpu2_nodb_mbs8 [seq=128]",
    ]
    assert series_name("v", None) == "v"
    pts = run_points(run)
    assert pts["m_onnx_cpu2_nodb_mbs8 [seq=128]"][1].get("throughput_infer_per_s") == 300  # not a median over shapes
    text = "\n".join(level_tables(pts, set()))
    assert "`m_onnx_cpu1_nodb_mbs8 [seq=16]`" in text and "`m_onnx_cpu1_nodb_mbs8 [seq=128]`" in text
    # more instances is compared at one size at a time, never seq=16 against seq=128
    got = [(p.reference.name, p.changed.name) for p in pairs(run.variants)]
    assert got == [
        ("m_onnx_cpu1_nodb_mbs8 [seq=16]", "m_onnx_cpu2_nodb_mbs8 [seq=16]"),
        ("m_onnx_cpu1_nodb_mbs8 [seq=128]", "m_onnx_cpu2_nodb_mbs8 [seq=128]"),
    ]
    assert any("swept as a level dimension" in line and "seq = 16, 128" in line for line in _dynamic_axes_lines(run))


def test_without_a_sweep_the_report_says_which_size_every_level_used() -> None:
    v = variant_result(
        params=params(1, model="m", max_batch_size=8),
        levels=[_lv(1, None, 900)],
        dynamic_axes="seq=24 (the build's opt size of axis seq)",
    )
    run = run_result([v])
    assert split_by_workload(run) is run
    (line,) = _dynamic_axes_lines(run)
    assert line == (
        "- Dynamic input dims of every variant: seq=24 (the build's opt size of axis seq), at every level; "
        "`--shapes AXIS=SIZE,...` sweeps an axis."
    )
