"""A resume's final group stopped after its first round (break-it F23), on the bundled tritonserver and the real
perf_analyzer: the stop leaves the run unfinished with that group recorded as under way, and the next resume
measures the same final group again, its first round counted (it measured nothing: "no round (its rounds had
ended ...)", and the run read as finished)."""

from __future__ import annotations

from pathlib import Path

import pytest
from final_group_runs import CUT, cut_run

from perf.records import results
from perf.records.rounds import Cut
from perf.sweep.run import run_sweep

pytestmark = pytest.mark.integration


def test_a_resumes_final_group_stopped_after_its_first_round_is_measured_by_the_next_resume(
    tiny_repo: Path, tmp_path: Path
) -> None:
    # as a time budget leaves it: the run finished its rounds of two variants, the third cut for time, never measured
    cut = Cut("variant", "not measured: 3 variants need about 90 s for the 6 rounds a verdict needs", CUT)
    _, run_dir, resume = cut_run(tiny_repo, tmp_path, "f23", None, cut, "cut for time: 3 variants need about 90 s")

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
