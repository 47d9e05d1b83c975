"""ModelSpec / TensorSpec: flags, JSON round trip, validation, generated inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders.model.spec import EXAMPLE_BATCH, ModelSpec
from builders.model.spec_flags import parse_axis_flag, parse_input_flag
from builders.model.tensor import TensorSpec
from core.dtypes import TENSOR_IO_NAMES
from core.errors import ModelSpecError


def test_flags_build_the_same_spec_as_json(tmp_path):
    spec = ModelSpec.from_flags(["input_ids:int64:seq:0..99", "pixels:float32:3,8,8"], ["logits", "ids"], ["seq=1,16,32"])
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec.to_json()))
    assert ModelSpec.from_file(path) == spec
    assert spec.inputs[0] == TensorSpec("input_ids", "int64", ("seq",), (0, 99))
    assert spec.inputs[1].shape == (3, 8, 8)
    assert [t.name for t in spec.outputs] == ["logits", "ids"]
    assert spec.dynamic_axes == {"seq": (1, 16, 32)}


def test_outputs_may_be_bare_names_in_a_spec_file(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"inputs": [{"name": "x", "dtype": "float32", "shape": [4]}], "outputs": ["y"]}))
    assert [t.name for t in ModelSpec.from_file(path).outputs] == ["y"]


@pytest.mark.parametrize(
    "flag, words",
    [
        ("x:float32", "NAME:DTYPE:SHAPE"),
        ("x:complex64:4", "not supported"),
        ("x:float32:4:0..9", "value_range is for integer inputs"),
        ("ids:int64:seq:9..0", r"low 9 > high 0"),
        ("ids:int8:4:0..1000", f"1000 is past int8's largest value {np.iinfo('int8').max}"),
        ("ids:int64:4:0.5..9", "LOW..HIGH"),  # a name ("zero..9") is a dynamic axis, checked by the spec
        ("x:float32:0", "must be an int > 0"),
        ("x:float32:batch,4", "implicit first axis"),
    ],
)
def test_bad_input_flags_say_what_is_expected(flag, words):
    with pytest.raises(ModelSpecError, match=words):
        parse_input_flag(flag)


def test_a_leading_minus_one_is_the_batch_axis_and_gets_the_batch_names_advice(tmp_path):
    """Trial 12, F2: ``[-1, "time"]`` (ONNX's and Triton's way to write the batch) was told
    "must be an int > 0", sending the user to invent a size; a leading "batch" was told to drop it."""
    path = tmp_path / "spec.json"
    path.write_text(
        json.dumps({"inputs": [{"name": "wave", "dtype": "float32", "shape": [-1, "time"]}], "dynamic_axes": {"time": [1, 2, 4]}})
    )
    for make in (lambda: ModelSpec.from_file(path), lambda: parse_input_flag("wave:float32:-1,time")):
        with pytest.raises(ModelSpecError) as e:
            make()
        assert "implicit first axis" in e.value.message and "must be an int > 0" not in e.value.message
        assert e.value.hint.startswith("drop the -1") and '"shape": ["time"]' in e.value.hint
        assert "--input wave:float32:time)" in e.value.hint


def test_a_leading_minus_one_may_be_a_dynamic_size_of_each_sample():
    """Break test B3: an output `feat` [-1, 4] whose -1 is its per-sample time axis was told only to
    drop it (the batch), with an `--input` flag an output cannot take."""
    with pytest.raises(ModelSpecError) as e:
        TensorSpec("feat", "float32", (-1, 4))
    hint = e.value.hint or ""
    assert '"shape": [4]' in hint and '"shape": ["feat_dim1", 4]' in hint and "--dynamic-axis feat_dim1=MIN,OPT,MAX" in hint
    assert "for an input, on the command line: --input feat:float32:4)" in hint


def test_a_minus_one_after_the_first_dim_is_a_dynamic_axis_to_name():
    with pytest.raises(ModelSpecError) as e:
        parse_input_flag("x:float32:3,-1")
    assert "dimension 1 is -1 (a dynamic size)" in e.value.message and "implicit" not in e.value.message
    assert "--input x:float32:3,x_dim2" in e.value.hint and "--dynamic-axis x_dim2=MIN,OPT,MAX" in e.value.hint
    with pytest.raises(ModelSpecError) as lone:  # [-1]: the batch, or a per-sample length: both fixes
        parse_input_flag("x:float32:-1")
    assert '"shape": []' in lone.value.hint and '"shape": ["x_dim1"]' in lone.value.hint


@pytest.mark.parametrize(
    "flag, said",
    [
        ("seq", "has no '=' between the axis and its sizes"),
        ("seq=1,2", "gives 2 sizes, not 3 (min, opt and max)"),
        ("=1,2,3", "names no axis before '='"),
        ("seq=a,b,c", "'a' is not a whole number"),
        ("seq=1,,3", "a size is empty"),
    ],
)
def test_bad_axis_flags_say_what_is_wrong(flag, said):
    """The kind of break test B5: every wrong --dynamic-axis was told "does not parse" and the form."""
    with pytest.raises(ModelSpecError) as e:
        parse_axis_flag(flag)
    assert said in e.value.message and "AXIS=MIN,OPT,MAX" in e.value.hint


def test_undeclared_or_inconsistent_axes_are_refused():
    with pytest.raises(ModelSpecError, match="no declared range"):
        ModelSpec.from_flags(["ids:int64:seq"])
    with pytest.raises(ModelSpecError, match="min <= opt <= max"):
        ModelSpec.from_flags(["ids:int64:seq"], axes=["seq=4,2,8"])
    with pytest.raises(ModelSpecError, match="cannot be declared"):
        ModelSpec.from_flags(["x:float32:4"], axes=["batch=1,2,3"])
    with pytest.raises(ModelSpecError, match="unique"):
        ModelSpec.from_flags(["x:float32:4", "x:float32:4"])
    # one axis twice: the first was silently replaced by the second (issue 26)
    with pytest.raises(ModelSpecError, match=r"--dynamic-axis seq given twice \(1,2,4 and 1,8,16\)"):
        ModelSpec.from_flags(["ids:int64:seq"], axes=["seq=1,2,4", "seq=1,8,16"])


@pytest.mark.parametrize(
    ("axes", "hint"),
    [
        ("H=64,300,256", "opt must lie within min..max (64..256): e.g. --dynamic-axis H=64,256,256"),
        ("H=64,32,256", "opt must lie within min..max (64..256): e.g. --dynamic-axis H=64,64,256"),
        ("H=256,128,64", "give the sizes smallest first: --dynamic-axis H=64,128,256"),
        ("H=0,4,8", "give the sizes smallest first: --dynamic-axis H=1,4,8"),
    ],
)
def test_an_opt_outside_the_range_is_moved_into_it_never_made_the_max(axes, hint):
    """T24-6: ``H=64,300,256`` (a typo in opt) was told ``H=64,256,300``, silently widening the user's max to 300."""
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(["x:float32:3,H"], axes=[axes])
    assert hint in (e.value.hint or "")


