"""The console note of a tied pick says the tie (trial 22, F-sweep-tie: the row said "best under budget" where the
rounds' end line and report.md said the rule could not separate a tie set)."""

from __future__ import annotations

from perf.analysis.recommendation.choice import Choice


def _pick(**fields: object) -> Choice:
    return Choice("a_onnx_cpu2_nodb_mbs64", 4, 1, 1308.9, 9.57, False, 3, "host busy", **fields)  # type: ignore[arg-type]


def test_a_tied_pick_names_the_members_it_was_not_separated_from() -> None:
    pick = _pick(tie_set=["a_onnx_cpu2_nodb_mbs64", "b_onnx_cpu2_db500_mbs64", "c_ts_cpu1_nodb_mbs64"])
    assert pick.note() == (
        "not distinguishable from `b_onnx_cpu2_db500_mbs64`, `c_ts_cpu1_nodb_mbs64`: named first, not the winner"
    )


def test_a_member_a_rival_clause_names_is_not_named_twice() -> None:
    rival = "`b_onnx_cpu2_db500_mbs64`'s median higher, 1,350.0: the pick ahead in 3 of 5 shared rounds"
    pick = _pick(tie_set=["a_onnx_cpu2_nodb_mbs64", "b_onnx_cpu2_db500_mbs64"], rivals=[rival])
    assert pick.note() == f"named first of its tie set, not the winner; {rival}"
    pick = _pick(tie_set=["a_onnx_cpu2_nodb_mbs64", "b_onnx_cpu2_db500_mbs64", "c"], rivals=[rival])
    assert pick.note() == f"not distinguishable from `c`: named first, not the winner; {rival}"


def test_a_pick_the_rule_separated_says_no_tie() -> None:
    assert _pick(tie_set=["a_onnx_cpu2_nodb_mbs64"], beats=["b"]).note() == ""
    assert _pick().tie_mark() is None
