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

from perf.records.rounds import LoadGroup
from perf.search import late as lates
from perf.sweep import load_cuts


def _finals(events: list) -> list[tuple[list[str], str]]:
    """Each final group the sweep said it would measure: (the cut variants it fits, the line)."""
    said = [e["text"] for e in events if e["event"] == "plan" and e["text"].startswith("rounds: after the rounds: ")]
    return [(re.findall(r"`([^`]+)`", t.split(" (cut by the plan)")[0]), t) for t in said]


# faster than the plan assumes: its rounds end early. Since a level retires only on the paired rule (T26-4, 3668bc9) the
# rounds keep more levels and take more of the budget: at 3.0 s a load no budget of 50-200 s reaches a final group
@pytest.mark.parametrize("load_s", [0.5, 1.0])
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


class _SlowFinalLoads(SimLoads):
    """The sweep's own load loop on the simulated host, each load of the final group after the rounds
    ``extra_s`` slower than the loads it was priced from (the host busier by then)."""

    extra_s = 5.0

    def _load(self, engine, name):
        if self._final is not None:
            self.host.t += self.extra_s
        return super()._load(engine, name)


@pytest.mark.parametrize("load_s", [0.5, 1.0])  # as above: 3.0 s a load reaches no final group since T26-4
def test_a_final_group_whose_cut_variants_no_longer_fit_unloads_its_tie_set_before_a_round(monkeypatch, load_s) -> None:
    """Issue 26 (note_s16 Left open): the final group's tie set loaded, its loads slower than priced, then every cut
    variant cut by the check before its load (perf.sweep.load_cuts.fit_final), and the tie set kept loaded and
    measured again alone: a group of rounds that adds no comparison, its rounds and unloads spending the budget.
    Now nothing more is loaded, those loaded are unloaded before a round and the group says why; the cut says its price."""
    undone = 0
    for budget_s in range(56, 120, 3):
        run, _, _, events, sweep = budgeted_sweep(monkeypatch, float(budget_s), load_s, _SlowFinalLoads)
        for names, line in _finals(events):
            final = next(g for g in run.rounds.groups if line.removeprefix("rounds: ").startswith(g.reason[:60]))
            assert not final.variants or set(final.variants) & set(names), (budget_s, final)  # never the tie set alone
            if final.variants or final.index + 1 < len(run.rounds.groups):
                continue
            before = sum(len(g.variants) for g in run.rounds.groups[: final.index])  # the loads before the final group
            loaded = sweep.loads[before:]  # the tie set's, in the final group
            if not loaded:
                continue
            undone += 1
            assert sweep.unloaded == loaded and not [r for r in run.rounds.rounds if r.group == final.index]
            said = ", ".join(f"`{n}`" for n in loaded)
            assert f"; {said} unloaded before a round: no cut variant of the final group fits " in final.reason
            assert any(e["event"] == "plan" and e["text"].startswith(f"rounds: {said} unloaded before a round") for e in events)
            for n in names:
                (cut,) = [c for c in run.rounds.cuts if c.kind == "variant" and c.variant == n]
                assert (
                    cut.final and cut.reason.startswith("not measured: after the rounds and ") and " needs about " in cut.reason
                )
    assert undone >= 3


def test_what_is_left_of_a_group_adds_no_comparison_when_measured_together_already_or_a_tie_set_alone() -> None:
    """The rule the sweep's load loop checks before each load (perf.sweep.load_cuts.adds_nothing), loaded members
    included: a final of the groups' tie sets whose later members the time check cut holds what one group measured."""
    groups = [LoadGroup(0, ["a", "b", "c"], "every contender fits")]
    assert load_cuts.adds_nothing(groups, None, ["a", "b"]) == "a, b were measured together in group 1 already"
    assert load_cuts.adds_nothing(groups, None, ["a", "d"]) == "" and load_cuts.adds_nothing(groups, None, []) == ""
    final = lates.Final(["c1"], ["a", "b"], 2, [2])
    assert load_cuts.adds_nothing([], final, ["a", "c1"]) == ""  # a cut variant still to measure
    alone = load_cuts.adds_nothing([], final, ["a"])  # a resume's: its tie set measured in an earlier session
    assert alone.startswith("no cut variant of the final group fits") and alone.endswith("`a` adds no comparison")
