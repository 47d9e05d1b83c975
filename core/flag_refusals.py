"""Flags the toolkit refuses: how a refused flag value is shown (naming the flag once, issue 26), and
the one reader of the flags passed through to another tool (``--server-arg`` to tritonserver,
``--perf-analyzer-arg`` to perf_analyzer) that their refusals are made from (:func:`read_passed`).

click puts ``Invalid value for '--shapes':`` in front of every :class:`click.BadParameter`, and the
toolkit's refusals already start with the flag and its value, written so that they read whole in a
log or a :class:`~core.errors.ToolkitError` too (``--shapes 'seq=16;64': '16;64' is not a size``);
together they named the flag twice ("Invalid value for '--shapes': --shapes 'seq=16;64': ...").
:func:`named_once` is the one rule :class:`core.cli.ToolkitCommand` applies to every refusal of a
flag, whether a flag's callback, a parser run in the command's body (:func:`parse_flag`) or a
:class:`~core.errors.FlagError` raised it.

Flags given where the command would not read them (issue 26, kind K1: "a flag accepted and ignored"): a command
lists, once, each flag that some other flag or input makes it pass over (:class:`Unread`: ``clients infer --seed``
beside ``--input-data``, whose inputs are not generated); :func:`refuse_unread` refuses every one the user typed in
that run, in one usage error (exit 2) naming each flag, why it would be ignored and what to do. A flag counts as
typed by click's parameter source (:func:`core.options.given`, passed in), so a default is never refused.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import click

from core.errors import FlagError, ToolkitError


class NamedFlagRefusal(click.BadParameter):
    """A flag's refusal whose message starts with the flag: shown as written (exit 2, a usage error
    as any :class:`click.BadParameter`), without click's ``Invalid value for`` prefix."""

    def format_message(self) -> str:
        """The message as written: it names the flag already."""
        return self.message


def named_once(e: click.BadParameter) -> click.BadParameter:
    """``e`` as it is to be shown: a :class:`NamedFlagRefusal` when its message starts with the flag
    click would name in front of it (its ``param_hint``, else one of its parameter's spellings), else
    ``e`` itself. ``--shape`` is not the start of ``--shapes 'x'`` (a whole flag, not a prefix)."""
    hint = e.param_hint
    names = [hint] if isinstance(hint, str) else list(hint or ())
    if e.param is not None:
        names += [*e.param.opts, *e.param.secondary_opts]
    flags = {n.strip("'\"") for n in names}
    if any(f.startswith("-") and re.match(rf"{re.escape(f)}(?![\w-])", e.message) for f in flags):
        return NamedFlagRefusal(e.message, ctx=e.ctx, param=e.param, param_hint=e.param_hint)
    return e


def typed(ctx: click.Context, flag: str) -> bool:
    """Whether the user gave ``flag`` (``"--spec"``; several spellings ``"--input/--spec"`` each looked up), on the
    command line or in its environment variable; a flag that is no option of the command counts as given (its
    refusal's words are the flag's own)."""
    params = [p for p in ctx.command.params if any(o in p.opts + p.secondary_opts for o in flag.split("/"))]
    if not params:
        return True
    sources = [ctx.get_parameter_source(p.name) for p in params if p.name]
    return any(s in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT) for s in sources)


class ToolFlag(Protocol):
    """A row of a tool's flag table (``clients.runtimes.server_flags.ServerFlag``,
    ``perf.sweep.analyzer_flags.AnalyzerFlag``): what :func:`read_passed` needs of it."""

    @property
    def names(self) -> tuple[str, ...]:
        """Its spellings (``"--measurement-interval"``, ``"-p"``)."""

    @property
    def value(self) -> bool:
        """Whether it takes a value."""


class Passed(NamedTuple):
    """One flag of a tool found in its pass-through arguments (:func:`read_passed`).

    Attributes:
        flag: The tool's table row (a :class:`ToolFlag`).
        name: The spelling the tool reads (``"--http-port"`` for ``--http-p``; ``"-b"``).
        given: The arguments that give it, as typed (``"--server-arg=--http-port --server-arg=9000"``).
        value: Its value (``None``: none given, or a flag without one).
    """

    flag: Any
    name: str
    given: str
    value: str | None


