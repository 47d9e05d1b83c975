"""A level's notes said once: the reasons of its flag over its rounds (or trials).

A level measured in several rounds gets one note per round and reason ("other processes used
92 % of one core during the visit (threshold 10 %)", then 101 %, 112 % ...). Joined as they are,
six rounds make one long parenthesis; :func:`notes_text` says each reason once, with how many
rounds gave it and, for every number that varies between them, its min–max.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.wording import count
from perf.records.results import RunResult

#: A number as the notes write it: ``92``, ``1,234``, ``-3.5``.
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def repeat_noun(run: RunResult) -> str:
    """What one repetition of a level is called in ``run``'s design: ``"round"`` (a rounds run),
    else ``"trial"`` (a sequential run's ``--trials``); a rounds run's words never say trials."""
    return "round" if run.rounds is not None else "trial"


def notes_text(notes: Sequence[str], noun: str = "trial") -> str:
    """``notes`` joined by ``"; "``, each reason once: notes that differ only in their numbers
    become ``"in 6 rounds, other processes used 92–132 % of one core ..."`` (a number that is the
    same in all of them stays as it is).

    Args:
        notes: The notes of a level's rounds or trials, repeats included (one per round that gave it).
        noun: What one note stands for (``"round"``, ``"trial"``), counted with :func:`core.wording.count`.

    Returns:
        The reasons in their first order; ``""`` for no notes.
    """
    groups: dict[str, list[list[str]]] = {}
    for note in notes:
        groups.setdefault(_NUMBER.sub("\0", note), []).append(_NUMBER.findall(note))
    out = []
    for template, numbers in groups.items():
        slots = []
        for column in zip(*numbers, strict=True):
            lo, hi = min(column, key=_value), max(column, key=_value)
            slots.append(lo if _value(lo) == _value(hi) else f"{lo}–{hi}")
        parts = template.split("\0")
        text = parts[0] + "".join(s + p for s, p in zip(slots, parts[1:], strict=True))
        out.append(text if len(numbers) == 1 else f"in {count(len(numbers), noun)}, {text}")
    return "; ".join(out)
