"""A resume's final group stopped during its loads, before its first visit (trial 23, T23-4), on the bundled
tritonserver and the real perf_analyzer: its variants are not measured (they were said "failed: no level produced a
measurement", and the printed --resume then measured nothing and exited 3), the time words add up (budget = spent +
left; the first session's in-process baseline was dropped from what it spent: "the run's own 253 s time budget:
148 s after the 105 s it spent"), the loads spend none of it, and the next resume measures that final group."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from final_group_runs import CUT, cut_run

from perf.records import results
from perf.records.rounds import Cut
from perf.records.unfinished import resume_budget_words, unfinished_text
from perf.sweep.run import run_sweep

pytestmark = pytest.mark.integration


def test_a_resumes_final_group_stopped_in_its_loads_is_not_failed_and_the_next_resume_measures_it(
    tiny_repo: Path, tmp_path: Path
) -> None:
    # as a time budget leaves it: the run finished its rounds of two variants, the third cut for time after them;
    # 20 s of its budget spent by the first session's in-process baseline
    cut = Cut("variant", "not measured: after the rounds 5 s were left; it needs about 30 s", CUT, final=True)
    run, run_dir, resume = cut_run(tiny_repo, tmp_path, "t23", 600.0, cut, "cut for time: after the rounds 5 s were left", 20.0)
    assert run.rounds is not None and run.rounds.budget is not None and run.rounds.budget.spent_s is not None
    spent = run.rounds.budget.spent_s + 20.0

    def stop(event: dict) -> None:
        if event.get("event") == "variant_loading" and event.get("variant") == CUT:  # its load, after the tie set's
            raise KeyboardInterrupt("SIGTERM")  # Ctrl-C or SIGTERM (core.console) before the final group's first visit

    with pytest.raises(KeyboardInterrupt):
        run_sweep(resume, stop)
    stopped = results.load(run_dir)
    assert stopped.finished is None and stopped.rounds is not None and stopped.rounds.late is not None
    late = stopped.variant(CUT)
    assert late is not None and late.status == "pending" and not late.levels  # it said "failed"
    said = unfinished_text(stopped) or ""
    assert "failed" not in said and f"1 not measured (`{CUT}`)" in said, said
    own, left = 300.0 + spent, 300.0  # its loads, before its first visit, spend none of it
    words = f"the run's own {own:.0f} s time budget: {left:.0f} s after the {spent:.0f} s it spent"
    assert words in resume_budget_words(stopped), resume_budget_words(stopped)

    again, _ = run_sweep(dataclasses.replace(resume, time_budget_s=None, given=frozenset()))  # the printed --resume
    assert again.rounds is not None and again.rounds.late is None and again.finished is not None
    final = again.rounds.groups[-1]
    assert CUT in final.variants and final.ended  # measured: it measured nothing ("its rounds had ended")
    done = again.variant(CUT)
    assert done is not None and done.status == "ok" and done.levels
