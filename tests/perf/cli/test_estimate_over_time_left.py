"""Trial 17, T17-13: make demo's step 3b said "at most about 32 s; within the time budget, 25 s left of 30 s": an
estimate over the time left is said as the cut it is, never "within" (:func:`perf.cli.baseline_time.profile_words`)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from perf.cli import baseline_time
from perf.profile import estimate


@pytest.mark.parametrize(("need_s", "said"), [(32.0, "more than"), (20.0, "within")])
def test_the_time_left_beside_an_estimate_says_a_cut_where_it_does_not_fit(
    monkeypatch: pytest.MonkeyPatch, need_s: float, said: str
) -> None:
    fake = estimate.ProfileEstimate(seconds=need_s, traces=2, rows=3)
    monkeypatch.setattr(estimate, "profile_estimate", lambda *_a, **_k: fake)
    opts = SimpleNamespace(deadline=time.monotonic() + 25.4)
    line = baseline_time.profile_words(opts, True, ["fp32"], 30.0)
    assert line.startswith("traces and precision study: 2 traces and 3 precision rows"), line
    if said == "within":
        assert line.endswith("at most about 20 s; within the time budget, 25 s left of 30 s"), line
    else:  # was "at most about 32 s; within the time budget, 25 s left of 30 s"
        assert "within" not in line and line.endswith(
            "at most about 32 s; more than the time budget's 25 s left of 30 s: what does not fit in them is cut at its end"
        ), line
