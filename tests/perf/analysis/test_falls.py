"""A fall of throughput as load rose is a finding, with a cause, only beyond the noise and only when no
higher level climbs back (perf.analysis.saturation.falls.fall, perf.analysis.stats.curves.falls); every sentence that says
throughput fell or still grew reads the one rule (perf.analysis.saturation.falls.step). Trial 11, F14: report.md's
Saturation said "throughput fell 14 % from c=1 (1,553.1 infer/s) to c=2 (1,342.7 infer/s) as load rose:
interference ..., not a knee" of host-busy rounds, and of the demo's "fell 48 % from c=1 (165.5) to c=4
(86.5)" whose c=16 was 289.6 infer/s. Synthetic rounds runs (tests/support/factories.py)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.effects.main_effects import interactions, main_effects
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.falls import CAUSE, fall, step
from perf.analysis.stats.curves import interference
from perf.analysis.stats.paired import p_words, sign_test_p
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.markdown import fmt
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord
from perf.records.search import SearchRules
from perf.report.appendix import appendix_lines
from perf.report.conclusions.written import conclusions
from perf.report.sections.knees import knee_lines

V, OTHER = "tabnet_onnx_cpu1_nodb_mbs64", "tabnet_onnx_cpu2_nodb_mbs64"
JITTER = (1.0, 1.02, 0.99, 1.01, 0.98, 1.03, 1.0, 0.97)  # per-round noise shared by a round's levels


def _run(curve: dict[int, float], rounds: int, busy: bool = False) -> RunResult:
    """A rounds sweep: V at ``curve`` (concurrency -> infer/s) and OTHER climbing, each level measured once
    in each of ``rounds`` rounds (every visit host busy when ``busy``); p99 rises with the load."""

    def lv(c: int, thr: float, r: int):
        return level_result(c, thr * JITTER[r], 2.0 * c, spread=True, trial=r, host_busy=busy)

    v = [lv(c, t, r) for c, t in curve.items() for r in range(rounds)]
    other = [lv(c, 100.0 * c, r) for c in curve for r in range(rounds)]
    run = run_result([variant_result(V, v), variant_result(OTHER, other)], finished="x")
    run.rounds = RoundsRecord(seed=1)
    return run


def _said(run: RunResult) -> str:
    """What report.md's Saturation and Conclusions and appendix.md's Knees say."""
    rec, pts = recommend(run), run_points(run)
    effects = main_effects(run, pts)
    text = [
        *knee_lines(rec, pts, run=run),
        *conclusions(run, rec, effects),
        *appendix_lines(run, rec, pts, effects, interactions(effects)),
    ]
    return "\n".join(text)


def test_a_fall_in_two_host_busy_rounds_is_no_diagnosis():
    run = _run({1: 1553.1, 2: 1342.7}, rounds=2, busy=True)  # 14 % lower at c=2 in both rounds
    assert interference(run_points(run)[V]) is not None  # the medians fell
    judged = fall(run, run_points(run)[V])
    # the evidence names the rounds, each one way, and why the rule did not call it (trial 15, T15-2)
    noise = "c=1 ahead in each of the 2 rounds (host busy), but not called: too few rounds for the rule to call it (a large gap needs 3, else 6)"
    assert judged is not None and not judged.finding and judged.step.evidence == noise
    text = _said(run)
    assert "as load rose" not in text and CAUSE not in text and "interference" not in text
    c1, c2 = (fmt(p.get(THROUGHPUT)) for p in run_points(run)[V])
    assert f"`{V}`: c=2's median is 14 % below c=1's ({c2} vs {c1} infer/s), {noise}: neither a knee nor a fall is told" in text
    assert recommend(run).knees[V] is None  # nor a knee at c=1 on that noise


def test_a_dip_that_a_higher_level_climbs_back_from_is_not_a_fall_as_load_rose():
    run = _run({1: 165.5, 4: 86.5, 16: 289.6}, rounds=8)  # the demo's curve, quiet and consistent
    pts = run_points(run)[V]
    assert interference(pts) is None and fall(run, pts) is None
    text = _said(run)
    assert "fell" not in text and "interference" not in text and "not distinguishable from noise" not in text
    assert f"`{V}`: no knee within the swept range" in text


def test_a_fall_beyond_the_noise_over_eight_quiet_rounds_is_still_said_with_its_rounds():
    run = _run({1: 300.0, 2: 240.0, 4: 235.0}, rounds=8)  # every round: c=1 ahead of c=4
    judged = fall(run, run_points(run)[V])
    assert judged is not None and judged.finding
    evidence = f"c=1 ahead in 8 of 8 rounds; {p_words(sign_test_p(8, 0))}"
    assert judged.step.evidence == evidence
    text = _said(run)
    c1, c4 = (fmt(p.get(THROUGHPUT)) for p in run_points(run)[V] if p.concurrency in (1, 4))
    said = f"throughput fell 22 % from c=1 ({c1} infer/s) to c=4 ({c4} infer/s) as load rose ({evidence}): {CAUSE}"
    assert f"`{V}`: {said}" in text
    assert f"throughput fell as load rose in `{V}`, so the level before the fall" in text  # its words: the knee list


def test_a_rise_at_the_last_step_is_still_growth_only_beyond_the_noise():
    gain = 4 * SearchRules().min_gain_pct  # a last step well over the least gain a step must give (rises' rule)
    curve = {1: 100.0, 2: 100.0 * (1 + gain / 100.0)}
    noisy, quiet = _run(curve, rounds=1, busy=True), _run(curve, rounds=8)
    assert step(noisy, *run_points(noisy)[V]).change is None and step(quiet, *run_points(quiet)[V]).change == "rose"
    noise = "c=2 ahead in the one round (host busy), but not called: too few rounds for the rule to call it (a large gap needs 3, else 6)"
    assert f"`{V}`: no knee within the swept range (throughput +{gain:.1f} % at the last step, {noise})" in _said(noisy)
    evidence = f"c=2 ahead in 8 of 8 rounds; {p_words(sign_test_p(8, 0))}"
    assert f"`{V}`: no knee within the swept range (throughput still grew +{gain:.1f} % at the last step ({evidence}))" in _said(
        quiet
    )


def test_a_run_of_single_trials_says_its_spread_is_unknown_not_a_cause():
    run = _run({1: 300.0, 2: 240.0}, rounds=1)
    run.rounds = None  # trials, not rounds: the unpaired rule (perf.analysis.stats.points.delta)
    judged = fall(run, run_points(run)[V])
    assert judged is not None and not judged.finding
    assert "c=2's median is 20 % below c=1's (240.0 vs 300.0 infer/s), spread unknown (1 trial)" in _said(run)
    assert "interference" not in _said(run)
