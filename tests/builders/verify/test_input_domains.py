"""Verification draws within each input's valid domain (issue 25, item 7), without exporting:
a spec states a domain, every generated input respects it, the manifest names what each draw
gave each input, and the summary says why a strategy was rejected."""

from __future__ import annotations

import numpy as np
import pytest

from builders.model.builtin import BUILTINS
from builders.model.domains import conform, mask_values
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.verify.explain import rejection_line
from builders.verify.input_draws import DRAWS, describe_draws, draw_inputs
from core.errors import ModelSpecError


def _rows_ok(a: np.ndarray) -> bool:
    """0s and 1s only, a 1 in every row (last axis)."""
    v = a.astype(np.float64)
    return bool(np.isin(v, (0.0, 1.0)).all() and (v.max(axis=-1) == 1.0).all())


def _mask_spec(dtype: str = "int64", shape=("seq",), **kw) -> ModelSpec:
    return ModelSpec(
        (TensorSpec("ids", "int64", ("seq",), (0, 49)), TensorSpec("mask", dtype, shape, domain="mask", **kw)),
        (),
        {"seq": (1, 8, 16)},
    )


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32"])
@pytest.mark.parametrize("seq", [1, 2, 16])
def test_every_draw_of_a_mask_has_a_one_in_every_row(dtype, seq):
    spec = _mask_spec(dtype)
    for batch in (1, 4):
        for draw in DRAWS:
            a = draw_inputs(spec, batch, {"seq": seq}, draw, seed=batch)["mask"]
            assert a.dtype == np.dtype(dtype) and a.shape == (batch, seq)
            assert _rows_ok(a), (draw, a)
        assert _rows_ok(spec.example_inputs(batch, {"seq": seq}, seed=3)["mask"])


def test_the_draws_of_a_mask_cover_both_paddings_and_the_extremes():
    rng = np.random.default_rng(0)
    assert (mask_values((3, 5), "positive", rng) == 1).all()
    assert (mask_values((3, 5), "zeros", rng) == [1, 0, 0, 0, 0]).all()  # the most right padding
    assert (mask_values((3, 5), "negative", rng) == [0, 0, 0, 0, 1]).all()  # the most left padding
    right = mask_values((50, 5), "random", rng)
    assert (np.diff(right, axis=-1) <= 0).all() and len({tuple(r) for r in right}) > 1  # 1s then 0s, varied
    left = mask_values((50, 5), "scaled", rng)
    assert (np.diff(left, axis=-1) >= 0).all()  # 0s then 1s
    assert _rows_ok(mask_values((2, 3, 7), "random", rng))  # rows are the last axis
    assert (mask_values((4,), "negative", rng) == 1).all()  # no per-sample axis: one value per request


def test_without_a_domain_the_old_draws_stay_and_make_all_zero_masks():
    """What went wrong: a [0, 1] integer input's 'negative' draw is all zeros."""
    spec = ModelSpec((TensorSpec("mask", "int64", ("seq",), (0, 1)),), (), {"seq": (1, 8, 16)})
    assert (draw_inputs(spec, 2, {"seq": 8}, "negative")["mask"] == 0).all()
    assert "domain" not in spec.to_json()["inputs"][0]  # an older spec's JSON, and reuse keys, are unchanged


def test_token_ids_stay_in_their_range_in_every_draw():
    spec = _mask_spec()
    for draw in DRAWS:
        ids = draw_inputs(spec, 4, {"seq": 16}, draw)["ids"]
        assert ids.min() >= 0 and ids.max() <= 49


def test_a_domain_from_json_flags_and_examples():
    spec = ModelSpec.from_json(
        {"inputs": [{"name": "m", "dtype": "bool", "shape": ["seq"], "domain": "mask"}], "dynamic_axes": {"seq": [1, 4, 8]}}
    )
    assert spec.inputs[0].domain == "mask" and spec.to_json()["inputs"][0]["domain"] == "mask"
    flags = ModelSpec.from_flags(["input_ids:int64:seq:0..999", "attention_mask:int64:seq:mask"], [], ["seq=1,8,16"])
    assert [t.domain for t in flags.inputs] == [None, "mask"] and flags.inputs[0].value_range == (0, 999)
    padded = np.array([[1, 1, 1, 0], [1, 1, 0, 0]])
    ex = ModelSpec.from_example({"input_ids": np.array([[5, 6, 7, 0], [8, 9, 0, 0]]), "attention_mask": padded})
    assert [(t.name, t.domain, t.value_range) for t in ex.inputs] == [
        ("input_ids", None, ((5, 8), (6, 9), (0, 7), (0, 0))),  # each position's own range: what the example showed
        ("attention_mask", "mask", None),
    ]
    labels = ModelSpec.from_example({"labels_mask": np.array([[0, 0], [1, 0]])})  # a row without a 1: not a padding mask
    assert labels.inputs[0].domain is None


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda: TensorSpec("m", "int64", (4,), domain="padding"), "unknown domain 'padding'"),
        (lambda: TensorSpec("m", "int64", (4,), (0, 5), domain="mask"), r"value_range is \[0, 5\]"),
        (lambda: ModelSpec.from_flags(["m:int64:4:masked"]), "neither a value range nor a domain"),
    ],
)
def test_a_wrong_domain_is_one_clear_error(make, said):
    with pytest.raises(ModelSpecError, match=said):
        make()


