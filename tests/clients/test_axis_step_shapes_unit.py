"""A --shape (or an input file's size) of an axis with a step (trial 24, T24-7) is checked against the step as against
the verified range: one that is not a multiple is refused before anything is sent, naming the axis, the step and
the nearest valid sizes; a multiple within the range is sent."""

from __future__ import annotations

import pytest

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients import shapes
from core.errors import ClientError

SPEC = ModelSpec(
    (TensorSpec("image", "float32", (1, "H", "W")),), (), {"H": (64, 128, 256), "W": (64, 128, 256)}, {"H": 32, "W": 32}
)
INPUTS = [("image", [1, -1, -1])]


def test_a_shape_off_the_step_is_refused_with_the_nearest_valid_sizes() -> None:
    with pytest.raises(ClientError) as e:
        shapes.resolve("unet", INPUTS, 4, SPEC, {"image": (1, 191, 128)})
    assert e.value.message == (
        "unet: --shape image:1,191,128: 191 is not a multiple of 32, the step the build declared for axis H "
        "(its sizes are 64, 96, ..., 256)"
    )
    assert e.value.hint == "give H a multiple of 32 within 64..256: the nearest valid sizes to 191 are 160 and 192"
    assert e.value.flag == "--shape"


def test_an_input_file_off_the_step_is_a_problem_found_not_a_usage_error() -> None:
    with pytest.raises(ClientError, match="input 'image' of x.npz: 100 is not a multiple of 32") as e:
        shapes.check_sizes("unet", INPUTS, 4, SPEC, {"image": (1, 128, 100)}, source="x.npz")
    assert e.value.flag is None


def test_multiples_within_the_range_are_sent_and_the_default_is_opt() -> None:
    r = shapes.resolve("unet", INPUTS, 4, SPEC, {"image": (1, 96, 224)})
    assert r["image"].dims == (1, 96, 224)
    assert shapes.resolve("unet", INPUTS, 4, SPEC)["image"].dims == (1, 128, 128)


def test_outside_the_range_the_wider_range_advice_keeps_the_step() -> None:
    with pytest.raises(ClientError, match="outside the build's verified range 64..256") as e:
        shapes.resolve("unet", INPUTS, 4, SPEC, {"image": (1, 300, 128)})
    assert "--dynamic-axis H=64,128,320/32" in (e.value.hint or "")
