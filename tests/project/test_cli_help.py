"""Every command's ``-h``: complete, defaults shown, listings whole; list flags read the same
way everywhere (issue 19, item 8)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from clients.cli.launch import serve_command
from clients.cli.main import cli as clients_cli
from core.cli import CommaList
from perf.cli.main import cli as perf_cli

ROOTS = {"builders": builders_cli, "clients": clients_cli, "perf": perf_cli, "launch_tritonserver": serve_command("launch")}


def _commands() -> list[tuple[str, click.Command, click.Group | None]]:
    out: list[tuple[str, click.Command, click.Group | None]] = []
    for name, root in ROOTS.items():
        if isinstance(root, click.Group):
            out += [(f"{name} {sub}", cmd, root) for sub, cmd in root.commands.items()]
        else:
            out.append((name, root, None))
    return out


COMMANDS = _commands()


@pytest.mark.parametrize("name,cmd,root", COMMANDS, ids=[n for n, _, _ in COMMANDS])
def test_every_option_has_help_and_shows_its_default(name: str, cmd: click.Command, root: click.Group | None) -> None:
    # the contexts click makes for `ROOT SUB -h`: the group's settings reach its commands
    parent = click.Context(root, info_name=name.split()[0], **root.context_settings) if root else None
    ctx = click.Context(cmd, info_name=name, parent=parent, **cmd.context_settings)
    for p in cmd.params:
        if not isinstance(p, click.Option) or p.hidden:
            continue
        assert p.help and p.help.strip(), f"{name} {p.opts[0]} has no help"
        record = p.get_help_record(ctx)
        assert record is not None
        default = p.get_default(ctx, call=False)
        unset = default is None or default is getattr(click.core, "UNSET", None)
        has_default = not unset and default not in ((), "", False) and not p.count and not p.is_flag
        if has_default:
            assert "[default:" in record[1], f"{name} {p.opts[0]} does not show its default {p.default!r}: {record[1]!r}"


def test_the_issues_missing_helps_are_there() -> None:
    runner = CliRunner()
    build = " ".join(runner.invoke(builders_cli, ["build", "-h"], terminal_width=200).output.split())
    assert "Model repository the variants are written to" in build and "[default: model_repository]" in build
    assert "The current directory is importable" in build and "--name" in build
    variants = runner.invoke(builders_cli, ["variants", "-h"]).output
    assert "Export format(s)" in variants and "Precision(s) to export" in variants
    sweep = " ".join(runner.invoke(perf_cli, ["sweep", "-h"], terminal_width=200).output.split())
    for flag in (
        "--protocol",
        "--measurement-mode",
        "--stability-percentage",
        "--results-dir",
        "--latency-budget-ms",
        "--perf-analyzer-arg",
        "--allow-failed-variants",
    ):
        assert flag in sweep
    assert "[default: grpc]" in sweep and "[default: results]" in sweep and "[default: auto]" in sweep
    assert "relative tolerance of one output" in build.lower()


def test_sweep_does_not_offer_server_flags_it_would_ignore() -> None:
    sweep = CliRunner().invoke(perf_cli, ["sweep", "-h"]).output
    for flag in ("--model-control", "--load-model", "--log-file"):
        assert flag not in sweep
    res = CliRunner().invoke(perf_cli, ["sweep", "--load-model", "x"])
    assert res.exit_code == 2 and "No such option '--load-model'" in res.output
    # the launcher keeps them
    serve = CliRunner().invoke(clients_cli, ["serve", "-h"]).output
    assert "--model-control" in serve and "--load-model" in serve and "'mlp_*'" in serve


@pytest.mark.parametrize("root", ["builders", "clients", "perf"])
def test_group_listing_shows_whole_first_sentences(root: str) -> None:
    group = ROOTS[root]
    out = CliRunner().invoke(group, ["-h"], terminal_width=80).output
    listing = out.split("Commands:")[1]
    assert "..." not in listing
    for name, cmd in group.commands.items():
        first = cmd.get_short_help_str(limit=10_000)
        assert " ".join(first.split()[:6]) in " ".join(out.split()), f"{root} {name}: {first!r} cut in the listing"


def _grid(args: list[str]) -> str:
    res = CliRunner().invoke(builders_cli, ["variants", "--model", "m", "--server-gpu", *args])
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize(
    "comma,repeated",
    [
        (["--instance-kind", "cpu,gpu"], ["--instance-kind", "cpu", "--instance-kind", "gpu"]),
        (["--instance-counts", "1,2,4"], ["--instance-counts", "1", "--instance-counts", "2", "--instance-counts", "4"]),
        (["--dynamic-batching", "off,100"], ["--dynamic-batching", "off", "--dynamic-batching", "100"]),
        (["--max-batch-sizes", "8,16"], ["--max-batch-sizes", "8", "--max-batch-sizes", "16"]),
        (["--format", "onnx,torchscript"], ["--format", "onnx", "--format", "torchscript"]),
        (["--warmup", "off,zero"], ["--warmup", "off", "--warmup", "zero"]),
    ],
)
def test_grid_flags_take_comma_lists_and_repeats_alike(comma: list[str], repeated: list[str]) -> None:
    assert _grid(comma) == _grid(repeated)


def test_instance_kind_comma_list_gives_both_kinds() -> None:
    out = _grid(["--instance-kind", "cpu,gpu", "--instance-counts", "1", "--dynamic-batching", "off", "--format", "onnx"])
    assert "m_onnx_cpu1_nodb_mbs64" in out and "m_onnx_gpu1_nodb_mbs64" in out


def test_a_bad_list_item_is_named() -> None:
    res = CliRunner().invoke(builders_cli, ["variants", "--instance-kind", "cpu,tpu"])
    assert res.exit_code == 2 and "'tpu'" in res.output
    res = CliRunner().invoke(perf_cli, ["sweep", "--batch-sizes", "1,0"])
    assert res.exit_code == 2 and "'0'" in res.output


def test_concurrency_mixes_lists_and_ranges() -> None:
    t = CommaList(__import__("perf.sweep.flags", fromlist=["concurrency_item"]).concurrency_item)
    assert t.convert("1,4:8:2,16", None, None) == (1, 4, 6, 8, 16)


def test_perf_analyzer_pass_through_flags_end_every_measurement_command(tmp_path) -> None:
    from pathlib import Path

    from perf.measure.analyzer import build_command
    from perf.records.settings import MeasureSettings

    m = MeasureSettings(extra_args=("--max-threads=16", "--string-length=8"))
    cmd = build_command(Path("pa"), "m", "localhost:1", 2, 1, tmp_path / "x.csv", m, input_args=["--shape", "x:4"])
    assert cmd[-4:] == ["--shape", "x:4", "--max-threads=16", "--string-length=8"]


def test_clients_check_variants_are_a_list_flag_too() -> None:
    ctx = clients_cli.commands["check"].make_context("check", ["--variant", "a_*,b", "--variants", "c"])
    assert ctx.params["variants"] == ("a_*", "b", "c")


def _comma_list_flags() -> list[tuple[str, click.Command, str]]:
    return [
        (name, cmd, next(o for o in p.opts if o.startswith("--")))
        for name, cmd, _ in COMMANDS
        for p in cmd.params
        if isinstance(p.type, CommaList)
    ]


COMMA_FLAGS = _comma_list_flags()


@pytest.mark.parametrize("empty", [",", " ", ""])
@pytest.mark.parametrize("name,cmd,flag", COMMA_FLAGS, ids=[f"{n} {f}" for n, _, f in COMMA_FLAGS])
def test_a_comma_list_that_names_nothing_is_refused(name: str, cmd: click.Command, flag: str, empty: str) -> None:
    """Break test B14: ``--variants ','`` (an unset shell variable in a list) swept every variant, the
    flag's empty list read as not given; every comma-list flag refuses it, a list with one real part
    keeps working (``a,,``)."""
    with pytest.raises(click.BadParameter, match="names nothing"):
        cmd.make_context(name, [flag, empty], resilient_parsing=False)


def test_empty_parts_beside_a_real_one_are_skipped() -> None:
    ctx = clients_cli.commands["check"].make_context("check", ["--variants", "a,,b,"])
    assert ctx.params["variants"] == ("a", "b")


def test_start_timeout_s_help_says_it_bounds_every_model_load() -> None:
    # trial 31, F8: "Seconds to wait for the server to become ready" in every command, while it also bounds each load
    # the command asks for (bb33157d, 44a07269) and a sweep's load stops at its --time-budget's end
    seen = []
    for name, cmd, _root in COMMANDS:
        for p in cmd.params:
            if isinstance(p, click.Option) and "--start-timeout" in p.opts:
                seen.append(name)
                words = " ".join((p.help or "").split())
                assert "each model load" in words and "--time-budget" in words, f"{name} --start-timeout: {words!r}"
    assert {"clients check", "perf sweep", "perf colocate", "launch_tritonserver"} <= set(seen), seen
