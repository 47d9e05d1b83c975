"""Every ``--shape`` a refusal offers is one the same command takes (trial 28, T28-8: ``clients infer --shape
tokens:16,2`` was told ``--shape tokens:2``, which it then refused, outside the build's verified range 8..64): each
suggestion site of clients.shapes, clients.shape_refusals and clients.shape_flags checks its suggestion
(clients.shape_refusals.refused_as) before it offers it, and says why where it does not."""

from __future__ import annotations

import re

import pytest

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients import shape_flags, shape_refusals, shapes, shapes_flag_refusals
from core.errors import ClientError

#: Trial 28's GRU text classifier: tokens [seq] (seq verified at 8..64) and lengths [1], max_batch_size 64.
GRU = ModelSpec(
    inputs=(TensorSpec("tokens", "int64", ("seq",), (0, 1999)), TensorSpec("lengths", "int64", (1,), (1, "seq"))),
    outputs=(),
    dynamic_axes={"seq": (8, 32, 64)},
)
INPUTS = [("tokens", [-1]), ("lengths", [1])]
#: Where a refusal offers a --shape: "did you mean --shape X", a hint opening with it, "e.g. --shape X", "(--shape X)",
#: "as it is sent by default --shape X".
OFFERED = re.compile(
    r"(?:did you mean (?:--shape )?|e\.g\. --shape |\(--shape |by default --shape )([\w.]+:[\d,]+)(?![\d,]*[A-Za-z])"
)  # not a template (series:1,4,N)


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
    except shape_flags.XSeparated as e:
        return shape_refusals.x_separated_refusal(e, "m", INPUTS, mbs, GRU)
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
        (64, "tokens:16x2", "dims are comma-separated, and --shape tokens:16,2 does not fit"),
        (64, "tokens:200x2", "dims are comma-separated, and --shape tokens:200,2 does not fit"),
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
    said = shapes_flag_refusals.shapes_form_refusal("tokens:200", "m", INPUTS, 64, GRU)
    assert said is not None and "did you mean" not in said.message
    assert "--shape tokens:200 sets axis seq to 200, outside the build's verified range 8..64" in said.message
    assert (said.hint or "").startswith("--shapes seq=SIZES: give seq within 8..64")
    taken = shapes_flag_refusals.shapes_form_refusal("tokens:20", "m", INPUTS, 64, GRU)
    assert taken is not None and "did you mean --shapes seq=20" in taken.message


def test_clients_infer_offers_an_x_separated_shape_only_where_it_takes_it(fake_build, monkeypatch) -> None:
    """The model's own answer through clients infer (refuse_shape_flags): ``input_ids:16x200`` of an encoder verified at
    seq 1..128, max_batch_size 8, was offered ``input_ids:16,200`` and, as a batch, ``-b 16 --shape input_ids:200``:
    neither is taken (two dims for one; batch 16 above 8, seq 200 above 128); the dims typed before the extra one are."""
    from builders.config.variants import Variant
    from tests.clients.test_input_findings_unit import ENCODER, _config, _infer, _message, _Sent

    v = Variant("enc", "onnx", max_batch_size=8)
    repo, sent = fake_build(ENCODER, v), _Sent(monkeypatch, _config(ENCODER, v.name, 8))
    res = _infer(v.name, repo, "--shape", "input_ids:16x200")
    said = _message(res)
    assert res.exit_code == 2 and sent.inputs == [], said
    assert "dims are comma-separated, and --shape input_ids:16,200 does not fit" in said
    assert "batch size 16 is outside 1..8" in said and "did you mean --shape input_ids:16?" in said
    assert "did you mean input_ids:16,200" not in said and "(--shape input_ids:200)" not in said


#: Trial 29's tsnet_v2 at max_batch_size 0: series [-1, 4, -1] (the batch axis, 4 channels, time 16..128 in steps of 16).
TSNET = ModelSpec(
    inputs=(TensorSpec("series", "float32", (4, "time")),),
    outputs=(),
    dynamic_axes={"time": (16, 64, 128)},
    multiple_of={"time": 16},
)
SERIES = [("series", [-1, 4, -1])]


def _series_refusal(typed: str) -> ClientError:
    try:
        shape_flags.parse_shapes([typed])
    except shape_flags.AxisForm as e:
        return shape_refusals.axis_form_refusal(e, "m", SERIES, 0, TSNET)
    except shape_flags.XSeparated as e:
        return shape_refusals.x_separated_refusal(e, "m", SERIES, 0, TSNET)
    with pytest.raises(ClientError) as e:
        shapes.resolve("m", SERIES, 0, TSNET, shape_flags.parse_shapes([typed]))
    return e.value


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("H=16", None),  # no such axis: the example was series:N,4,N, refused unless N is 1
        ("series:4,32", "series:1,4,32"),  # as --help says, without the batch axis: time=32 meant, was series:4,4,32
        ("series:4x32", "series:1,4,32"),
        ("series:32", "series:1,4,32"),
        ("time=32", "series:1,4,32"),
        ("series:4,40", None),  # time 40 is off the step: not offered
    ],
)
def test_a_max_batch_size_0_model_is_offered_its_leading_dim_1(typed: str, meant: str | None) -> None:
    """Trial 29, T29-4: every --shape offered for a max_batch_size 0 model is taken, its leading batch dim 1; dims typed
    without it (as for a batching model) are read with it, and no advice says to leave it out."""
    error = _series_refusal(typed)
    offered = _offered(error)
    assert offered, error
    for flag in offered:
        shapes.resolve("m", SERIES, 0, TSNET, shape_flags.parse_shapes([flag]))
    if meant:
        assert f"did you mean --shape {meant}?" in f"{error.message} {error.hint}", error
    assert (
        ",4,N" not in f"{error.hint}".replace("series:1,4,N", "")
        and "without the batch axis" not in f"{error.message} {error.hint}"
    ), error
