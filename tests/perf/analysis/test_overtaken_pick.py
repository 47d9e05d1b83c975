"""A pick another tie-set member beats on every piece of evidence there is is not named first (trial 21, T21-9,
run det-mixed: ``--shapes H=64..256 --shapes W=64..256 --latency-budget-ms 50``). The leader was chosen at its
level of 4 rounds (c=1, ahead of db500's c=1 in 3 of 4 shared rounds), then named at its 1-round peak under the
budget, ``nodb`` c=2 (178.8 infer/s, p99 44.77 ms, round-adjusted 190.0), below ``db500`` c=2 (234.9 infer/s,
p99 38.94 ms) on both medians and behind it in the one round they shared; the line then said it "is named first
by throughput in the rounds it shared with each", and the console row said none of it
(perf.analysis.ranking.leader.overtaken, Choice.named_by, the console's note of a pick below the frontier)."""

from __future__ import annotations

import io
import re

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import table_rows

from perf.analysis.ranking.operating import compare, levels_of
from perf.analysis.recommendation.choice import NAMED_FIRST_BY
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import HEADROOM_NOTE
from perf.cli.summary import summary_table
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord

NODB, DB500 = "detector_onnx_cpu2_nodb_mbs8", "detector_onnx_cpu2_db500_mbs8"
SIZE = "H=64..256,W=64..256"
#: Run det-mixed's levels: variant -> concurrency -> round -> (infer/s, p99 ms).
DET_MIXED = {
    DB500: {
        1: {0: (120.79, 63.619), 1: (95.9387, 30.422), 2: (107.988, 37.54), 3: (88.3399, 49.428)},
        2: {3: (234.905, 38.94)},
        4: {0: (184.344, 82.231), 1: (248.97, 52.642), 2: (195.813, 83.983)},
        16: {0: (260.322, 185.918), 1: (262.476, 116.914), 2: (509.284, 98.402)},
    },
    NODB: {
        1: {0: (120.746, 36.169), 1: (134.449, 21.949), 2: (210.801, 19.612), 3: (90.8581, 57.189)},
        2: {3: (178.765, 44.772)},
        4: {0: (129.511, 62.288), 1: (149.822, 67.924), 2: (348.272, 41.463)},
        16: {0: (244.443, 209.301), 1: (381.393, 100.847), 2: (351.542, 150.593)},
    },
}
#: ``b``, measured in round 5 only (a fast round: ``a`` and ``c`` gain 1.36x and 2x in it), leads by round-adjusted
#: throughput (117.3 infer/s against 110 and 100) but trailed ``c`` in their one shared round (160 against 200 infer/s);
#: ``c``'s median is lower (100 infer/s): not better on both, so ``b`` stays first, with one shared round behind it.
TRAILS = {
    "a": {1: {r: ((150.0, 10.0) if r == 5 else (110.0, 10.0)) for r in range(6)}},
    "b": {1: {5: (160.0, 20.0)}},
    "c": {1: {r: ((200.0, 10.0) if r == 5 else (100.0, 10.0)) for r in range(6)}},
}


def _run(levels: dict[str, dict[int, dict[int, tuple[float, float]]]], shape: str | None = None) -> RunResult:
    variants = [
        variant_result(
            name,
            [level_result(c, t, p, spread=True, shape=shape, trial=r) for c, per in by_c.items() for r, (t, p) in per.items()],
        )
        for name, by_c in levels.items()
    ]
    return run_result(variants, settings={"latency_budget_ms": 50.0, "latency_percentile": 99}, rounds=RoundsRecord(seed=21))


def test_a_tie_set_member_better_on_both_medians_and_ahead_in_every_shared_round_is_named_first() -> None:
    rec = recommend(_run(DET_MIXED, SIZE), 50.0)
    pick = rec.best_under_budget
    assert pick is not None and (pick.variant, pick.concurrency) == (DB500, 2)  # the old code: nodb c=2
    assert (round(pick.throughput_infer_per_s, 1), round(pick.latency_p99_ms, 2)) == (234.9, 38.94)
    assert pick.tie_set == [DB500, NODB] and pick.dominated is None  # still not separated by the rule: the tie set says it
    assert "not as the winner" in pick.describe()


def test_no_pick_is_said_to_be_named_first_by_the_rounds_it_shared_where_those_rounds_put_it_behind() -> None:
    for levels, shape in ((DET_MIXED, SIZE), (TRAILS, None)):
        run = _run(levels, shape)
        rec = recommend(run, 50.0)
        series = {v.name: v for v in run.variants}
        for pick in (rec.best_under_budget, rec.best_peak):
            assert pick is not None
            if NAMED_FIRST_BY not in pick.describe():
                continue
            own = series[pick.variant]
            side = next(s for s in levels_of(own) if s.concurrency == pick.concurrency)
            for other in pick.tie_set[1:]:  # the pick's level ahead of (or level with) each member's in their shared rounds
                medians = [
                    c.result.median
                    for s in levels_of(series[other])
                    if (c := compare(own, side, series[other], s)).result is not None
                ]
                assert any(m >= 1.0 for m in medians), (pick.variant, other, medians)


def test_a_pick_that_trailed_a_member_in_their_shared_rounds_says_so_not_that_it_led_them() -> None:
    pick = recommend(_run(TRAILS), 50.0).best_under_budget
    assert pick is not None and pick.variant == "b" and "c" in pick.tie_set
    text = pick.describe()
    assert NAMED_FIRST_BY not in text and "named first by throughput in the rounds it shared" not in text
    assert "named first by round-adjusted throughput, not by the rounds it shared with each: it trailed `c` at c=1 (1 round)" in text  # fmt: skip


def _note(run: RunResult, row: str) -> str:
    out = io.StringIO()
    Console(file=out, width=250).print(summary_table(run))
    return re.sub(r"\s+", " ", table_rows(out.getvalue())[row][-1])


def test_the_console_row_of_a_pick_below_the_frontier_says_not_decided_as_report_md_does() -> None:
    """One workload: the pick ``a`` c=1 (5 rounds) below ``b`` c=1 (3 rounds, better on both medians, behind the pick
    in each of the 3 rounds they shared, its p99 lower but not 2x lower: perf.analysis.ranking.leader.knee): report.md
    said "not decided", the console row only "best under budget"."""
    levels = {
        "a": {1: {0: (334.8, 16.07), 1: (110.7, 23.92), 2: (116.5, 21.17), 3: (247.5, 23.97), 4: (88.0, 32.03)}},
        "b": {1: {0: (232.6, 14.0), 3: (200.0, 14.5), 4: (86.0, 15.0)}},  # not 2x quicker: the knee moves no one
    }
    run = _run(levels)
    pick = recommend(run, 50.0).best_under_budget
    assert pick is not None and pick.variant == "a" and pick.dominated is not None and "**not decided**" in pick.dominated
    assert pick.dominated_by == "b" and not any(r.startswith("`b`") for r in pick.rivals_left())  # its field, not its words
    note = _note(run, "a")
    assert "best under budget (c=1" in note
    said = "not decided: `b` c=1 (3 rounds) better on both by the medians; the pick ahead in 3 of 3 shared rounds"
    under = note[note.index("best under budget") : note.index("best measured")]  # the best peak's own words follow
    assert said in under and under.count("the pick ahead in 3 of 3 shared rounds") == 1, note
    assert f"best under budget (c=1; {pick.note(HEADROOM_NOTE if pick.headroom else None)})" in note  # one order: Choice.note
