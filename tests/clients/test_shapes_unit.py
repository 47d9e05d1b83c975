"""The ``--shape NAME:dims`` grammar and the one rule that sizes dynamic dims (clients.shapes),
and request building with wire dtypes from core.dtypes only."""

from __future__ import annotations

import numpy as np
import pytest

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients import shape_flags, shapes
from clients.inputs import infer_input, request_inputs
from core import dtypes
from core.errors import ClientError

SPEC = ModelSpec(
    inputs=(
        TensorSpec("ids", "int64", ("seq",), (0, 9)),
        TensorSpec("mask", "int64", ("seq",), (0, 1)),
        TensorSpec("img", "float32", (3, "h", "w")),
        TensorSpec("scale", "float32", (4,)),
    ),
    outputs=(),
    dynamic_axes={"seq": (1, 16, 64), "h": (8, 32, 64), "w": (8, 48, 96)},
)
INPUTS = [("ids", [-1]), ("mask", [-1]), ("img", [3, -1, -1]), ("scale", [4])]


def test_the_grammar() -> None:
    assert shape_flags.parse_shape("input_ids:1,128") == ("input_ids", (1, 128))
    assert shape_flags.parse_shape("ns:x:4") == ("ns:x", (4,))  # the last colon splits
    assert shape_flags.parse_shape("x: 4 , 5") == ("x", (4, 5))
    for bad in ("x", "x:", "x:0", "x:-1", "x:a", "x:4,", ":3", "x:4.5"):
        with pytest.raises(ClientError, match="is not NAME:dims|every dim must be an integer >= 1") as e:
            shape_flags.parse_shape(bad)
        # the example is the typed input's own, or names none (s22z, Z-7: "e.g. --shape input_ids:128" of any model)
        assert "input_ids" not in (e.value.hint or "") and (
            "--shape x:" in (e.value.hint or "") or "NAME:D1,D2" in (e.value.hint or "")
        )
    assert shape_flags.parse_shapes(["a:1", "b:2,3"]) == {"a": (1,), "b": (2, 3)}
    # one input named twice, as if each flag gave one dim of a two-dim input: refused, with the one-flag form
    for twice in (["a:32", "a:48"], ["a:32", "b:2", "a:32"]):
        with pytest.raises(ClientError, match=r"--shape a given 2 times \(32, (48|32)\): one flag gives every dim") as e:
            shape_flags.parse_shapes(twice)
        assert "--shape a:32," in (e.value.hint or "")


def test_opt_sizes_fixed_dims_and_reasons() -> None:
    r = shapes.resolve("m", INPUTS, 8, SPEC)
    assert {k: v.dims for k, v in r.items()} == {"ids": (16,), "mask": (16,), "img": (3, 32, 48), "scale": (4,)}
    assert r["img"].describe() == "h=32 (the build's opt size of axis h); w=48 (the build's opt size of axis w)"
    assert r["scale"].describe() == "" and not r["scale"].given and list(r) == ["ids", "mask", "img", "scale"]


def test_a_given_shape_sizes_its_axes_for_every_input_that_shares_them() -> None:
    r = shapes.resolve("m", INPUTS, 8, SPEC, {"mask": (40,), "img": (3, 8, 96)})
    assert r["ids"].dims == (40,) and r["mask"].dims == (40,) and r["img"].dims == (3, 8, 96)
    assert r["ids"].describe() == "seq=40 (as --shape mask:40 gives it)" and r["mask"].describe() == "seq=40 (--shape)"
    assert r["mask"].given and not r["ids"].given
    with pytest.raises(ClientError, match=r"--shape ids:40 and --shape mask:41 give axis seq two sizes \(40 and 41\)"):
        shapes.resolve("m", INPUTS, 8, SPEC, {"ids": (40,), "mask": (41,)})


