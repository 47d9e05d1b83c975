"""Every load of a rounds sweep goes through the one time check (perf.sweep.load_cuts.fit_to_loads), not
only the first group's: later groups (``max_loaded``), the final of the groups' or of the servers' tie
sets, each server's of several. Before, those loaded with no time check: a third group's variant loaded
with 1 s of the budget left and measured in no round, and the final of two servers' tie sets loaded
five variants past the end of the budget. The sweep's own load loop on the simulated host
(tests/support/simulated_host.py)."""

from __future__ import annotations

import pytest
from simulated_host import FIVE, SLOW_LOAD_S, SimLoads, budgeted_sweep


class _AtMostTwo(SimLoads):
    """Two variants loaded at once at most (``max_loaded``): groups of two."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opts.max_loaded = 2


class _TwoServers(SimLoads):
    """Two servers (lanes): the variants dealt to them in turn, then a final of their tie sets."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.servers.lanes = [None, None]


def _cuts_said(events: list) -> str:
    return "\n".join(e["text"] for e in events if e["event"] == "plan" and "cut for time: " in e["text"])


def _no_load_wasted(run, budget_s: float, host) -> None:
    """Within the budget, and every group that loaded a variant measured a round of it."""
    assert host.clock() <= budget_s
    for g in run.rounds.groups:
        assert not g.variants or any(r.group == g.index for r in run.rounds.measured()), (g.variants, g.ended)


@pytest.mark.parametrize("sweep_class", [_AtMostTwo, _TwoServers])
def test_a_load_the_time_left_cannot_afford_is_cut_before_it_starts(monkeypatch: pytest.MonkeyPatch, sweep_class) -> None:
    budget_s = 120.0 if sweep_class is _AtMostTwo else 150.0
    run, _, host, events, sweep = budgeted_sweep(monkeypatch, budget_s, SLOW_LOAD_S, sweep_class)
    _no_load_wasted(run, budget_s, host)
    said = _cuts_said(events)
    never = [n for n in FIVE if n not in sweep.loads]
    cut_again = [n for n in FIVE if n in sweep.loads and sweep.loads.count(n) == 1 and f"{n} not measured further" in said]
    assert never or cut_again, sweep.loads  # some load was cut: a variant never loaded, or a final's load
    for n in [*never, *cut_again]:  # each said as the plan's cuts are: after which loads, with what time left
        assert f"{n} not measured" in said and "s a variant to load and warm up (the plan assumed" in said, said


def test_a_final_no_round_of_which_fits_is_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    run, _, host, events, sweep = budgeted_sweep(monkeypatch, 150.0, SLOW_LOAD_S, _TwoServers)
    final = run.rounds.groups[-1]
    assert final.reason.startswith("the final: the tie sets of the servers") and not final.variants
    assert "not loaded: each of its variants cut for time before its load" in final.reason
    assert len(sweep.loads) == len(FIVE)  # each loaded once, on its server
    assert "the loads still to come, the first round and the unloads of" in _cuts_said(events)
