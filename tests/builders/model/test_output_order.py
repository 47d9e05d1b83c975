"""Trial 18, T18-11: a spec that lists a tuple output's names in another order than forward()
returns them was refused as one output's dtype mismatch, with advice to write the other dtype
(a float32 "mask" that is really the scores). It is now refused as listed out of order, with
the order that fits; a dict output (named by key) in any order is fine."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import ModelSpecError

AXES = {"height": (8, 16, 32), "width": (8, 16, 32)}
IMAGE = (TensorSpec("image", "float32", (3, "height", "width")),)
SCORES = TensorSpec("scores", "float32", (5, "height", "width"))
MASK = TensorSpec("mask", "int64", ("height", "width"))


class Seg(nn.Module):
    def __init__(self, as_dict: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 5, 1)
        self.as_dict = as_dict

    def forward(self, image: torch.Tensor):
        scores = self.conv(image)
        if self.as_dict:
            return {"scores": scores, "mask": scores.argmax(1)}
        return scores, scores.argmax(1)


class TwoFloats(nn.Module):
    def forward(self, image: torch.Tensor):
        return image.mean((2, 3)), image[:, 0]  # [3] and [height, width], both float32


def test_swapped_outputs_are_said_to_be_out_of_order_with_the_order_that_fits():
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(Seg().eval(), ModelSpec(IMAGE, (MASK, SCORES), AXES))
    assert (
        "the spec's outputs look listed out of order: it lists 'mask' (int64 [height, width]), "
        "'scores' (float32 [5, height, width]); forward() returns (float32 [5, height, width], int64 [height, width])"
    ) in e.value.message
    assert "says dtype" not in e.value.message
    assert 'in the order forward() returns them: ["scores", "mask"]' in e.value.hint
    assert '"dtype"' not in e.value.hint


def test_swapped_outputs_of_one_dtype_are_told_apart_by_rank():
    a = TensorSpec("pooled", "float32", (3,))
    b = TensorSpec("plane", "float32", ("height", "width"))
    with pytest.raises(ModelSpecError, match="listed out of order") as e:
        infer_outputs(TwoFloats(), ModelSpec(IMAGE, (b, a), AXES))
    assert '["pooled", "plane"]' in e.value.hint
    assert [t.name for t in infer_outputs(TwoFloats(), ModelSpec(IMAGE, (a, b), AXES)).outputs] == ["pooled", "plane"]


def test_the_right_order_and_a_dict_output_in_any_order_pass():
    right = infer_outputs(Seg().eval(), ModelSpec(IMAGE, (SCORES, MASK), AXES))
    assert [(t.name, t.dtype) for t in right.outputs] == [("scores", "float32"), ("mask", "int64")]
    keyed = infer_outputs(Seg(as_dict=True).eval(), ModelSpec(IMAGE, (MASK, SCORES), AXES))
    assert {t.name: t.dtype for t in keyed.outputs} == {"scores": "float32", "mask": "int64"}


def test_a_dtype_no_order_fits_is_still_that_outputs_dtype_mismatch():
    wrong = TensorSpec("mask", "int32", ("height", "width"))
    with pytest.raises(ModelSpecError, match="spec output 'mask' says dtype int32, the model returns int64"):
        infer_outputs(Seg().eval(), ModelSpec(IMAGE, (SCORES, wrong), AXES))
