"""A dynamic axis's step (trial 24, T24-7): a U-Net-like model takes only multiples of 32 for H and W, and a range
MIN,OPT,MAX said nothing of it. The step is declared once (``--dynamic-axis H=64,128,256/32``, the spec file's
``"multiple_of": {"H": 32}``), checked against the range, recorded in the spec's JSON (the build manifest's) and read
back; a spec without one is unchanged (step 1, no key in its JSON)."""

from __future__ import annotations

import json

import pytest

from builders.model.axis_steps import nearest, off_step
from builders.model.spec import ModelSpec
from builders.model.spec_flags import parse_axis_flag, wider_range_hint
from builders.model.tensor import TensorSpec
from core.errors import ModelSpecError

IMAGE = ["image:float32:3,H,W"]


def test_the_flag_takes_a_step_after_a_slash():
    assert parse_axis_flag("H=64,128,256/32") == ("H", (64, 128, 256), 32)
    assert parse_axis_flag("seq=1,64,128") == ("seq", (1, 64, 128), None)
    spec = ModelSpec.from_flags(IMAGE, axes=["H=64,128,256/32", "W=64,128,256"])
    assert spec.multiple_of == {"H": 32} and spec.step("H") == 32 and spec.step("W") == 1


@pytest.mark.parametrize("step", ["0", "x", "", "-8"])
def test_a_bad_step_is_refused_with_the_form(step):
    with pytest.raises(ModelSpecError) as e:
        parse_axis_flag(f"H=64,128,256/{step}")
    assert "step" in e.value.message and "H=64,128,256/32" in (e.value.hint or "")


def test_min_opt_and_max_must_be_multiples_of_the_step():
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(IMAGE, axes=["H=60,100,256/32", "W=64,128,256/32"])
    assert "60 and 100" in e.value.message and "not a multiple of 32" in e.value.message
    # rounded inward, within the 60..256 given (was widened to H=32,96,256/32: a min below the user's 60, s21k)
    assert "--dynamic-axis H=64,96,256/32" in (e.value.hint or "") and "within the range given (60..256)" in (e.value.hint or "")
    assert '"multiple_of": {"H": 32}' in (e.value.hint or "")


def test_a_step_for_an_axis_without_a_range_is_refused():
    t = TensorSpec("image", "float32", (3, "H", "W"))
    with pytest.raises(ModelSpecError, match="multiple_of names 'h', not a dynamic axis"):
        ModelSpec((t,), (), {"H": (64, 128, 256), "W": (64, 128, 256)}, {"h": 32})


def test_the_spec_file_form_round_trips_and_a_spec_without_steps_keeps_its_json(tmp_path):
    data = {
        "inputs": [{"name": "image", "dtype": "float32", "shape": [3, "H", "W"]}],
        "dynamic_axes": {"H": [64, 128, 256], "W": [64, 128, 256]},
        "multiple_of": {"H": 32, "W": 32},
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data))
    spec = ModelSpec.from_file(path)
    assert spec.multiple_of == {"H": 32, "W": 32}
    assert spec.to_json()["multiple_of"] == {"H": 32, "W": 32}
    assert ModelSpec.from_json(spec.to_json()) == spec
    plain = ModelSpec.from_flags(IMAGE, axes=["H=64,128,256", "W=64,128,256"])
    assert "multiple_of" not in plain.to_json()  # old manifests and reuse keys unchanged
    old = {k: v for k, v in data.items() if k != "multiple_of"}  # a manifest written before steps: step 1
    assert ModelSpec.from_json(old).step("H") == 1


