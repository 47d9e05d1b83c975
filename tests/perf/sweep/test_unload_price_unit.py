"""An unload is priced at the unloads the run measured, the unmeasured UNLOAD_S only before any (trial 17, T17-11: the
rounds' unloads, priced at that floor, ran 2 s into the time kept for the in-process baseline), and each group's
unload is recorded, so a later session prices from it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from perf.records.rounds import LoadGroup
from perf.search import budget
from perf.search import late as lates
from perf.sweep import load_cuts
from perf.sweep.rounds import RoundsSweep


def test_an_unload_is_priced_at_the_measured_mean_and_the_constant_only_before_any() -> None:
    assert load_cuts.unload_s([]) == budget.UNLOAD_S
    assert load_cuts.unload_s([1.0, 1.2]) == pytest.approx(1.1)  # faster than the constant: the measured time
    assert load_cuts.unload_s([4.0, 5.0]) == pytest.approx(4.5)
    groups = [LoadGroup(0, ["a", "b"], "r", unload_s=4.0), LoadGroup(1, ["c"], "r"), LoadGroup(2, [], "r", unload_s=9.0)]
    assert load_cuts.recorded_unload_times(groups) == [2.0, 2.0]  # a group's over its variants; none recorded: none


def test_a_session_prices_an_unload_from_the_runs_recorded_groups_and_its_own() -> None:
    rounds = SimpleNamespace(groups=[LoadGroup(0, ["a", "b"], "r", unload_s=4.0), LoadGroup(1, ["c"], "r", unload_s=99.0)])
    sweep = SimpleNamespace(run=SimpleNamespace(rounds=rounds), _groups_before=1, _unloads=[(1, 5.0)])
    assert RoundsSweep._unload_s(sweep) == pytest.approx(3.0)  # type: ignore[arg-type]  # (2 + 2 + 5) / 3; group 1 is this session's


def test_the_final_group_after_the_rounds_is_priced_at_the_unload_it_is_given() -> None:
    late = lates.late(["x"], ["a"], 2, [2], 5.0, 1.0, 1000.0, unload_s=1.0)
    assert late.estimate_s == pytest.approx(2 * (5.0 + 1.0) + 6 * (2 + 2) * 1.0)
    assert "1.0 s an unload" in late.reason
