"""Trial 12, F14 and F22: outputs the spec declares (dtype and shape, not bare names).

The build replaced a declared output's dtype and shape with the eager model's without a word
(``logits`` declared int64 served as float32, ``frames`` declared [98, 32] served with a
dynamic frame axis), and renamed the dynamic axis the user named (``frames`` ->
``frames_dim1``), so ``builders spec --build`` did not give the user's spec back. A declared
output that contradicts the model is now refused naming both; a less specific one is noted; a
user's name for a dynamic output dim is kept through the build record.
"""

from __future__ import annotations

import json

import pytest
import torch
import verification_models as vm
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import ModelSpecError

AXES = {"seq": (16, 32, 64)}  # Framer: x [B, seq] -> [B, (seq - 8) // 4 + 1, 4]
X = (TensorSpec("x", "float32", ("seq",)),)


def _spec(*outputs: TensorSpec) -> ModelSpec:
    return ModelSpec(X, outputs, AXES)


def test_a_declared_dtype_the_model_does_not_return_is_refused():
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(vm.framer(), _spec(TensorSpec("frames", "int64", ("frames", 4))))
    assert "spec output 'frames' says dtype int64, the model returns float32" in e.value.message
    assert '"dtype": "float32"' in e.value.hint and 'bare name ("frames")' in e.value.hint


def test_a_fixed_dim_where_the_model_varies_and_a_wrong_rank_are_refused():
    framer, spec = vm.framer(), _spec(TensorSpec("frames", "float32", ("frames", 4)))
    at_max = infer_outputs(framer, spec).outputs[0]
    lo, opt, hi = AXES["seq"]
    fixed = (hi - 8) // 4 + 1  # what the model returns at the max: the size a user reads off one run
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(framer, _spec(TensorSpec("frames", "float32", (fixed, 4))))
    assert f"spec output 'frames' fixes shape[0] at {fixed}; the model returns per-sample shape [dynamic, 4]" in e.value.message
    # every size the build ran, the min included (recheck 16, R16-1: the min run is one of the probes)
    assert f"shape[0] was {(lo - 8) // 4 + 1}, {(opt - 8) // 4 + 1}, {fixed} as the dynamic axes changed" in e.value.message
    assert '"shape": ["frames_dim1", 4]' in e.value.hint
    with pytest.raises(ModelSpecError, match=r"has shape \['frames'\] \(1 per-sample dims\)"):
        infer_outputs(framer, _spec(TensorSpec("frames", "float32", ("frames",))))
    with pytest.raises(ModelSpecError, match=r"names shape\[0\] after input axis 'seq'"):  # frames are not seq-long
        infer_outputs(framer, _spec(TensorSpec("frames", "float32", ("seq", 4))))
    with pytest.raises(ModelSpecError, match=r"fixes shape\[1\] at 5"):
        infer_outputs(framer, _spec(TensorSpec("frames", "float32", ("frames", 5))))
    assert at_max.shape == ("frames", 4)


def test_a_dim_the_spec_calls_dynamic_and_the_model_fixes_is_a_note():
    notes: list[str] = []
    spec = infer_outputs(vm.framer(), _spec(TensorSpec("frames", "float32", ("frames", "channels"))), notes.append)
    assert spec.outputs[0].shape == ("frames", 4)
    assert notes == [
        "spec output 'frames' calls shape[1] dynamic ('channels'); the model returns 4 at every size the build ran: "
        "recorded and served as 4"
    ]


def test_bare_names_take_the_models_dtype_and_shape_and_stay_bare_in_json():
    spec = ModelSpec.from_flags(["x:float32:seq"], ["frames"], ["seq=16,32,64"])
    assert spec.to_json()["outputs"] == ["frames"]  # not a declared float32 []: read back, it is still a bare name
    assert infer_outputs(vm.framer(), spec).outputs[0].shape == ("frames_dim1", 4)


@pytest.mark.slow  # a real TorchScript export
def test_spec_then_build_then_spec_build_gives_the_users_axis_names_back(tmp_path):
    given = {
        "inputs": [{"name": "x", "dtype": "float32", "shape": ["seq"]}],
        "outputs": [{"name": "frames", "dtype": "float32", "shape": ["frames", 4]}],
        "dynamic_axes": {"seq": list(AXES["seq"])},
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(given))
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    build(
        BuildOptions(
            "verification_models:framer", path, ("torchscript",), grid=grid, repository=tmp_path / "r", build_dir=tmp_path / "b"
        )
    )
    out = CliRunner().invoke(cli, ["spec", "--build", str(tmp_path / "b" / "framer")])
    assert out.exit_code == 0, out.output
    back = json.loads(out.output)
    assert [(o["name"], o["dtype"], o["shape"]) for o in back["outputs"]] == [("frames", "float32", ["frames", 4])]
    assert back["inputs"][0]["shape"] == ["seq"] and back["dynamic_axes"] == given["dynamic_axes"]


class _PerStep(torch.nn.Module):
    """x [B, seq] -> [B, seq, 4]: the output's first per-sample dim is always the input axis seq."""

    def forward(self, x):
        return x.unsqueeze(-1).expand(-1, -1, 4)


def test_a_user_name_for_a_dim_that_is_an_input_axis_takes_the_axis_name_and_says_why():
    """Break test B4: the README said a user's dynamic output dim name is kept; one that tracks an input
    axis was renamed with a bare "recorded as 'seq'". The README now says when, and the note why and what to do."""
    notes: list[str] = []
    spec = infer_outputs(_PerStep(), _spec(TensorSpec("steps", "float32", ("frames", 4))), notes.append)
    assert spec.outputs[0].shape == ("seq", 4)
    assert notes == [
        "spec output 'steps' names shape[0] 'frames', but it is the size of input axis 'seq' at every size the build "
        "ran: recorded as 'seq' (manifest, builders spec --build), so its size follows the request's seq; name it "
        "'seq' in the spec to keep the two alike"
    ]
