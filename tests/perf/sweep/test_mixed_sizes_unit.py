"""A mixed-size workload (``--shapes time=LOW..HIGH``) and the note on a run whose dynamic batching was
measured only at uniform sizes of a dynamic axis (trial 12, F13), without a server."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from factories import level_result, make_run, params, run_result, variant_result

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import FlagError
from perf.analysis.recommendation.uniform_sizes import mixed_no_batch_note, uniform_sizes_note
from perf.cli.summary import summary
from perf.measure.inputs import input_args
from perf.measure.mixed import MIXED_STEPS, mixed_sizes
from perf.records.results import VariantResult, mixed_axes, parse_shape_text
from perf.records.workloads import split_by_workload, workload_text
from perf.report.write import write_report
from perf.sweep.flags import parse_shapes_flag
from perf.sweep.preflight import check_mixed

#: A waveform [time] and a lengths [1] input, as trial 12's keyword-spotting model.
SPEC = ModelSpec(
    (TensorSpec("waveform", "float32", ("time",)), TensorSpec("lengths", "int64", (1,), (1000, 16000))),
    (),
    {"time": (1000, 8000, 16000)},
)
CONFIG = {
    "name": "kws",
    "max_batch_size": 8,
    "input": [
        {"name": "waveform", "data_type": "TYPE_FP32", "dims": [-1]},
        {"name": "lengths", "data_type": "TYPE_INT64", "dims": [1]},
    ],
}


def test_a_range_in_the_shapes_flag_is_one_mixed_workload() -> None:
    assert parse_shapes_flag("time=1000..16000") == ("time", ("1000..16000",))
    assert parse_shapes_flag("time=16000,1000..16000") == ("time", (16000, "1000..16000"))
    for bad in ("time=1000..", "time=a..b"):
        with pytest.raises(click.BadParameter, match="LOW..HIGH"):
            parse_shapes_flag(bad)
    assert mixed_axes("time=1000..16000,b=3") == {"time": (1000, 16000)} and parse_shape_text("time=1000..16000,b=3") == {"b": 3}
    assert (
        workload_text("time=1000..16000", 4) == "time=1000..16000 (mixed), b=4"
        and workload_text("time=8000", None) == "time=8000"
    )


@pytest.mark.parametrize(
    "text, said",
    [
        ("time=1600..100", "'1600..100' is reversed: did you mean 100..1600?"),
        ("time=100..100", "'100..100' is a range of one size: give the size, 100, or a wider range"),
        ("time=0..5", "'0..5' starts at 0: sizes are >= 1"),
        ("time=-5", "'-5' is below 1: sizes are >= 1"),
        (
            "time=100,seq=16",
            "names two axes (time and seq): one flag gives the sizes of one axis; "
            "give one flag per axis, e.g. --shapes time=100 --shapes seq=16",
        ),
    ],
)
def test_a_wrong_shapes_item_is_told_what_is_wrong_with_it(text: str, said: str) -> None:
    """Break test B5: a reversed range, a range of one size, a size below 1 and two axes in one flag all
    got the same message, the flag's form."""
    with pytest.raises(click.BadParameter) as e:
        parse_shapes_flag(text)
    assert e.value.message.startswith(f"--shapes {text!r}") and said in e.value.message, e.value.message
    assert "is not AXIS=SIZE" not in e.value.message  # the form alone says nothing of what is wrong


def test_the_mix_spans_its_range_in_distinct_sizes_by_a_fixed_seed() -> None:
    sizes = [d["time"] for d in mixed_sizes({"time": (1000, 16000)})]
    assert len(sizes) == len(set(sizes)) == MIXED_STEPS and sizes == [d["time"] for d in mixed_sizes({"time": (1000, 16000)})]
    width = (16000 - 1000 + 1) / MIXED_STEPS
    assert min(sizes) < 1000 + width and max(sizes) >= 16000 - width  # both ends' stretches drawn
    assert sorted(d["seq"] for d in mixed_sizes({"seq": (3, 5)}, 6)) == [3, 3, 4, 4, 5, 5]  # fewer sizes than entries


