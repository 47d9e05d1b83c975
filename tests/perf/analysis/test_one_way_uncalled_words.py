"""A difference every paired round points to, which the paired rule did not call, is said so and why, never
"not distinguishable" (trial 15, T15-2: "+57.1 % from c=1 to c=4, not distinguishable from noise (3 rounds;
p = 0.011, large consistent gap t-test)" beside c=4 ahead by 1.50-1.91x in each of its 3 rounds, and a 1.57x gap
called a win in the same run; the reason, p 0.011 over the 0.005 the large-gap t-test needs, was said nowhere).
The reason is the paired rule's own (:meth:`perf.analysis.stats.paired.Paired.uncalled`), its thresholds read
from :mod:`perf.analysis.stats.paired`; every place that says a comparison's verdict reads it."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from core.units import p_text
from perf.analysis.effects.rounds import paired_text
from perf.analysis.ranking.compared_at import elsewhere_words
from perf.analysis.ranking.operating import Side, compare
from perf.analysis.saturation.peaks import UNTOLD, unreached
from perf.analysis.stats.paired import GAP_ALPHA, GAP_MIN, min_rounds, paired
from perf.analysis.stats.points import run_points
from perf.records.profile import NOT_DISTINGUISHABLE, PrecisionRow
from perf.records.rounds import RoundsRecord
from perf.report.sections.profile import speedup_sentences

V = "forecaster_onnx_cpu1_nodb_mbs64"
#: The trial's per-round throughput (flat.csv, T=16): c=4 ahead of c=1 by 1.57x, 1.50x and 1.91x.
C1, C4 = [1633.86, 1625.54, 1725.56], [2566.77, 2443.78, 3303.6]
#: What every one of these sentences must say of them: the large-gap test's p and the level it needs.
NEEDS = f"needs ≤ {GAP_ALPHA:g}"


def _run(thr: dict[int, list[float]]):
    levels = [level_result(c, t, 2.0 * c, spread=True, trial=r) for c, ts in thr.items() for r, t in enumerate(ts)]
    run = run_result([variant_result(V, levels)], finished="x")
    run.rounds = RoundsRecord(seed=1)
    return run


def test_the_rule_says_why_it_did_not_call_rounds_that_all_agree() -> None:
    r = paired(C4, C1)
    assert r is not None and r.verdict == "not distinguishable" and r.one_way and r.gap_p_value is not None
    assert r.gap_p_value > GAP_ALPHA  # the trial's case: every round ahead by GAP_MIN or more, the t-test over its level
    why = r.uncalled()
    assert why is not None and f"{p_text(r.gap_p_value)}, {NEEDS}" in why and "too uneven" in why
    assert f"the sign test needs {min_rounds()} rounds all one way: more rounds could tell" in why
    said = r.describe()
    assert said.startswith("higher in each of the 3 rounds, not called: ") and why in said
    assert "not distinguishable" not in said
    # the other reasons: a round under GAP_MIN; too few rounds for the large-gap tier
    close = paired([1000, 1010, 990], [950, 800, 700])
    assert close is not None and f"not every round apart by {GAP_MIN:g}× or more" in (close.uncalled() or "")
    once = paired([1000], [420])
    assert once is not None and "too few rounds for the rule to call it" in (once.uncalled() or "")
    # rounds that disagree, or a call, have no such reason: "not distinguishable" stays where it is true
    assert paired([130, 90, 125, 92, 112, 112], [100] * 6).uncalled() is None  # type: ignore[union-attr]
    assert paired([2000, 2010, 1990], [1000, 1000, 1000]).uncalled() is None  # type: ignore[union-attr]


def test_the_peak_not_told_says_every_round_was_ahead_and_why_not_called() -> None:
    """The report's Recommendation, the console's notes and the bundle's README read these words."""
    run = _run({1: C1, 4: C4})
    pts = run_points(run)[V]
    why = unreached(run, pts, max(pts, key=lambda p: p.concurrency))
    assert why is not None and why.startswith(UNTOLD)
    assert "from c=1 to c=4, c=4 ahead in each of the 3 rounds, but not called: by too uneven an amount" in why
    assert NEEDS in why and "not distinguishable" not in why


def test_a_ranking_comparison_says_who_was_ahead_in_every_round_and_why_not_called() -> None:
    a = variant_result("a", [level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C4)])
    b = variant_result("b", [level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C1)])
    c = compare(a, Side("a", 4), b, Side("b", 4))
    words = c.verdict_words()
    assert words.startswith("`a` ahead of `b` in each of the 3 rounds, but not called: ") and NEEDS in words
    assert "not distinguishable" not in c.sentence()
    # the console's row note of a variant compared at another level than its row's (perf.cli.summary)
    b.levels += [level_result(2, t, 3.0, trial=r, spread=True) for r, t in enumerate(C1)]
    note = elsewhere_words(compare(a, Side("a", 4), b, Side("b", 2)), "best under budget")
    assert note.startswith("compared with the best under budget at c=2 (3 rounds): the pick ahead in every one, not called")
    assert "too uneven for 3 rounds to tell" in note and NEEDS in note


def test_an_effect_pair_in_rounds_that_all_agree_is_not_called_not_significant_without_why() -> None:
    ref = variant_result("ref", [level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C1)])
    changed = variant_result("new", [level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C4)])
    run = run_result([ref, changed], finished="x")
    run.rounds = RoundsRecord(seed=1)
    pts = run_points(run)
    text = paired_text(ref, pts["ref"][0], changed, pts["new"][0])
    assert "the same way in each of the 3 rounds, not called: too uneven for 3 rounds to tell" in text and NEEDS in text
    assert "not significant" not in text


