"""The trade-off plot marks a combination as the report's table judges it (trial 21, T21-5: a combination whose
table cell said "mlp p99 151 ms > 100 ms (not verified here: every round host busy)" was drawn a grey x, "a model
misses its p99 budget"). One status (perf.colocate.near.status) gives the cell and the mark; a p99 over its budget
that the host's load may explain has a mark and legend words of its own, apart from a verified miss."""

from __future__ import annotations

from pathlib import Path

from perf.colocate import host, judge
from perf.colocate.near import UNVERIFIED_LABEL, status
from perf.plots.colocation import plot_tradeoff
from perf.records.colocation import ColocatedModel, ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample
from perf.report.colocation import report_lines

MET = {"a": "a_1", "b": "b_1"}
UNSURE = {"a": "a_2", "b": "b_1"}  # a's p99 3x its budget in rounds every one host busy: not verified here
MISSED = {"a": "a_3", "b": "b_1"}  # the same p99 on a quiet host: a miss
ROUNDS = 6


def _record() -> ColocationRecord:
    models = [ColocatedModel("a", ["a_1", "a_2", "a_3"], latency_budget_ms=10.0), ColocatedModel("b", ["b_1"])]
    combos = [(MET, 5.0, False, 900.0), (UNSURE, 30.0, True, 800.0), (MISSED, 30.0, False, 700.0)]
    visits = [
        ColocationVisit(
            0,
            r,
            o,
            dict(c),
            [ModelSample("a", c["a"], thr, p99), ModelSample("b", "b_1", 400.0, 5.0)],
            wall_s=1.0,
            host_busy_pct=150.0 if busy else 5.0,
            host_busy=busy,
        )
        for r in range(ROUNDS)
        for o, (c, p99, busy, thr) in enumerate(combos)
    ]
    steps = [SearchStep(0, "move", "a", dict(MET), [dict(c) for c, *_ in combos], ROUNDS)]
    rec = ColocationRecord("r", "now", "repo", models, steps=steps, visits=visits, pick=dict(MET))
    rec.environment[host.CORES_KEY] = 2  # 1.5 of 2 cores busy may explain a 3x p99
    return rec


def test_a_p99_not_verified_here_is_not_marked_a_miss(tmp_path: Path) -> None:
    rec = _record()
    by = {judge.key(c.combination): c for c in judge.measured_combinations(rec)}
    unsure, missed = by[judge.key(UNSURE)], by[judge.key(MISSED)]
    assert "not verified here" in status(rec, unsure).cell and not status(rec, unsure).verified
    assert "not verified here" not in status(rec, missed).cell and status(rec, missed).verified
    drawn = plot_tradeoff(rec, tmp_path / "c.png")
    assert drawn is not None
    (lines,) = drawn.values()
    marks = {label.split(",")[0]: ys for label, (_, ys) in lines.items()}
    assert marks[UNVERIFIED_LABEL.split(",")[0]] == [unsure.weighted], marks  # its own mark, the table's status
    assert marks["a model misses its p99 budget"] == [missed.weighted], marks  # only the verified miss
    rows = [ln for ln in report_lines(rec) if ln.startswith("| a=a_2, b=b_1")]
    assert rows and all("not verified here" in ln for ln in rows), rows  # the table says the same of its row