def read_passed(
    args: Sequence[str], pass_flag: str, long: Mapping[str, ToolFlag], short: Mapping[str, ToolFlag] | None = None
) -> list[Passed]:
    """The tool's flags in ``args`` (each one ``pass_flag`` value, in order), read as the tool's
    ``getopt_long`` reads them: ``--flag=V``, ``--flag V`` (the next argument, or one argument
    ``"--flag V"``), a long flag's unambiguous prefix (``--http-p=9000``; aliases are one flag), and
    with ``short`` flags ``-fV``, ``-f V`` and short flags bundled (``-vb4``). A flag the tool does not
    know is left out (the tool says so itself), as is what follows ``--``.

    Args:
        args: The pass-through arguments.
        pass_flag: The toolkit's flag that passes them (``--server-arg``), or ``"--"`` for the arguments after a
            command's ``--``: how ``given`` spells them.
        long: The tool's long spellings (``"--http-port"``) -> its table row.
        short: The tool's short flags by letter (``"b"`` for ``-b``) -> its table row [default: none].
    """
    short = short or {}
    out: list[Passed] = []
    i = 0
    while i < len(args):
        arg, took = args[i], [args[i]]
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            spoken = name.split()[0] if name.split() else name  # "--http-port 9000" as one argument
            found = _long(spoken, long)
            if found is not None:
                given: str | None = value if eq else None
                if found[1].value and not eq and spoken == name and i + 1 < len(args):
                    i += 1
                    took.append(args[i])
                    given = args[i]
                elif spoken != name:
                    given = name[len(spoken) :].strip()
                out.append(Passed(found[1], found[0], _typed(took, pass_flag), given))
        elif arg.startswith("-") and len(arg) > 1:
            for j, ch in enumerate(arg[1:], start=1):
                flag = short.get(ch)
                if flag is None:
                    break
                given = None
                if flag.value and j == len(arg) - 1 and i + 1 < len(args):  # its value: the next argument
                    i += 1
                    took.append(args[i])
                    given = args[i]
                elif flag.value:  # the rest of the argument is its value
                    given = arg[j + 1 :] or None
                out.append(Passed(flag, f"-{ch}", _typed(took, pass_flag), given))
                if flag.value:
                    break
        i += 1
    return out


def _long(name: str, long: Mapping[str, ToolFlag]) -> tuple[str, ToolFlag] | None:
    """The flag ``--name`` is to the tool's ``getopt_long`` (its spelling and the flag): its own,
    or the one flag it abbreviates (aliases are one flag)."""
    if f"--{name}" in long:
        return f"--{name}", long[f"--{name}"]
    matches = [(n, f) for n, f in long.items() if n.startswith(f"--{name}") and name]
    return matches[0] if len({id(f) for _, f in matches}) == 1 else None


def _typed(took: list[str], pass_flag: str) -> str:
    """How the user typed ``took``: each one a ``pass_flag`` value, or after a command's ``--`` (``pass_flag`` ``"--"``:
    ``-- --model-repository=/tmp``; trial 25, T25-13 was told of a ``--server-arg`` it never typed)."""
    return f"-- {' '.join(took)}" if pass_flag == "--" else " ".join(f"{pass_flag}={a}" for a in took)


class Unread(NamedTuple):
    """One flag a command would pass over in a run.

    Attributes:
        param: The click parameter's name (``"seed"``).
        flag: The flag as typed (``"--seed"``).
        unread: Whether this run passes it over (``input_path is not None`` for ``--seed``).
        why: Why it would be ignored (``"--input-data gives the inputs; only generated inputs are seeded"``).
        instead: What to do (``"drop --seed, or drop --input-data to send generated inputs"``).
    """

    param: str
    flag: str
    unread: bool
    why: str
    instead: str


def refuse_unread(typed: Collection[str], cases: Iterable[Unread], since: str = "") -> None:
    """Refuse the flags of ``cases`` the user typed that this run passes over.

    Args:
        typed: The parameters the user typed (:func:`core.options.given` of the command's context).
        cases: The command's flags that some other flag or input can make it pass over.
        since: What makes them all unread, said once after them (``"RUN is a co-location run"``) [default: none].

    Raises:
        FlagError: one or more typed flags would be ignored (exit 2), each named with why (flags ignored for
            the same reason together, the reason once) and what to do; ``flag`` is the first.
    """
    hit = [c for c in cases if c.unread and c.param in typed]
    if not hit:
        return
    by_why: dict[str, list[str]] = {}  # flags ignored for one reason are said together, the reason once
    for c in hit:
        by_why.setdefault(c.why, []).append(c.flag)
    said = "; ".join(f"{' and '.join(flags)} would be ignored: {why}" for why, flags in by_why.items())
    raise FlagError(
        said + (f" ({since})" if since else ""),
        flag=hit[0].flag,
        hint="; ".join(dict.fromkeys(c.instead for c in hit)),
    )


def parse_flag(
    parse: Callable[[Any], Any],
    value: Any,
    ctx: click.Context | None = None,
    param: click.Parameter | None = None,
    hint: str | None = None,
) -> Any:
    """``parse(value)`` for a flag; the parser's :class:`ToolkitError` or ``ValueError`` (its own
    message and hint) becomes a usage error (:data:`core.cli.EXIT_USAGE`), not a failure.

    Raises:
        click.BadParameter: naming ``param`` (or ``hint``, e.g. ``"--shape"``).
    """
    try:
        return parse(value)
    except (ToolkitError, ValueError) as e:
        raise click.BadParameter(str(e), ctx=ctx, param=param, param_hint=hint) from None


def repeated_options(command: click.Command, ctx: click.Context, args: list[str]) -> list[tuple[click.Option, int]]:
    """The single-valued options of ``command`` that ``args`` gives more than once, with
    how often (options with ``multiple=True`` and counters are not listed)."""
    try:
        _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    except click.UsageError:
        return []  # click reports it with its own message when it parses for real
    counts = Counter(p for p in order if isinstance(p, click.Option) and not p.multiple and not p.count)
    return [(p, n) for p, n in counts.items() if n > 1]