def test_perf_analyzer_gets_entries_of_different_sizes_checked_and_valued_as_every_input(tmp_path: Path) -> None:
    args = input_args(CONFIG, SPEC, tmp_path, mixed={"time": (1000, 16000)})
    assert "--shape" not in args  # each entry carries its own shape
    data = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
    shapes = [d["waveform"]["shape"][0] for d in data]
    assert len(set(shapes)) == len(data) == MIXED_STEPS and all(1000 <= s <= 16000 for s in shapes)
    assert all(len(d["waveform"]["content"]) == d["waveform"]["shape"][0] for d in data)
    assert all(1000 <= d["lengths"]["content"][0] <= 16000 for d in data)  # the build's value range
    uniform = input_args(CONFIG, SPEC, tmp_path)
    assert uniform[uniform.index("--shape") + 1] == "waveform:8000"  # one size per level, as before


def test_a_mix_is_refused_at_a_client_batch_above_one_or_with_the_users_file() -> None:
    check_mixed({"time": (1000, 16000)}, (1, 4), None)  # fixed sizes: nothing to refuse
    check_mixed({"time": ("1000..16000",)}, (1,), None)
    with pytest.raises(FlagError, match="client batch size 1 only; --batch-sizes asks for 4") as e:
        check_mixed({"time": ("1000..16000",)}, (1, 4), None)
    assert e.value.flag == "--batch-sizes"
    with pytest.raises(FlagError, match="with --input-data mix.json"):
        check_mixed({"time": ("1000..16000",)}, (1,), Path("mix.json"))


def _kws(db: bool, shapes: list[str | None]) -> VariantResult:
    p = {**params(2, db=db, model="kws"), "name": f"kws_onnx_cpu2_{'db500' if db else 'nodb'}_mbs64"}
    levels = [level_result(c, 100.0 * c, 5.0 * c, batch_size=1, shape=sh) for sh in shapes for c in (1, 2)]
    return variant_result(params=p, levels=levels, axis_ranges={"time": [1000, 8000, 16000]})


def test_a_run_whose_batching_was_measured_at_uniform_sizes_says_so(tmp_path: Path) -> None:
    opt = run_result([_kws(True, [None]), _kws(False, [None])])
    note = uniform_sizes_note(opt)
    assert note is not None and "kws_onnx_cpu2_db500_mbs64" in note and "nodb" not in note
    assert "at one size: time=8000 (the build's opt size)" in note and note.endswith("--shapes time=1000..16000")
    swept = uniform_sizes_note(run_result([_kws(True, ["time=1000", "time=16000"])]))
    assert swept is not None and "time=1000 or 16000 (one workload each)" in swept
    assert uniform_sizes_note(run_result([_kws(True, ["time=16000", "time=1000..16000"])])) is None  # a mix measured
    assert uniform_sizes_note(run_result([_kws(False, [None])])) is None  # no batching variant
    assert uniform_sizes_note(run_result([_kws(True, [None])], settings={"input_data": "mine.json"})) is None
    assert uniform_sizes_note(make_run()) is None  # no dynamic axis
    split = uniform_sizes_note(split_by_workload(run_result([_kws(True, ["time=1000", "time=16000"])])))
    assert split == swept  # a run as the report shows it: its variants named once
    mixed = split_by_workload(run_result([_kws(True, ["time=16000", "time=1000..16000"])]))
    assert "kws_onnx_cpu2_db500_mbs64 [time=1000..16000 (mixed)]" in {v.name for v in mixed.variants}


def test_the_report_says_it_in_its_recommendation(tmp_path: Path) -> None:
    from perf.records import results

    run = make_run()
    run.variants = [_kws(True, [None]), _kws(False, [None])]
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    said = text[text.index("## Recommendation") :]
    assert "**Measured at uniform sizes**: dynamic batching (kws_onnx_cpu2_db500_mbs64) was measured" in said
    assert summary(run).notes[-1] == uniform_sizes_note(run)  # the terminal, below the table