@pytest.mark.parametrize(
    "given, said, size, flag",
    [
        ({"ids": (65,)}, "sets axis seq to 65, outside the build's verified range 1..64", 65, "seq=1,16,65"),
        # below min: the left end moves (trial 9, F11: the hint repeated the range it had, h=8,32,64)
        ({"img": (3, 7, 48)}, "sets axis h to 7, outside the build's verified range 8..64", 7, "h=7,32,64"),
        ({"img": (3, 32, 97)}, "sets axis w to 97, outside the build's verified range 8..96", 97, "w=8,48,97"),
    ],
)
def test_sizes_outside_the_verified_range_are_refused(given: dict, said: str, size: int, flag: str) -> None:
    with pytest.raises(ClientError, match=said) as e:
        shapes.resolve("m", INPUTS, 8, SPEC, given)
    assert f"to serve {size}, rebuild with a wider range: builders build ... --dynamic-axis {flag} " in (e.value.hint or "")
    # an input file's size is told the same (clients.input_files reads through check_sizes)
    with pytest.raises(ClientError, match=said) as e:
        shapes.check_sizes("m", INPUTS, 8, SPEC, given, source="x.npz")
    assert f"--dynamic-axis {flag} " in (e.value.hint or "")


def test_shapes_that_do_not_fit_the_config() -> None:
    with pytest.raises(ClientError, match=r"--shape 'nope' names no input of m; the inputs of m: "):
        shapes.resolve("m", INPUTS, 8, SPEC, {"nope": (1,)})
    with pytest.raises(ClientError, match=r"--shape img:4,32,48 does not fit its config dims \[3, -1, -1\]"):
        shapes.resolve("m", INPUTS, 8, SPEC, {"img": (4, 32, 48)})
    with pytest.raises(ClientError, match=r"--shape ids:8,8 does not fit"):
        shapes.resolve("m", INPUTS, 8, SPEC, {"ids": (8, 8)})


def test_colon_separated_dims_are_told_the_comma_form() -> None:
    # trial 13, T13-1: `--shape image:3:300:300` was "'image:3:300' names no input": the name was right, the separator not
    for flag, meant in (("img:3:32:48", "img:3,32,48"), ("img:3:32,48", "img:3,32,48")):
        given = shape_flags.parse_shapes([flag])
        with pytest.raises(
            ClientError, match=f"--shape '{flag}': dims are comma-separated, not colon-separated: did you mean {meant}"
        ) as e:
            shapes.resolve("m", INPUTS, 8, SPEC, given)
        assert f"--shape {meant} " in (e.value.hint or "")
    # a comma form the same command refuses is not offered: why it is refused, and that refusal's advice (T28-8)
    with pytest.raises(
        ClientError, match="'ids:8:8': dims are comma-separated, not colon-separated, and --shape ids:8,8 does not fit"
    ) as e:
        shapes.resolve("m", INPUTS, 8, SPEC, shape_flags.parse_shapes(["ids:8:8"]))
    assert "did you mean" not in e.value.message and "(--shape ids:8) and the batch size goes to" in (e.value.hint or "")
    # a name that merely starts like an input, or with words after the colon, is still an unknown name
    for flag in ("imgs:3:32", "img:x:32"):
        with pytest.raises(ClientError, match="names no input of m"):
            shapes.resolve("m", INPUTS, 8, SPEC, shape_flags.parse_shapes([flag]))


def test_without_a_spec_every_dynamic_dim_needs_a_shape() -> None:
    with pytest.raises(ClientError, match=r"input 'img' dims\[1\] is dynamic \(-1 in config.pbtxt dims \[3, -1, -1\]\)") as e:
        shapes.resolve("m", [("img", [3, -1, -1])], 8, None)
    assert "no toolkit build manifest" in e.value.message and "--shape img:3,N,N" in (e.value.hint or "")
    r = shapes.resolve("m", [("img", [3, -1, -1])], 8, None, {"img": (3, 5, 1000)})  # no range to check against
    assert r["img"].dims == (3, 5, 1000) and r["img"].describe() == "axis 1=5 (--shape); axis 2=1000 (--shape)"


def test_a_spec_that_does_not_describe_an_input_leaves_it_to_shape() -> None:
    other = ModelSpec((TensorSpec("ids", "int64", ("seq", 2)),), (), {"seq": (1, 4, 8)})
    with pytest.raises(ClientError, match=r"input 'ids' dims\[0\] is dynamic") as e:  # config rank 1, spec rank 2
        shapes.resolve("m", [("ids", [-1])], 8, other)
    assert "no toolkit build manifest" not in e.value.message
    fixed_in_spec = shapes.resolve("m", [("ids", [-1, -1])], 8, other)  # the spec fixes what the config leaves free
    assert fixed_in_spec["ids"].dims == (4, 2) and "axis 1=2 (the build's spec)" in fixed_in_spec["ids"].describe()


