"""Issue 26: :mod:`perf.analysis.ranking.standing`'s docstring quoted trial 15's 3.54–9.96× as a gap the rule does not
call, after the far tier (T17-1, :data:`perf.analysis.stats.paired.FAR_GAP`) began to call it. Its example is now the
rule's own words for its rounds, checked here against the rule."""

from __future__ import annotations

import re

from perf.analysis.ranking import standing
from perf.analysis.stats.paired import FAR_GAP, paired

ROUNDS = (1.51, 8.61, 3.0)  # the pick's rival, behind by these times in each of 3 rounds


def test_the_docstrings_uncalled_example_is_uncalled_in_the_rules_words() -> None:
    doc = " ".join((standing.__doc__ or "").split())
    lo, hi = (float(x) for x in re.search(r"every one of its 3 rounds, ([\d.]+)–([\d.]+) times", doc).groups())  # type: ignore[union-attr]
    assert (lo, hi) == (min(ROUNDS), max(ROUNDS))
    p = paired([1.0] * 3, list(ROUNDS))
    assert p is not None and p.verdict == "not distinguishable" and lo <= FAR_GAP
    assert p.uncalled(False) in doc, p.uncalled(False)


def test_trial_15s_example_is_called_now() -> None:
    p = paired([1.0] * 3, [3.54, 9.96, 5.0])
    assert p is not None and p.verdict == "lower" and p.tier == "far"
