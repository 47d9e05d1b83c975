"""Every refusal of a flag's value names the flag once (issue 26): click puts ``Invalid value for
'--shapes':`` in front of a refusal, and the toolkit's own refusals start with the flag and its value
(``--shapes 'seq=16;64': ...``), so the two read "Invalid value for '--shapes': --shapes 'seq=16;64'".
Checked over every option of every command (a flag's callback), and for the refusals a command raises
in its body (:func:`core.flag_refusals.parse_flag`, :class:`core.errors.FlagError`)."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from clients.cli.main import cli as clients_cli
from core.cli import ToolkitCommand
from core.errors import FlagError
from core.flag_refusals import parse_flag
from perf.cli.main import cli as perf_cli
from tests.project.test_cli_help import COMMANDS

#: Values a flag of any kind refuses somewhere: words, numbers out of range, broken NAME:dims and AXIS=SIZE forms.
BAD_VALUES = ("x", "0", "-1", "a:b:c", "x:3x4", "x:0", "a=1:2", "seq=16;64", "a=1,b=2", "a=1..0", ":", "=", "x=")
#: "Invalid value for '--shapes': --shapes ..." (click's param hint quoted or not).
TWICE = re.compile(r"Invalid value for '?(-[\w-]+)'?: \1(?![\w-])")


def _value_options() -> list[tuple[str, click.Command, str, bool]]:
    return [
        (name, cmd, flags[0], p.multiple)
        for name, cmd, _ in COMMANDS
        for p in cmd.params
        if isinstance(p, click.Option) and not p.is_flag and not p.count
        if (flags := [o for o in (*p.opts, *p.secondary_opts) if o.startswith("-")])
    ]


OPTIONS = _value_options()


def _refusals(name: str, cmd: click.Command, flag: str, many: bool) -> list[str]:
    out = []
    for value in BAD_VALUES:
        try:
            cmd.make_context(name, [flag, value, *([flag, value] if many else [])], resilient_parsing=False)
        except click.BadParameter as e:
            out.append(e.format_message())
        except click.ClickException:
            pass
    return out


def test_no_flag_refusal_names_its_flag_twice() -> None:
    named = {}
    for name, cmd, flag, many in OPTIONS:
        for text in _refusals(name, cmd, flag, many):
            assert not TWICE.search(text), f"{name} {flag}: {text}"
            if text.startswith(flag + " "):
                named.setdefault((name, flag), text)
    # the refusals that start with their flag are there (not a check that found nothing to check)
    assert {("perf sweep", "--shapes"), ("perf sweep", "--shape"), ("builders build", "--rtol")} <= set(named), named
    assert named[("perf sweep", "--shapes")].startswith("--shapes 'x' is not AXIS=SIZE")


@pytest.mark.parametrize(
    "cli, args, said",
    [
        (clients_cli, ["infer", "m", "--shape", "x:3x4"], "Error: --shape 'x:3x4': dims are comma-separated"),
        (perf_cli, ["coldstart", "--shape", "x"], "Error: --shape 'x' is not NAME:dims"),
        (perf_cli, ["sweep", "--shapes", "seq=16;64"], "Error: --shapes 'seq=16;64': '16;64' is not a size"),
    ],
)
def test_a_commands_own_refusal_names_the_flag_once(cli: click.Group, args: list[str], said: str) -> None:
    res = CliRunner().invoke(cli, args, terminal_width=400)
    assert res.exit_code == 2, res.output
    assert said in res.output and not TWICE.search(res.output), res.output


def _command(raise_it: Exception) -> click.Command:
    def body() -> None:
        raise raise_it

    return ToolkitCommand("c", callback=body)


@pytest.mark.parametrize(
    "error, said",
    [
        (FlagError("--shapes sq names no axis", flag="--shapes"), "Error: --shapes sq names no axis"),
        (FlagError("'sq' names no axis", flag="--shapes"), "Error: Invalid value for --shapes: 'sq' names no axis"),
        (FlagError("--shape x:1 is refused", flag="--shapes"), "Error: Invalid value for --shapes: --shape x:1 is refused"),
    ],
)
def test_a_flag_error_names_its_flag_once_and_no_other_flag_is_taken_for_it(error: FlagError, said: str) -> None:
    res = CliRunner().invoke(_command(error), [])
    assert res.exit_code == 2 and said in res.output, res.output


def test_a_parser_run_in_a_commands_body_names_its_flag_once() -> None:
    def parse(_: object) -> None:
        raise ValueError("--shapes 'x' is not AXIS=SIZE")

    def body() -> None:
        parse_flag(parse, "x", hint="--shapes")

    res = CliRunner().invoke(ToolkitCommand("c", callback=body), [])
    assert res.exit_code == 2 and "Error: --shapes 'x' is not AXIS=SIZE" in res.output, res.output
    assert not TWICE.search(res.output)


def test_a_command_given_a_context_alone_keeps_its_short_help_flag() -> None:
    """A subcommand's first context made without its group (as this file's checks do) fixed its
    help option to ``--help`` alone: ``clients check -h`` then answered "No such option '-h'"."""
    fresh = clients_cli.commands["check"]
    fresh.make_context("check", ["--variants", "a"], resilient_parsing=True)
    res = CliRunner().invoke(clients_cli, ["check", "-h"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert "--variants" in res.output
