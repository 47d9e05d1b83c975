"""How a refused flag value is shown: naming the flag once (issue 26).

click puts ``Invalid value for '--shapes':`` in front of every :class:`click.BadParameter`, and the
toolkit's refusals already start with the flag and its value, written so that they read whole in a
log or a :class:`~core.errors.ToolkitError` too (``--shapes 'seq=16;64': '16;64' is not a size``);
together they named the flag twice ("Invalid value for '--shapes': --shapes 'seq=16;64': ...").
:func:`named_once` is the one rule :class:`core.cli.ToolkitCommand` applies to every refusal of a
flag, whether a flag's callback, a parser run in the command's body (:func:`core.cli.parse_flag`) or a
:class:`~core.errors.FlagError` raised it.
"""

from __future__ import annotations

import re

import click


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
