"""Trial 30, F22: ``builders build --sample FILE`` with a sample outside the declared sizes (H 72 > max 64, or H 36 off
the step 8) was verified and reported "ok" without a word, while ``clients`` refuse the same file. The sample now
meets the rule every request and input file meets (:func:`builders.model.spec_flags.size_problem`, one source):
refused, saying what, the range, and what to do."""

from __future__ import annotations

import numpy as np
import pytest

from builders.model.spec import ModelSpec
from builders.verify.input_draws import load_sample
from clients.shapes import check_sizes
from core.errors import ClientError, ModelSpecError

SPEC = ModelSpec.from_flags(["image:float32:1,H,W"], [], ["H=16,32,64/8", "W=16,32,64/8"])


def _sample(tmp_path, h: int, w: int = 40):
    path = tmp_path / f"sample_{h}.npz"
    np.savez(path, image=np.ones((2, 1, h, w), np.float32))
    return path


@pytest.mark.parametrize(
    ("h", "said", "advice"),
    [
        (
            72,
            "input 'image' sets axis H to 72, outside the build's verified range 16..64 in steps of 8",
            "--dynamic-axis H=16,32,72/8",
        ),
        (
            36,
            "input 'image': 36 is not a multiple of 8, the step the build declared for axis H",
            "nearest valid sizes to 36 are 32 and 40",
        ),
        (8, "input 'image' sets axis H to 8, outside the build's verified range", "--dynamic-axis H=8,32,64/8"),
    ],
)
def test_a_sample_off_the_declared_sizes_is_refused_as_clients_refuse_the_same_file(tmp_path, h, said, advice):
    path = _sample(tmp_path, h)
    with pytest.raises(ModelSpecError) as e:
        load_sample(path, SPEC)
    assert f"--sample {path}: {said}" in e.value.message and "clients refuse a file of this size" in e.value.message
    assert advice in e.value.hint
    with pytest.raises(ClientError) as c:  # the same rule, the same words after what gave the size
        check_sizes("dae", [("image", [1, -1, -1])], 8, SPEC, {"image": (1, h, 40)}, source=str(path))
    assert said.removeprefix("input 'image'") in c.value.message


def test_a_sample_at_sizes_the_build_verifies_is_taken(tmp_path):
    assert load_sample(_sample(tmp_path, 24), SPEC)["image"].shape == (2, 1, 24, 40)


def test_two_inputs_that_give_one_axis_two_sizes_are_refused(tmp_path):
    spec = ModelSpec.from_flags(["a:float32:seq", "b:float32:seq"], [], ["seq=1,8,16"])
    path = tmp_path / "two.npz"
    np.savez(path, a=np.ones((1, 4), np.float32), b=np.ones((1, 5), np.float32))
    with pytest.raises(ModelSpecError, match=r"inputs 'a' and 'b' give axis seq two sizes \(4 and 5\)"):
        load_sample(path, spec)


@pytest.mark.parametrize(("mbs", "said"), [(8, "above the largest batch this build serves (8)"), (0, "(1, its max_batch_size 0")])
def test_a_sample_of_more_rows_than_the_build_serves_is_refused_as_clients_refuse_it(tmp_path, mbs, said):
    path = tmp_path / "rows.npz"
    np.savez(path, image=np.ones((16 if mbs else 2, 1, 24, 40), np.float32))
    with pytest.raises(ModelSpecError) as e:
        load_sample(path, SPEC, mbs)
    assert said in e.value.message and "clients refuse a file of this many rows" in e.value.message
    assert load_sample(path, SPEC, 16)["image"].shape[0] in (16, 2)  # within a build that serves them
