"""Pieces every CLI shares: error handling and exit codes, help layout, logging and the
console, comma lists, tables.

Every command group is made with :func:`group` (``-h``, defaults shown, subcommand
listings not cut off, a single-value flag given twice refused); every list flag with
:func:`list_option` (``--x a,b`` and ``--x a --x b`` mean the same); the flags of an options
object are generated from its fields (:mod:`core.options`), hand-written ones for a help panel
made with :func:`flag`; every command that logs
with :func:`verbosity_option`; every line drawn for the user goes through :func:`console`
(one timestamp style, source file:line only with ``-v``) and every table through
:func:`print_table` (at ``COLUMNS``, the terminal's width or :data:`PLAIN_WIDTH`, cells
wrapped, never cut).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from core.console import LOG_TIME_FORMAT as LOG_TIME_FORMAT
from core.console import PLAIN_WIDTH as PLAIN_WIDTH
from core.console import body_ended, catch_stops, interrupted_words, quiet_gevent_interrupts, stop_exit_code
from core.console import console as console
from core.console import plain_width as plain_width
from core.console import print_table as print_table
from core.console import setup_logging as setup_logging
from core.errors import ToolkitError
from core.flag_refusals import named_once, repeated_options, typed

#: Exit codes of every command (one table). The rule between 1 and 2 (trial 17, T17-15: the same kind of
#: mistake exited 1 from one command and 2 from another): a mistake in what the user typed is 2, a problem
#: found while working is 1.
#: Done; also a measurement that answered "no" (a sweep in which no variant meets the budget, a
#: co-location whose verdict is "not achieved"): an answer, written in its report, not an error.
EXIT_OK = 0
#: A problem found while working: a :class:`~core.errors.ToolkitError` without a flag (a model that does
#: not export, a server that does not start, a file that is not what it should be), or a check that found one.
EXIT_ERROR = 1
#: A mistake in what the user typed: click's own usage errors (an unknown flag, a value of the wrong type
#: or out of its range) and every refusal after parsing of a flag's value or of flags that do not go
#: together (a ``--shapes`` size outside the axis's range, a ``--variants`` pattern that matches no
#: variant, a ``--resume`` run that does not exist): a :class:`~core.errors.ToolkitError` raised with
#: ``flag=`` (:class:`~core.errors.FlagError` among them), said as click says its own.
EXIT_USAGE = 2
#: A sweep finished, but at least one variant failed (load, crash, no measurement) and
#: ``--allow-failed-variants`` was not given; its results and report are written.
EXIT_VARIANT_FAILED = 3
EXIT_INTERRUPTED = 130

#: click context settings of every command: ``-h``, every default shown, room for long help.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "show_default": True, "max_content_width": 120}


def run_cli(group: click.Command, prog_name: str | None = None) -> None:
    """Run a click command or group; a :class:`ToolkitError` becomes one message and :data:`EXIT_ERROR`.
    ``prog_name``: the name usage lines and errors show: every CLI's ``main`` passes the command a user types
    (``builders``, not ``python -m builders.cli.main``, which ``make demo`` runs); default: click's, from ``sys.argv``.

    A reader that closed stdout (``| head`` read what it wanted) ends the command quietly with
    :data:`EXIT_OK`, as other Unix tools end: click and rich would exit 1 there. An interrupt is
    said by the command's own lines only (:func:`core.console.quiet_gevent_interrupts`)."""
    quiet_gevent_interrupts()
    catch_stops()  # SIGTERM/SIGHUP stop a command as Ctrl-C does, exit 143/129 (trial 22, F-sigterm)
    try:
        _run(group, prog_name)
    except BrokenPipeError:
        if not _stdout_closed():
            raise
        _quiet_stdout()
        sys.exit(EXIT_OK)
    except SystemExit as e:
        if e.code not in (None, EXIT_OK, EXIT_INTERRUPTED) and _stdout_closed():  # click's exit 1 on EPIPE
            _quiet_stdout()
            sys.exit(EXIT_OK)
        if e.code == EXIT_INTERRUPTED:  # 143 where a SIGTERM stopped it, 129 a SIGHUP (core.console.catch_stops)
            e.code = stop_exit_code(e.code)
        raise
    finally:
        body_ended()  # a SIGTERM from here to the exit is ignored (break-it F24)


