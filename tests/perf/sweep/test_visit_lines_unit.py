"""Every visit a rounds sweep counts ("rounds: 3 rounds (20 visits)") prints one console line, which names its
round (trial 15, T15-1: a reader matching the table's median of a level to the console's lines could not tell
which round each line was, and counted 18 of the 20). The sweep's own group code on the simulated host of
tests/support/simulated_host.py (no server), with two swept sizes, ladders that stop, variants the plan cut
measured in a final group after the rounds; its events printed by the sweep command's listener."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
import simulated_host
from rich.console import Console
from simulated_host import SimHost, SimSweep, sim_run

from perf.cli.sweep_progress import SweepProgress
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget as budgets
from perf.search.rounds import Rounds, Setup
from perf.sweep.budget_scope import spent_words

CURVES = {"v_a": (1000.0, 2.0), "v_b": (900.0, 2.0), "v_c": (700.0, 1.5), "v_d": (600.0, 1.0), "v_e": (500.0, 1.0)}
SIZES = ("T=16", "T=128")
#: One visit's line: ``round 2: v_a c=4 T=128 b=1: 812.4 infer/s, p99 9.78 ms``.
LINE = re.compile(r"^round (\d+): (\S+) c=(\d+) (T=\d+) b=1: [\d,]+\.\d infer/s, p99 [\d.]+ ms")


def test_every_counted_visit_prints_one_line_naming_its_round(monkeypatch: pytest.MonkeyPatch) -> None:
    for n, curve in CURVES.items():
        monkeypatch.setitem(simulated_host.TRUE, n, curve)
    budget_s = 120.0  # the plan cuts some variants; the rounds leave time to measure some of them after
    host = SimHost(3, amplitude=0.0, noise=0.05, visit_s=0.5)
    rules = RoundRules()
    run, plans, levels, adaptive = sim_run(CURVES, 3, rules)
    plans = {n: dataclasses.replace(p, shapes=SIZES) for n, p in plans.items()}  # --shapes T=16,128
    fit = budgets.fit(list(CURVES), levels, adaptive, len(SIZES), rules, SearchRules(), budget_s, False)
    for cut in fit.cuts:  # as perf.sweep.run records the plan's cuts
        run.rounds.cut(cut)
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    events: list = []
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + budget_s, events=events.append)
    SimSweep(run, plans, host, events, 1.0).run_rounds(engine, fit.variants, fit)

    out = io.StringIO()
    progress = SweepProgress(Console(file=out, width=300, log_time=False, log_path=False))
    progress.task = progress.bar.add_task("starting tritonserver", total=0)  # as the sweep command starts its bar
    for e in events:
        progress.on_event(e)
    lines = [m for ln in out.getvalue().splitlines() if (m := LINE.match(ln))]
    visits = [(r.index, v) for r in run.rounds.rounds for v in r.order]
    assert len(run.rounds.groups) > 1 and fit.cut_variants  # a final group after the rounds: that path too
    assert {v.shape for _, v in visits} == set(SIZES) and any(d.rule != "pruned" for d in run.search.decisions)
    assert f"({len(visits)} visits)" in spent_words(run.rounds, (0, 0), host.clock(), fit.estimate_s, None)
    assert len(lines) == len(visits)  # one line per visit counted
    printed = sorted((int(m[1]) - 1, m[2], int(m[3]), m[4]) for m in lines)
    assert printed == sorted((i, v.variant, v.concurrency, v.shape) for i, v in visits)  # each with its own round