def test_malformed_spec_file_is_one_clear_error(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"outputs": []}))
    with pytest.raises(ModelSpecError, match="malformed"):
        ModelSpec.from_file(path)
    path.write_text("{not json")
    with pytest.raises(ModelSpecError, match="not valid JSON"):
        ModelSpec.from_file(path)
    with pytest.raises(ModelSpecError, match="does not exist") as e:
        ModelSpec.from_file(tmp_path / "spec2.json")
    assert f"(in {tmp_path}: spec.json)" in e.value.message and "builders spec --example" in (e.value.hint or "")
    for unreadable, why in ((tmp_path, "is a folder, not a file"),):  # said as such, never a traceback
        with pytest.raises(ModelSpecError, match=why):
            ModelSpec.from_file(unreadable)
    path.write_bytes(b"\xff\xfe" + json.dumps({"inputs": []}).encode("utf-16-le"))  # not UTF-8: was a traceback
    with pytest.raises(ModelSpecError, match=r"is not UTF-8 text \(byte 0xff at offset 0\), so not a JSON spec"):
        ModelSpec.from_file(path)


SEQ_INPUT = [{"name": "ids", "dtype": "int64", "shape": ["seq"]}]


@pytest.mark.parametrize(
    "doc, line",
    [
        ({"dynamic_axes": {"seq": [1, 64]}}, "dynamic_axes.seq: expected [min, opt, max], three whole numbers"),
        ({"dynamic_axes": {"seq": [1, 2, 3, 4]}}, "found [1, 2, 3, 4]: 4 sizes, not 3 (min, opt and max)"),
        ({"dynamic_axes": {"seq": "1,64,128"}}, 'found "1,64,128": not a list'),
        ({"dynamic_axes": {"seq": [True, 2, 3]}}, "found [true, 2, 3]: true is not a whole number"),
        ({"outputs": [{"name": "y", "shape": [3]}]}, "outputs[0].dtype: required field is missing"),
        ({"inputs": ["ids"]}, "inputs[0]: expected an object, found 'ids'"),
    ],
)
def test_each_malformed_spec_field_is_said_once_with_what_to_give(doc, line):
    """Issue 26: a dynamic axis given 2 sizes said ``dynamic_axes.seq[2]: required field is missing`` (4 sizes:
    pydantic's tuple text; ``true`` was read as 1); an output object missing a field also said the other member of
    its union (``outputs[0]: expected a valid string``); a tensor that is no object named the record's class. Each
    problem is now one line that says what is wrong and what to give."""
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json({"inputs": SEQ_INPUT, "dynamic_axes": {"seq": [1, 64, 128]}} | doc, "spec file s.json")
    said = e.value.message.splitlines()[1:]
    assert len(said) == 1 and line in said[0], said
    assert "required field is missing" not in said[0] or "[2]" not in said[0]
    assert "TensorSpecRecord" not in e.value.message and "valid string" not in e.value.message


