"""report.md's "Every combination measured" gives each row its comparison with the pick in the same rounds (trial 20,
T20-4: a combination listed above the pick, 991 against 910 weighted infer/s and "every one met", had lost to the pick
in each of the 3 rounds they shared, 0.833×: rows of different steps come from rounds under different host load, and
the table, sorted by weighted infer/s, read as a better combination not picked). The synthetic host with a drifting
background load (tests/support/colocation_source.py) makes such rows; no server."""

from __future__ import annotations

import colocation_source as cs

from perf.colocate import judge, verdict
from perf.colocate.search import CoordinateSearch
from perf.markdown import times
from perf.records.colocation import step_number
from perf.report.colocation import combinations_section


def test_a_row_above_the_pick_says_it_was_behind_it_in_the_rounds_they_shared() -> None:
    src, rec = cs.SynthSource(1, amplitude=0.6), cs.record(1)
    CoordinateSearch(rec, src, clock=src.clock).run()
    pick = verdict.decided_pick(rec)
    assert pick is not None
    rows = judge.measured_combinations(rec)
    pick_weighted = next(r.weighted or 0.0 for r in rows if judge.key(r.combination) == judge.key(pick))
    above = [r for r in rows if (r.weighted or 0.0) > pick_weighted and not r.over]
    assert above  # the kind: rows above the pick, every target met, measured in other rounds than the pick's
    text = "\n".join(combinations_section(rec))
    assert any(
        ln.startswith("| combination ") and ln.rstrip(" |").endswith("vs the pick, same rounds") for ln in text.splitlines()
    )
    assert verdict.BESIDE_WORDS in text
    for r in rows:
        cell = verdict.beside_pick(rec, r.combination)
        line = next(ln for ln in text.splitlines() if ln.startswith(f"| {judge.describe(r.combination)}"))
        assert cell is not None and line.rstrip(" |").endswith(cell), (line, cell)
        if judge.key(r.combination) == judge.key(pick):
            assert cell == "the pick"
            continue
        # the last step that measured both, by the paired rule's own numbers
        both = {judge.key(r.combination), judge.key(pick)}
        step = next((s for s in reversed(rec.steps) if s.rounds and {judge.key(t) for t in s.targets} >= both), None)
        if step is None:
            assert cell == "no round shared"
            continue
        p = judge.compare(rec.visits, step.index, r.combination, pick, step.rounds, rec.models)
        assert p is not None
        assert cell == f"{times(p.median)} (ahead in {p.wins} of {p.rounds}, step {step_number(step.index)})"
    for r in above:  # each behind the pick in every round they shared
        assert "(ahead in 0 of " in (verdict.beside_pick(rec, r.combination) or ""), judge.describe(r.combination)


def test_no_pick_no_column() -> None:
    src, rec = cs.SynthSource(1), cs.record(1)
    CoordinateSearch(rec, src, clock=src.clock, time_budget_s=40.0).run()  # cut before a pick
    assert verdict.decided_pick(rec) is None and verdict.beside_pick(rec, {"big": "big_x1"}) is None
    assert "vs the pick" not in "\n".join(combinations_section(rec))
