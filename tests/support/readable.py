"""A report that reads: no line too long, no passage said twice (trial 19, T19-17; issue 26). The scan every report test
shares (test_report_scale's 200-variant runs and real demo run, test_said_once's runs of one level that is both
picks)."""

from __future__ import annotations

import re

#: The longest line report.md may hold (characters): what a reader takes in at once, ~180 words. The 250-line bound
#: was kept by making lines of up to 3,856 characters (trial 19, T19-17: a 200-name search order on one line of
#: 5,708; Conclusions, Recommendation, Cold start and the precision study's paragraphs of 1,250-4,036 on real runs):
#: a long enumeration is a short sentence and a bullet list, or a pointer to where the full list is said.
MAX_LINE_CHARS = 1200
#: A passage this long (characters, from a word's start) said on two lines of report.md is a sentence said twice
#: (trial 19, T19-17: a ladder's why, word for word in the Recommendation, Paired ranking and Conclusions).
REPEAT_CHARS = 150
#: Repeats allowed (patterns of the words taken out before the check): none. Each passage is said once, the other
#: places point to it (the tie set, a pick's build verdict, the interactions, the flagged levels' words, the
#: traces' inputs; trial 19, T19-17).
KNOWN_REPEATS: tuple[str, ...] = ()


def said_twice(text: str) -> list[str]:
    """Passages of :data:`REPEAT_CHARS` characters (from a word's start) on two lines of a report's body
    (tables aside: a column repeats by design), but for :data:`KNOWN_REPEATS`."""
    seen: dict[str, int] = {}
    twice: dict[str, None] = {}
    for i, line in enumerate(text.split("\n## Said by the sweep")[0].splitlines()):
        if line.startswith("|"):
            continue
        for known in KNOWN_REPEATS:
            line = re.sub(known, "", line)
        for start in [0, *(j + 1 for j, ch in enumerate(line) if ch == " ")]:
            passage = line[start : start + REPEAT_CHARS]
            if len(passage) < REPEAT_CHARS:
                break
            if seen.setdefault(passage, i) != i:
                twice[passage] = None
    return list(twice)


def assert_readable(text: str) -> None:
    """No line over :data:`MAX_LINE_CHARS`, no sentence said twice (:func:`said_twice`)."""
    longest = max(text.splitlines(), key=len)
    assert len(longest) <= MAX_LINE_CHARS, f"a line of {len(longest)} characters: {longest[:200]}"
    assert not (twice := said_twice(text)), f"said twice: {twice[:3]}"
