"""A shape typed with x (``3x64x64``) is refused as a typo by every flag and spec field that
reads dims, with the comma-separated dims meant, never taken as the name of a dynamic axis
(new-user trial 8 F1: ``--input image:float32:3x64x64`` was told to declare the axis
``3x64x64``) nor as an unparsable size."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from builders.model.spec import ModelSpec
from builders.model.spec_flags import parse_axis_flag
from clients.shape_flags import parse_shape
from core.errors import ClientError, ModelSpecError
from core.names import x_separated_dims
from perf.sweep.flags import parse_shapes_flag

MEANT = "dims are comma-separated: did you mean 3,64,64?"


@pytest.mark.parametrize(
    ("text", "meant"),
    [("3x64x64", "3,64,64"), ("3X64", "3,64"), ("3 x 64 x 64", "3,64,64"), ("3×64", "3,64"), ("3*64", "3,64")],
)
def test_a_shape_typed_with_x_is_read_as_its_dims(text, meant):
    assert x_separated_dims(text) == meant


@pytest.mark.parametrize("text", ["seq", "x", "3", "3x", "x3", "max_len", "seq_x2", "2x_seq", ""])
def test_an_axis_name_is_not_a_shape(text):
    assert x_separated_dims(text) is None


def test_input_flag_3x64x64_is_refused_with_the_dims_meant(tmp_path):
    r = CliRunner().invoke(
        builders_cli,
        ["build", "--model", "tiny", "--input", "image:float32:3x64x64", "--format", "onnx"]
        + ["--build-dir", str(tmp_path / "b"), "--repository", str(tmp_path / "r")],
    )
    assert r.exit_code == 2, r.output  # what was typed: a usage error (T17-15)
    text = r.output
    assert MEANT in text and "--input image:float32:3,64,64" in text
    assert "dynamic-axis" not in text and "no declared range" not in text
    assert not (tmp_path / "r").exists()


def test_input_flag_keeps_its_value_range_in_the_corrected_flag():
    with pytest.raises(ModelSpecError, match=r"--input ids:int64:4,16:0\.\.9"):
        ModelSpec.from_flags(["ids:int64:4x16:0..9"], [], [])


def test_a_spec_file_shape_typed_with_x_is_refused_too():
    with pytest.raises(ModelSpecError, match=r"'3x64x64'.*did you mean 3,64,64\?") as e:
        ModelSpec.from_json({"inputs": [{"name": "image", "dtype": "float32", "shape": ["3x64x64"]}]})
    assert '"shape": [3, 64, 64]' in str(e.value)


def test_dynamic_axis_sizes_typed_with_x_are_refused():
    with pytest.raises(ModelSpecError, match=r"did you mean seq=1,64,128\?"):
        parse_axis_flag("seq=1x64x128")


def test_clients_shape_typed_with_x_is_refused():
    with pytest.raises(ClientError, match=r"did you mean image:3,64,64\?"):
        parse_shape("image:3x64x64")


def test_sweep_shapes_typed_with_x_are_refused():
    with pytest.raises(click.BadParameter, match=r"did you mean seq=16,64\?"):
        parse_shapes_flag("seq=16x64")


@pytest.mark.parametrize(
    ("parse", "text", "meant"),
    [
        (parse_shape, "image:3x64,64", "image:3,64,64"),
        (parse_shape, "image:3,64x64", "image:3,64,64"),
        (parse_axis_flag, "seq=1x64,128", "seq=1,64,128"),
        (parse_shapes_flag, "seq=16x64,128", "seq=16,64,128"),
    ],
)
def test_a_part_typed_with_x_in_a_comma_list_gets_every_dim_meant(parse, text, meant):
    """`--shape in:3x64,64` got the generic "is not NAME:dims": one part typed with x is the same typo."""
    with pytest.raises((ClientError, ModelSpecError, click.BadParameter), match=f"did you mean {meant}\\?"):
        parse(text)


def test_a_spec_shape_with_one_dim_typed_with_x_keeps_the_other_dims_in_the_hint():
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json({"inputs": [{"name": "image", "dtype": "float32", "shape": ["3x64", 64]}]})
    assert '"shape": [3, 64, 64]' in str(e.value) and "image:float32:3,64,64" in str(e.value)


@pytest.mark.parametrize(("text", "part"), [("ids:3,,4", "an empty dim"), ("ids:3,abc", "'abc'"), ("ids:seq", "'seq'")])
def test_a_dim_that_is_not_an_integer_is_named(text, part):
    with pytest.raises(ClientError, match=f"{part} is not an integer"):
        parse_shape(text)
