"""Which outputs a ``--shared-memory`` request can size before it is sent (trial 30, F20): an output
whose config dims hold ``-1`` (a conv autoencoder's ``reconstruction [1, -1, -1]``) was always
returned in the response body, and nothing said so. Its size now comes from the build's record of
the output in the inputs' axes; where the record cannot give it, the line says which output came back
over the wire and why."""

from __future__ import annotations

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.shared_memory import output_shapes, placement_words

#: image float32 [batch, 1, H, W] -> reconstruction [batch, 1, H, W], flat [batch, H*W], label int64 [batch, 1].
SPEC = ModelSpec(
    (TensorSpec("image", "float32", (1, "H", "W")),),
    (
        TensorSpec("reconstruction", "float32", (1, "H", "W")),
        TensorSpec("flat", "float32", ("flat_dim0",)),
        TensorSpec("label", "int64", (1,)),
    ),
    {"H": (8, 28, 64), "W": (8, 28, 64)},
)
CONFIG = [("reconstruction", (1, -1, -1), "float32"), ("flat", (-1,), "float32"), ("label", (1,), "int64")]


def test_an_output_that_follows_the_inputs_axes_is_sized_from_the_request_and_one_that_follows_none_is_said():
    shapes = output_shapes(CONFIG, True, SPEC, {"image": (4, 1, 16, 24)})
    assert shapes["reconstruction"] == (4, 1, 16, 24)  # the old code sent it over the wire, saying nothing
    assert shapes["label"] == (4, 1)
    assert shapes["flat"] == "its dims [batch, flat_dim0] name flat_dim0: no single input axis (the build's record)"
    line = placement_words(["image"], shapes)
    assert line == (
        "shared memory: image, reconstruction, label; over the wire, its size not known before the request: "
        "flat (its dims [batch, flat_dim0] name flat_dim0: no single input axis (the build's record))"
    )


def test_without_a_build_record_an_open_output_comes_back_over_the_wire_and_says_how_to_size_it():
    shapes = output_shapes(CONFIG, True, None, {"image": (2, 1, 16, 16)})
    assert shapes["label"] == (2, 1)
    assert shapes["reconstruction"] == ("its config leaves [2, 1, -1, -1] open and no build record of the variant gives it (-r)")


def test_a_model_that_does_not_batch_puts_the_batch_axis_where_the_build_recorded_it():
    spec = ModelSpec((TensorSpec("x", "float32", ("T",)),), (TensorSpec("y", "float32", ("T", 3)),), {"T": (1, 4, 9)})
    shapes = output_shapes([("y", (-1, -1, 3), "float32")], False, spec, {"x": (2, 7)})
    assert shapes == {"y": (2, 7, 3)}


def test_a_record_that_is_not_the_served_config_and_a_bytes_output_are_not_sized():
    spec = ModelSpec((TensorSpec("x", "float32", ("T",)),), (TensorSpec("y", "float32", ("T",)),), {"T": (1, 4, 9)})
    assert output_shapes([("y", (-1, 5), "float32")], True, spec, {"x": (1, 4)}) == {
        "y": "the build's record [batch, T] is not its config's [1, -1, 5]"
    }
    assert output_shapes([("y", (2,), "object")], True, spec, {"x": (1, 4)}) == {
        "y": "a BYTES output's size is that of its values"
    }
