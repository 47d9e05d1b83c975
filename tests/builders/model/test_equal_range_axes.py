"""Recheck 16, R16-1: output dims of a model with two dynamic axes of equal range.

The probes moved every dynamic axis together (all to their max), and an output dim was named
after the last axis of that size: a U-Net's ``mask [1, H, W]`` was recorded as ``[1, W, W]``,
the correct declared spec was refused, and the hint said to write ``[1, "W", "W"]``. Each axis
is now also moved alone, so a dim takes an axis' name only when it follows that axis alone.
"""

from __future__ import annotations

import json

import pytest
import verification_models as vm
from click.testing import CliRunner

from builders.cli.main import cli
from builders.model.outputs import axis_probes, infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec, output_placeholder
from core.errors import ModelSpecError

AXES = {"H": (32, 64, 128), "W": (32, 64, 128)}  # equal ranges: every all-axes run has H == W
IMAGE = (TensorSpec("image", "float32", (3, "H", "W")),)


def _spec(*outputs: TensorSpec) -> ModelSpec:
    return ModelSpec(IMAGE, outputs, AXES)


@pytest.mark.parametrize(
    ("model", "shape"),
    [(vm.mask, (1, "H", "W")), (vm.mask_transposed, ("W", "H")), (vm.mask_flat, ("mask_dim1",))],
    ids=["mask", "transposed", "flat"],
)
def test_a_bare_output_takes_the_axis_each_dim_follows(model, shape):
    assert infer_outputs(model(), _spec(output_placeholder("mask"))).outputs[0].shape == shape


@pytest.mark.parametrize(
    ("model", "declared"),
    [(vm.mask, (1, "H", "W")), (vm.mask_transposed, ("W", "H")), (vm.mask_flat, ("pixels",))],
    ids=["mask", "transposed", "flat"],
)
def test_the_declared_shape_of_each_layout_is_accepted_as_written(model, declared):
    notes: list[str] = []
    spec = infer_outputs(model(), _spec(TensorSpec("mask", "float32", declared)), notes.append)
    assert spec.outputs[0].shape == declared and notes == []


@pytest.mark.parametrize(
    ("model", "wrong", "right"),
    [
        (vm.mask, (1, "W", "W"), [1, "H", "W"]),
        (vm.mask, (1, "W", "H"), [1, "H", "W"]),  # the hint replaces both dims, not only the first it meets
        (vm.mask_transposed, ("H", "W"), ["W", "H"]),
        (vm.mask_flat, ("H",), ["mask_dim1"]),
    ],
    ids=["mask-WW", "mask-WH", "transposed-HW", "flat-H"],
)
def test_a_wrong_axis_is_refused_and_the_hint_gives_what_the_model_returns(model, wrong, right):
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(model(), _spec(TensorSpec("mask", "float32", wrong)))
    assert (
        f"names shape[{list(wrong).index(next(d for d, r in zip(wrong, right) if d != r))}] after input axis" in e.value.message
    )
    assert f'write "shape": {json.dumps(right)}' in e.value.hint


def test_each_axis_is_probed_alone_one_run_per_axis():
    exp, lo, hi = ({a: r[i] for a, r in AXES.items()} for i in (1, 0, 2))
    assert axis_probes(exp, lo, hi) == [{"H": hi["H"], "W": exp["W"]}, {"H": exp["H"], "W": hi["W"]}]
    at_max = {"H": hi["H"], "W": hi["W"]}
    assert axis_probes(at_max, lo, hi) == [{"H": lo["H"], "W": hi["W"]}, {"H": hi["H"], "W": lo["W"]}]
    assert axis_probes(exp, exp, exp) == []  # an axis of one size cannot be moved


def test_the_build_command_refuses_a_wrong_spec_with_the_models_shape_and_exports_nothing(tmp_path):
    """The build path of R16-1 (its hint was `[1, "W", "W"]`)."""
    given = {
        "inputs": [{"name": "image", "dtype": "float32", "shape": [3, "H", "W"]}],
        "outputs": [{"name": "mask", "dtype": "float32", "shape": [1, "W", "W"]}],
        "dynamic_axes": {a: list(r) for a, r in AXES.items()},
    }
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(given))
    args = ["build", "--model", "verification_models:mask", "--format", "torchscript", "--build-dir", str(tmp_path / "b")]
    out = CliRunner().invoke(cli, [*args, "--spec", str(wrong), "--repository", str(tmp_path / "r")])
    assert isinstance(out.exception, ModelSpecError) and not (tmp_path / "r").exists()
    assert "names shape[1] after input axis 'W'" in out.exception.message and '"shape": [1, "H", "W"]' in out.exception.hint