def test_the_batch_axis_of_a_model_that_does_not_batch_is_one_sample() -> None:
    r = shapes.resolve("m", [("ids", [-1, -1]), ("scale", [-1, 4])], 0, SPEC)
    assert r["ids"].dims == (1, 16) and r["scale"].dims == (1, 4)
    assert r["ids"].describe() == "batch=1 (max_batch_size 0: one sample per request); seq=16 (the build's opt size of axis seq)"
    assert shapes.resolve("m", [("ids", [-1, -1]), ("scale", [-1, 4])], 0, SPEC, {"ids": (1, 20)})["ids"].dims == (1, 20)


#: A GRU text classifier's two inputs (trial 28's own model): tokens [seq] and lengths [1], built with max_batch_size 0.
GRU = ModelSpec(
    inputs=(TensorSpec("tokens", "int64", ("seq",), (0, 1999)), TensorSpec("lengths", "int64", (1,), (1, "seq"))),
    outputs=(),
    dynamic_axes={"seq": (8, 32, 64)},
)
GRU_MBS0 = [("tokens", [-1, -1]), ("lengths", [-1, 1])]


@pytest.mark.parametrize(
    "spec, inputs, given, meant",
    [
        # trial 28, T28-15: tokens was sent at [3, 16] and lengths at [1, 1]: an ONNX Runtime GRU error from the server
        (GRU, GRU_MBS0, {"tokens": (3, 16)}, "tokens:1,16"),
        (GRU, GRU_MBS0, {"lengths": (2, 1)}, "lengths:1,1"),
        # another model: an image beside a fixed-size input, both with the leading batch axis of max_batch_size 0
        (SPEC, [("img", [-1, 3, -1, -1]), ("scale", [-1, 4])], {"img": (4, 3, 32, 48)}, "img:1,3,32,48"),
    ],
)
def test_the_leading_batch_dim_of_a_model_that_does_not_batch_is_the_verified_one(spec, inputs, given, meant) -> None:
    """Every input of one request shares the batch axis: a max_batch_size 0 model's build verified it at batch 1 only, so
    a --shape that sets it to another size is refused before anything is sent (clients infer, the sweep and coldstart
    size inputs through check_sizes), naming the --shape to give, which is itself taken."""
    ((name, dims),) = given.items()
    with pytest.raises(ClientError, match=f"sets the leading batch dim to {dims[0]}, but m does not batch") as e:
        shapes.resolve("m", inputs, 0, spec, given)
    assert e.value.flag == "--shape" and (e.value.hint or "").startswith(f"--shape {meant} (one sample per request")
    assert f"max_batch_size >= {dims[0]}" in (e.value.hint or "")
    taken = shapes.resolve("m", inputs, 0, spec, shape_flags.parse_shapes([meant]))
    assert len({r.dims[0] for r in taken.values()}) == 1 and taken[name].dims[0] == 1  # one batch size for all
    with pytest.raises(ClientError, match=f"input '{name}' of in.npz sets the leading batch dim to {dims[0]}"):
        shapes.check_sizes("m", inputs, 0, spec, given, "in.npz")  # an input file's rows: the same rule


def test_batch_sizes() -> None:
    shapes.check_batch_size("m", 8, 8)
    shapes.check_batch_size("m", 0, 1)
    with pytest.raises(ClientError, match=r"m: batch size 9 is outside 1..8 \(max_batch_size\)"):
        shapes.check_batch_size("m", 8, 9)
    with pytest.raises(ClientError, match=r"m does not batch \(max_batch_size 0\): batch size 2 cannot be sent") as e:
        shapes.check_batch_size("m", 0, 2)
    assert "perf_analyzer refuses -b above 1" in (e.value.hint or "")


def test_sizes_read_from_a_file_are_checked_where_their_rank_fits() -> None:
    bound = shapes.check_sizes("m", INPUTS, 8, SPEC, {"ids": (10,), "mask": (10,), "img": (3, 9, 9)}, "in.json")
    assert bound == {
        "seq": (10, "input 'ids' of in.json"),
        "h": (9, "input 'img' of in.json"),
        "w": (9, "input 'img' of in.json"),
    }
    with pytest.raises(ClientError, match=r"input 'ids' of in.json and input 'mask' of in.json give axis seq two sizes"):
        shapes.check_sizes("m", INPUTS, 8, SPEC, {"ids": (10,), "mask": (11,)}, "in.json")
    assert shapes.check_sizes("m", INPUTS, 8, SPEC, {"ids": (10, 2), "extra": (1,)}, "in.json") == {}  # left to validate_inputs


