"""colocate's needs said against a time (issue 26, K4; s16's left open, re-check 19): the cut line "≈5 s needed, 5 s
left of 70 s, 4.5 s of it kept for the server's stop" for 4.6 and 4.9 s (fixed in 99c78e7; checked here over many
budgets); the plan line's need rounded up ("needs about
61 s" for 60.1 beside a 60 s budget); the plan fitted again "needs about 61 s ..., not the 61 s planned". Each is said
with perf.markdown.apart's decimals, the one rule for "need X s / Y s left"."""

from __future__ import annotations

import math
import re

import colocation_source as cs

from perf.colocate import outcome, plan
from perf.colocate.search import CoordinateSearch

CUT = re.compile(r"≈([\d.]+) s needed(?:, its loads included)?, [\d.]+ s usable: ([\d.]+) s left of \d+ s less ([\d.]+) s kept")


class _Loads(cs.TimedLoads):
    """Loads and unloads that take time, as in test_colocate_undecided."""

    load_s: float = 4.0
    unload_s: float = 2.9


def test_a_cut_says_the_need_and_the_time_left_apart() -> None:
    seen = 0
    for tenths in range(400, 1600, 7):
        src, rec = _Loads(5), cs.record(5)
        CoordinateSearch(rec, src, clock=src.clock, time_budget_s=tenths / 10 + 0.013).run()  # no need equal to the time left
        for cut in rec.cuts:
            m = CUT.search(cut)
            assert m, cut
            need, left, stop = (float(x) for x in m.groups())
            assert need != left, cut  # 4.6 and 4.9 printed "5" and "5" beside a cut
            assert need > left - stop, cut
            seen += 1
    assert seen > 20


def test_the_plan_line_says_its_need_against_the_budget_at_the_decimals_that_tell_them_apart() -> None:
    steps = plan.planned_steps(cs.record(0))
    for k in range(40):
        p = plan.Prices(visit_s=1.0 + k * 0.037, load_s=5.0)
        total = plan.estimate(steps, p, None).total_s
        for over in (0.1, 0.6, 1.2, 30.0):
            budget = float(math.floor(total - over))  # a whole-second budget under one pass
            words = plan.plan_words(plan.estimate(steps, p, budget), p, budget)
            need = re.search(r"needs about ([\d.]+) s", words)
            given = re.search(r"the time budget of ([\d.]+) s covers", words)
            assert need and given, words
            assert float(need.group(1)) != float(given.group(1)), words
            decimals = len(need.group(1).partition(".")[2])
            assert abs(float(need.group(1)) - total) <= 0.5 * 10**-decimals + 1e-9, (total, words)  # rounded, not up


def test_the_plan_fitted_again_says_its_need_apart_from_the_one_planned() -> None:
    steps = [plan.PlannedStep(0, "alone", 10, 0, 0), plan.PlannedStep(1, "final", 10, 0, 0)]
    planned = plan.Prices(visit_s=3.0, load_s=5.0, start_s=0.0, stop_s=0.0)
    for hundredths in range(300, 330):
        now = plan.Prices(visit_s=hundredths / 100, load_s=5.0, start_s=0.0, stop_s=0.0, visits_timed=4)
        for left in (None, 30.5, 31.0, 40.0):
            words = outcome.refit_words(steps, planned, now, 10.0, left)
            if words is None:
                continue
            m = re.search(r"needs about ([\d.]+) s .*, not the ([\d.]+) s planned", words)
            assert m and m.group(1) != m.group(2), words
            visit = re.search(r"a visit about ([\d.]+) s \(planned at ([\d.]+) s\)", words)  # 3.01 and 3.0: "3 s", "3 s"
            assert visit and visit.group(1) != visit.group(2), words
