"""A cut a later session made good is no cut of the run (trial 21, T21-7): after two resumes, report.md's "Cut for
time" still listed the in-process baseline "skipped" by sessions 1 and 2, with "`triton-perf baseline RUN` measures
it" (refused on a run that has one) and "--time-budget 4m keeps it", though session 3 had measured it."""

from __future__ import annotations

from factories import make_run
from synthetic_runs import with_baseline

from perf.records.provenance import stamp
from perf.records.rounds import BudgetRecord, Cut, RoundsRecord
from perf.report.sections.rounds_budget import budget_lines

SKIPS = [
    Cut("baseline", "skipped: 7 s of the time budget left, it needs an estimated 36 s; --time-budget 4m keeps it"),
    Cut("baseline", "skipped: 61 s of the time budget left, it needs an estimated 87 s; a longer --time-budget keeps it"),
]
LEVELS = Cut("levels", "concurrency above 4 not measured: the ladder up to 64 would not leave time", concurrency=8)


def _run(measured: bool):
    run = make_run()
    stamp(run)  # today's toolkit: its saved reasons are said as they are
    run = with_baseline(run) if measured else run
    run.rounds = RoundsRecord(seed=1, cuts=[LEVELS, *SKIPS], budget=BudgetRecord(240.0, 1.3, 11.9, 55.0, 6, sessions=3))
    return run


def test_a_baseline_skipped_by_earlier_sessions_and_measured_since_is_not_listed_as_cut() -> None:
    text = "\n".join(budget_lines(_run(measured=True)))
    assert "- **Cut for time** (1 level cap):" in text, text
    assert "skipped: 7 s" not in text and "keeps it" not in text
    assert "- The in-process baseline, skipped for time in 2 earlier sessions, was measured since (Serving efficiency)." in text


def test_a_baseline_still_missing_stays_among_the_cuts() -> None:
    text = "\n".join(budget_lines(_run(measured=False)))
    assert (
        "- **Cut for time** (3: 1 level cap, 2 in-process baseline skips):" in text
        and "skipped: 61 s" in text
        and "measured since" not in text
    )


def test_a_capped_cut_list_has_its_full_list_in_the_appendix(tmp_path) -> None:
    """Trial 27, T27-6: report.md's "… 2 more in appendix.md" of the cuts for time, and the appendix's copy of the
    moved list said "… 2 more in its full list above": there was none. The appendix holds every cut, under the
    section report.md's pointer names."""
    from perf.records.results import save
    from perf.report.sections.rounds_budget import CUT_SECTION
    from perf.report.write import write_report

    run = make_run()
    stamp(run)
    levels = [
        Cut("levels", f"concurrency above {c} not measured: the ladder would not leave time", variant=f"v{c}", concurrency=c)
        for c in range(2, 9)
    ]
    run.rounds = RoundsRecord(seed=1, cuts=levels, budget=BudgetRecord(240.0, 1.3, 11.9, 55.0, 6))
    cuts = "\n".join(budget_lines(run))
    assert "- **Cut for time** (7 level caps):" in cuts and "more in [appendix.md](appendix.md)" in cuts, cuts
    save(run, tmp_path)
    (tmp_path / "commands.txt").write_text("perf_analyzer -m x\n")
    write_report(tmp_path)
    appendix = (tmp_path / "appendix.md").read_text()
    assert "full list above" not in appendix
    section = appendix.split(f"## {CUT_SECTION}\n")[1].split("\n## ")[0]
    assert all(f"concurrency above {c} not measured" in section for c in range(2, 9)), section


def test_the_cut_count_says_what_it_counts() -> None:
    """Trial 27, T27-6: "**Cut for time** (7)" beside the console's "cut for time: 4 variants not measured": the 7
    counted a level cap, a ladder stop, 4 variants and the skipped in-process baseline as one kind of thing."""
    run = make_run()
    stamp(run)
    cuts = [
        LEVELS,
        Cut("ladder", "the ladder stopped at concurrency 4, the time budget's cap", "a", 4),
        *[Cut("variant", "not measured: the rounds would not leave time", f"v{i}") for i in range(4)],
        SKIPS[0],
    ]
    run.rounds = RoundsRecord(seed=1, cuts=cuts, budget=BudgetRecord(240.0, 1.3, 11.9, 55.0, 6))
    text = "\n".join(budget_lines(run))
    assert "- **Cut for time** (7: 4 variants, 1 level cap, 1 ladder stop, 1 in-process baseline skip) (" in text, text
    # trial 31, F14's nit: "(1 rounds cut)"
    run.rounds.cuts = [Cut("rounds", "rounds after the first 2 of group 1 not measured: time budget spent")]
    assert "- **Cut for time** (1 cut of the rounds):" in "\n".join(budget_lines(run))
    run.rounds.cuts *= 2
    assert "- **Cut for time** (2 cuts of the rounds):" in "\n".join(budget_lines(run))
