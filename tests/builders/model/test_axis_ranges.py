"""A ``value_range`` bound that names a dynamic axis (trial 12, F4): ``lengths`` of at most the
waveform's ``time`` in the same request, in the spec file, the ``--input`` flag and every
generator builders has (verification draws, reference data, Triton warmup data)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tritonclient.grpc.model_config_pb2 as mc

from builders.config.pbtxt import make_config
from builders.config.variants import Variant
from builders.config.warmup import warmup_domain_problems, warmup_files
from builders.model.spec import ModelSpec
from builders.model.spec_flags import input_flag
from builders.model.value_ranges import RANGE_FORMS, at_sizes, range_json
from builders.verify.input_draws import DRAWS, describe_draws, draw_inputs
from core.errors import ModelSpecError

AXES = {"time": [1000, 8000, 16000]}
SPEC_JSON = {
    "inputs": [
        {"name": "waveform", "dtype": "float32", "shape": ["time"]},
        {"name": "lengths", "dtype": "int64", "shape": [1], "value_range": [1, "time"]},
    ],
    "outputs": [{"name": "logits", "dtype": "float32", "shape": [12]}],
    "dynamic_axes": AXES,
}
SPEC = ModelSpec.from_json(SPEC_JSON)


def test_the_spec_file_and_the_flag_give_the_same_range_and_it_round_trips(tmp_path) -> None:
    flags = ModelSpec.from_flags(["waveform:float32:time", "lengths:int64:1:1..time"], ["logits"], ["time=1000,8000,16000"])
    assert flags.inputs == SPEC.inputs and flags.inputs[1].value_range == (1, "time")
    assert input_flag(SPEC.inputs[1]) == "lengths:int64:1:1..time"  # the flag builders spec and the hints print
    assert range_json(SPEC.inputs[1].value_range) == '[1, "time"]'
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC.to_json()))  # the manifest's and `builders spec --build`'s form
    assert ModelSpec.from_file(path) == SPEC and SPEC.to_json()["inputs"][1]["value_range"] == [1, "time"]


TIME_MIN, TIME_OPT, TIME_MAX = AXES["time"]


@pytest.mark.parametrize(
    "value_range, said, fix",
    [
        ([1, "tme"], "names 'tme', which is not one of the dynamic axes time (did you mean 'time'?)", '[1, "time"]'),
        (  # break test B2: the advice repeated the form instead of naming the two ways out
            [TIME_MAX, "time"],
            f"is [{TIME_MAX}, {TIME_MIN}] at time={TIME_MIN} (min): low {TIME_MAX} > high {TIME_MIN}",
            f"lower the low bound to <= {TIME_MIN} (time's min) or raise time's min to >= {TIME_MAX} "
            f"(--dynamic-axis time={TIME_MAX},{TIME_MAX},{TIME_MAX})",
        ),
        (
            ["time", TIME_OPT],
            f"is [{TIME_MAX}, {TIME_OPT}] at time={TIME_MAX} (max): low {TIME_MAX} > high {TIME_OPT}",
            f"raise the high bound to >= {TIME_MAX} (time's max) or lower time's max to <= {TIME_OPT} "
            f"(--dynamic-axis time={TIME_MIN},{TIME_OPT},{TIME_OPT})",
        ),
    ],
)
def test_a_bound_that_does_not_fit_the_axes_is_one_clear_error(value_range, said, fix) -> None:
    bad = json.loads(json.dumps(SPEC_JSON))
    bad["inputs"][1]["value_range"] = value_range
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json(bad)
    assert said in e.value.message and "lengths" in e.value.message
    assert fix in e.value.hint


def test_an_axis_past_the_dtype_says_so_and_how_to_fix_it() -> None:
    """Break test B1: ``1..time`` in int16 with time's max past int16 was told "low must be <= high"."""
    top = int(np.iinfo("int16").max)
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(
            ["waveform:float32:time", "lengths:int16:1:1..time"], ["logits"], [f"time={TIME_MIN},{TIME_OPT},{top + 1}"]
        )
    assert f"is [1, {top + 1}] at time={top + 1} (max): {top + 1} is past int16's largest value {top}" in e.value.message
    assert "low must be" not in e.value.message
    assert f"lower time's max to {top} (--dynamic-axis time={TIME_MIN},{TIME_OPT},{top})" in e.value.hint
    assert "wider dtype (int32 or int64)" in e.value.hint


@pytest.mark.parametrize(
    "value_range",
    [[1, "time-1"], [1.5, "time"], [1, "time", 3], ["time"], [[0, "time"], [1.5, 2]], [True, "time"]],
)
def test_a_malformed_axis_range_in_a_spec_file_is_one_line_stating_the_rule(value_range) -> None:
    """Break test B13: pydantic's union said one line per member, and blamed the valid ``"time"``."""
    bad = json.loads(json.dumps(SPEC_JSON))
    bad["inputs"][1]["value_range"] = value_range
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json(bad, "spec file s.json")
    lines = e.value.message.splitlines()
    assert lines[1:] == [f"  inputs[1].value_range: expected {RANGE_FORMS}; found {json.dumps(value_range)}"], lines


def test_the_input_flags_range_error_names_the_axis_form() -> None:
    """Break test B16: a bad fourth field was told LOW..HIGH, per position or a domain only."""
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(["waveform:float32:time", "lengths:int64:1:1..time..2"], ["logits"], ["time=1,2,3"])
    assert "LOW..AXIS" in e.value.hint and "1..time" in e.value.hint


