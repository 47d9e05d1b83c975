"""Advice that names a sweep flag ``make demo`` has no ``DEMO_*`` setting for, said as the full
``perf/run_sweep.sh`` command that takes it (trial 17, T17-12: after ``make demo`` the sweep's "-> measure a mix
as clients send it: --shapes time=400..16000" named a flag the demo cannot be given, and
:func:`perf.cli.demo_settings.advice` dropped every line it did not change).

:func:`sweep_commands` rewrites each run of ``--flag value`` segments that holds such a flag into the demo's own
sweep command (its ``--runtime``, ``--repository``, ``--variants`` and ``DEMO_*`` values) with the run's flags
added, in backticks: ``--shapes time=400..16000`` -> ``perf/run_sweep.sh --runtime bundled --repository
model_repository --variants 'sigconv_*' ... --shapes time=400..16000``. A flag named without a value ("add one to
--shapes") is followed by that command with the flag's metavar. Flags inside a command the text already spells
out (```triton-perf baseline RUN --replace```) and the command's own flags (``own``) are left as they are.

A flag is said as something to run only where it is offered to be given (:func:`offered`, for the ``DEMO_*``
settings of :func:`perf.cli.demo_settings.as_demo` too): with its value it is a command; without, the words around it
offer it ("a longer --time-budget", "pass --latency-budget-ms", "add one to --shapes", "(--time-budget gives one)").
A sentence that names a flag as a fact ("`--latency-budget-ms` itself has no default", "the given
--latency-budget-ms 25", "time windows of --round-window") keeps it as it is (trial 26, T26-12: make demo said
"DEMO_BUDGET_MS (`DEMO_BUDGET_MS=... make demo`) itself has no default" right after saying its default).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import click

#: The script a sweep is run with (``perf/cli/main.py``'s ``sweep_script``), as the README spells it.
SCRIPT = "perf/run_sweep.sh"

#: A backticked span that is a command of its own (a program, then its arguments): never rewritten.
_COMMAND = re.compile(r"`(?:\S*/)?(?:triton-perf|run_sweep\.sh|builders|clients|make|kubectl|tritonserver|python)\b[^`]*`")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_TOKEN = re.compile(r"[ =]([^\s`;,)]+)")
#: The words right before a flag with no value that offer it to be given: "a longer", "a", "pass", "give", "add one
#: to", "try", "with", "or", "and" (then an optional backtick).
_OFFER_BEFORE = re.compile(r"(?:\b(?:an?(?: \w+)?|give|pass|set|raise|lower|use|try|with|or|and|add(?: \w+)? to)|->) `?$")
#: The words right after a flag with no value that offer it: "(--time-budget gives one)", "--time-budget 8m keeps it".
_OFFER_AFTER = re.compile(r"^`? (?:gives|measures|keeps)\b")
#: The words right before a flag with its value that name a setting already made, not one to give: "the given
#: --latency-budget-ms 25", "its --time-budget 6m", "pruning applies to --concurrency auto".
_NAMED_BEFORE = re.compile(r"\b(?:the|its|this|their|given|of|to) `?$")
#: A placeholder value (``--run-id NEW``) or one with a number, list, range, path or pattern in it.
_VALUE_LIKE = re.compile(r"^[A-Z][A-Z_]*$|[0-9=/*,_.:]")


def sweep_options() -> dict[str, click.Option]:
    """Every ``--flag`` of ``triton-perf sweep`` (``perf/run_sweep.sh``), its click option."""
    import click

    from perf.cli.main import cli

    return {o: p for p in cli.commands["sweep"].params if isinstance(p, click.Option) for o in p.opts if o.startswith("--")}


def options_of(command: str) -> set[str]:
    """The ``--flags`` of ``triton-perf COMMAND`` (``"export-deployment"``), for ``own``."""
    from perf.cli.main import cli

    return {o for p in cli.commands[command].params for o in [*p.opts, *p.secondary_opts] if o.startswith("--")}


def offered(text: str, start: int, end: int, valued: bool) -> bool:
    """Whether the flag (or run of flags) at ``text[start:end]`` is offered for its reader to give (module
    docstring): ``valued`` (a flag with its value) unless the words before it name a setting already made; one
    without a value only where the words before or after it offer it."""
    before, after = text[max(0, start - 40) : start], text[end : end + 20]
    if valued:
        return not _NAMED_BEFORE.search(before)
    return bool(_OFFER_BEFORE.search(before) or _OFFER_AFTER.match(after))


def _takes(option: click.Option, token: str) -> bool:
    """Whether ``token`` (the word after the flag) is the flag's value rather than the sentence going on."""
    import click

    if option.is_flag:
        return False
    if isinstance(option.type, click.Choice):
        return token in option.type.choices
    return bool(_VALUE_LIKE.search(token))


