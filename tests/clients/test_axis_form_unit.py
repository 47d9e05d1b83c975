"""``--shape AXIS=SIZE`` (the sweep's ``--shapes`` form) is told the ``NAME:dims`` to give, built from the model's
config (trial 26, T26-14: ``clients infer --shape time=4000`` got only "is not NAME:dims ... e.g. --shape
input_ids:128", and ``triton-perf coldstart`` the same); and the sweep's ``--shapes NAME:dims`` the ``AXIS=SIZE``
form. The server is faked; the repositories are this file's own."""

from __future__ import annotations

from typing import Any

import click
import pytest
from click.testing import CliRunner

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.cli.main import cli as clients_cli
from clients.inputs import ModelSignature
from clients.shape_flags import AxisForm, parse_shape, parse_shapes
from clients.shape_refusals import axis_form_refusal
from perf.cli.main import cli as perf_cli
from perf.sweep.flags import parse_shapes_flag

#: A sonar model: a pulse of one channel over a dynamic span, and a gain of fixed size.
SONAR = ModelSpec(
    inputs=(TensorSpec("pulse", "float32", (1, "span")), TensorSpec("gain", "float32", (2,))),
    outputs=(TensorSpec("echo", "float32", (6,)),),
    dynamic_axes={"span": (400, 2000, 4000)},
)
INPUTS = [("pulse", [1, -1]), ("gain", [2])]
#: Two token inputs that share the axis seq.
TOKENS = ModelSpec(
    inputs=(TensorSpec("ids", "int64", ("seq",), (0, 9)), TensorSpec("mask", "int64", ("seq",), (0, 1))),
    outputs=(TensorSpec("y", "float32", (2,)),),
    dynamic_axes={"seq": (1, 16, 64)},
)
CONFIG = {
    "name": "sonar_onnx_cpu1_nodb_mbs8",
    "max_batch_size": 8,
    "input": [
        {"name": "pulse", "data_type": "TYPE_FP32", "dims": [1, -1]},
        {"name": "gain", "data_type": "TYPE_FP32", "dims": [2]},
    ],
    "output": [{"name": "echo", "data_type": "TYPE_FP32", "dims": [6]}],
}


def _said(e: Any) -> str:
    return " ".join(str(e).split())


def _typed(text: str) -> AxisForm:
    with pytest.raises(AxisForm) as e:
        parse_shape(text)
    return e.value


def test_the_axis_form_is_named_as_such_without_the_model():
    said = _said(_typed("span=2000"))
    assert "--shape 'span=2000' is AXIS=SIZE (triton-perf sweep --shapes' form" in said and "not NAME:dims" in said
    assert "--shapes span=2000 sends that size of the axis" in said
    with pytest.raises(AxisForm):
        parse_shapes(["gain:2", "span=2000"])
    assert parse_shape("pulse:1,2000") == ("pulse", (1, 2000))  # NAME:dims itself unchanged


def test_the_model_says_the_axis_and_the_name_dims_that_send_it():
    said = _said(axis_form_refusal(_typed("span=900"), "sonar", INPUTS, 8, SONAR))
    assert "span is a dynamic axis of sonar (input pulse, config dims [1, -1]" in said
    assert "did you mean --shape pulse:1,900?" in said
    shared = _said(axis_form_refusal(_typed("seq=32"), "tok", [("ids", [-1]), ("mask", [-1])], 8, TOKENS))
    assert "--shape ids:32" in shared and "mask takes the same size of the shared axis" in shared
    several = _said(axis_form_refusal(_typed("span=900,1800"), "sonar", INPUTS, 8, SONAR))
    assert "--shape pulse:1,900" in several and "triton-perf sweep --shapes span=900,1800 measures each" in several
    unknown = _said(axis_form_refusal(_typed("time=900"), "sonar", INPUTS, 8, SONAR))
    assert "time names no dynamic axis of sonar (its dynamic axes: span)" in unknown
    assert "e.g. --shape pulse:1,N (config dims [1, -1], N the size)" in unknown
    colon = _said(axis_form_refusal(_typed("pulse=1,900"), "sonar", INPUTS, 8, SONAR))
    assert "NAME:dims takes a colon: did you mean pulse:1,900?" in colon