def test_export_sizes_avoid_size_one_examples():
    spec = ModelSpec.from_flags(["ids:int64:seq,tok"], axes=["seq=1,1,8", "tok=1,1,1"])
    sizes = spec.export_axis_sizes()
    assert sizes == {"seq": 2, "tok": 1}  # tok cannot be anything but 1
    ex = spec.export_inputs()
    assert ex["ids"].shape == (EXAMPLE_BATCH, 2, 1)


_dtypes = st.sampled_from(sorted(TENSOR_IO_NAMES))


@settings(max_examples=40, deadline=None)
@given(
    dtype=_dtypes,
    dims=st.lists(st.one_of(st.integers(1, 4), st.just("seq")), max_size=3),
    lo=st.integers(0, 50),
    width=st.integers(0, 50),
    batch=st.integers(1, 3),
    seq=st.integers(1, 5),
)
def test_examples_follow_dtype_shape_and_value_range(dtype, dims, lo, width, batch, seq):
    integer = dtype.startswith(("int", "uint"))
    rng = (lo, lo + width) if integer else None
    spec = ModelSpec((TensorSpec("x", dtype, tuple(dims), rng),), (), {"seq": (1, seq, 5)} if "seq" in dims else {})
    assert ModelSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec
    x = spec.example_inputs(batch)["x"]
    assert x.dtype == np.dtype(dtype)
    assert x.shape == (batch, *(seq if d == "seq" else d for d in dims))
    if integer and x.size:
        assert lo <= x.min() and x.max() <= lo + width


def test_spec_example_command_prints_a_spec_that_loads(tmp_path):
    import json

    from click.testing import CliRunner

    from builders.cli.main import cli

    out = CliRunner().invoke(cli, ["spec", "--example"])
    assert out.exit_code == 0, out.output
    path = tmp_path / "spec.json"
    path.write_text(out.output)
    spec = ModelSpec.from_file(path)
    assert [t.name for t in spec.inputs] == ["input_ids", "attention_mask"] and spec.dynamic_axes["seq"] == (1, 32, 128)
    assert json.loads(out.output) == spec.to_json()
    assert CliRunner().invoke(cli, ["spec"]).exit_code == 2


# --- a user's spec file is read whole: nothing in it is dropped silently -------------------------


