"""The console note of a tied pick says the tie (trial 22, F-sweep-tie: the row said "best under budget" where the
rounds' end line and report.md said the rule could not separate a tie set)."""

from __future__ import annotations

from perf.analysis.recommendation.choice import Choice


def _pick(**fields: object) -> Choice:
    return Choice("a_onnx_cpu2_nodb_mbs64", 4, 1, 1308.9, 9.57, False, 3, "host busy", **fields)  # type: ignore[arg-type]


def test_a_tied_pick_names_the_members_it_was_not_separated_from() -> None:
    """Each by report.md's words for it (trial 25, T25-3: "not distinguishable from" a member behind in every round)."""
    marks = [
        "not distinguishable at this noise from `b_onnx_cpu2_db500_mbs64` at c=4",
        "too few rounds to tell: `c` at c=1 (2 rounds)",
    ]
    pick = _pick(tie_set=["a_onnx_cpu2_nodb_mbs64", "b_onnx_cpu2_db500_mbs64", "c"], tie_marks=marks)
    assert pick.note() == (
        "the Recommendation's pick of its tie set, not the winner: not distinguishable at this noise from "
        "`b_onnx_cpu2_db500_mbs64` at c=4; too few rounds to tell: `c` at c=1 (2 rounds)"
    )
    # without the words (a pick made by hand): named, no verdict given
    pick = _pick(tie_set=["a_onnx_cpu2_nodb_mbs64", "b_onnx_cpu2_db500_mbs64", "c_ts_cpu1_nodb_mbs64"])
    assert pick.note() == (
        "the Recommendation's pick of its tie set with `b_onnx_cpu2_db500_mbs64`, `c_ts_cpu1_nodb_mbs64`, not the winner"
    )


def test_the_note_never_says_named_first() -> None:
    """Trial 24, T24-5: "named first, not the winner" sat on the console row printed second (the table lists its rows
    in its own order): the note says whose pick it is, the Recommendation's."""
    for tie_set in (["a", "b"], ["a", "b", "c"]):
        note = _pick(tie_set=tie_set).note()
        assert "named first" not in note and "the Recommendation's pick of" in note


def test_a_member_a_rival_clause_names_keeps_its_verdict() -> None:
    """A member whose median is higher: its verdict (report.md's words), then why the pick is named over it."""
    rival = "`b_onnx_cpu2_db500_mbs64`'s median higher, 1,350.0: the pick ahead in 3 of 5 shared rounds"
    mark = "not distinguishable at this noise from `b_onnx_cpu2_db500_mbs64` at c=4"
    pick = _pick(tie_set=["a_onnx_cpu2_nodb_mbs64", "b_onnx_cpu2_db500_mbs64"], rivals=[rival], tie_marks=[mark])
    assert pick.note() == f"the Recommendation's pick of its tie set, not the winner: {mark}; {rival}"


def test_a_pick_the_rule_separated_says_no_tie() -> None:
    assert _pick(tie_set=["a_onnx_cpu2_nodb_mbs64"], beats=["b"]).note() == ""
    assert _pick().tie_mark() is None


def test_a_member_behind_the_pick_is_said_behind_the_pick_not_it() -> None:
    """Trial 27, T27-3: "not the winner: behind it in every round it shared ..." read as the pick (1,406.5 infer/s)
    behind the member (852.8): the words name the pick, so the member is the one behind."""
    from tied_workloads import behind_run

    from perf.analysis.recommendation.recommend import recommend

    pick = recommend(behind_run(), 25.0).best_peak
    assert pick is not None and pick.tied and pick.throughput_infer_per_s == 1406.5
    note = pick.note()
    assert "not the winner: behind the pick in every round it shared, not called by the rule: `" in note, note
    assert "behind it" not in note
