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
