"""Which levels a paired comparison compared, in words: every sentence that names a variant the pick was compared
with names the level of it that was compared, and where they shared fewer rounds than the group ran, which rounds
each level was measured in.

A variant is ranked at its operating point (:func:`perf.analysis.ranking.operating.operating_point`): under a latency
budget its best level within it, by peak its best level whatever the budget, so one rival is compared at one level
by one ranking and at another by the other. Trial 24, T24-15: two picks of the same level said of the same rival
"shared at least 6 rounds with it" (its c=2, under the budget) and "never measured in the same round as the pick's
level" (its c=16, by peak), naming neither level: read as a contradiction. Trial 24, T24-9: "`X` shared 4 rounds
with the leader: too few rounds to tell" after 10 rounds in which both variants were measured every round: the
compared level of ``X`` was measured in 4 of them, and nothing said so.
"""

from __future__ import annotations

from collections.abc import Sequence

from perf.analysis.build_checks import notes
from perf.analysis.ranking.operating import Comparison
from perf.records.results import RunResult


def rival(c: Comparison, run: RunResult | None = None) -> str:
    """```b` at c=2``: the variant the pick was compared with and the level of it compared (``b`` side of ``c``),
    with its build's verdict when it is not ``ok`` (:func:`perf.analysis.build_checks.named`'s words):
    ```b` at c=2 (build: onnx fp16 not verified in fp16 on this host)``."""
    said = notes(run, c.b.variant) if run is not None else []
    return f"`{c.b.variant}` at {c.b.level()}" + "".join(f" ({w})" for w in said)


def rivals(cs: Sequence[Comparison], run: RunResult | None = None) -> list[str]:
    """:func:`rival` of each of ``cs``."""
    return [rival(c, run) for c in cs]


def rounds_span(rounds: Sequence[int]) -> str:
    """Rounds as a reader counts them (from 1): ``"rounds 1–10"``, ``"rounds 1, 2, 4 and 5"``, ``"round 3"``,
    ``"rounds 1–3 and 7–10"``; ``"no round"`` for none (``rounds``: 0-based, as records hold them)."""
    got = sorted({r + 1 for r in rounds})
    if not got:
        return "no round"
    runs: list[list[int]] = []
    for r in got:
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    tokens = [t for x in runs for t in ([f"{x[0]}–{x[-1]}"] if len(x) > 2 else [str(r) for r in x])]
    text = f"{', '.join(tokens[:-1])} and {tokens[-1]}" if len(tokens) > 1 else tokens[0]
    return ("round " if len(got) == 1 else "rounds ") + text


def shared_why(c: Comparison, leader: str = "the leader's") -> str:
    """Why ``c``'s two levels shared fewer rounds than either was measured in, or than the group ran: each level's
    rounds, ``"c=1 was measured in rounds 1, 2, 4 and 5, the leader's c=4 in rounds 1–10"``; ``""`` when the
    rounds each side was measured in are not known (a comparison made before they were recorded) or are the same.
    ``leader``: how the pick's side is named (``"the pick's"``)."""
    if not c.a_rounds or not c.b_rounds or c.a_rounds == c.b_rounds:
        return ""
    return f"{c.b.level()} was measured in {rounds_span(c.b_rounds)}, {leader} {c.a.level()} in {rounds_span(c.a_rounds)}"