@pytest.mark.parametrize("which", ["min", "opt", "max"])
def test_every_verification_draw_keeps_lengths_within_the_time_axis(which: str) -> None:
    sizes = SPEC.axis_sizes(which)
    for draw in DRAWS:
        x = draw_inputs(SPEC, 16, sizes, draw)
        lengths = x["lengths"]
        assert x["waveform"].shape == (16, sizes["time"])
        assert lengths.min() >= 1 and lengths.max() <= sizes["time"], (draw, which)
    random = draw_inputs(SPEC, 64, sizes, "random")["lengths"]
    assert random.max() > SPEC.axis_sizes("min")["time"] or which == "min"  # the range grows with the axis
    assert (random < sizes["time"]).any()  # padded rows (lengths < time) are verified at every size, min too
    assert describe_draws(SPEC)["random"]["lengths"].startswith("integers uniform in [1, time] (time: ")


def test_reference_and_export_inputs_follow_the_same_rule() -> None:
    for batch, sizes in ((4, SPEC.export_axis_sizes()), (8, SPEC.axis_sizes("min"))):
        x = SPEC.example_inputs(batch, sizes)
        assert x["lengths"].max() <= sizes["time"] and x["lengths"].min() >= 1


def test_warmup_data_is_drawn_at_each_samples_own_time_size() -> None:
    cfg = make_config(Variant("kws", "onnx", max_batch_size=4, dynamic_batching=True, warmup="random"), SPEC, "native")
    files = warmup_files(cfg, SPEC, "random")
    seen = set()
    for sample in cfg.model_warmup:
        time = list(sample.inputs["waveform"].dims)[0]
        name = sample.inputs["lengths"].input_data_file
        values = np.frombuffer(files[name], dtype=np.int64)
        assert 1 <= values.min() and values.max() <= time, (sample.name, time, values)
        seen.add((time, name))
    assert len({t for t, _ in seen}) == 3 and len({n for _, n in seen}) == 3  # one file per time size, not one shared
    zero = make_config(Variant("kws", "onnx", max_batch_size=4, warmup="zero"), SPEC, "native")
    lengths = zero.model_warmup[0].inputs["lengths"]
    assert lengths.input_data_file and np.frombuffer(warmup_files(zero, SPEC, "zero")[lengths.input_data_file], np.int64)[0] == 1
    assert warmup_domain_problems(zero, SPEC) == []  # builders validate's warmup check reads the same rule


def test_zero_within_an_axis_range_is_sent_as_triton_zero_data() -> None:
    spec = ModelSpec.from_flags(["waveform:float32:time", "lengths:int64:1:0..time"], ["logits"], ["time=4,8,16"])
    cfg = make_config(Variant("kws", "onnx", max_batch_size=4, warmup="zero"), spec, "native")
    assert cfg.model_warmup[0].inputs["lengths"].zero_data
    assert cfg.model_warmup[0].inputs["lengths"].data_type == mc.TYPE_INT64


def test_at_sizes_needs_the_requests_sizes() -> None:
    assert at_sizes((1, "time"), {"time": 1000}) == (1, 1000)
    assert at_sizes(((0, 4), (1, "time")), {"time": 9}) == ((0, 4), (1, 9))
    with pytest.raises(ValueError, match="names axes"):
        at_sizes((1, "time"), {})


def test_the_manifest_and_the_build_summary_keep_the_axis_bound() -> None:
    from builders.verify.value_sources import InputRange, input_ranges, range_lines

    ranges = input_ranges(SPEC, "the spec file")
    assert InputRange.model_validate(ranges["lengths"].model_dump(mode="json")).value_range == (1, "time")
    (line,) = range_lines(ranges, SPEC)
    assert "verified with values 1..time (time: the size of that axis in the same request)" in line


@pytest.mark.parametrize(
    "axes, value_range, fix",
    [
        ({"T": [1000, 8000, 16000]}, [1, "time"], '"value_range": [1, "T"] (--input NAME:DTYPE:SHAPE:1..T)'),
        ({"time": [1000, 8000, 16000], "n": [1, 2, 4]}, [1, "tme"], '"value_range": [1, "time"]'),
        ({"H": [8, 16, 32], "W": [8, 16, 32]}, [[0, "x"], [0, "W"]], '"value_range": [[0, "H"], [0, "W"]]'),
    ],
)
def test_a_bound_naming_no_axis_is_advised_the_spec_s_own_axis_not_the_typo(axes, value_range, fix) -> None:
    """Trial 25, T25-14: ``[1, "time"]`` beside ``"dynamic_axes": {"T": ...}`` was advised ``e.g. [1, "time"] with
    "dynamic_axes": {"time": ...}``: the typo itself. The advice is this range with the axis the spec has."""
    bad = json.loads(json.dumps(SPEC_JSON))
    bad["dynamic_axes"] = axes
    bad["inputs"][0]["shape"] = list(axes)
    bad["inputs"][1]["shape"] = [2] if isinstance(value_range[0], list) else [1]
    bad["inputs"][1]["value_range"] = value_range
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json(bad)
    assert fix in e.value.hint, e.value.hint
    assert '"time": [1000' not in e.value.hint or "time" in axes