def test_a_misspelt_key_is_told_the_step_key(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(
        json.dumps(
            {
                "inputs": [{"name": "x", "dtype": "float32", "shape": ["H"]}],
                "dynamic_axes": {"H": [32, 64, 96]},
                "multiple": {"H": 32},
            }
        )
    )
    with pytest.raises(ModelSpecError, match="did you mean 'multiple_of'"):
        ModelSpec.from_file(path)


def test_off_step_names_the_axis_the_step_and_the_nearest_valid_sizes():
    said = off_step("H", [100, 128], (64, 128, 256), 32)
    assert said is not None
    what, hint = said
    assert what.startswith("100 is not a multiple of 32, the step the build declared for axis H")
    assert "give H a multiple of 32 within 64..256: the nearest valid sizes to 100 are 96 and 128" == hint
    assert off_step("H", [64, 96, 256], (64, 128, 256), 32) is None
    assert off_step("seq", [7, 9], (1, 8, 16), 1) is None
    assert nearest(70, 32, 64, 256) == [64, 96] and nearest(20, 32, 64, 256) == [64] and nearest(300, 32, 64, 256) == [256]


def test_the_wider_range_advice_keeps_the_step():
    hint = wider_range_hint("H", (64, 128, 256), [300], step=32)
    assert "--dynamic-axis H=64,128,320/32 " in hint and '"multiple_of": {"H": 32}' in hint
    assert wider_range_hint("time", (16, 128, 512), [8]).count("/") == 0


def test_a_step_of_one_is_no_step():
    # --dynamic-axis H=64,128,256/1 (or "multiple_of": {"H": 1}) was recorded as {"H": 1}: another spec JSON than the
    # same range without it, so the build exported again and, with a --format subset, refused to keep the other
    # format's measured variants as "of another model (it differs in spec)"
    plain = ModelSpec.from_flags(IMAGE, axes=["H=64,128,256", "W=64,128,256"])
    one = ModelSpec.from_flags(IMAGE, axes=["H=64,128,256/1", "W=64,128,256"])
    assert one.multiple_of == {} and one == plain and one.to_json() == plain.to_json()
    assert "multiple_of" not in ModelSpec.from_json({**plain.to_json(), "multiple_of": {"H": 1}}).to_json()
    kept = ModelSpec.from_flags(IMAGE, axes=["H=64,128,256/32", "W=64,128,256/1"])
    assert kept.multiple_of == {"H": 32}


def test_a_step_no_size_of_the_range_is_a_multiple_of_is_told_so_not_moved_out_of_the_range():
    # H=64,96,128/512 was told to give --dynamic-axis H=512,512,512/512: a fixed size four times the range's max
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(IMAGE, axes=["H=64,96,128/512", "W=64,128,256"])
    assert "no multiple of 512 lies within its range 64..128" in e.value.message
    hint = e.value.hint or ""
    assert "--dynamic-axis H=64,96,128/32" in hint and '"multiple_of": {"H": 32}' in hint and "512,512" not in hint
    with pytest.raises(ModelSpecError) as e:  # sizes that share no step: the advice is no step (/1 is left out)
        ModelSpec.from_flags(IMAGE, axes=["H=65,97,129/256", "W=64,128,256"])
    assert "--dynamic-axis H=65,97,129;" in (e.value.hint or "") and "multiple_of" not in (e.value.hint or "")


def test_a_step_for_an_axis_of_another_case_is_told_the_axis_it_likely_meant():
    # "multiple_of": {"h": 32} beside the axis H was told to declare an axis 'h' ("dynamic_axes": {"h": ...})
    t = TensorSpec("image", "float32", (3, "H", "W"))
    with pytest.raises(ModelSpecError) as e:
        ModelSpec((t,), (), {"H": (64, 128, 256), "W": (64, 128, 256)}, {"h": 16})
    assert "(did you mean 'H'?)" in e.value.message
    assert '"multiple_of": {"H": 16}' in (e.value.hint or "") and '"h"' not in (e.value.hint or "")


@pytest.mark.parametrize(
    ("given", "advised"),
    [
        ("H=60,128,256/32", "H=64,128,256/32"),  # s21k: was H=32,128,256/32, below the 60 given
        ("H=64,128,250/32", "H=64,128,224/32"),  # was H=64,128,256/32, above the 250 given
        ("H=33,112,250/32", "H=64,96,224/32"),  # opt to the nearest multiple (112: 96 and 128 tie, the smaller)
        ("H=40,40,70/32", "H=64,64,64/32"),  # the one multiple within 40..70
    ],
)
def test_an_off_step_range_is_advised_within_the_range_given(given, advised):
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(IMAGE, axes=[given, "W=64,128,256"])
    hint = e.value.hint or ""
    assert f"--dynamic-axis {advised} " in hint, hint
    assert "40 and 40" not in e.value.message  # each size said once
    lo, _opt, hi = map(int, given.split("=")[1].split("/")[0].split(","))
    a_lo, a_opt, a_hi = map(int, advised.split("=")[1].split("/")[0].split(","))
    assert lo <= a_lo <= a_opt <= a_hi <= hi and ModelSpec.from_flags(IMAGE, axes=[advised, "W=64,128,256"])


def test_an_axis_forgotten_beside_a_declared_one_is_told_with_the_declared_ones_numbers() -> None:
    """Trial 27, T27-16: ``--dynamic-axis H=64,128,256/16`` with W forgotten was told "--dynamic-axis W=1,64,128",
    which, pasted, failed the build at W=1; a spec with no axis declared is told example numbers, said as such."""
    image = (TensorSpec("image", "uint8", (3, "H", "W")),)
    with pytest.raises(ModelSpecError) as e:
        ModelSpec(image, (), {"H": (64, 128, 256)}, {"H": 16})
    hint = e.value.hint or ""
    assert "--dynamic-axis W=64,128,256/16" in hint and '"multiple_of": {"W": 16}' in hint and "the numbers are H's" in hint
    with pytest.raises(ModelSpecError) as e:
        ModelSpec((TensorSpec("ids", "int64", ("seq",)),), ())
    assert "--dynamic-axis seq=1,64,128" in (e.value.hint or "") and "example numbers" in (e.value.hint or "")
