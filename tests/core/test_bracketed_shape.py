"""A shape typed in brackets or parentheses (``[1,H,W]``, ``(1, 48, 40)``) is told to be written without them by
every flag that reads dims or sizes (trial 30, F9: ``--input 'image:float32:[1,H,W]'`` was told about a dynamic axis
"W]" and advised ``--input image:float32:W,H,W]``; F17: ``clients infer --shape 'image:[1,48,40]'`` was advised
``--shape image:N,48,N``)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from builders.model.spec import ModelSpec
from builders.model.spec_flags import parse_axis_flag
from clients.shape_flags import XSeparated, parse_shape
from core.errors import ClientError, ModelSpecError
from core.names import bracketed_dims
from perf.sweep.flags import parse_shapes_flag


@pytest.mark.parametrize(
    ("text", "meant"), [("[1,H,W]", "1,H,W"), ("(1, 48, 40)", "1,48,40"), ("[16,32,64]/8", "16,32,64/8"), ("1,H,W", None)]
)
def test_dims_in_brackets_are_read_as_the_dims_meant(text, meant):
    assert bracketed_dims(text) == meant


def test_builders_input_in_brackets_is_refused_as_typed_with_the_flag_without_brackets(tmp_path):
    r = CliRunner().invoke(
        builders_cli,
        ["build", "--model", "tiny", "--input", "image:float32:[1,H,W]", "--dynamic-axis", "H=16,32,64/8"]
        + ["--dynamic-axis", "W=16,32,64/8", "--build-dir", str(tmp_path / "b"), "--repository", str(tmp_path / "r")],
    )
    assert r.exit_code == 2, r.output
    assert "write it without brackets: image:float32:1,H,W" in r.output
    assert "W]" not in r.output.replace("[1,H,W]", "") and not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("inputs", "outputs", "axes", "said"),
    [
        (["image:float32:(1, H, W)"], [], ["H=1,2,3", "W=1,2,3"], "write it without brackets: image:float32:1,H,W"),
        (["c:int64:3:[0..4,0..5,0..6]"], [], [], "write it without brackets: c:int64:3:0..4,0..5,0..6"),
        (["x:float32:4"], ["recon:float32:[1,H,W]"], [], "--output takes the output's name only"),
        (["x:float32:4"], ["recon[1,H,W]"], [], "--output takes the output's name only"),
        (["x:float32:seq"], [], ["seq=[1,64,128]"], "write them without brackets: seq=1,64,128"),
    ],
)
def test_every_builders_flag_that_reads_dims_refuses_brackets(inputs, outputs, axes, said):
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(inputs, outputs, axes)
    assert said in e.value.message


def test_an_output_name_alone_is_kept():
    assert [t.name for t in ModelSpec.from_flags(["x:float32:4"], ["1.feat", "logits"], []).outputs] == ["1.feat", "logits"]


def test_dynamic_axis_in_brackets_is_refused():
    with pytest.raises(ModelSpecError, match=r"write them without brackets: H=16,32,64"):
        parse_axis_flag("H=(16,32,64)")


@pytest.mark.parametrize("text", ["image:[1,48,40]", "image:(1, 48, 40)"])
def test_clients_shape_in_brackets_is_told_the_dims_without_them(text):
    with pytest.raises(XSeparated) as e:  # answered from the model as an x-separated shape is, where it is known
        parse_shape(text)
    assert "write them without brackets: image:1,48,40" in e.value.message and e.value.dims == (1, 48, 40)
    assert "N" not in e.value.hint and "--shape image:1,48,40" in e.value.hint


def test_clients_shape_in_brackets_with_names_gets_n_for_the_names_only():
    with pytest.raises(ClientError) as e:
        parse_shape("image:[1,H,W]")
    assert "write them without brackets: image:1,H,W" in e.value.message and "--shape image:1,N,N" in e.value.hint


@pytest.mark.parametrize(("text", "meant"), [("H=[16,32]", "H=16,32"), ("H=(16..64)", "H=16..64")])
def test_sweep_shapes_in_brackets_are_refused(text, meant):
    with pytest.raises(click.BadParameter, match=f"write them without brackets: {meant.replace('.', '[.]')}$"):
        parse_shapes_flag(text)
