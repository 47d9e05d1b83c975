"""A co-location report of a run another toolkit ran marks the sentences it saved as it ran (re-check 19, NEW-1:
`triton-perf report` of trial 19's c19a said "(p99 37.37 ms, 1.5× the budget ...)" in its combinations table,
re-derived, and the saved "(p99 37.37 ms, 1× the budget ...)" in "Every decision" for the same level, as if
today's). One rule for every saved sentence: decisions, steps' outcomes, the pick's reason, cuts, the plan fitted
again, each model's start (perf.records.provenance.as_said); and the bundle's README of such a run."""

from __future__ import annotations

import colocation_source as cs

from perf.colocate.search import CoordinateSearch
from perf.deploy.combination import readme_lines
from perf.records.colocation import ColocationRecord
from perf.records.provenance import SAID_MARK, TOOLKIT_KEY, code_id
from perf.report.colocation import report_lines

OLD = "sha256:0123456789abcdef"


def _run(toolkit: list[str], budget_s: float = 250.0) -> ColocationRecord:
    """A search of the synthetic host (at 250 s: decisions, then cut; at 400 s: a pick) that ``toolkit`` ran."""
    rec = cs.record(3)
    src = cs.SynthSource(3)
    CoordinateSearch(rec, src, clock=src.clock, time_budget_s=budget_s).run()
    rec.environment[TOOLKIT_KEY] = toolkit
    rec.refits.append("step 2: the plan fitted again to the times measured")
    return rec


def _saved(rec: ColocationRecord) -> list[str]:
    """Every sentence the run saved as it ran."""
    return [
        *(d.reason for d in rec.decisions),
        *(s.outcome for s in rec.steps if s.outcome),
        *rec.cuts,
        *rec.refits,
        *(m.start_reason for m in rec.models if m.start_reason),
    ]


def test_every_sentence_an_older_toolkit_saved_is_marked_where_it_stands() -> None:
    rec = _run([OLD])
    assert rec.decisions and rec.cuts and rec.pick_reason and all(m.start_reason for m in rec.models)
    text = "\n".join(report_lines(rec))
    assert f"> Sentences marked {SAID_MARK} were said by colocate when it ran (toolkit {OLD}, started " in text
    for said in _saved(rec):
        assert f"{said.removesuffix('.')} {SAID_MARK}" in text, said
    decided = "\n".join(report_lines(_run([OLD], 400.0)))
    why = next(line for line in decided.splitlines() if line.startswith("**Why**"))
    assert why.endswith(f"{SAID_MARK}."), why


def test_a_run_todays_code_ran_prints_its_sentences_as_its_own() -> None:
    rec = _run([code_id()])
    text = "\n".join(report_lines(rec))
    assert SAID_MARK not in text and "Sentences marked" not in text
    for said in _saved(rec):
        assert said in text, said


def test_a_resumed_run_one_session_of_which_an_older_toolkit_ran_is_marked() -> None:
    text = "\n".join(report_lines(_run([OLD, code_id()])))
    assert f"toolkit {OLD}, {code_id()}, started" in text and SAID_MARK in text


def test_the_bundle_readme_of_an_older_pick_marks_its_reason() -> None:
    rec = cs.record(2)
    src = cs.SynthSource(2)
    CoordinateSearch(rec, src, clock=src.clock).run()
    assert rec.pick is not None
    rec.environment[TOOLKIT_KEY] = [OLD]
    assert any(line.startswith("Why: ") and line.endswith(f"{SAID_MARK}.") for line in readme_lines(rec, ()))