def test_clients_infer_names_the_axis_and_the_dims(fake_build, monkeypatch: pytest.MonkeyPatch):
    import clients.infer

    repo = fake_build(SONAR, Variant("sonar", "onnx", max_batch_size=8))
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(CONFIG))
    res = CliRunner().invoke(
        clients_cli, ["infer", "sonar_onnx_cpu1_nodb_mbs8", "--url", "localhost:1", "-r", str(repo), "--shape", "span=900"]
    )
    said = _said(res.output)
    assert res.exit_code == 2, said  # a usage error, as before
    assert "span is a dynamic axis of sonar_onnx_cpu1_nodb_mbs8" in said and "did you mean --shape pulse:1,900?" in said


def test_clients_infer_without_a_server_says_the_form(monkeypatch: pytest.MonkeyPatch):
    res = CliRunner().invoke(clients_cli, ["infer", "m", "--url", "localhost:1", "--shape", "span=900"])
    said = _said(res.output)
    assert res.exit_code == 2 and "is AXIS=SIZE (triton-perf sweep --shapes' form" in said, said


def test_coldstart_names_the_axis_and_the_dims(fake_build):
    repo = fake_build(SONAR, Variant("sonar", "onnx", max_batch_size=8))
    (repo / "sonar_onnx_cpu1_nodb_mbs8" / "config.pbtxt").write_text(
        'name: "sonar_onnx_cpu1_nodb_mbs8"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
        'input [{ name: "pulse" data_type: TYPE_FP32 dims: [1, -1] }, { name: "gain" data_type: TYPE_FP32 dims: [2] }]\n'
    )
    res = CliRunner().invoke(perf_cli, ["coldstart", "-r", str(repo), "--shape", "span=900"], terminal_width=400)
    said = _said(res.output)
    assert res.exit_code == 2, said
    assert "span is a dynamic axis of sonar_onnx_cpu1_nodb_mbs8" in said and "did you mean --shape pulse:1,900?" in said


def test_the_sweeps_shapes_given_name_dims_is_told_both_forms():
    with pytest.raises(click.BadParameter) as e:
        parse_shapes_flag("pulse:1,900")
    said = _said(e.value.message)
    assert "--shapes 'pulse:1,900' is NAME:dims (--shape's form" in said and "did you mean --shapes AXIS=900" in said
    assert "--shape pulse:1,900 to send these dims at every level" in said


#: An image model whose build names its dynamic axes H and W (s22z's findings' model).
IMAGE = ModelSpec(
    inputs=(TensorSpec("image", "uint8", (3, "H", "W"), (0, 255)),),
    outputs=(TensorSpec("y", "float32", (2,)),),
    dynamic_axes={"H": (16, 32, 64), "W": (16, 32, 64)},
)
IMAGE_CONFIG = 'name: "{name}"\nbackend: "onnxruntime"\nmax_batch_size: 4\ninput [{{ name: "image" data_type: TYPE_UINT8 dims: [3, -1, -1] }}]\n'


def _image_repo(fake_build) -> Any:
    variant = Variant("img", "onnx", max_batch_size=4)
    repo = fake_build(IMAGE, variant)
    (repo / variant.name / "config.pbtxt").write_text(IMAGE_CONFIG.format(name=variant.name))
    return repo, variant.name


@pytest.mark.parametrize("command", ["sweep", "coldstart"])
def test_the_sweep_and_coldstart_answer_the_axis_form_from_the_models_config(fake_build, command):
    """s22z, Z-15: the sweep's `--shape H=16` got the form's own words ("an input of dims [1, H]: --shape NAME:1,16")
    where clients infer named `--shape image:3,16,32`: one helper answers all three (clients.shape_flags)."""
    repo, name = _image_repo(fake_build)
    res = CliRunner().invoke(perf_cli, [command, "-r", str(repo), "--shape", "H=16"], terminal_width=400)
    said = _said(res.output)
    assert res.exit_code == 2, said
    assert f"H is a dynamic axis of {name} (input image, config dims [3, -1, -1]" in said, said
    assert "did you mean --shape image:3,16,32?" in said and "NAME:1,16" not in said, said