def metavar(option: click.Option) -> str:
    """What a value of ``option`` looks like: its metavar, its choices, ``N`` for a number, else ``VALUE``."""
    import click

    if option.metavar:
        return option.metavar
    if isinstance(option.type, click.Choice):
        return "|".join(option.type.choices)
    return "N" if isinstance(option.type, (click.types.IntParamType, click.types.FloatParamType)) else "VALUE"


def command(sweep: Sequence[str], flags: Sequence[tuple[str, str | None]]) -> str:
    """``perf/run_sweep.sh`` with the demo's arguments ``sweep`` and ``flags`` (``(flag, value or None)``): a
    flag the demo passes once gets the new value, one given many times (``--shapes``) is added."""
    options = sweep_options()
    args = list(sweep)
    for flag, value in flags:
        option = options[flag]
        if flag in args and not option.multiple and not option.is_flag:
            i = args.index(flag)
            args[i + 1 : i + 2] = [value or metavar(option)]
        elif not (option.is_flag and flag in args):
            args += [flag] if option.is_flag else [flag, value or metavar(option)]
    return f"{SCRIPT} {shlex.join(args)}"


def sweep_commands(text: str, sweep: Sequence[str], knobs: Collection[str], own: Collection[str] = ()) -> tuple[str, list[str]]:
    """``text`` with each run of sweep flags that holds one of no ``knobs`` (and not of ``own``) said as the full
    command (module docstring), and the commands already in it, each replaced by a placeholder (NUL, its number, NUL) so that
    no later rewrite touches them; the second item lists what each placeholder stands for (:func:`restore`)."""
    options = sweep_options()
    kept: list[str] = []

    def hold(words: str) -> str:
        kept.append(words)
        return f"\0{len(kept) - 1}\0"

    text = _COMMAND.sub(lambda m: hold(m.group(0)), text)
    out, at, segments = [], 0, list(_segments(text, options))
    i = 0
    while i < len(segments):
        run = [segments[i]]
        while i + 1 < len(segments) and not text[run[-1][1] : segments[i + 1][0]].strip():
            i += 1
            run.append(segments[i])
        i += 1
        flags = [(f, v) for _, _, f, v in run]
        if not any(f in options and f not in knobs and f not in own for f, _ in flags) or any(f not in options for f, _ in flags):
            continue
        start, end = run[0][0], run[-1][1]
        if not offered(text, start, end, any(v is not None for _, v in flags)):
            continue  # a flag named as a fact, not offered to be given
        tick = start > 0 and text[start - 1] == "`" and text[end : end + 1] == "`"
        start, end = (start - 1, end + 1) if tick else (start, end)
        bare = [f for f, v in flags if v is None and not options[f].is_flag]
        said = text[start:end].strip("`")
        whole = hold(f"`{command(sweep, flags)}`")
        out += [text[at:start], f"{said} (make demo has no setting for it: {whole})" if bare else whole]
        at = end
    return "".join([*out, text[at:]]), kept


def _segments(text: str, options: dict[str, click.Option]) -> list[tuple[int, int, str, str | None]]:
    """``(start, end, flag, value or None)`` per ``--flag [value]`` in ``text``; in a backticked span (code: the
    word after a flag that takes a value is its value, a run id as ``--resume r`` too: trial 19, T19-1) or one
    that looks like a value (:func:`_takes`)."""
    found = []
    for m in _FLAG.finditer(text):
        flag, end, value = m.group(0), m.end(), None
        token = _TOKEN.match(text, end)
        code = text.count("`", 0, m.start()) % 2 == 1
        word = _unstop(token.group(1)) if token else ""
        if token and flag in options and (code and not options[flag].is_flag or _takes(options[flag], word)):
            value, end = word, token.start(1) + len(word)
        found.append((m.start(), end, flag, value))
    return found


def _unstop(token: str) -> str:
    """``token`` without the full stop that ends its sentence (``time=1000..16000.``; a range's ``..`` stays)."""
    return token[:-1] if token.endswith(".") and not token.endswith("..") else token


def restore(text: str, kept: Sequence[str]) -> str:
    """``text`` with :func:`sweep_commands`' placeholders put back."""
    return re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], text)
