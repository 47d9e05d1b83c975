"""A resume's final group stopped after its first round (break-it F23), on the bundled tritonserver and the real
perf_analyzer: the stop leaves the run unfinished with that group recorded as under way, and the next resume
measures the same final group again, its first round counted (it measured nothing: "no round (its rounds had
ended ...)", and the run read as finished)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from clients.server import ServerOptions
from perf.records import results
from perf.records.rounds import Cut, RoundRules
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

RANKED = ("tiny_onnx_cpu1_nodb_mbs8", "tiny_ts_cpu1_nodb_mbs8")
CUT = "tiny_onnx_cpu1_db500_mbs8"


def test_a_resumes_final_group_stopped_after_its_first_round_is_measured_by_the_next_resume(
    tiny_repo: Path, tmp_path: Path
) -> None:
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(*RANKED, CUT),
        concurrency=(1,),
        results_dir=tmp_path,
        run_id="f23",
        warmup_requests=5,
        time_budget_s=None,
        round_rules=RoundRules(window_ms=150, max_rounds=3),
        baseline=False,
    )
    run, run_dir = run_sweep(opts)
    # as a time budget leaves it: the run finished its rounds of two variants, the third cut for time, never measured
    rr = run.rounds
    assert rr is not None and run.finished is not None
    for g in rr.groups:
        g.variants = [n for n in g.variants if n != CUT]
        g.tie_set = [n for n in g.tie_set if n != CUT] or [RANKED[0]]
    for r in rr.rounds:
        r.order = [v for v in r.order if v.variant != CUT]
    vr = run.variant(CUT)
    assert vr is not None
    vr.levels, vr.status, vr.error = [], "skipped", "cut for time: 3 variants need about 90 s"
    rr.cut(Cut("variant", "not measured: 3 variants need about 90 s for the 6 rounds a verdict needs", CUT))
    results.save(run, run_dir)
    resume = SweepOptions(ServerOptions(tiny_repo, runtime="bundled"), results_dir=tmp_path, run_id="f23", resume=True)
    resume = dataclasses.replace(resume, time_budget_s=300.0, given=frozenset({"time_budget_s"}))

    def stop(event: dict) -> None:
        if event.get("event") == "round_done":  # Ctrl-C or SIGTERM (core.console) after the final group's first round
            raise KeyboardInterrupt("SIGTERM")

    with pytest.raises(KeyboardInterrupt):
        run_sweep(resume, stop)
    stopped = results.load(run_dir)
    assert stopped.rounds is not None and stopped.finished is None  # it read as finished
    assert stopped.rounds.late is not None and stopped.rounds.late.variants == [CUT]
    late = stopped.variant(CUT)
    assert late is not None and late.status == "pending" and {lv.trial for lv in late.levels if lv.ok}
    first = len(stopped.rounds.rounds)

    again, _ = run_sweep(resume)
    assert again.rounds is not None and again.rounds.late is None and again.finished is not None
    final = again.rounds.groups[-1]
    assert CUT in final.variants and final.ended  # measured again: it measured nothing ("its rounds had ended")
    this = [r for r in again.rounds.measured() if r.group == final.index]
    assert this and len(this) + 1 == len(again.rounds.group_rounds(final.index)) <= 3  # its first round counted
    assert len(again.rounds.rounds) > first
    done = again.variant(CUT)
    assert done is not None and done.status == "ok" and len({lv.trial for lv in done.levels if lv.ok}) >= 2