def test_the_sweeps_shapes_of_name_dims_are_told_the_builds_axes(fake_build):
    """s22z, Z-15: `--shapes image:3,16,16` was told "--shapes AXIS=16, AXIS the build's name of image's dynamic axis"
    although the build names H and W."""
    repo, name = _image_repo(fake_build)
    res = CliRunner().invoke(perf_cli, ["sweep", "-r", str(repo), "--shapes", "image:3,16,24"], terminal_width=400)
    said = _said(res.output)
    assert res.exit_code == 2, said
    assert "did you mean --shapes H=16 --shapes W=24 (the axes of image's dynamic dims, config dims [3, -1, -1]" in said
    assert "or --shape image:3,16,24 to send these dims at every level?" in said and "AXIS the build's name" not in said


def test_a_flag_that_names_no_input_gets_an_example_of_the_models_inputs(fake_build, monkeypatch: pytest.MonkeyPatch):
    """s22z, Z-7: `--shape image:3,x,40` and `image:3,0,40` got `e.g. --shape input_ids:128`, an input the model lacks."""
    import clients.infer

    repo, name = _image_repo(fake_build)
    config = {"name": name, "max_batch_size": 4, "input": [{"name": "image", "data_type": "TYPE_UINT8", "dims": [3, -1, -1]}]}
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))

    def infer(shape: str) -> str:
        res = CliRunner().invoke(clients_cli, ["infer", name, "--url", "localhost:1", "-r", str(repo), "--shape", shape])
        assert res.exit_code == 2, res.output
        return _said(res.output)

    for typed, example in (("image:3,x,40", "--shape image:3,N,40 with N"), ("image:3,0,40", "--shape image:3,N,40 with N")):
        assert example in infer(typed) and "input_ids" not in infer(typed)
    assert "did you mean --shape image:3,24,40?" in infer("3,24,40")  # dims without the name: the input they fit
    assert "did you mean --shape image:3,24,40?" in infer("24,40")  # its dynamic dims alone too
    assert "e.g. --shape image:3,32,32 (img_onnx" in infer("image")  # the model's own input at the sizes it is sent
    # s22z, Z-7: the channel left out, and an axis typed as an input's name, are told the --shape to give
    assert "does not fit its config dims [3, -1, -1] (-1 = dynamic): did you mean --shape image:3,24,40?" in infer("image:24,40")
    assert "did you mean --shape image:3,24,40?" in infer("image:1,24,40")  # a fixed dim typed otherwise
    axis = infer("H:24")
    assert "--shape 'H:24' names an axis, not an input: H is a dynamic axis of img_onnx" in axis, axis
    assert "did you mean --shape image:3,24,32?" in axis and "names no input" not in axis
    res = CliRunner().invoke(perf_cli, ["coldstart", "-r", str(repo), "--shape", "x"], terminal_width=400)
    assert "e.g. --shape image:3,32,32" in _said(res.output) and "input_ids" not in res.output


@pytest.mark.parametrize(
    "typed, said",
    [
        ("H:24", "did you mean --shapes H=24?"),
        ("H:24,48", "did you mean --shapes H=24,48?"),
        ("H:200", "--shapes H=200 would sweep 200, outside the axis's range 16..64"),
    ],
)
def test_the_sweeps_shapes_of_an_axis_typed_as_an_input_are_told_axis_equals_size(fake_build, typed, said):
    """Trial 29, T29-11: `--shapes time:32` (time an axis of the build) was offered `--shape time:32`, which the same
    command refuses (time names no input), and a template `--shapes AXIS=32`: now `--shapes time=32`, where taken."""
    repo, name = _image_repo(fake_build)
    res = CliRunner().invoke(perf_cli, ["sweep", "-r", str(repo), "--shapes", typed], terminal_width=400)
    out = _said(res.output)
    assert res.exit_code == 2, out
    assert said in out and f"or --shape {typed}" not in out and "--shapes AXIS=" not in out, out
    if "did you mean" in said:  # the offered flag is taken by the sweep's own parse and range check
        from perf.sweep.flags import parse_shapes_flag

        axis, sizes = parse_shapes_flag(said.split("did you mean --shapes ")[1].rstrip("?"))
        lo, _, hi = IMAGE.dynamic_axes[axis]
        assert all(lo <= int(s) <= hi for s in sizes)
