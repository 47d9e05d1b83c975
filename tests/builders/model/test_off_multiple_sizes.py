"""Trial 30, F1: an output that follows an input axis at the min, opt and max only.

A conv autoencoder whose output is ``8 * ceil(H / 8)`` was built with H and W dynamic 16..64 and no step; the probes
and the verification ran it at 16, 32 and 64 only (all multiples of 8), so its output was recorded as ``[1, H, W]``
("its size follows the request's") and a request of 20x36 came back 24x40 without a word. The probes and the
verification now also run each axis at a size off every multiple (17 of 16..64; an odd multiple of a step), an output
dim that is not the axis' size there is recorded as not following it (a ``-1`` dim), and the build says so.
"""

from __future__ import annotations

import pytest
import verification_models as vm

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.axis_steps import off_size
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec, output_placeholder
from builders.verify.verification import verification_points
from core.errors import ModelSpecError

IMAGE = (TensorSpec("image", "float32", (1, "H", "W")),)


def _spec(step: int = 1, *outputs: TensorSpec) -> ModelSpec:
    axes = {"H": (16, 32, 64), "W": (16, 32, 64)}
    return ModelSpec(IMAGE, outputs or (output_placeholder("reconstruction"),), axes, {"H": step, "W": step})


@pytest.mark.parametrize(
    ("lo", "opt", "hi", "step", "off"),
    [
        (16, 32, 64, 1, 17),
        (1, 32, 128, 1, 11),
        (16, 32, 64, 8, 24),
        (64, 128, 256, 32, 96),
        (4, 4, 4, 1, None),
        (1, 1, 2, 1, None),
    ],
)
def test_the_size_off_every_multiple_lies_in_the_range_on_the_step_and_off_min_opt_max(lo, opt, hi, step, off):
    assert off_size(lo, hi, step, (lo, opt, hi)) == off


def test_an_output_that_rounds_up_to_a_multiple_of_8_is_not_said_to_follow_the_axis_and_the_build_says_so():
    notes: list[str] = []
    spec = infer_outputs(vm.rounds_up(), _spec(), notes.append)
    assert spec.outputs[0].shape == (1, "reconstruction_dim2", "reconstruction_dim3")  # -1 dims in config.pbtxt
    assert len(notes) == 2, notes
    assert "output 'reconstruction' shape[1] is the size of input axis H at H 16, 32, 64 but 24 at H 17" in notes[0]
    assert "it does not follow H" in notes[0] and "dim -1 in config.pbtxt" in notes[0]
    assert "--dynamic-axis H=MIN,OPT,MAX/STEP" in notes[0] and "shape[2]" in notes[1]


def test_with_the_step_the_model_needs_the_output_follows_the_axes_at_odd_multiples_too():
    notes: list[str] = []
    spec = infer_outputs(vm.rounds_up(), _spec(8), notes.append)
    assert spec.outputs[0].shape == (1, "H", "W") and notes == []


def test_an_output_that_is_the_axis_at_every_size_still_follows_it_with_no_note():
    notes: list[str] = []
    rgb = (TensorSpec("image", "float32", (3, "H", "W")),)
    spec = infer_outputs(
        vm.mask(), ModelSpec(rgb, (output_placeholder("mask"),), {"H": (16, 32, 64), "W": (16, 32, 64)}), notes.append
    )
    assert spec.outputs[0].shape == (1, "H", "W") and notes == []


def test_a_declared_output_named_after_the_axis_is_refused_with_the_sizes_seen():
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(vm.rounds_up(), _spec(1, TensorSpec("reconstruction", "float32", (1, "H", "W"))))
    assert "names shape[1] after input axis 'H'" in e.value.message and "24" in e.value.message


def test_a_model_that_fails_off_every_multiple_is_refused_before_export_with_the_step_to_declare():
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(vm.even_only(), _spec())
    assert "H=17" in e.value.message
    assert "H=17 lies within the range 16..64" in e.value.hint and "--dynamic-axis H=16,32,64/16" in e.value.hint
    infer_outputs(vm.even_only(), _spec(8))  # with a step it runs at every size it is verified at


@pytest.mark.parametrize(("step", "off"), [(1, 17), (8, 24)])
def test_the_verification_runs_a_point_off_every_multiple(step, off):
    points = verification_points(_spec(step), 8)
    assert (1, {"H": off, "W": off}) in points
    assert all(s["H"] in (16, 32, 64) for _b, s in points[:-1])


@pytest.mark.slow  # a real TorchScript export, verified
def test_the_build_says_the_output_does_not_follow_and_serves_it_as_minus_one(tmp_path):
    lines: list[str] = []
    spec = ModelSpec.from_flags(["image:float32:1,H,W"], ["reconstruction"], ["H=16,32,64", "W=16,32,64"])
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(2,))
    opts = BuildOptions(
        "verification_models:rounds_up",
        formats=("torchscript",),
        grid=grid,
        spec=spec,
        repository=tmp_path / "r",
        build_dir=tmp_path / "b",
    )
    result = build(opts, lines.append)
    said = "\n".join(lines)
    assert "shape[1] is the size of input axis H at H 16, 32, 64 but 24 at H 17: it does not follow H" in said
    (config,) = (tmp_path / "r").glob("*/config.pbtxt")
    assert "dims: 1\n  dims: -1\n  dims: -1" in config.read_text().split("output {")[1]
    (e,) = result.manifest["exports"]
    assert {p["axes"]["H"] for p in e["verification"]} == {16, 17, 32, 64} and e["status"] == "ok"