def test_the_manifest_names_what_each_draw_gave_each_input():
    draws = describe_draws(BUILTINS["encoder"].spec, sample=True)
    assert set(draws) == {*DRAWS, "sample"}
    assert draws["negative"]["attention_mask"] == "mask: a single 1 per row, at its end (the most left padding)"
    assert draws["negative"]["input_ids"] == "integers uniform in [0, 499] (lower half)"
    assert draws["zeros"]["input_ids"] == "0" and draws["random"]["attention_mask"].startswith("mask: 1s then 0s")
    assert BUILTINS["encoder"].spec.inputs[1].domain == "mask"


def test_the_rejection_line_spells_out_the_draw_and_how_to_declare_a_mask():
    spec = ModelSpec((TensorSpec("mask", "int64", ("seq",), (0, 1)),), (), {"seq": (1, 8, 16)})
    err = "VerificationError: onnx (fp32, dynamo) on CPU output 'y' at batch 1, axes {'seq': 8}, draw 'negative': max relative error 0.263"
    line = rejection_line("onnx", "fp32", "dynamo", "verify", err, describe_draws(spec), spec)
    assert line.startswith("onnx fp32: strategy dynamo rejected (verification failed): VerificationError")
    assert "draw 'negative' gave mask: integers uniform in [0, 0] (lower half)" in line
    assert "--input mask:int64:seq:mask" in line and "\n" not in line
    exported = rejection_line("onnx", "fp32", "dynamo", "export", "ExportError: unsupported op", None, None)
    assert exported == "onnx fp32: strategy dynamo rejected (export failed): ExportError: unsupported op"


def test_generated_requests_respect_the_domain():
    from clients.inputs import ModelSignature, TensorInfo, generate_inputs
    from core import dtypes
    from perf.measure.inputs import tensor_entry

    spec = _mask_spec()
    sig = ModelSignature(
        "m", (TensorInfo("ids", "int64", "TYPE_INT64", (-1,)), TensorInfo("mask", "int64", "TYPE_INT64", (-1,))), (), 8
    )
    for seed in range(5):
        got = generate_inputs(sig, 4, spec, seed=seed, shapes={"ids": (3,), "mask": (3,)})
        assert _rows_ok(got["mask"]) and got["mask"].shape == (4, 3)
    entry = tensor_entry(dtypes.from_name("int64"), [6], np.random.default_rng(0), None, "mask")
    assert _rows_ok(np.array(entry["content"]).reshape(1, 6))
    assert conform(None, np.zeros((2, 3))).sum() == 0  # no domain: unchanged


def test_the_mask_advice_and_the_mask_domain_read_a_per_position_range_by_one_rule():
    # value_range may be one [low, high] per position of the last axis (builders.model.value_ranges):
    # [0, 1] at every position is a 0/1 input like [0, 1]; one 0/1 column among vocabularies is not
    flags = TensorSpec("flags", "int64", (3,), ((0, 1), (0, 1), (0, 1)))
    cats = TensorSpec("cats", "int64", (3,), ((0, 1), (0, 4), (0, 9)))
    err = "VerificationError: onnx (fp32, dynamo) on CPU output 'y' at batch 1, draw 'negative': max relative error 0.263"
    line = rejection_line("onnx", "fp32", "dynamo", "verify", err, None, ModelSpec((flags, cats), ()))
    assert "if no request sends a row of 0s in flags, declare it a mask" in line and "--input flags:int64:3:mask" in line
    assert TensorSpec("m", "int64", (2,), ((0, 1), (0, 1)), domain="mask").domain == "mask"  # was refused
    with pytest.raises(ModelSpecError, match="a mask takes values 0 and 1"):
        TensorSpec("m", "int64", (2,), ((0, 1), (0, 4)), domain="mask")
