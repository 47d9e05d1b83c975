"""A variant the time budget cut on a resume after it was measured in earlier rounds is never "not
measured", in the run as loaded or as the report and the console show it, one series per client
workload (trial 11, F13: `--batch-sizes 1,8`, resumed after 2 rounds: "The pick is the best of 4 of
the 4 variants; not measured (cut for time): `tabnet_onnx_cpu1_nodb_mbs64`" beside its numbers in
the tables, the frontier and the tie set; the split view has no record named after the variant)."""

from __future__ import annotations

import io

import pytest
from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import table_rows

from perf.analysis.measured import has_numbers, rounds_measured
from perf.analysis.recommendation.cuts import cut_notes, unmeasured_caveat, unmeasured_text
from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table
from perf.records.rounds import BudgetRecord, Cut, RoundsRecord
from perf.records.workloads import split_by_workload
from perf.report.sections.rounds_budget import budget_lines

ROUNDS, EARLY = 6, 2  # the others' rounds; the cut variant's, from the first session
WHY = "not measured further in this session: after the rounds 52 s of the time budget were left"


def _run():
    def vr(name: str, thr: float, rounds: int):
        lv = [level_result(c, thr * c * b, 2.0 * c, batch_size=b, trial=r) for c in (1, 2) for b in (1, 8) for r in range(rounds)]
        return variant_result(name, lv)

    run = run_result([vr("fast", 300.0, ROUNDS), vr("slow", 100.0, ROUNDS), vr("early", 200.0, EARLY)], finished="x")
    run.rounds = RoundsRecord(seed=1, budget=BudgetRecord(90.0, 1.2, 5.0, 68.0, 7), cuts=[Cut("variant", WHY, "early")])
    return run


@pytest.mark.parametrize("split", [False, True])
def test_a_cut_variant_with_numbers_is_measured_in_its_rounds_everywhere(split: bool) -> None:
    run = split_by_workload(_run()) if split else _run()
    assert has_numbers(run, "early") and rounds_measured(run, "early") == EARLY
    assert unmeasured_text(run, "early") is None
    caveat = unmeasured_caveat(run)
    assert caveat is not None and "not measured (cut for time)" not in caveat
    assert caveat.startswith(f"The pick is the best of 3 variants, 1 of them measured in {EARLY} rounds only (`early`")
    notes = " ".join(recommend(run).notes)
    assert caveat in notes and "not measured (cut for time)" not in notes
    assert cut_notes(run)[1:] == [
        "The numbers of `early`, measured before the cut, stand: ranked where they have the rounds a verdict needs."
    ]
    lines = "\n".join(budget_lines(run))
    assert "variant not measured (" not in lines and "variant not measured further in this session (`early`)" in lines


def test_the_console_row_of_each_series_says_its_rounds() -> None:
    out = io.StringIO()
    Console(file=out, width=400).print(summary_table(_run()))
    rows = [" ".join(cells) for k, cells in table_rows(out.getvalue()).items() if "early [b=" in k]
    assert len(rows) == 2
    for row in rows:
        assert f"measured in {EARLY} rounds, then not measured further in this session (cut for time)" in row


def test_a_cut_variant_measured_as_long_as_the_others_is_not_said_to_have_fewer_rounds() -> None:
    run = _run()
    run.variants[-1].levels += [
        level_result(lv.concurrency, 1.0, 1.0, batch_size=lv.batch_size, trial=r)
        for lv in run.variants[-1].levels[:1]
        for r in range(EARLY, ROUNDS)
    ]
    caveat = unmeasured_caveat(run)
    assert caveat is not None and f"measured in {ROUNDS} rounds (`early`" in caveat and "only" not in caveat


def test_a_cut_variant_measured_over_the_budget_is_not_said_unmeasured() -> None:
    """Trial 14, T14-5: a variant measured in 1 round (every level over the budget), then cut for time, was
    counted among "4 were not measured: cut for time" in the pick's words, beside its row in the tables; it has
    no level within the budget, with its lowest p99, and was measured in 1 round, then cut."""

    def vr(name: str, thr: float, p99: float, rounds: int):
        return variant_result(name, [level_result(c, thr * c, p99 * c, trial=r) for c in (1, 2) for r in range(rounds)])

    run = run_result([vr("fast", 300.0, 2.0, ROUNDS), vr("slow", 100.0, 2.0, ROUNDS), vr("late", 50.0, 90.0, 1)], finished="x")
    run.rounds = RoundsRecord(seed=1, budget=BudgetRecord(90.0, 1.2, 5.0, 68.0, 7), cuts=[Cut("variant", WHY, "late")])
    choice = recommend(run, latency_budget_ms=50).best_under_budget
    assert choice is not None and choice.variant == "fast"
    words = choice.verdict()
    assert "not measured" not in words, words
    assert "1 has no level within the budget: `late` (lowest p99 90.00 ms, at c=1" in words
    assert words.count("(measured in 1 round, then cut for time)") == 1


def test_a_variant_cut_on_one_round_is_said_so_with_the_time_budget_that_measures_it_further() -> None:
    """Trial 16, T16-10: a 2-minute --resume cut the variant with the top (1-round) median; the hint said only
    "a longer --time-budget". It says the cut came after 1 round and the budget the plan's estimate asks."""

    def vr(name: str, thr: float, rounds: int):
        return variant_result(name, [level_result(c, thr * c, 2.0 * c, trial=r) for c in (1, 2) for r in range(rounds)])

    run = run_result([vr("fast", 300.0, ROUNDS), vr("slow", 100.0, ROUNDS), vr("top", 900.0, 1)], finished="x")
    cut = Cut("variant", WHY + ": 3 variants need about 305 s for the 6 rounds a verdict needs", "top", need_s=305.2)
    run.rounds = RoundsRecord(seed=1, budget=BudgetRecord(120.0, 1.2, 5.0, 110.0, 7), cuts=[cut])
    caveat = unmeasured_caveat(run)
    assert caveat is not None
    assert "1 of them measured in 1 round only (`top`: then cut for time, not measured further)" in caveat
    assert caveat.endswith(
        "`--time-budget 7m` measures it further (the plan estimated about 305 s for the rounds a verdict needs of it, "
        "the server's start aside; the budget adds 20% for what varies between sessions)."
    )
    run.rounds.cuts = [Cut("variant", WHY, "top")]  # a record written before the estimate was kept: no number made up
    assert (unmeasured_caveat(run) or "").endswith(
        "then cut for time, not measured further); a longer `--time-budget` measures it further."
    )
