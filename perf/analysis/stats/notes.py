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
from perf.records.levels import UNSTABLE, UNSTABLE_NOTES
from perf.records.results import RunResult

#: A number as the notes write it: ``92``, ``1,234``, ``-3.5``, or a range :func:`merged` or :func:`notes_text` wrote,
#: ``36–38`` (one slot: two levels' ranges merge into one range, never "36–38–71–82": session 22, s22z Z-2).
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:–-?\d[\d,]*(?:\.\d+)?)?")


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def _ends(token: str) -> list[str]:
    """A :data:`_NUMBER` token's ends: ``"36–38"`` -> ``["36", "38"]``, ``"92"`` -> ``["92"]``."""
    return token.split("–")


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
    groups: dict[str, list[str]] = {}
    for note in notes:
        groups.setdefault(template(note), []).append(note)
    out = [merged(said) if len(said) == 1 else f"in {count(len(said), noun)}, {merged(said)}" for said in groups.values()]
    return "; ".join(out)


def template(text: str) -> str:
    """``text`` with each of its numbers blanked: texts that say the same thing with other numbers share it."""
    return _NUMBER.sub("\0", text)


def merged(texts: Sequence[str]) -> str:
    """Texts of one :func:`template` said once, each number that differs between them as its min–max
    (``"used 57 % ..."``, ``"used 95 % ..."`` -> ``"used 57–95 % ..."``); a number the same in all stays as it is.

    Raises:
        ValueError: ``texts`` is empty or its texts do not share one template.
    """
    if not texts or len({template(t) for t in texts}) != 1:
        raise ValueError(f"merged() takes texts of one template, got {len({template(t) for t in texts})} templates")
    slots = []
    for column in zip(*(_NUMBER.findall(t) for t in texts), strict=True):
        ends = [e for token in column for e in _ends(token)]
        lo, hi = min(ends, key=_value), max(ends, key=_value)
        slots.append(lo if _value(lo) == _value(hi) else f"{lo}–{hi}")
    parts = template(texts[0]).split("\0")
    return parts[0] + "".join(s + p for s, p in zip(slots, parts[1:], strict=True))


def flag_words(status: str, notes: Sequence[str], noun: str = "trial") -> str:
    """A flagged level's status and why, the one way every output says it: ``"unstable (its 3 windows' throughput
    spread 38 % ...)"``, ``"host busy (in 3 rounds, other processes used ...)"``; a level whose rounds were host busy
    and also unstable says each reason under its own word: ``"host busy (...); unstable (in 2 rounds, its 3 windows'
    throughput spread 12–38 % ...)"``. Trial 26, T26-11: the console said such rounds "[unstable]" and the report said
    the windows' spread under "host busy" (:data:`perf.records.levels.UNSTABLE_NOTES`: the notes said as unstable).

    Args:
        status: The level's status (the worst of its rounds': ``host busy``, ``unstable``, ``not achieved`` ...).
        notes: The notes of its rounds or trials, as :func:`notes_text` takes them.
        noun: What one note stands for (``"round"``, ``"trial"``).
    """
    spread = _spread(status, notes)
    own = notes_text([n for n in notes if n not in spread], noun)
    said = f"{status} ({own})" if own else status
    return f"{said}; {UNSTABLE} ({notes_text(spread, noun)})" if spread else said


def flag_statuses(status: str, notes: Sequence[str]) -> str:
    """:func:`flag_words` without the reasons, for a line too short for them (the sweep's console line of a visit):
    ``"unstable"``, ``"host busy"``, ``"host busy; unstable"``."""
    return f"{status}; {UNSTABLE}" if _spread(status, notes) else status


def _spread(status: str, notes: Sequence[str]) -> list[str]:
    """The notes of ``notes`` that say the level unstable, where its status says another flag."""
    return [n for n in notes if status != UNSTABLE and n.startswith(UNSTABLE_NOTES)]
