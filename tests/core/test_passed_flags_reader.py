"""One reader of flags passed through to another tool (:func:`core.flag_refusals.read_passed`): tritonserver's
(``--server-arg``) and perf_analyzer's (``--perf-analyzer-arg``) were two copies of the same ``getopt_long``
reading (review D1); both now read through it, each with its own table."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from clients.runtimes import server_flags
from core.flag_refusals import read_passed
from perf.sweep import analyzer_flags


class Flag(NamedTuple):
    names: tuple[str, ...]
    value: bool = True


COUNT, VERBOSE, HELP = Flag(("--count", "-c")), Flag(("-v",), value=False), Flag(("--help",), value=False)
ALIAS = Flag(("--model-repository", "--model-store"))
LONG = {n: f for f in (COUNT, HELP, ALIAS) for n in f.names if n.startswith("--")}
SHORT = {"c": COUNT, "v": VERBOSE}


@pytest.mark.parametrize(
    "args, want",
    [
        (["--count=4"], [("--count", "--x=--count=4", "4")]),
        (["--count", "4"], [("--count", "--x=--count --x=4", "4")]),
        (["--count 4"], [("--count", "--x=--count 4", "4")]),  # one argument, as a shell passes "--count 4"
        (["--cou=4"], [("--count", "--x=--cou=4", "4")]),  # a prefix of one flag
        (["--model=a"], [("--model-repository", "--x=--model=a", "a")]),  # aliases are one flag
        (["--help"], [("--help", "--x=--help", None)]),
        (["-c4"], [("-c", "--x=-c4", "4")]),
        (["-c", "4"], [("-c", "--x=-c --x=4", "4")]),
        (["-vc4"], [("-v", "--x=-vc4", None), ("-c", "--x=-vc4", "4")]),  # bundled
        (["--unknown=1", "-z", "--", "--count=4"], []),  # unknown to the tool, and after --
    ],
)
def test_the_reader_reads_as_getopt_long(args: list[str], want: list[tuple[str, str, str | None]]) -> None:
    assert [(p.name, p.given, p.value) for p in read_passed(args, "--x", LONG, SHORT)] == want


def test_without_short_flags_a_dash_argument_is_no_flag() -> None:
    assert read_passed(["-c4", "--count=1"], "--x", LONG) == read_passed(["--count=1"], "--x", LONG)


@pytest.mark.parametrize(
    "module, args",
    [
        (server_flags, ["--http-p=9000", "--log-info", "false", "--model-store=/m", "--", "--http-port=1"]),
        (analyzer_flags, ["--conc=1:4", "-vb4", "--max-threads", "16", "-p", "500"]),
    ],
)
def test_both_tools_read_their_flags_through_the_one_reader(module: object, args: list[str]) -> None:
    table = module._LONG, getattr(module, "_SHORT", None)  # type: ignore[attr-defined]
    assert module.passed_flags(args) == read_passed(args, module.PASS_FLAG, *table)  # type: ignore[attr-defined]
    assert module.passed_flags(args)  # something is read
