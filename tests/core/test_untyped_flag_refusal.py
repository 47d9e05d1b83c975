"""A refusal raised with a flag the user did not give is not "Invalid value for --spec" (trial 23, T23-13: `builders
build --model m.py:f` with no --spec nor --input got "Invalid value for --spec: ... needs an input spec"): it is a
usage error in the refusal's own words (exit 2); a flag given keeps click's "Invalid value for" that names it."""

from __future__ import annotations

import click
from click.testing import CliRunner

from core.cli import ToolkitCommand
from core.errors import FlagError


@click.command(cls=ToolkitCommand)
@click.option("--spec", default=None)
@click.option("--input", "inputs", multiple=True)
def build(spec: str | None, inputs: tuple[str, ...]) -> None:
    raise FlagError("--model m.py:f needs an input spec", flag="--spec", hint="pass --spec spec.json or --input ...")


def test_a_flag_not_given_is_not_said_to_have_an_invalid_value() -> None:
    res = CliRunner().invoke(build, [])
    assert res.exit_code == 2
    assert "Invalid value" not in res.output
    assert "Error: --model m.py:f needs an input spec" in res.output and "-> pass --spec spec.json" in res.output


def test_a_flag_given_is_named_as_before() -> None:
    res = CliRunner().invoke(build, ["--spec", "s.json"])
    assert res.exit_code == 2 and "Invalid value for --spec" in " ".join(res.output.split())
