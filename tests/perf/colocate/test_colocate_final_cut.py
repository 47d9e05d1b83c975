"""A co-location search that decided its pick but whose final rounds (the pick alone and together) the time budget
cut: the pick's numbers from the last step that measured it, labelled as such (perf.colocate.verdict.last_step_words)
on the console and in report.md. Trial 19, T19-15: the pick was reported without any numbers, "the final rounds ...
were not measured", the step medians it was chosen on in colocation.json. The synthetic host; no server."""

from __future__ import annotations

import types
from pathlib import Path

import colocation_source as cs
import pytest

from core.cli import console as make_console
from perf.cli.colocate import _finish
from perf.colocate import judge, neighbours, verdict
from perf.colocate.search import CoordinateSearch
from perf.records.colocation import ColocationRecord
from perf.report.colocation import report_lines


def _final_cut() -> ColocationRecord:
    """The synthetic search cut before the first round of its final step."""
    for budget_s in range(200, 640, 7):
        src, rec = cs.SynthSource(1), cs.record(1)
        CoordinateSearch(rec, src, clock=src.clock, time_budget_s=float(budget_s)).run()
        if rec.cuts and rec.steps[-1].kind == "final" and not rec.steps[-1].rounds:
            return rec
    raise AssertionError("no budget cut the final step before its first round")


def test_a_pick_whose_final_rounds_were_cut_shows_its_last_step_numbers_labelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = _final_cut()
    assert rec.pick is not None and not neighbours.neighbour_cost(rec)
    m = next(c for c in judge.measured_combinations(rec) if judge.key(c.combination) == judge.key(rec.pick))
    step = next(s for s in rec.steps if s.index == m.step)
    words = verdict.last_step_words(rec)
    assert words is not None and f"from the last step that measured it, step {step.index + 1} " in words, words
    assert f"over its {step.rounds} rounds (medians; not the final rounds): {m.weighted:,.0f} weighted infer/s" in words
    for model in rec.pick:
        assert f"{model} {m.throughput[model]:,.0f} infer/s p99 {m.p99_ms[model]:.2f} ms" in words, words
    assert f"**The numbers**: {words}: see the cuts below." in report_lines(rec)
    opts = types.SimpleNamespace(results_dir=tmp_path, time_budget_s=rec.time_budget_s, resume=False)
    run = types.SimpleNamespace(
        record=rec, run_dir=tmp_path / rec.run_id, opts=opts, previous=None, session=(len(rec.visits), rec.spent_s or 0.0)
    )
    _finish(run, make_console(), True)
    out = " ".join(capsys.readouterr().out.split())
    assert f"numbers: {words}" in out, out


def test_a_pick_with_its_final_rounds_measured_says_no_last_step_numbers() -> None:
    src, rec = cs.SynthSource(1), cs.record(1)
    CoordinateSearch(rec, src, clock=src.clock, time_budget_s=None).run()
    assert rec.pick is not None and neighbours.neighbour_cost(rec) and verdict.last_step_words(rec) is None
