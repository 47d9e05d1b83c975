"""The defaults ``builders`` and ``clients`` state in ``-h``, and how to run a command without a
flag to see what it does instead (tests/project/test_help_defaults.py and
test_help_prose_defaults.py).

Each stated default is read from the rendered help (``[default: X]``, ``(default: X)``,
``default X``). Where it is click's rendering of the declared value, the command is run without
the flag (its work below the CLI replaced by a recorder) and the options object it builds must
hold that value (:data:`DECLARED`). Where it is words ("whether this host has one"), a check of
its own runs what the words promise. A stated default without a check fails the test: adding a
flag is adding its check.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from clients.cli.main import cli as clients_cli

GROUPS: dict[str, click.Group] = {"builders": builders_cli, "clients": clients_cli}
_STATED = re.compile(r"\[default: ([^\]]*)\]|\(default:? ([^)]*)\)|; default ([^);]+)\)")


def stated_defaults(groups: dict[str, click.Group] | None = None) -> dict[tuple[str, str, str], tuple[str, str | None]]:
    """``(group, command, parameter) -> (the default -h states, click's rendering of the
    declared default or None)`` for every option whose help states one (``groups``: default
    :data:`GROUPS`; ``triton-perf``'s are checked in tests/perf/cli/test_help_defaults.py)."""
    out: dict[tuple[str, str, str], tuple[str, str | None]] = {}
    for gname, group in (groups or GROUPS).items():
        parent = click.Context(group, info_name=gname, **group.context_settings)  # as -h renders: the group's settings
        for cname, cmd in group.commands.items():
            ctx = cmd.context_class(cmd, info_name=cname, parent=parent, **cmd.context_settings)
            for p in cmd.params:
                record = p.get_help_record(ctx) if isinstance(p, click.Option) else None
                m = _STATED.search(" ".join(record[1].split())) if record else None
                if not m:
                    continue
                bare = copy.copy(p)
                bare.help, bare.show_default = "", True  # type: ignore[attr-defined]
                rendered = bare.get_help_record(ctx)
                declared = _STATED.search(" ".join(rendered[1].split())) if rendered else None
                out[(gname, cname, str(p.name))] = (next(g for g in m.groups() if g is not None), declared and declared[1])
    return out


def _perf_cli() -> click.Group:
    """The ``triton-perf`` group (its defaults: tests/perf/cli/test_help_defaults.py)."""
    from perf.cli.main import cli

    return cli


class _Stop(Exception):
    """Raised by a recorder in place of the work below the CLI."""


def run_recorded(monkeypatch: pytest.MonkeyPatch, target: Any, attr: str, group: str, args: list[str]) -> dict[str, Any]:
    """Run ``group args`` with ``target.attr`` replaced by a recorder of its arguments."""
    seen: dict[str, Any] = {}

    def recorder(*a: Any, **kw: Any) -> Any:
        seen.update(args=a, kwargs=kw)
        raise _Stop

    monkeypatch.setattr(target, attr, recorder)
    res = CliRunner().invoke(GROUPS[group] if group in GROUPS else _perf_cli(), args)
    assert isinstance(res.exception, _Stop), res.output
    return seen


def _build_opts(monkeypatch: pytest.MonkeyPatch) -> Any:
    import builders.build

    return run_recorded(monkeypatch, builders.build, "build", "builders", ["build"])["args"][0]


def _variants_plan(monkeypatch: pytest.MonkeyPatch) -> Any:
    """What ``builders variants`` plans without flags: ``model``, ``formats``, ``precisions``, ``grid``."""
    import types

    from builders.config.variants import VariantGrid

    seen = run_recorded(monkeypatch, VariantGrid, "plan", "builders", ["variants"])
    grid, model, formats, precisions = seen["args"][:4]
    return types.SimpleNamespace(model=model, formats=formats, precisions=precisions, grid=grid)


def _check_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    import clients.check

    return run_recorded(monkeypatch, clients.check, "check_with_server", "clients", ["check"])["args"][0]


def _serve_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    import clients.server

    def record(self: Any, opts: Any, *a: Any, **kw: Any) -> None:
        raise _Stop(opts)

    monkeypatch.setattr(clients.server.TritonServer, "__init__", record)
    res = CliRunner().invoke(clients_cli, ["serve"])
    assert isinstance(res.exception, _Stop), res.output
    return res.exception.args[0]


def _infer_call(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    import clients.infer
    from clients.inputs import ModelSignature

    config = {"name": "m", "max_batch_size": 8, "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4]}]}
    config["output"] = [{"name": "y", "data_type": "TYPE_FP32", "dims": [4]}]
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    return run_recorded(monkeypatch, clients.infer, "run_requests", "clients", ["infer", "m"])


#: ``(group, command, parameter) -> (how the command is run without the flag, what of it holds
#: the value, the value the stated default means)``.
DECLARED: dict[tuple[str, str, str], tuple[Callable[..., Any], Callable[[Any], Any], Any]] = {
    ("builders", "build", "model"): (_build_opts, lambda o: o.model, "mlp"),
    ("builders", "build", "formats"): (_build_opts, lambda o: o.formats, ("torchscript", "onnx")),
    ("builders", "build", "precisions"): (_build_opts, lambda o: o.precisions, ("fp32",)),
    ("builders", "build", "opset"): (_build_opts, lambda o: o.opset, 18),
    ("builders", "build", "kinds"): (_build_opts, lambda o: o.grid.kinds, ("cpu",)),
    ("builders", "build", "instance_counts"): (_build_opts, lambda o: o.grid.counts, (1, 2)),
    ("builders", "build", "batching"): (_build_opts, lambda o: o.grid.queue_delays_us, (None, 500)),
    ("builders", "build", "max_batch_sizes"): (_build_opts, lambda o: o.grid.max_batch_sizes, (64,)),
    ("builders", "build", "warmups"): (_build_opts, lambda o: o.grid.warmups, (None,)),
    ("builders", "build", "accelerators"): (_build_opts, lambda o: o.grid.trt_accelerators, (None,)),
    ("builders", "build", "workspace_bytes"): (_build_opts, lambda o: o.workspace_bytes, 4096 << 20),
    ("builders", "build", "repository"): (_build_opts, lambda o: o.repository, Path("model_repository")),
    ("builders", "build", "build_dir"): (_build_opts, lambda o: o.build_dir, Path("builds")),
    ("clients", "serve", "repository"): (_serve_server, lambda o: o.repository, Path("model_repository")),
    ("clients", "serve", "runtime"): (_serve_server, lambda o: o.runtime, "auto"),
    ("clients", "serve", "http_port"): (_serve_server, lambda o: o.http_port, 0),
    ("clients", "serve", "grpc_port"): (_serve_server, lambda o: o.grpc_port, 0),
    ("clients", "serve", "metrics_port"): (_serve_server, lambda o: o.metrics_port, 0),
    ("clients", "serve", "address"): (_serve_server, lambda o: o.address, "127.0.0.1"),
    ("clients", "serve", "model_control"): (_serve_server, lambda o: o.model_control, "explicit"),
    ("clients", "serve", "log_verbose"): (_serve_server, lambda o: o.log_verbose, 0),
    ("clients", "serve", "metrics_interval_ms"): (_serve_server, lambda o: o.metrics_interval_ms, 500),
    ("clients", "serve", "start_timeout_s"): (_serve_server, lambda o: o.start_timeout_s, 120.0),
    ("clients", "serve", "gpus"): (_serve_server, lambda o: o.gpus, "all"),
    ("clients", "check", "start_timeout_s"): (_check_server, lambda o: o.start_timeout_s, 120.0),
    ("clients", "check", "repository"): (_check_server, lambda o: o.repository, Path("model_repository")),
    ("clients", "infer", "protocol"): (_infer_call, lambda c: c["args"][1], "http"),
    ("clients", "infer", "batch_size"): (_infer_call, lambda c: c["args"][3]["x"].shape[0], 1),
    ("clients", "infer", "requests"): (_infer_call, lambda c: c["args"][4], 1),
    ("clients", "infer", "concurrency"): (_infer_call, lambda c: c["args"][5], 1),
}
#: ``builders variants`` takes the grid, model and format flags of ``builders build``: the same values, its own run.
_SHARED = ("model", "formats", "precisions", "kinds", "instance_counts", "batching", "max_batch_sizes", "warmups", "accelerators")
DECLARED.update({("builders", "variants", n): (_variants_plan, *DECLARED[("builders", "build", n)][1:]) for n in _SHARED})
#: Declared defaults whose behaviour a test of its own checks (test_help_defaults.py).
CHECKED_ELSEWHERE = {
    ("clients", "check", "protocol"),  # test_check_protocol_default
    ("clients", "infer", "repository"),  # test_infer_repository_default
    ("clients", "infer", "seed"),  # test_infer_seed_default
    ("builders", "build", "target_triton"),  # test_target_triton_default
    ("builders", "prune", "repository"),  # test_prune_repository_default
    ("builders", "remove", "repository"),  # test_remove_repository_default
}
