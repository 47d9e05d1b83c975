"""The tritonserver flags of the CLIs (``clients serve/check``, ``python -m clients.cli.launch``,
``triton-perf sweep/coldstart``): generated from :class:`clients.runtimes.options.ServerOptions`,
the one place they are defined (:mod:`core.options`).

This module imports neither tritonclient nor torch, so ``--help`` stays fast.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import click

from clients.runtimes.choose import RUNTIMES, refuse_unread_launch
from clients.runtimes.options import REMOTE_PANEL, ServerOptions, runtime_help
from clients.runtimes.remote import RemoteRuntime
from clients.runtimes.server_flags import server_arg_refusal
from core.options import build, given_fields, panel, panel_fields, specs

F = Callable[..., Any]
#: Why a command that starts its server takes no ``--runtime remote``, and what to do instead (serve, the launcher).
NO_REMOTE = (
    "--runtime remote is a running server the toolkit reaches at --url; serve starts a server, so there is nothing for "
    "it to start or reach"
)
NO_REMOTE_HINT = (
    "pick a runtime that starts one (--runtime auto, bundled, local or container), or use the running server directly: "
    "clients infer MODEL --url HOST:PORT, clients check --url HOST:PORT"
)


class StartedRuntime(click.Choice):
    """The ``--runtime`` choices of a command that starts its server: ``remote`` is not offered, and a user who types
    it is told why and what to do (trial 25, T25-13), not only click's list of choices."""

    def __init__(self) -> None:
        super().__init__([r for r in RUNTIMES if r != RemoteRuntime.name])

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """``value`` as click's choice takes it; ``remote`` refused with why and what to do."""
        if value == RemoteRuntime.name:
            self.fail(f"{NO_REMOTE}\n  -> {NO_REMOTE_HINT}", param, ctx)
        return super().convert(value, param, ctx)


#: The flags of a server the toolkit did not start (``--runtime remote``): its panel's fields.
REMOTE_KEYS = panel_fields(ServerOptions, REMOTE_PANEL)


def server_options(fn: F | None = None, *, repository_flag: bool = True, omit: tuple[str, ...] = ()) -> Any:
    """Add the tritonserver launch flags (one per :class:`ServerOptions` field) to a click
    command; it receives ``server_opts: ServerOptions`` instead of the individual flags.

    Use as ``@server_options`` (``-r/--repository`` included) or
    ``@server_options(repository_flag=False)`` when the command declares its own
    ``--repository`` option: its value must then arrive as the ``repository`` keyword, which
    is read and left in place for the command. ``omit`` names fields (``"model_control"``)
    the command must not offer because it sets them itself (the sweep: model control, models
    to load, log file); they keep :class:`ServerOptions`'s defaults. A command that omits the flags of a running
    server (:data:`REMOTE_KEYS`: it starts its own) neither offers nor names ``--runtime remote``.

    Raises:
        ValueError: ``omit`` names a field ServerOptions does not have.
        FlagError: (when the command runs) a ``--server-arg`` the toolkit does not let through
            (:mod:`clients.runtimes.server_flags`).
    """
    if fn is None:
        return functools.partial(server_options, repository_flag=repository_flag, omit=omit)
    unknown = set(omit) - set(ServerOptions.__dataclass_fields__)
    if unknown:
        raise ValueError(f"server_options(omit=...): unknown fields {sorted(unknown)}")
    left_out = (*omit, *(() if repository_flag else ("repository",)))

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opts = build(ServerOptions, kwargs, omit=left_out)
        if not repository_flag:  # the command's own --repository, left in place for it
            if kwargs.get("repository") is None:
                raise click.UsageError("a model repository is needed (--repository)")
            opts = dataclasses.replace(opts, repository=kwargs["repository"])
        # before the command reads anything; the flags one runtime sets: once it is resolved (Runtime)
        if (refused := server_arg_refusal(opts.extra_args, "remote" if opts.urls else None)) is not None:
            raise refused
        # the flags typed, a default's value too (F1): refused where unread, by one rule (given_server_fields)
        if (ctx := click.get_current_context(silent=True)) is not None:
            opts = dataclasses.replace(opts, given=given_fields(ServerOptions, ctx))
        refuse_unread_launch(opts)  # the flags of a server it would start, beside --url (a running one): s19
        return fn(*args, server_opts=opts, **kwargs)

    flags = specs(ServerOptions, omit=left_out)
    if set(REMOTE_KEYS) <= set(left_out):  # a command that starts its server offers no remote one (trial 25, T25-13)
        for spec in flags:
            if spec.name == "runtime":
                spec.attrs.update(type=StartedRuntime(), help=runtime_help(False))
    return panel(*flags)(wrapper)