def _run(group: click.Command, prog_name: str | None) -> None:
    try:
        code = group.main(standalone_mode=False, prog_name=prog_name)
        if isinstance(code, int) and code:  # ctx.exit(N) returns N when standalone_mode is off
            sys.exit(code)
    except click.exceptions.Abort:
        click.echo(interrupted_words(), err=True)  # a stop no command line said: named, never a bare "aborted"
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except ToolkitError as e:  # one with a flag raised outside a command's body (a group's): still a usage error
        click.secho(f"error ({e.stage}): {e}", fg="red", err=True)
        sys.exit(EXIT_USAGE if e.flag else EXIT_ERROR)


def _stdout_closed() -> bool:
    """Whether the reader of stdout is gone (a pipe whose other end closed: ``| head``)."""
    import select

    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLERR)
        return any(ev & select.POLLERR for _, ev in poll.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll, or stdout is no file
        return False


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit has nowhere to fail (the
    recipe of Python's signal docs, "Note on SIGPIPE")."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class ToolkitCommand(click.Command):
    """A click command that refuses a single-valued option given more than once.

    click keeps the last value silently (``--latency-budget-ms 5 --latency-budget-ms 50`` is
    50), which reads as if both were used; options that take several values say so
    (``multiple=True``) and are accepted repeated, as are counters (``-vv``).

    Its own context settings default to :data:`CONTEXT_SETTINGS` (``-h`` as well as ``--help``):
    click builds a command's help option once, from the first context made for it, so a command
    first given a context without its group's settings (``cmd.make_context(...)`` from Python) kept
    ``--help`` alone and later refused ``-h`` under the group too.
    """

    def __init__(self, name: str | None, context_settings: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(name, {**CONTEXT_SETTINGS, **(context_settings or {})}, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse ``args``, refusing a single-value option given more than once.

        Raises:
            click.UsageError: an option that takes one value was repeated (the message names it).
        """
        if not ctx.resilient_parsing:
            repeated = repeated_options(self, ctx, args)
            if repeated:
                raise click.UsageError(
                    "; ".join(
                        f"{opt.opts[-1] if len(opt.opts) > 1 else opt.opts[0]} was given {n} times, and it takes one value"
                        for opt, n in repeated
                    )
                    + ": give each once (click would silently keep only the last)",
                    ctx,
                )
        try:
            return super().parse_args(ctx, args)
        except click.BadParameter as e:  # a flag's callback refused its value: the flag named once
            raise named_once(e) from None

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a :class:`~core.errors.ToolkitError` raised with a ``flag`` (a
        :class:`~core.errors.FlagError`, or any stage's refusal of what the user typed, found once the
        inputs are read) becomes a usage error of that flag (:data:`EXIT_USAGE`), which, as every
        refusal of a flag, names the flag once (:func:`core.flag_refusals.named_once`).

        Raises:
            click.BadParameter: from a :class:`~core.errors.ToolkitError` with a flag, or a flag refused in the body.
        """
        try:
            return super().invoke(ctx)
        except ToolkitError as e:
            if e.flag is None:
                raise
            flagged = named_once(click.BadParameter(str(e), ctx=ctx, param_hint=e.flag))  # "Invalid value for --spec"
            raise (flagged if typed(ctx, e.flag) else click.UsageError(str(e), ctx=ctx)) from None  # not typed: T23-13
        except click.BadParameter as e:
            raise named_once(e) from None


class ToolkitGroup(click.Group):
    """A click group whose command listing shows each command's whole first sentence
    (click cuts it at about 45 characters, mid-word), and whose commands are
    :class:`ToolkitCommand` (a single-value flag given twice is refused)."""

    command_class = ToolkitCommand
    group_class = type  # subgroups are ToolkitGroups too

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse the group's own options; one that belongs to a subcommand, given before its name
        (``builders --model x build``), is refused naming the subcommands that take it, not with
        click's bare "No such option" (issue 26). The fix shows the subcommand the user gave when it
        takes the option; one that does not is said to, and none given is ``COMMAND`` (unless one
        subcommand alone takes it): never a subcommand the user did not name.

        Raises:
            click.NoSuchOption: with the subcommands that take the option, when some do.
        """
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            takers = [n for n in self.list_commands(ctx) if _takes(self.get_command(ctx, n), e.option_name)]
            if not takers:
                raise
            path, opt = ctx.command_path, e.option_name
            where = ", ".join(f"`{path} {n}`" for n in takers)
            given = next((a for a in args if a in self.list_commands(ctx)), None)  # the subcommand given after it
            if given is not None and given not in takers:
                fix = f"`{path} {given}` does not take it"
            else:
                named = given or (takers[0] if len(takers) == 1 else "COMMAND")
                fix = f"put it after the command's name (`{path} {named} {opt} ...`)"
            raise click.NoSuchOption(
                opt, message=f"{opt} is an option of {where}, not of `{path}` itself: {fix}", ctx=ctx
            ) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Write the command list with each command's whole short help (not cut at 45 characters)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _takes(command: click.Command | None, option: str) -> bool:
    """Whether ``command`` has the option ``option`` (``--model``)."""
    return command is not None and any(option in (*p.opts, *p.secondary_opts) for p in command.params)


def group(**kwargs: Any) -> Callable[[Callable[..., Any]], ToolkitGroup]:
    """``@click.group`` with :class:`ToolkitGroup` and :data:`CONTEXT_SETTINGS`."""
    return click.group(cls=ToolkitGroup, context_settings=CONTEXT_SETTINGS, **kwargs)


def verbosity_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``-v/--verbose`` (repeatable) configures logging for the library code."""

    @click.option(
        "-v", "--verbose", count=True, show_default=False, help="More log output: -v info lines and source file:line, -vv debug."
    )
    @functools.wraps(fn)
    def wrapper(*args: Any, verbose: int = 0, **kwargs: Any) -> Any:
        setup_logging(verbose)
        return fn(*args, **kwargs)

    return wrapper


class CommaList(click.ParamType):
    """A comma-separated list, one part per item: ``"1,2,4"``. Used by :func:`core.cli.list_option`,
    which also accepts the flag repeated.

    Args:
        item: Converts one part (a click type such as ``int`` or ``click.Choice``, or a
            callable ``str -> value`` or ``str -> list of values`` raising ``ValueError``).
        metavar: Shown in ``-h`` (default ``A[,B...]`` from the item type).
    """

    name = "list"

    def __init__(self, item: Any = str, metavar: str | None = None):
        self.item = click.types.convert_type(item) if isinstance(item, (type, click.ParamType)) else item
        self._metavar = metavar

    def get_metavar(self, param: click.Parameter, *args: Any, **kwargs: Any) -> str:
        """The metavar shown in ``--help``: the given one, the choices as ``[a|b][,...]``, or ``LIST``."""
        if self._metavar:
            return self._metavar
        if isinstance(self.item, click.Choice):
            return "[" + "|".join(self.item.choices) + "][,...]"
        return "LIST"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[Any, ...]:
        """Split a comma-separated value into a tuple of items, each converted by the item type.

        Empty parts are skipped (``"a,,b"``, ``"a,"``), but a value with no part at all (``","``,
        ``" "``, ``""``: an unset shell variable in a list) names nothing and is refused, never read as
        the flag not given, whose default may be everything (break test B14: ``--variants ','`` swept
        every variant).

        Raises:
            click.BadParameter: an item does not convert (the message names it), or ``value`` names no item.
        """
        if isinstance(value, (tuple, list)):
            return tuple(value)
        parts = [p.strip() for p in str(value).split(",")]
        if not any(parts):
            self.fail(f"{value!r} names nothing: give at least one value, or leave the flag out for its default", param, ctx)
        out: list[Any] = []
        for part in parts:
            if not part:
                continue
            try:
                got = self.item(part, param, ctx) if isinstance(self.item, click.ParamType) else self.item(part)
            except click.BadParameter as e:
                self.fail(f"{part!r}: {e.message}", param, ctx)
            except ValueError as e:
                self.fail(f"{part!r} in {value!r}: {e}", param, ctx)
            out.extend(got if isinstance(got, list) else [got])
        return tuple(out)


class OptionSpec:
    """A click option not yet attached: a decorator (``@spec``), or attached inside a help panel by :func:`panel`."""

    def __init__(self, decls: Sequence[str], attrs: dict[str, Any], panel: str | None = None):
        self.decls, self.attrs, self.panel = tuple(decls), attrs, panel

    @property
    def name(self) -> str:
        """The parameter name (the keyword the command gets)."""
        return next(d for d in self.decls if d.isidentifier())

    def __call__(self, fn: Any) -> Any:
        """Attach the option to ``fn`` (as ``@click.option`` would)."""
        return click.option(*self.decls, **self.attrs)(fn)

    def grouped(self, group: Any) -> Callable[[Any], Any]:
        """The decorator that attaches this option inside a click-option-group ``OptionGroup``."""
        return group.option(*self.decls, **self.attrs)


def panel(*option_specs: OptionSpec, title: str | None = None) -> Callable[[Any], Any]:
    """Attach options to a command, each listed in ``-h`` under its panel's title (options
    of one panel together, panels in the order they first appear; ``title`` for those without)."""
    from click_option_group import OptionGroup

    order: dict[str | None, list[OptionSpec]] = {}
    for s in option_specs:
        order.setdefault(s.panel or title, []).append(s)

    def decorate(fn: Any) -> Any:
        for name, group_specs in reversed(order.items()):
            group = OptionGroup(name) if name else None
            for s in reversed(group_specs):
                fn = s.grouped(group)(fn) if group is not None else s(fn)
        return fn

    return decorate


def _flatten(_ctx: click.Context, _param: click.Parameter, value: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """The values of every occurrence of a list flag, in order, repeats dropped."""
    return tuple(dict.fromkeys(x for part in value for x in (part if isinstance(part, (tuple, list)) else (part,))))


def list_option(
    *decls: str, item: Any = str, default: Sequence[Any] = (), metavar: str | None = None, panel: str | None = None, **kwargs: Any
) -> OptionSpec:
    """A list flag: ``--flag a,b``, ``--flag a --flag b`` and ``--flag a,b --flag c`` are all accepted; the command
    gets a tuple (in order, repeats dropped). ``-h`` shows the default (``[default: 1, 2]``). A decorator, or an
    option for :func:`core.options.panel` (listed under ``panel``)."""
    attrs = {"multiple": True, "type": CommaList(item, metavar), "default": tuple(default), "callback": _flatten, **kwargs}
    return OptionSpec(decls, attrs, panel)


def flag(*decls: str, panel: str | None = None, **attrs: Any) -> OptionSpec:
    """A hand-written click option (``click.option``'s arguments) for :func:`core.options.panel`, under ``panel``."""
    return OptionSpec(decls, attrs, panel)


def int_list(text: str, what: str) -> tuple[int, ...]:
    """Parse ``"1,2,4"`` into ``(1, 2, 4)``.

    Raises:
        click.BadParameter: a part is not an integer.
    """
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{what}: expected comma-separated integers such as 1,2,4, got {text!r}") from None
