"""Trial 27, T27-1: a uint8 image input whose spec gives no value_range was verified, checked and
measured with pixels 0..100 (one default, ``DEFAULT_INT_RANGE``, for every integer dtype). The default
is now the dtype's: uint8 and int8 their whole range, wider integers (token ids, indices) 0..100, one
rule (:func:`builders.model.range_source.default_range`) read by every draw, and the words name it."""

from __future__ import annotations

import numpy as np
import pytest

from builders.build_options import BuildOptions
from builders.model.range_source import default_range, input_range
from builders.model.spec import ModelSpec
from builders.model.value_ranges import DEFAULT_INT_RANGE
from builders.verify.value_sources import input_ranges, range_lines
from clients.inputs import ModelSignature, generate_inputs, plan_inputs
from clients.request_ranges import request_range


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        ("uint8", (0, 255)),
        ("int8", (-128, 127)),
        ("int16", DEFAULT_INT_RANGE),
        ("int32", DEFAULT_INT_RANGE),
        ("int64", DEFAULT_INT_RANGE),
    ],
)
def test_the_default_range_is_the_dtypes(dtype: str, expected: tuple[int, int]) -> None:
    assert default_range(dtype) == expected
    r = input_range(dtype)
    assert r is not None and r.default and tuple(r.value_range) == expected
    assert input_range("bool") is None and input_range("float32") is None


def test_a_uint8_image_is_verified_with_every_pixel_value_and_the_summary_says_so() -> None:
    spec = ModelSpec.from_flags(["image:uint8:3,8,8", "ids:int64:4"], ["y"])
    draws = spec.inputs[0].draw((64, 3, 8, 8), np.random.default_rng(0))
    assert draws.dtype == np.uint8 and draws.max() > 200 and draws.min() < 50  # the old default never passed 100
    ranges = input_ranges(spec, BuildOptions("x", spec=spec).spec_source("factory"))
    assert tuple(ranges["image"].value_range) == (0, 255) and tuple(ranges["ids"].value_range) == DEFAULT_INT_RANGE
    lines = "\n".join(range_lines(ranges, spec))
    assert "'image': no value_range given: verified with values 0..255 (the default range for uint8: its whole range)" in lines
    assert "'ids': no value_range given: verified with values 0..100 (the default range for int64, safe for token ids" in lines


def test_clients_and_perf_draw_a_served_uint8_input_without_a_build_from_its_whole_range() -> None:
    config = {
        "name": "m",
        "max_batch_size": 4,
        "input": [{"name": "image", "data_type": "TYPE_UINT8", "dims": [3, 8, 8]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [4]}],
    }
    (image,) = plan_inputs(ModelSignature.from_config(config), 4)
    assert image.value_range == (0, 255)
    assert "integers uniform in [0, 255] (no value range recorded: the default range for uint8: its whole range" in image.values
    sent = generate_inputs(ModelSignature.from_config(config), 4)["image"]
    assert sent.max() > 200
    decided, at = request_range("image", "uint8", "TYPE_UINT8", None, {})  # perf_analyzer's input data reads this
    assert decided.default and at == (0, 255)