def _spec_file(tmp_path, d):
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(d))
    return p


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        (  # the dynamic axes misspelt: the spec would be built without them
            {"inputs": [{"name": "x", "dtype": "float32", "shape": [8]}], "dynamic_axis": {"seq": [1, 8, 16]}},
            ["unknown key 'dynamic_axis' in the spec", "did you mean 'dynamic_axes'?"],
        ),
        (  # a tensor field misspelt: generated integers would ignore the range
            {"inputs": [{"name": "ids", "dtype": "int64", "shape": [8], "valuerange": [0, 5]}]},
            ["unknown key 'valuerange' in inputs[0]", "did you mean 'value_range'?"],
        ),
        (
            {
                "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
                "outputs": [{"name": "y", "dtpye": "float16", "shape": [4]}],
            },
            ["unknown key 'dtpye' in outputs[0]", "did you mean 'dtype'?"],
        ),
    ],
)
def test_a_misspelt_key_in_a_spec_file_is_named(tmp_path, doc, words):
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_file(_spec_file(tmp_path, doc))
    assert all(w in e.value.message for w in words), e.value.message
    assert "docs/schemas/input_spec.json" in (e.value.hint or "")


def test_json_schema_keys_and_the_schema_version_are_allowed(tmp_path):
    doc = {"$schema": "x", "schema": 1, "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}]}
    assert ModelSpec.from_file(_spec_file(tmp_path, doc)).inputs[0].name == "x"


@pytest.mark.parametrize("axis", [1, None])
def test_an_input_batch_axis_other_than_first_is_refused(tmp_path, axis):
    doc = {"inputs": [{"name": "x", "dtype": "float32", "shape": [4, 3], "batch_axis": axis}]}
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_file(_spec_file(tmp_path, doc))
    assert "input 'x' has batch_axis" in e.value.message and "first axis" in e.value.message


@pytest.mark.parametrize(("rng", "fixed"), [((512, 128, 16), "seq=16,128,512"), ((0, 4, 8), "seq=1,4,8")])
def test_a_range_out_of_order_says_the_range_meant(rng, fixed):
    """`--dynamic-axis time=512,128,16` was refused with no `->` line: the hint gives the sizes in order."""
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json({"inputs": [{"name": "x", "dtype": "float32", "shape": ["seq"]}], "dynamic_axes": {"seq": list(rng)}})
    assert f"--dynamic-axis {fixed}" in (e.value.hint or "")


# --- `builders spec` for a user's model: the spec its build recorded (trial 9, F25) --------------


def _user_build(tmp_path):
    """A build folder of a user's model with two outputs (what `builders build` records)."""
    from builders.repository.manifest import write_manifest

    spec = ModelSpec(
        (TensorSpec("series", "float32", (4, "time")), TensorSpec("calendar", "float32", (8,))),
        (TensorSpec("mean", "float32", (12,), key=(0,)), TensorSpec("scale", "float32", (12,), key=(1,))),
        {"time": (16, 128, 512)},
    )
    folder = tmp_path / "builds" / "forecaster"
    folder.mkdir(parents=True)
    manifest = {
        "model": "forecaster",
        "source": "/tmp/forecaster.py:forecaster",
        "created": "2026-12-02T20:00:00",
        "spec": spec.to_json(),
        "max_batch_size": 64,
    }
    write_manifest(folder / "manifest.json", manifest)
    return folder, spec


def test_spec_build_prints_the_spec_a_build_recorded_as_a_spec_file(tmp_path):
    from click.testing import CliRunner

    from builders.cli.main import cli

    folder, spec = _user_build(tmp_path)
    out = CliRunner().invoke(cli, ["spec", "--build", str(folder)])
    assert out.exit_code == 0, out.output
    path = tmp_path / "spec.json"
    path.write_text(out.output)
    assert ModelSpec.from_file(path) == spec  # reusable as --spec / DEMO_SPEC
    parent = CliRunner().invoke(cli, ["spec", "--build", str(folder.parent)])
    assert parent.exit_code == 1 and "holds no manifest.json: not a build folder" in parent.exception.message
    assert f"pass one of the builds in it: {folder}" == parent.exception.hint
    both = CliRunner().invoke(cli, ["spec", "--build", str(folder), "--model", "tiny"])
    assert both.exit_code == 2 and "exactly one of --example, --model NAME or --build FOLDER" in both.output


def test_spec_model_with_a_users_model_says_where_its_spec_is_not_to_do_what_was_done():
    from click.testing import CliRunner

    from builders.cli.main import cli

    out = CliRunner().invoke(cli, ["spec", "--model", "forecaster.py:forecaster"])
    text = out.output
    assert out.exit_code == 2  # what was typed: a usage error (T17-15)
    assert "`builders spec --model` prints a built-in model's spec, and 'forecaster.py:forecaster' is not one" in text
    assert "builders spec --build builds/<name>" in text
    assert "pass your own model as --model" not in text  # what the user just did


def test_a_missing_spec_file_lists_the_closest_json_files_and_how_many_more(tmp_path):
    """Trial 11, F15: 5 of 11 JSON files were listed, alphabetically, with no word of the 6 others (only
    those named like it are listed: break test B10)."""
    for name in ("spec_a1", "spec_a2", "spec_a3", "spec_a4", "spec_a5", "spec_a6", "spec_b", "spec_c", "specs", "spec_old", "zz"):
        (tmp_path / f"{name}.json").write_text("{}")
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_file(tmp_path / "spec.json")
    listed = e.value.message.split(f"(in {tmp_path}: ")[1]
    assert listed.startswith("specs.json, ") and listed.endswith(" and 5 more)") and "zz.json" not in listed


@pytest.mark.parametrize("shape, at", [([-1, 4], 0), ([4, -1], 1)])
def test_a_minus_one_in_an_output_gets_the_output_form(shape, at):
    """An output's -1 was told its --input flag and a --dynamic-axis range, neither of which an output takes."""
    spec = {
        "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
        "outputs": [{"name": "feat", "dtype": "float32", "shape": shape}],
    }
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json(spec)
    named = [f"feat_dim{j + 1}" if d == -1 else d for j, d in enumerate(shape)]
    assert e.value.message.startswith("output 'feat':"), e.value.message
    assert "--input" not in e.value.hint and "--dynamic-axis" not in e.value.hint, e.value.hint
    assert f'outputs "shape": {json.dumps(named)}' in e.value.hint and 'a bare name ("feat")' in e.value.hint
    if at == 0:
        assert f'outputs "shape": {json.dumps(shape[1:])}' in e.value.hint


def test_a_shape_typed_with_x_in_an_output_gets_the_output_form():
    """The -1 kind for a shape typed with x: an output's was told its --input flag."""
    spec = {
        "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
        "outputs": [{"name": "feat", "dtype": "float32", "shape": ["3x64"]}],
    }
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json(spec)
    assert e.value.message.startswith("output 'feat': dimension '3x64' is a shape typed with x"), e.value.message
    assert e.value.hint == 'give the dims one by one: in the spec file\'s outputs "shape": [3, 64]'


def test_a_build_manifest_keeps_its_rtol_when_no_export_was_verified(tmp_path):
    """Re-check of trial 18, NEW-0: every failing build given --rtol died in "RuntimeError: build manifest fields
    ['rtol.OUTPUT__0'] are not in ... BuildManifest": the build's dict, written without its schema key, was read as
    a version-1 manifest and migrated, which rebuilt rtol from the verification records (a failed export has none)."""
    import json

    from builders.repository.manifest import write_manifest

    spec = ModelSpec((TensorSpec("x", "float32", (4,)),), (TensorSpec("y", "float32", (4,)),), {})
    manifest = {
        "model": "m",
        "source": "m",
        "created": "2026-12-04T02:00:00",
        "spec": spec.to_json(),
        "max_batch_size": 2,
        "rtol": {"y": 1e-12},
    }
    saved = write_manifest(tmp_path / "manifest.failed.json", manifest)
    assert saved["rtol"] == {"y": 1e-12} == json.loads((tmp_path / "manifest.failed.json").read_text())["rtol"]
