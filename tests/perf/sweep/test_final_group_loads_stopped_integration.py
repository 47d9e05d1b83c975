"""A resume's final group stopped during its loads, before its first visit (trial 23, T23-4), on the bundled
tritonserver and the real perf_analyzer: its variants are not measured (they were said "failed: no level produced a
measurement", and the printed --resume then measured nothing and exited 3), the time words add up (budget = spent +
left; the first session's in-process baseline was dropped from what it spent: "the run's own 253 s time budget:
148 s after the 105 s it spent"), the loads spend none of it, and the next resume measures that final group."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from clients.server import ServerOptions
from perf.records import results
from perf.records.rounds import Cut, RoundRules
from perf.records.unfinished import resume_budget_words, unfinished_text
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

RANKED = ("tiny_onnx_cpu1_nodb_mbs8", "tiny_ts_cpu1_nodb_mbs8")
CUT = "tiny_onnx_cpu1_db500_mbs8"


def test_a_resumes_final_group_stopped_in_its_loads_is_not_failed_and_the_next_resume_measures_it(
    tiny_repo: Path, tmp_path: Path
) -> None:
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(*RANKED, CUT),
        concurrency=(1,),
        results_dir=tmp_path,
        run_id="t23",
        warmup_requests=5,
        time_budget_s=600.0,
        round_rules=RoundRules(window_ms=150, max_rounds=3),
        baseline=False,
    )
    run, run_dir = run_sweep(opts)
    # as a time budget leaves it: the run finished its rounds of two variants, the third cut for time after them
    rr = run.rounds
    assert rr is not None and rr.budget is not None and rr.budget.spent_s is not None and run.finished is not None
    for g in rr.groups:
        g.variants = [n for n in g.variants if n != CUT]
        g.tie_set = [n for n in g.tie_set if n != CUT] or [RANKED[0]]
    for r in rr.rounds:
        r.order = [v for v in r.order if v.variant != CUT]
    vr = run.variant(CUT)
    assert vr is not None
    vr.levels, vr.status, vr.error = [], "skipped", "cut for time: after the rounds 5 s were left"
    rr.cut(Cut("variant", "not measured: after the rounds 5 s were left; it needs about 30 s", CUT, final=True))
    rr.budget.baseline_s = 20.0  # the first session's in-process baseline, spent of its budget
    spent = rr.budget.spent_s + 20.0
    results.save(run, run_dir)
    resume = SweepOptions(ServerOptions(tiny_repo, runtime="bundled"), results_dir=tmp_path, run_id="t23", resume=True)
    resume = dataclasses.replace(resume, time_budget_s=300.0, given=frozenset({"time_budget_s"}))

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
