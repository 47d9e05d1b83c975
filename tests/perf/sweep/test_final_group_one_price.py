"""The final group after the rounds is priced by one rule from its first load to its last
(perf.search.late.late, again before each of its loads: perf.sweep.load_cuts.fit_final): trial 17,
T17-2, "after the rounds: 79 s ... left fit `sigconv_ts_cpu1_db500_mbs64` ...: about 75 s", then, one
line later, "cut for time: sigconv_ts_cpu1_db500_mbs64 not measured: after the first 4 loads took
13.0 s ...: 3 variants need about 94 s" (the first plan's re-fit over its whole ladder). The sweep's
own load loop on the simulated host of tests/support/simulated_host.py."""

from __future__ import annotations

import re

import pytest
from simulated_host import SimLoads, budgeted_sweep

from perf.search import late as lates


def _finals(events: list) -> list[tuple[list[str], str]]:
    """Each final group the sweep said it would measure: (the cut variants it fits, the line)."""
    said = [e["text"] for e in events if e["event"] == "plan" and e["text"].startswith("rounds: after the rounds: ")]
    return [(re.findall(r"`([^`]+)`", t.split(" (cut by the plan)")[0]), t) for t in said]


@pytest.mark.parametrize("load_s", [1.0, 3.0])  # faster than the plan assumes: its rounds end early
def test_a_variant_said_to_fit_the_final_group_is_loaded_or_cut_by_the_same_rule(monkeypatch, load_s: float) -> None:
    finals = 0
    for budget_s in range(50, 120, 3):
        run, _, host, events, sweep = budgeted_sweep(monkeypatch, float(budget_s), load_s, SimLoads)
        assert host.clock() <= budget_s + 1e-6
        for names, line in _finals(events):
            finals += 1
            for n in names:
                cut = [c.reason for c in run.rounds.cuts if c.kind == "variant" and c.variant == n]
                assert n in sweep.loads or all(r.startswith("not measured: after the rounds and ") for r in cut), (
                    budget_s,
                    line,
                    cut,
                )
    assert finals >= 3  # the grid reaches final groups (on the old code the re-fit cut every late variant of 27)


def test_the_final_groups_price_counts_only_the_loads_still_to_come() -> None:
    args = (["c1", "c2"], ["a", "b"], 3, [3], 4.0, 1.0)
    whole = lates.late(*args, 1000.0)
    assert whole.variants == ["c1", "c2"]
    after_two = lates.late(*args, 1000.0, loaded={"a", "b"})
    assert after_two.estimate_s == pytest.approx(whole.estimate_s - 2 * 4.0)  # the tie set's two loads are spent
    tight = lates.late(*args, whole.estimate_s - 3 * 4.0 - 0.1, loaded={"a", "b", "c1"})  # c1 loaded: kept, c2 over
    assert tight.variants == ["c1"] and [c.variant for c in tight.cuts] == ["c2"]
    assert tight.cuts[0].reason.startswith("not measured: after the rounds and 3 loads of the final group ")


def test_a_formats_own_load_price_prices_the_final_group() -> None:
    args = (["c1"], ["a"], 3, [3], 4.0, 1.0, 1000.0)
    one = lates.late(*args)
    slow = lates.late(*args, prices={"c1": 20.0})
    assert slow.estimate_s == pytest.approx(one.estimate_s + 16.0) and "4.0 s a load (20.0 s for another format's)" in slow.reason
