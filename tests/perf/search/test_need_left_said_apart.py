"""Every "need X s / Y s left" comparison is said with numbers that show the difference its verdict rests on
(issue 26, K4; trial 19, T19-8: "86 s were left: 4 variants need about 86 s for their loads and the 6 rounds a
verdict needs" beside a cut): one decimal, or more, where the whole seconds print equal (perf.markdown.apart)."""

from __future__ import annotations

import re

from perf.markdown import apart
from perf.profile.timing import OutOfTime
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget as budgets
from perf.search import late as lates
from perf.search.ending.decided import no_room
from perf.search.policy import AUTO, ladder
from perf.search.refit import refit

NUM = r"([\d,]+(?:\.\d+)?)"
FIVE = ["v1", "v2", "v3", "v4", "v5"]


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def test_apart_adds_decimals_only_where_the_whole_seconds_print_equal() -> None:
    assert (apart(86.4, 85.8), apart(120.0, 86.0), apart(86.04, 86.01), apart(5.0, 5.0)) == (1, 0, 2, 0)
    assert apart(1.43, 1.4286, 1) == 3


def test_a_plan_fitted_again_says_the_need_over_the_time_left() -> None:
    """T19-8's own line: the plan fitted again after slow loads cuts a variant whose need is over the time left,
    by less than a second: each cut's need taken, then the plan fitted again with 0.3 s less than it left."""
    levels, adaptive = ladder(AUTO, SearchRules())
    rules = RoundRules()
    fit = budgets.fit(FIVE, levels, adaptive, 1, rules, SearchRules(), 1000.0, False)

    def again(left: float) -> list:
        a = refit(fit, list(fit.variants), 12.0, levels, adaptive, 1, rules, SearchRules(), left, set(), FIVE, 2)
        return [c for c in ([] if a is None else a.cuts) if c.kind == "variant"]

    needs = {c.need_s for tenth in range(300, 1200, 50) for c in again(tenth / 10)}
    seen = 0
    for need in sorted(n for n in needs if n):
        for c in again(need - 0.3):
            m = re.search(rf"{NUM} s were left: \d+ variants need about {NUM} s", c.reason)
            assert m, c.reason
            seen += 1
            assert _num(m[2]) > _num(m[1]), c.reason
    assert seen >= 3


def test_the_first_plan_says_the_need_over_the_time_left() -> None:
    levels, adaptive = ladder(AUTO, SearchRules())
    seen = 0
    for tenth in range(200, 1200, 7):
        fit = budgets.fit(FIVE, levels, adaptive, 1, RoundRules(), SearchRules(), tenth / 10, False)
        for c in fit.cuts:
            m = re.search(rf"need about {NUM} s .* over the {NUM} s left", c.reason)
            if m:
                seen += 1
                assert _num(m[1]) > _num(m[2]), c.reason
    assert seen > 20


def test_the_final_group_says_its_need_over_the_time_left() -> None:
    seen = 0
    for tenth in range(50, 1500):
        said = lates.late(["c1", "c2", "c3"], ["a"], 3, [3], 4.3, 1.1, tenth / 10)
        for c in said.cuts:
            m = re.search(rf"{NUM} s of the time budget were left; .* needs about {NUM} s", c.reason)
            assert m, c.reason
            seen += 1
            assert _num(m[2]) > _num(m[1]), c.reason
    assert seen > 100


def test_the_end_of_the_rounds_and_a_timed_round_say_the_need_over_the_time_left() -> None:
    for tenth in range(10, 400):
        left = tenth / 10
        said = no_room("ranking: settled: the 6 rounds left could not separate them", left, left + 0.3)
        m = re.search(rf"{NUM} s left, the next round and the unloads ≈ {NUM} s", said)
        assert m and _num(m[2]) > _num(m[1]), said
        words = OutOfTime(left + 0.3, left).words()
        m = re.search(rf"an estimated {NUM} s, would end after the time budget \({NUM} s left\)", words)
        assert m and _num(m[1]) > _num(m[2]), words


def test_the_console_line_of_a_final_group_says_each_need_with_the_variants_it_holds() -> None:
    """s22z, Z-11: "a final group (...) needs about twoin_onnx_cpu1_db500_mbs4 60 s, twoin_ts_cpu1_nodb_mbs4 81 s for
    the 6 rounds" read the names as part of the words around them: each need is said with who the group holds."""
    said = lates.late(["first_cut", "second_cut"], ["t1", "t2"], 3, [3], 4.3, 1.1, 5.0).said
    m = re.search(
        rf"a final group with the tie set `t1`, `t2` needs about {NUM} s \(`first_cut`\) or {NUM} s \(with "
        r"`second_cut` too\) for the 6 rounds a verdict needs",
        said,
    )
    assert m, said
    assert _num(m[2]) > _num(m[1]) > 5.0, said
    assert "first_cut " not in said and "second_cut " not in said, said  # a name never read into the words
