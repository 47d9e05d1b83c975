"""Trial 25, T25-3: the console table's note of the pick said "not distinguishable from `x`: the Recommendation's
pick of them, not the winner" of every tie-set member, where report.md (and the sweep's own drop line) said `x` was
behind the pick in every round it shared (5 of 5 rounds, 2.5x): a verdict the numbers beside it contradict. The note
now says each member by report.md's words (perf.analysis.ranking.standing_words.tie_parts, brief: without the
numbers report.md adds). The runs are the trials' own (tests/data). No server."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from perf.analysis.recommendation.recommend import recommend
from perf.records.results import load
from perf.records.workloads import split_by_workload

DATA = Path(__file__).resolve().parents[2] / "data"


def _rec(tmp_path: Path, name: str):
    src = DATA / name / "results.json.gz"
    (tmp_path / "results.json").write_bytes(gzip.decompress(src.read_bytes()))
    run = split_by_workload(load(tmp_path))
    return recommend(run, run.settings.get("latency_budget_ms"), None)


def test_the_console_says_the_member_behind_in_every_round_as_report_md_does(tmp_path: Path) -> None:
    pick = _rec(tmp_path, "trial25_seq1").best_peak
    assert pick is not None and pick.tied
    mark = pick.tie_mark()
    assert mark is not None
    assert "not distinguishable" not in mark, mark  # the member was behind the pick in every one of its 5 rounds
    assert mark == (
        "the Recommendation's pick of its tie set, not the winner: behind the pick in every round it shared, not called by "
        "the rule: `seqnet_onnx_cpu1_db500_mbs64` at c=4 (5 rounds)"
    )


@pytest.mark.parametrize("name", ["trial25_seq1", "trial23_ctr", "trial24_s2", "trial24_s3"])  # each with a tied pick
def test_each_member_is_said_in_report_mds_words(tmp_path: Path, name: str) -> None:
    """One source: each part of the console's note is the start of report.md's part for the same members."""
    rec = _rec(tmp_path, name)
    picks = [c for c in (rec.best_under_budget, rec.best_peak) if c is not None and c.tied]
    assert picks
    for pick in picks:
        assert pick.tie_marks, pick
        for brief in pick.tie_marks:
            assert any(part.startswith(brief.removesuffix(")")) for part in pick.tie_parts), (brief, pick.tie_parts)
        assert pick.tie_mark() == "the Recommendation's pick of its tie set, not the winner: " + "; ".join(pick.tie_marks)
