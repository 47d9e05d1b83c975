"""Flags given where the command would not read them (issue 26, kind K1: "a flag accepted and ignored").

A command lists, once, each flag that some other flag or input makes it pass over (:class:`Unread`:
``clients infer --seed`` beside ``--input-data``, whose inputs are not generated); :func:`refuse_unread`
refuses every one the user typed in that run, in one usage error (exit 2) naming each flag, why it would
be ignored and what to do. A flag counts as typed by click's parameter source (:func:`core.options.given`),
so a default is never refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import click

from core.errors import FlagError
from core.options import given


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


def refuse_unread(ctx: click.Context, cases: Iterable[Unread], since: str = "") -> None:
    """Refuse the flags of ``cases`` the user typed (:func:`core.options.given`) that this run passes over.

    Args:
        ctx: The command's click context.
        cases: The command's flags that some other flag or input can make it pass over.
        since: What makes them all unread, said once after them (``"RUN is a co-location run"``) [default: none].

    Raises:
        FlagError: one or more typed flags would be ignored (exit 2), each named with why (flags ignored for
            the same reason together, the reason once) and what to do; ``flag`` is the first.
    """
    typed = given(ctx)
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