def test_a_precision_faster_in_every_round_says_why_not_called() -> None:
    fp32 = PrecisionRow("eager PyTorch", "cpu", "fp32", "cast", rounds_ms=C4)
    fp16 = PrecisionRow("eager PyTorch", "cpu", "fp16", "cast", rounds_ms=C1)  # faster in every round: fp32 / fp16 > 1
    r = paired(fp32.rounds_ms, fp16.rounds_ms)
    assert r is not None and r.verdict == "not distinguishable"
    fp16.speedup_vs_fp32, fp16.speedup_low, fp16.speedup_high = round(r.median, 3), round(r.low, 3), round(r.high, 3)
    fp16.speedup_p_value, fp16.speedup_p_tier, fp16.speedup_verdict = r.decided_p, r.tier, NOT_DISTINGUISHABLE
    (line,) = speedup_sentences([fp32, fp16])
    assert "faster in each of the 3 rounds, not called: too uneven for 3 rounds to tell" in line and NEEDS in line
    assert NOT_DISTINGUISHABLE not in line


def test_a_colocation_candidate_ahead_in_every_round_is_not_listed_as_not_distinguishable() -> None:
    """The colocation report's tie set (a step the time budget cut to 3 rounds, as trial 15's colocate run)."""
    from perf.records.colocation import ColocatedModel, ColocationRecord, MoveDecision, SearchStep
    from perf.records.colocation_measured import ColocationVisit, ModelSample
    from perf.report.colocation import beats_lines

    held, moved = {"a": "a1"}, {"a": "a2"}
    rec = ColocationRecord("t", "2026-12-01T00:00:00", "table", [ColocatedModel("a", ["a1", "a2"])], seed=1)
    rec.steps = [SearchStep(0, "move", "a", held, [held, moved], rounds=3)]
    rec.visits = [
        ColocationVisit(0, r, i, combo, [ModelSample("a", combo["a"], thr[r], 2.0)])
        for r in range(3)
        for i, (combo, thr) in enumerate(((held, C1), (moved, C4)))
    ]
    r = paired(C4, C1)
    assert r is not None
    rec.decisions = [
        MoveDecision(
            0, "a", held, "a2", r.median, r.low, r.high, r.wins, r.rounds, r.decided_p, r.verdict, True, False, "", p_tier=r.tier
        )
    ]
    rec.pick = held
    (line,) = [ln for ln in beats_lines(rec) if ln.startswith("- a=a2")]
    assert "): ahead of the pick in every round, not called: " in line and NEEDS in line
    assert "not distinguishable" not in line


def test_the_precision_tables_cell_says_the_same_reason_in_short() -> None:
    """The profile section's "vs fp32" cell, beside the sentence above (commit 1205d56 left it "not distinguishable")."""
    from perf.report.sections.profile import precision_lines, speedup_cell

    fp32 = PrecisionRow("eager PyTorch", "cpu", "fp32", "cast", rounds_ms=C4)
    fp16 = PrecisionRow("eager PyTorch", "cpu", "fp16", "cast", rounds_ms=C1)
    r = paired(fp32.rounds_ms, fp16.rounds_ms)
    assert r is not None and r.verdict == "not distinguishable"
    fp16.speedup_vs_fp32, fp16.speedup_low, fp16.speedup_high = round(r.median, 3), round(r.low, 3), round(r.high, 3)
    fp16.speedup_p_value, fp16.speedup_p_tier, fp16.speedup_verdict = r.decided_p, r.tier, NOT_DISTINGUISHABLE
    fp32.status = fp16.status = "measured"
    table = "\n".join(line for line in precision_lines([fp32, fp16]) if line.startswith("|"))
    cell = f"faster in every round, not called ({r.uncalled(short=True)}): {fp16.speedup_vs_fp32:.3g}× fp32's speed"
    assert cell in table and NEEDS in table and NOT_DISTINGUISHABLE not in table
    assert NOT_DISTINGUISHABLE in speedup_cell(fp16)  # without the rows' rounds, the record's own verdict


def test_a_one_pair_main_effect_in_rounds_that_all_agree_says_why_not_called() -> None:
    """The effects section's one-pair spread (perf.analysis.effects.diffs.Spread.describe)."""
    from factories import params

    from perf.analysis.effects.main_effects import main_effects

    off, on = params(1, False), params(1, True)
    a = variant_result(levels=[level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C1)], params=off)
    b = variant_result(levels=[level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C4)], params=on)
    run = run_result([a, b], finished="x")
    run.rounds = RoundsRecord(seed=1)
    (e,) = main_effects(run, run_points(run))
    assert e.throughput is not None and len(e.throughput.values) == 1
    said = e.throughput.describe()
    assert "(1 pair; every round the same way, not called by the paired rule: too uneven for 3 rounds to tell" in said
    assert NEEDS in said and "not significant" not in said
    assert e.p99 is not None and "not significant by the paired rule" in e.p99.describe()  # the rounds tied: as before


def test_the_ranking_rule_note_does_not_end_on_a_bare_not_distinguishable() -> None:
    from perf.analysis.recommendation.recommend import recommend
    from perf.report.sections.ranking import fewer_rounds_lines

    a = variant_result("a", [level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C4)])
    b = variant_result("b", [level_result(4, t, 3.0, trial=r, spread=True) for r, t in enumerate(C1)])
    run = run_result([a, b], finished="x")
    run.rounds = RoundsRecord(seed=1)
    lines = fewer_rounds_lines([recommend(run, None).ranking])  # said once under the rankings (trial 19, T19-17)
    (note,) = [line for line in lines if line.startswith("- A comparison with fewer than")]
    assert f"p ≤ {GAP_ALPHA:g}" in note and "where every round went one way, that and why the rule did not call it" in note
    assert not note.endswith("else not distinguishable.")
