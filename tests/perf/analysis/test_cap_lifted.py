"""Trial 21, T21-6's rest: a resume given more time lifts the ladder top an earlier session's time budget capped, and
nothing said so (a real run: a 45 s session capped the ladders at concurrency 4; its 100 s resume measured 8, 16 and
64 and found one variant's best at 8, while its plan line, the console's notes and report.md said nothing of the
cap, and report.md still listed "concurrency above 4 not measured" among the cuts). Now the plan that lifts it drops
that cut and records the cap it lifted (BudgetRecord.lifted_cap), its plan line says so, and the Recommendation's notes
(report.md and the console) say what was measured above it."""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.above_cap import lift_words, lifted, lifted_cap
from perf.cli.summary import summary
from perf.records.rounds import BudgetRecord, Cut, RoundsRecord

CUT = Cut("levels", "concurrency above 4 not measured: the ladder up to 64 would not leave time for 7 rounds", concurrency=8)


def _rounds(cap: int | None = 4, lifted_before: int | None = None) -> RoundsRecord:
    budget = BudgetRecord(45.0, 1.25, 5.0, 42.0, 5, cap, spent_s=37.0, lifted_cap=lifted_before)
    return RoundsRecord(seed=1, budget=budget, cuts=[CUT, Cut("variant", "not measured: 3 variants need 90 s", "c")])


def test_a_plan_that_lifts_an_earlier_cap_drops_its_cut_and_names_it() -> None:
    rr = _rounds()
    assert lifted_cap(rr, None) == 4
    assert [c.kind for c in rr.cuts] == ["variant"]  # measured above it now: no "concurrency above 4 not measured"
    rr = _rounds()
    assert lifted_cap(rr, 16) == 4 and [c.kind for c in rr.cuts] == ["variant"]  # this plan's own cut is added after
    assert lift_words(4, rr.budget, 64) == (
        "; the time budget's cap of concurrency 4 of an earlier session is lifted: its ladders may grow up to 64"
    )
    assert lift_words(4, _rounds(None, 4).budget, 64) == ""  # said by the session that lifted it, once


def test_a_cap_kept_or_never_set_is_no_lift() -> None:
    for rr, cap in [(_rounds(), 4), (_rounds(8), 4), (_rounds(None), None), (RoundsRecord(seed=1), None)]:
        kept = list(rr.cuts)
        assert lifted_cap(rr, cap) is None and rr.cuts == kept
    assert lifted_cap(_rounds(None, 4), None) == 4  # a later session keeps it lifted


def _run():
    levels = {"a": {1: 100.0, 4: 300.0, 8: 420.0, 16: 410.0}, "b": {1: 90.0, 4: 200.0}}
    variants = [
        variant_result(n, [level_result(c, t * (1 + 0.01 * r), 5.0, trial=r) for c, t in per.items() for r in range(3)])
        for n, per in levels.items()
    ]
    run = run_result(variants, run_id="r6")
    run.rounds = _rounds(None, 4)
    return run


def test_the_notes_say_what_was_measured_above_a_lifted_cap() -> None:
    run = _run()
    said = lifted(run)
    assert said is not None and said.startswith(
        "the time budget's cap of concurrency 4 (an earlier session's) was lifted on a resume given more time: "
        "measured above it: `a` at 8, 16, its highest median 424.2 infer/s at c=8 (at or under it: 303.0 infer/s)"
    ), said
    assert "`b`" not in said  # nothing of it above the cap
    assert said in recommend(run, 10.0).notes
    out = io.StringIO()
    Console(file=out, width=400).print("\n".join(summary(run, 10.0).notes))
    assert "was lifted on a resume given more time" in out.getvalue()
    run.rounds.budget.lifted_cap = None  # type: ignore[union-attr]
    assert lifted(run) is None


def test_a_cap_the_plan_fitted_again_put_back_is_not_said_lifted() -> None:
    """Trial 30, F13: a resume's plan lifted the cap of concurrency 4 ("its ladders may grow up to 16"), the plan fitted
    again to the loads put it back ("concurrency above 4 not measured"), and the notes said "the time budget's cap of
    concurrency 4 ... was lifted on a resume given more time: measured above it: no level was measured above it"."""
    levels = {"a": {1: 100.0, 2: 200.0, 4: 300.0}, "b": {1: 90.0, 4: 200.0}}
    variants = [
        variant_result(n, [level_result(c, t * (1 + 0.01 * r), 5.0, trial=r) for c, t in per.items() for r in range(3)])
        for n, per in levels.items()
    ]
    run = run_result(variants, run_id="r7")
    run.rounds = _rounds(4, 4)  # lifted by this session's first plan, its cap back at 4 after the loads
    said = lifted(run)
    assert said is not None and "was lifted on a resume given more time" not in said
    assert said.startswith(
        "the time budget's cap of concurrency 4 (an earlier session's) was lifted by a resume's plan, then capped at "
        "concurrency 4 again by the plan the rounds ran under (fitted to the time left): no level was measured above it"
    )
    run.rounds.budget.max_concurrency = 2  # type: ignore[union-attr]  # put back lower still: its own number
    assert "capped at concurrency 2 again" in (lifted(run) or "")
    run.rounds.budget.max_concurrency = None  # type: ignore[union-attr]  # not put back: lifted, nothing above yet
    assert "was lifted on a resume given more time: measured above it: no level was measured above it" in (lifted(run) or "")