def test_the_uniform_sizes_note_names_the_size_the_sweep_sent() -> None:
    # trial 13, T13-4: a --shape sweep (every request at the given dims) was said measured at the build's opt size
    v = _kws(True, [None])
    v.dynamic_axes = "waveform [4000] (--shape)"  # the sweep's record of what it sent (perf.measure.inputs.describe_dynamic)
    note = uniform_sizes_note(run_result([v]))
    assert note is not None and f"at one size: {v.dynamic_axes};" in note
    assert "opt size" not in note
    swept = _kws(True, ["time=1000", "time=16000"])
    swept.dynamic_axes = "time=4000 (--shape)"  # a level of a swept size: its own; the record names nothing else here
    assert "time=1000 or 16000 (one workload each)" in (uniform_sizes_note(run_result([swept])) or "")


def test_the_console_table_puts_a_workloads_label_under_the_name_so_the_note_keeps_its_width() -> None:
    """Trial 18, T18-12: "segnet_onnx_cpu2_db500_mbs8 [height=32..256,width=32..256 (mixed)]" held the variant
    column at 68 characters, the note column was 9 wide and the pick's row 21 lines tall."""
    import io

    from rich.console import Console

    from perf.cli.summary import summary_table

    run = run_result([_kws(True, ["time=1000..16000"]), _kws(False, ["time=1000..16000"])])
    out = io.StringIO()
    Console(file=out, width=120, force_terminal=False).print(summary_table(run))
    lines = out.getvalue().splitlines()
    assert any(ln.startswith("│ kws_onnx_cpu2_db500_mbs64 ") for ln in lines), out.getvalue()
    assert any(ln.startswith("│ [time=1000..16000 (mixed)]") for ln in lines), out.getvalue()  # the label, its own line
    rows = [i for i, ln in enumerate(lines) if ln.startswith("│ kws_")]
    assert len(rows) == 2 and rows[1] - rows[0] <= 4, out.getvalue()  # a row a few lines tall, not one word a line


def _ranker(db: bool, per_execution: float, shape: str = "num_items=1..200") -> VariantResult:
    p = {**params(2, db=db, model="ranker"), "name": f"ranker_onnx_cpu2_{'db500' if db else 'nodb'}_mbs64"}
    levels = [
        level_result(c, 300.0 * c, 4.0 * c, batch_size=1, shape=shape, avg_server_batch_size=1.0 if c == 1 else per_execution)
        for c in (1, 2, 4)
    ]
    return variant_result(params=p, levels=levels, axis_ranges={"num_items": [1, 50, 200]})


def test_batching_that_formed_no_batch_under_a_mix_is_said_as_the_finding(tmp_path: Path) -> None:
    # trial 19, T19-19: Main effects said batching was "no evidence" (the batcher formed no batch) and nothing said that
    # for clients sending mixed sizes that is what they need to know
    from perf.records import results

    run = make_run()
    run.variants = [_ranker(True, 1.0), _ranker(False, 1.0)]
    note = mixed_no_batch_note(run)
    assert note is not None
    assert note.startswith("dynamic batching (ranker_onnx_cpu2_db500_mbs64) formed no batch under the mixed sizes sent")
    assert "(num_items=1..200): executions held at most 1.00 requests on average at concurrency 2 to 4 (2 levels)" in note
    assert "nodb" not in note and "allow_ragged_batch" in note and "host busy" not in note
    busy = _ranker(True, 1.0)
    busy.levels[1].host_busy = True  # its number reaches the sentence with its flag
    assert "at concurrency 2 to 4 (2 levels) (1 of its 2 measurements host busy);" in (
        mixed_no_batch_note(run_result([busy])) or ""
    )
    assert mixed_no_batch_note(run_result([_ranker(True, 1.6)])) is None  # batches formed at c=2 and 4
    assert mixed_no_batch_note(run_result([_ranker(True, 1.0, shape="num_items=50")])) is None  # one size: not a mix
    assert mixed_no_batch_note(run_result([_ranker(False, 1.0)])) is None  # no batching variant
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    said = text[text.index("## Recommendation") :]
    assert f"**No batch formed under mixed sizes**: {note}" in said
    assert note in summary(run).notes  # the terminal, below the table
