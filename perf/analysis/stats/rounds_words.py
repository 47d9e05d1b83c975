"""Words about how many paired rounds a verdict rests on (:mod:`perf.analysis.stats.paired`'s rule): by which tier
and after how many rounds verdicts were reached, and a pick that rests on fewer rounds than a verdict needs."""

from __future__ import annotations

from collections.abc import Sequence

from core.wording import count
from perf.analysis.stats.paired import ALPHA, Paired, min_rounds


def tiers_words(results: Sequence[Paired]) -> str:
    """By which tier of the rule and after how many rounds the verdicts ``results`` were reached
    (what a pick beats): ``"on a large, consistent gap after 3 rounds"``, ``"by the sign test after
    6–8 rounds"``, or both counted; ``""`` without any. Trial 11 (F23): a pick that beat its
    runner-up on the gap after 3 rounds was said to be "measured in 3 rounds, fewer than the 6 a
    verdict needs" beside "the pick beats it"."""
    parts = []
    for gap, words in ((False, "by the sign test"), (True, "on a large, consistent gap")):
        n = sorted(r.rounds for r in results if r.by_gap == gap)
        if n:
            after = f"after {n[0]}–{n[-1]} rounds" if n[0] != n[-1] else f"after {count(n[0], 'round')}"
            parts.append((f"{len(n)} " if len(n) < len(results) else "") + f"{words} {after}")
    return ", ".join(parts)


def few_rounds(rounds: int | None, beats_all: bool, alone: bool = False, named: bool = False) -> str | None:
    """``"measured in 2 rounds, fewer than the 6 a verdict needs"``: a rounds sweep's pick whose level
    rests on fewer rounds than the rule needs (:func:`min_rounds`; trial 7: a pick and a bundle on 2
    of 6 planned rounds, said nowhere); ``None`` when it has them, is no rounds sweep's (``rounds``
    ``None``), or beats every other anyway (``beats_all``: a large gap, its verdict says so). A pick
    ranked ``alone`` (the only ranked variant, or a variant named to deploy) needed no verdict: its
    rounds are said without one (trial 11, F23: "fewer than the 6 a verdict needs" beside "the pick
    beats it" and "ranking decided (after 3 rounds)"). A variant ``named`` to deploy (``--variant``) is said to be
    named, not ranked alone: it was measured beside the others, only not judged against them (trial 22: "ranked
    alone" for a variant swept in a group of 7)."""
    if rounds is None or rounds >= min_rounds(ALPHA) or beats_all:
        return None
    if named:
        return f"measured in {count(rounds, 'round')} (named with --variant: not judged against the run's other variants)"
    if alone:
        return f"measured in {count(rounds, 'round')} (ranked alone: no verdict against another variant was needed)"
    return f"measured in {count(rounds, 'round')}, fewer than the {min_rounds(ALPHA)} a verdict needs"
