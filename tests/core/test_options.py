"""Flags generated from options objects (core.options, issue 23 item 2): a flag's help, default
and type are its field's; a field added to the server options is a flag that reaches
ServerOptions with no other edit; which flags were given comes from click's ParameterSource;
long commands group their help into titled panels (``--help`` importing no heavy library:
tests/project/test_cli_imports.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import click
import pytest
from click.testing import CliRunner
from pydantic import Field
from pydantic.dataclasses import dataclass

import clients.cli.options as server_flags
from clients.runtimes.options import SERVER_PANEL, ServerOptions
from core.errors import PerfError
from core.options import Flag, build, fields, given_fields, option, options
from core.units import Duration
from perf.records.settings import MeasureSettings
from perf.sweep.options import SERVER_SETTINGS, SWEEP_SETS, SweepOptions


def _param(spec: Any) -> click.Option:
    cmd = spec(click.Command("c", callback=lambda **_: None))
    return cmd.params[0]


def test_a_generated_option_has_its_fields_help_default_and_type() -> None:
    f = {x.name: x for x in fields(ServerOptions)}["metrics_interval_ms"]
    p = _param(option(ServerOptions, "metrics_interval_ms"))
    assert p.opts == ["--metrics-interval-ms"] and p.name == "metrics_interval_ms"
    assert p.help == f.description and p.default == f.default == 500
    assert isinstance(p.type, Duration) and p.type.low == 1 and p.type.high is None  # Field(ge=1), "250ms" read too
    budget = _param(option(SweepOptions, "latency_budget_ms"))
    assert budget.opts == ["--latency-budget-ms"] and budget.default is None
    assert budget.type == click.STRING and budget.metavar == "MS"  # "50" or "50ms": core.units.parse_ms, which refuses <= 0
    interval = _param(option(MeasureSettings, "measurement_interval_ms"))  # a field that keeps its API name
    assert interval.opts == ["--measurement-interval"] and interval.default == MeasureSettings().measurement_interval_ms
    port = _param(option(ServerOptions, "http_port"))
    assert (port.type.min, port.type.max) == (0, 65535)
    repo = _param(option(ServerOptions, "repository"))
    assert repo.opts == ["-r", "--repository"] and repo.default == ServerOptions().repository
    assert isinstance(repo.type, click.Path) and not repo.type.file_okay


def test_every_server_field_is_a_flag_of_serve_with_the_fields_help() -> None:
    from clients.cli.launch import serve_command
    from clients.runtimes.options import runtime_help

    params = {p.name: p for p in serve_command("serve").params if isinstance(p, click.Option) and not p.hidden}
    for f in fields(ServerOptions):
        if f.flag.skip or f.flag.panel == "A running server (--runtime remote)":  # serve starts its own server
            continue
        assert f.name in params, f"--{f.name} missing from serve"
        # a command that starts its server offers no --runtime remote (trial 25, T25-13)
        assert params[f.name].help == (runtime_help(remote=False) if f.name == "runtime" else f.description)


def test_a_field_added_to_the_server_options_is_a_flag_that_reaches_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    @dataclass
    class Wider(ServerOptions):
        pinned_memory_mb: Annotated[int, Flag(panel=SERVER_PANEL)] = Field(
            default=256, ge=0, description="tritonserver --pinned-memory-pool-byte-size, MiB."
        )

    monkeypatch.setattr(server_flags, "ServerOptions", Wider)  # the one edit: a field on the options object
    seen: dict[str, Any] = {}

    @click.command()
    @server_flags.server_options
    def cmd(server_opts: Any) -> None:
        seen["opts"] = server_opts

    assert "--pinned-memory-mb" in CliRunner().invoke(cmd, ["--help"]).output
    res = CliRunner().invoke(cmd, ["-r", str(tmp_path), "--pinned-memory-mb", "64", "--runtime", "bundled"])
    assert res.exit_code == 0, res.output
    assert seen["opts"].pinned_memory_mb == 64 and seen["opts"].runtime == "bundled"
    res = CliRunner().invoke(cmd, ["--pinned-memory-mb", "-1"])
    assert res.exit_code == 2 and "--pinned-memory-mb" in res.output  # the field's ge=0, as a click range


def test_a_sweep_saves_every_server_field_but_the_ones_it_sets_itself() -> None:
    names = [f.name for f in dataclasses.fields(ServerOptions)]  # and which flags were typed: not a setting
    assert list(SERVER_SETTINGS) == [n for n in names if n not in ("repository", "given", *SWEEP_SETS)]


@dataclass
class _Inner:
    protocol: Annotated[str, Flag(choices=("grpc", "http"))] = Field(default="grpc", description="Protocol.")


@dataclass
class _Opts:
    sizes: tuple[int, ...] = Field(default=(1,), description="Sizes.")
    deploy: Annotated[bool, Flag(decls=("--no-deploy",))] = Field(default=True, description="Load nothing.")
    upload: Annotated[int | None, Flag(decls=("--upload-mb",), scale=2**20, type=click.FloatRange(0))] = Field(
        default=None, description="MiB."
    )
    inner: Annotated[_Inner, Flag(nested=True)] = Field(default_factory=_Inner)


def _run(args: list[str]) -> tuple[_Opts, frozenset[str]]:
    got: dict[str, Any] = {}

    @click.command()
    @options(_Opts)
    @click.pass_context
    def cmd(ctx: click.Context, **params: Any) -> None:
        got["given"] = given_fields(_Opts, ctx)
        got["opts"] = build(_Opts, params)
        assert not params  # every flag went into the object

    res = CliRunner().invoke(cmd, args)
    assert res.exit_code == 0, res.output
    return got["opts"], got["given"]


def test_given_flags_come_from_parameter_source_not_from_values() -> None:
    opts, given = _run([])
    assert opts == _Opts() and given == frozenset()
    opts, given = _run(["--sizes", "1", "--protocol", "grpc"])  # the defaults, passed on purpose
    assert opts == _Opts() and given == {"sizes", "inner", "protocol"}
    opts, given = _run(["--sizes", "2,4", "--sizes", "8", "--no-deploy", "--upload-mb", "1.5", "--protocol", "http"])
    assert opts.sizes == (2, 4, 8) and opts.deploy is False and opts.upload == 3 * 2**19 and opts.inner.protocol == "http"
    assert given == {"sizes", "deploy", "upload", "inner", "protocol"}


def test_long_commands_group_their_help_into_panels() -> None:
    from builders.cli.main import cli as builders_cli
    from perf.cli.main import cli as perf_cli

    sweep = CliRunner().invoke(perf_cli, ["sweep", "--help"]).output
    for title in ("What to sweep:", "perf_analyzer measurement:", "Run folder:", "Report and exit:", "tritonserver:"):
        assert title in sweep
    assert sweep.index("What to sweep:") < sweep.index("--concurrency") < sweep.index("perf_analyzer measurement:")
    build = CliRunner().invoke(builders_cli, ["build", "--help"]).output
    for title in ("Model:", "Exports:", "Variant grid", "TensorRT:"):
        assert title in build


def _every(text: str) -> float:
    """A parser of the kind ``--time-budget`` has: its own grammar, a ToolkitError for the rest."""
    if not text.endswith("x"):
        raise PerfError(f"{text!r} is not N followed by x", hint="write 2x")
    return float(text[:-1])


@dataclass
class _Parsed:
    every: Annotated[float, Flag(parse=_every)] = Field(default=1.0, description="How often (Nx).")


def test_a_flag_with_its_own_parser_gets_the_text_and_a_bad_value_is_a_usage_error() -> None:
    """The field's type (float) must not refuse "2x" before the parser sees it (the demo's --time-budget 6m)."""
    p = _param(option(_Parsed, "every"))
    assert p.type is click.STRING
    cmd = options(_Parsed)(click.Command("c", callback=lambda **kw: click.echo(repr(kw["every"]))))
    assert CliRunner().invoke(cmd, ["--every", "2x"]).output.strip() == "2.0"
    bad = CliRunner().invoke(cmd, ["--every", "two"])
    assert bad.exit_code == 2 and "'two' is not N followed by x" in bad.output and "Traceback" not in bad.output


_PARSED: list[Any] = []


def _spy_parse(text: Any) -> float:
    _PARSED.append(text)
    return 2.0


@dataclass
class _Spy:
    every: Annotated[float, Flag(parse=_spy_parse)] = Field(default=1.5, description="How often.")


def test_a_flag_not_given_is_its_fields_default_never_parsed_as_if_typed(tmp_path: Path) -> None:
    """Issue 26: every sweep without --time-budget warned "time budget '360.0' has no unit" about
    the default read back as text; a typed number without a unit is still said."""
    from perf.cli.main import cli

    _PARSED.clear()
    cmd = options(_Spy)(click.Command("c", callback=lambda **kw: click.echo(repr(kw["every"]))))
    assert CliRunner().invoke(cmd, []).output.strip() == "1.5" and _PARSED == []
    assert CliRunner().invoke(cmd, ["--every", "7"]).output.strip() == "2.0" and _PARSED == ["7"]
    (tmp_path / "empty").mkdir()
    base = ["sweep", "--repository", str(tmp_path / "empty"), "--results-dir", str(tmp_path / "r"), "--run-id", "t"]
    quiet = CliRunner().invoke(cli, base)  # the CLI's own log handler writes to the output
    assert "holds no model folder" in str(quiet.exception) and "no unit" not in quiet.output
    typed = CliRunner().invoke(cli, [*base, "--time-budget", "30"])
    assert "time budget '30' has no unit: read as 30 s" in typed.output
