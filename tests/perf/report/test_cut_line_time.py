"""The cut line carries the time the plan estimated for the cut variants, and ``make demo`` says it as its
own setting (trial 13, T13-13: "a longer `--time-budget` measures them" gave no number, and the demo
translated the baseline's advice to ``DEMO_TIME_BUDGET=... make demo`` but not this one)."""

from __future__ import annotations

import dataclasses

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.cuts import unmeasured_caveat
from perf.cli.demo_settings import as_demo
from perf.records.rounds import Cut, RoundsRecord

KNOBS = [("--time-budget", "DEMO_TIME_BUDGET"), ("--concurrency", "DEMO_CONCURRENCY")]


def _run(needs: list[float | None]):
    measured = [variant_result("fast", [level_result(c, 300.0 * c, 2.0 * c, trial=r) for c in (1, 2) for r in range(3)])]
    cut = [variant_result(f"cut_{i}", status="skipped", error="cut for time: ...") for i in range(len(needs))]
    run = run_result([*measured, *cut], settings={"latency_budget_ms": 25.0}, finished="x")
    cuts = [Cut("variant", "not measured: ...", f"cut_{i}", need_s=s) for i, s in enumerate(needs)]
    run.rounds = RoundsRecord(seed=1, cuts=cuts)
    return run


def test_the_cut_line_names_the_time_the_plan_estimated_for_the_cut_variants() -> None:
    """Trial 16, T16-10: and the --time-budget that covers it, not only "a longer --time-budget"."""
    caveat = unmeasured_caveat(_run([412.3, 380.0]))
    assert caveat is not None and caveat.endswith(
        "`--time-budget 9m` measures them (the plan estimated about 412 s for the rounds a verdict needs of them, "
        "the server's start aside; the budget adds 20% for what varies between sessions)."
    )
    caveat = unmeasured_caveat(_run([None]))  # a record written before the number was kept: no number made up
    assert caveat is not None and caveat.endswith("a longer `--time-budget` measures it.")


def test_make_demo_says_every_flag_advice_as_its_setting() -> None:
    caveat = unmeasured_caveat(_run([412.3]))
    assert caveat is not None
    said = as_demo(caveat, KNOBS)
    assert "--time-budget" not in said and "`DEMO_TIME_BUDGET=9m make demo` measures it (the plan estimated" in said
    said = as_demo(unmeasured_caveat(_run([None])) or "", KNOBS)
    assert "a longer DEMO_TIME_BUDGET (`DEMO_TIME_BUDGET=... make demo`) measures it" in said
    assert as_demo("skipped: ...; --time-budget 8m keeps it", KNOBS) == "skipped: ...; DEMO_TIME_BUDGET=8m make demo keeps it"
    assert as_demo("skipped: ...; a longer --time-budget keeps it", KNOBS) == "skipped: ...; a longer DEMO_TIME_BUDGET keeps it"


def test_a_variant_cut_as_a_final_group_after_the_rounds_is_measured_by_a_resume_of_the_run() -> None:
    """Trial 19, T19-1: a 3-minute run whose rounds left too little for a final group said "`--time-budget 2m`
    measures it" (the final group's 77 s, not a new run's plan), and ``make demo`` its own command again."""
    run = _run([77.0, 105.0])
    run.rounds.cuts = [dataclasses.replace(c, final=True) for c in run.rounds.cuts]  # priced by perf.search.late.late
    caveat = unmeasured_caveat(run)
    assert caveat is not None and caveat.endswith(
        f"`--resume {run.run_id} --time-budget 3m` measures them (in a final group with the tie set: about 105 s for "
        "the rounds a verdict needs, the server's start aside; the budget adds 20% for what varies between sessions)."
    )
    said = as_demo(caveat, KNOBS, ["--repository", "model_repository", "--variants", "mlp_*", "--time-budget", "2m"])
    assert "DEMO_TIME_BUDGET=3m make demo" not in said and f"--resume {run.run_id}" in said  # not the demo's own command


def test_a_plans_cut_beside_a_final_groups_cut_is_said_as_a_new_run() -> None:
    run = _run([188.0, 77.0])
    run.rounds.cuts[1] = dataclasses.replace(run.rounds.cuts[1], final=True)
    caveat = unmeasured_caveat(run)
    assert caveat is not None and caveat.endswith("`--time-budget 4m` measures them (the plan estimated about 188 s for the rounds a verdict needs of them, the server's start aside; the budget adds 20% for what varies between sessions).")  # fmt: skip
