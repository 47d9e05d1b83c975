"""Every ``--shape`` a refusal offers is one the same command takes (trial 28, T28-8: ``clients infer --shape
tokens:16,2`` was told ``--shape tokens:2``, which it then refused, outside the build's verified range 8..64): each
suggestion site of clients.shapes, clients.shape_refusals and clients.shape_flags checks its suggestion
(clients.shape_refusals.refused_as) before it offers it, and says why where it does not."""

from __future__ import annotations

import re

import pytest

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients import shape_flags, shape_refusals, shapes
from core.errors import ClientError

#: Trial 28's GRU text classifier: tokens [seq] (seq verified at 8..64) and lengths [1], max_batch_size 64.
GRU = ModelSpec(
    inputs=(TensorSpec("tokens", "int64", ("seq",), (0, 1999)), TensorSpec("lengths", "int64", (1,), (1, "seq"))),
    outputs=(),
    dynamic_axes={"seq": (8, 32, 64)},
)
INPUTS = [("tokens", [-1]), ("lengths", [1])]
#: Where a refusal offers a --shape: "did you mean --shape X", a hint opening with it, "e.g. --shape X", "(--shape X)".
OFFERED = re.compile(r"(?:did you mean (?:--shape )?|e\.g\. --shape |\(--shape )([\w.]+:[\d,]+)")


def _offered(error: ClientError) -> list[str]:
    hint = error.hint or ""
    opening = re.findall(r"^--shape ([\w.]+:[\d,]+)[ ;)]", hint)  # a hint opening with the flag to give (not N)
    return [m.rstrip(",") for text in (error.message, hint) for m in OFFERED.findall(text)] + opening


def _refusal(mbs: int, typed: str) -> ClientError:
    try:
        shape_flags.parse_shapes([typed])
    except shape_flags.AxisForm as e:
        return shape_refusals.axis_form_refusal(e, "m", INPUTS, mbs, GRU)
    except shape_flags.NotNameDims as e:
        return shape_refusals.name_dims_refusal(e, "m", INPUTS, mbs, GRU)
    with pytest.raises(ClientError) as e:
        shapes.resolve("m", INPUTS, mbs, GRU, shape_flags.parse_shapes([typed]))
    return e.value


@pytest.mark.parametrize(
    "mbs, typed, said",
    [
        (64, "tokens:16,2", "with the first as the batch axis, --shape tokens:2 sets axis seq to 2, outside"),  # T28-8
        (64, "tokens:100,2", "batch size 100 is outside 1..64"),  # neither reading is taken
        (8, "tokens:16,32", "with the first as the batch axis, batch size 16 is outside 1..8"),
        (64, "tokens:16:2", "not colon-separated, and --shape tokens:16,2 does not fit"),
        (64, "seq=200", "and --shape tokens:200 sets axis seq to 200, outside the build's verified range 8..64"),
        (64, "200", "the dims need their input's name, and --shape tokens:200 sets axis seq to 200"),
        (0, "tokens:3,16", None),  # max_batch_size 0 (its config dims below): --shape tokens:1,16
    ],
)
def test_every_shape_a_refusal_offers_is_taken(mbs: int, typed: str, said: str | None) -> None:
    inputs = INPUTS if mbs else [("tokens", [-1, -1]), ("lengths", [-1, 1])]
    if mbs == 0:
        with pytest.raises(ClientError) as e:
            shapes.resolve("m", inputs, 0, GRU, shape_flags.parse_shapes([typed]))
        error = e.value
    else:
        error = _refusal(mbs, typed)
    if said:
        assert said in error.message
    offered = _offered(error)
    assert offered or said, error
    for flag in offered:  # each taken by the same rule that refused the typed one
        shapes.resolve("m", inputs, mbs, GRU, shape_flags.parse_shapes([flag]))
    assert "--shape tokens:2 " not in f"{error.hint} " and "did you mean --shape tokens:200" not in error.message


def test_shapes_in_shape_form_says_why_the_sizes_are_refused() -> None:
    said = shape_refusals.shapes_form_refusal("tokens:200", "m", INPUTS, 64, GRU)
    assert said is not None and "did you mean" not in said.message
    assert "--shape tokens:200 sets axis seq to 200, outside the build's verified range 8..64" in said.message
    assert (said.hint or "").startswith("--shapes seq=SIZES: give seq within 8..64")
    taken = shape_refusals.shapes_form_refusal("tokens:20", "m", INPUTS, 64, GRU)
    assert taken is not None and "did you mean --shapes seq=20" in taken.message