class _Input:
    def __init__(self, name: str, shape: list[int], datatype: str):
        self.name, self.shape, self.datatype, self.data = name, shape, datatype, None

    def set_data_from_numpy(self, arr: np.ndarray) -> None:
        self.data = arr


def test_requests_take_their_wire_dtypes_from_core_dtypes() -> None:
    from tritonclient.utils import np_to_triton_dtype

    module = type("M", (), {"InferInput": _Input})
    for t in dtypes.DATA_TYPES:
        if t.numpy is None:
            continue
        arr = np.zeros((2, 3), dtype=t.to_numpy())
        got = infer_input(module, "x", arr)
        assert (got.name, got.shape, got.datatype) == ("x", [2, 3], t.client)
        assert got.datatype == np_to_triton_dtype(arr.dtype)  # the same word tritonclient would have used
    (sent,) = request_inputs(module, {"s": np.array([b"a", b"bc"], dtype=object)})
    assert sent.datatype == "BYTES" and sent.data is not None
    with pytest.raises(ClientError, match="input 'c': numpy dtype 'complex64' is not supported"):
        infer_input(module, "c", np.zeros(2, np.complex64))


def test_a_zero_or_negative_dim_is_named_as_such() -> None:
    for bad in ("x:0", "x:4,-1"):
        with pytest.raises(ClientError, match="every dim must be an integer >= 1"):
            shape_flags.parse_shape(bad)


def test_one_input_named_by_two_shape_flags_is_a_usage_error_before_any_request() -> None:
    from click.testing import CliRunner

    from clients.cli.main import cli

    res = CliRunner().invoke(cli, ["infer", "m", "--url", "localhost:1", "--shape", "img:32", "--shape", "img:48"])
    assert res.exit_code == 2, res.output
    assert "--shape img given 2 times (32, 48): one flag gives every dim of an input" in res.output
    assert "--shape img:32,48" in res.output and "Traceback" not in res.output


def test_a_shape_with_the_batch_axis_first_is_told_apart_from_the_dims() -> None:
    """Trial 10, F2: ``--shape ids:3x64`` on a one-dim input was told "did you mean ids:3,64?", which
    then failed for its rank with no word of the batch axis; both messages name the batch flag."""
    with pytest.raises(ClientError, match=r"did you mean ids:3,64\?") as e:
        shape_flags.parse_shape("ids:3x64")
    assert "if 3 is the batch size: --shape takes the dims without the batch axis (--shape ids:64)" in (e.value.hint or "")
    assert "clients infer -b 3" in (e.value.hint or "")
    with pytest.raises(ClientError, match=r"ids:3,64 does not fit .*: 2 dims for 1, the first read as the batch axis") as e:
        shapes.resolve("m", INPUTS, 8, SPEC, {"ids": (3, 64)})
    assert "(--shape ids:64)" in (e.value.hint or "") and "-b 3" in (e.value.hint or "")
    # a model that does not batch has no batch axis to take apart: the plain rule
    with pytest.raises(ClientError) as e:
        shapes.resolve("m", [("ids", [-1])], 0, None, {"ids": (3, 64)})
    assert e.value.message.endswith("does not fit its config dims [-1] (-1 = dynamic)") and "-b" not in (e.value.hint or "")
    with pytest.raises(ClientError) as e:  # any rank: the first dim split off
        shape_flags.parse_shape("img:4x3x32x48")
    assert "if 4 is the batch size: --shape takes the dims without the batch axis (--shape img:3,32,48)" in (e.value.hint or "")


def test_a_verified_range_with_a_step_says_its_step() -> None:
    """Trial 27, T27-5 (the kind): a range the build verified is said with its step wherever it is stated."""
    import dataclasses

    stepped = dataclasses.replace(SPEC, dynamic_axes={**SPEC.dynamic_axes, "h": (16, 32, 64)}, multiple_of={"h": 16})
    with pytest.raises(ClientError, match=r"outside the build's verified range 16\.\.64 in steps of 16") as e:
        shapes.resolve("m", INPUTS, 8, stepped, {"img": (3, 80, 48)})
    assert "give h within 16..64 in steps of 16 " in (e.value.hint or "")
