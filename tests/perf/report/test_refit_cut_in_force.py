"""A cut the plan fitted again after the loads replaced is not listed as in force (trial 24, T24-2): run s1's first plan
cut the ladder above 16, the refit after the loads above 4; report.md said "Cut for time (2)" with both and the Search
section "brute force over the same ladder, cut for time at c=16: 20" though only c=1 and 4 were measured."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, make_run, run_result, variant_result

from perf.records import results
from perf.records.provenance import stamp
from perf.records.rounds import BudgetRecord, Cut, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord
from perf.report.sections.rounds_budget import budget_lines
from perf.report.write import write_report

FIRST = Cut("levels", "concurrency above 16 not measured: the ladder up to 64 would not leave time for 7 rounds", concurrency=32)
REFIT = Cut("levels", "concurrency above 4 not measured: after the loads took 9.3 s a variant to load", concurrency=8)


def test_recording_a_later_levels_cut_replaces_the_earlier_one() -> None:
    rr = RoundsRecord(seed=1)
    rr.cut(FIRST)
    rr.cut(Cut("variant", "not measured: no time", "c"))
    rr.cut(REFIT)
    assert rr.cuts == [Cut("variant", "not measured: no time", "c"), REFIT]
    assert RoundsRecord(seed=1, cuts=[FIRST, REFIT]).in_force() == [REFIT]  # a record written before: read the same


def test_the_report_lists_the_cut_in_force_once(tmp_path: Path) -> None:
    run = make_run()
    stamp(run)
    run.rounds = RoundsRecord(seed=1, cuts=[FIRST, REFIT], budget=BudgetRecord(150.0, 1.25, 5.0, 124.0, 6, max_concurrency=16))
    text = "\n".join(budget_lines(run))
    assert "- **Cut for time** (1 level cap):" in text and "above 4 not measured" in text and "above 16" not in text
    # the Search section: the brute force count at the cap in force (c=4: 1, 2, 4 on 2 variants), not at the first plan's 16
    variants = [variant_result(n, [level_result(c, 100.0 * c, 5.0) for c in (1, 4)]) for n in ("a", "b")]
    search = SearchRecord("brute", True, order=["a", "b"], decisions=[SearchDecision("b", "cap", 4, "top")])
    rounds = RoundsRecord(seed=1, cuts=[FIRST, REFIT], budget=BudgetRecord(150.0, 1.25, 5.0, 124.0, 6, max_concurrency=16))
    saved = run_result(variants, settings={"design": "rounds", "concurrency": "auto"}, rounds=rounds, search=search)
    results.save(saved, tmp_path)
    section = write_report(tmp_path).read_text().split("## Search", 1)[1].split("\n## ", 1)[0]
    assert "(brute force over the same ladder, cut for time at c=4: 6 levels)" in section and "c=16" not in section


def test_the_refit_records_the_cap_it_runs_under() -> None:
    """perf.sweep.load_cuts.said: the budget's max_concurrency is the refit's cap (4), not the first plan's (16), which the
    Search section, a resume's final group and the saturation words read."""
    import dataclasses
    from types import SimpleNamespace

    from perf.search.budget import Fit
    from perf.sweep.load_cuts import said

    run = make_run()
    run.rounds = RoundsRecord(seed=1, cuts=[FIRST], budget=BudgetRecord(150.0, 1.25, 5.0, 124.0, 6, max_concurrency=16))
    events: list = []
    sweep = SimpleNamespace(run=run, _save=lambda: None, progress=events.append)
    fields = {f.name: None for f in dataclasses.fields(Fit)}
    again = Fit(**{**fields, "estimate_s": 84.0, "rounds": 7, "cap": 4, "variants": [], "cuts": [REFIT]})  # type: ignore[arg-type]
    said(sweep, again, [REFIT], 9.3)  # type: ignore[arg-type]
    assert run.rounds.budget.max_concurrency == 4 and run.rounds.cuts == [REFIT]
