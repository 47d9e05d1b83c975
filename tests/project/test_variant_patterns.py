"""Every flag that takes variant names or patterns reads a value by one parser
(:func:`core.naming.variant_patterns`): a comma list means several patterns everywhere (trial 12, F3:
the launcher's ``--load-model A,B`` was matched as one name, and its "did you mean" dropped ``B``)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from clients.cli.launch import serve_command
from clients.server import ServerOptions, TritonServer
from core.naming import PATTERNS_METAVAR, variant_patterns
from perf.cli.main import cli as perf_cli
from tests.project.test_cli_help import COMMANDS

PATTERN_FLAGS = [
    (name, cmd, p)
    for name, cmd, _ in COMMANDS
    for p in cmd.params
    if isinstance(p, click.Option) and "PATTERN" in str(p.metavar or getattr(p.type, "_metavar", None) or "")
]


def test_the_pattern_flags_are_found() -> None:
    found = {(name, p.opts[0]) for name, _, p in PATTERN_FLAGS}
    assert {
        ("launch_tritonserver", "--load-model"),
        ("clients check", "--variant"),
        ("perf sweep", "--variants"),
        ("perf baseline", "--variants"),
        ("perf coldstart", "--variants"),
        ("perf colocate", "--model"),
    } <= found


@pytest.mark.parametrize("name,cmd,param", PATTERN_FLAGS, ids=[f"{n} {p.opts[0]}" for n, _, p in PATTERN_FLAGS])
def test_every_pattern_flag_takes_a_comma_list_and_repeats(name: str, cmd: click.Command, param: click.Option) -> None:
    values = ["m=a_*,b", "n=c"] if "=" in str(param.metavar) else ["a_*,b", "c"]
    got = param.process_value(click.Context(cmd, info_name=name), values)
    want = {"m": ("a_*", "b"), "n": ("c",)} if isinstance(got, dict) else ("a_*", "b", "c")
    assert got == want
    assert "=" in str(param.metavar) or param.type.get_metavar(param, None) == PATTERNS_METAVAR  # type: ignore[call-arg]


def test_the_parser_splits_strips_and_refuses_what_no_name_holds() -> None:
    assert variant_patterns(" mlp_onnx_*, tiny_ts_cpu1_nodb_mbs64 ,") == ["mlp_onnx_*", "tiny_ts_cpu1_nodb_mbs64"]
    assert variant_patterns("m[!x]?_*.v-1") == ["m[!x]?_*.v-1"]
    with pytest.raises(ValueError, match=r"'mlp onnx' is not a variant name or shell pattern \(it holds ' '\)"):
        variant_patterns("mlp onnx")
    with pytest.raises(click.BadParameter, match="is not a variant name"):
        perf_cli.commands["sweep"].make_context("sweep", ["--variants", "mlp_*,a/b"])


@pytest.mark.parametrize("empty", [",", " , "])
def test_a_value_that_names_no_variant_is_refused_not_every_variant(empty: str) -> None:
    """Break test B14: an empty list (an unset shell variable) is not "no flag": ``colocate --model
    a=,`` gave model ``a`` no pattern, which the repository matches as every variant."""
    with pytest.raises(ValueError, match="names no variant"):
        variant_patterns(empty)
    with pytest.raises(click.BadParameter, match=r"is not a PATTERN"):
        perf_cli.commands["colocate"].make_context("colocate", ["--model", f"a={empty}", "--model", "b=x"])


def test_the_launcher_loads_both_names_of_a_comma_list(tmp_path: Path) -> None:
    names = ("kws_onnx_cpu1_nodb_mbs64", "kws_ts_cpu1_nodb_mbs64", "kws_onnx_cpu2_db500_mbs64")
    for n in names:
        (tmp_path / n / "1").mkdir(parents=True)
        (tmp_path / n / "config.pbtxt").write_text(f'name: "{n}"\nbackend: "python"\nmax_batch_size: 8\n')
    params = (
        serve_command("launch").make_context("launch", ["-r", str(tmp_path), "--load-model", f"{names[0]},{names[1]}"]).params
    )
    srv = TritonServer(ServerOptions(tmp_path, runtime="bundled", load_models=params["load_models"]))
    assert srv.opts.load_models == names[:2]
