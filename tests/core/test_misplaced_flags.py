"""Flags in the wrong place (issue 26): a subcommand's option given before the subcommand's name
got click's bare "No such option"; ``builders variants --model file.py:factory`` (there --model is
the model's name) said only that the name is not safe as a directory name."""

from __future__ import annotations

from click.testing import CliRunner

from builders.cli.main import cli as builders
from perf.cli.main import cli as perf


def _text(result: object) -> str:
    return " ".join(getattr(result, "output", "").split())


def test_a_subcommands_option_before_its_name_names_the_subcommands_that_take_it() -> None:
    res = CliRunner().invoke(builders, ["--model", "kwspot.py:kwspot", "build"], prog_name="builders")
    assert res.exit_code == 2 and "--model is an option of `builders build`" in _text(res)
    assert "not of `builders` itself: put it after the command's name (`builders build --model ...`)" in _text(res)
    res = CliRunner().invoke(perf, ["--latency-budget-ms", "5", "report", "results/kw1"], prog_name="triton-perf")
    assert res.exit_code == 2 and "`triton-perf report`" in _text(res)
    assert "(`triton-perf report --latency-budget-ms ...`)" in _text(res)  # the subcommand given after it
    res = CliRunner().invoke(perf, ["--bogus", "report"], prog_name="triton-perf")
    assert res.exit_code == 2 and "No such option '--bogus'" in _text(res)  # no subcommand takes it: click's words


def test_the_fix_never_names_a_subcommand_the_user_did_not_give() -> None:
    """``triton-perf --latency-budget-ms 5 coldstart``: coldstart does not take it; the hint said
    "put it after the command's name (`triton-perf colocate --latency-budget-ms ...`)", a command
    the user never named (the first that takes it)."""
    res = CliRunner().invoke(perf, ["--latency-budget-ms", "5", "coldstart", "x"], prog_name="triton-perf")
    text = _text(res)
    assert res.exit_code == 2 and "--latency-budget-ms is an option of `triton-perf " in text
    assert "`triton-perf coldstart` does not take it" in text
    assert "put it after" not in text
    res = CliRunner().invoke(perf, ["--latency-budget-ms", "5"], prog_name="triton-perf")  # no subcommand given
    text = _text(res)
    assert res.exit_code == 2 and "(`triton-perf COMMAND --latency-budget-ms ...`)" in text


def test_builders_variants_model_is_the_name_and_a_factory_there_says_so() -> None:
    res = CliRunner().invoke(builders, ["variants", "--model", "kwspot.py:kwspot", "--instance-counts", "1,2"])
    assert res.exit_code == 2 and "'kwspot.py:kwspot' is a model file or factory" in _text(res)
    assert "takes the model's name" in _text(res) and "e.g. --model kwspot" in _text(res)
    assert "kwspot_onnx_cpu2_nodb_mbs64" in CliRunner().invoke(builders, ["variants", "--model", "kwspot"]).output
