"""Throughput "still rises" from one level to a higher one by one rule (perf.analysis.saturation.rises): paired
over the rounds both shared, beyond the noise and above the search's least gain (5 %); the search's ladder,
"still rising", "peak not reached", the knee and the no-knee reasons read it, and p99's trend words are said
beyond the noise only. Before it there were two rules: the words' (medians 10 % apart) and the search's (median
paired gain above 5 %), so a rise of medians 12 % apart whose rounds disagreed was "still rising", a real paired
rise of 8 % was a "peak", and the Search section's cuts and the report's words could disagree."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import CAP_RISING, UNTOLD, unreached
from perf.analysis.saturation.rises import paired_rise
from perf.analysis.stats.paired import p_words, sign_test_p
from perf.analysis.stats.points import run_points
from perf.records.results import RunResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.report.sections.knees import knee_lines
from perf.report.write import recommendation_section
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

V = "m_onnx_cpu1_nodb_mbs64"
#: Medians 12 % apart (100 vs 112 infer/s), rounds that disagree: c=2 ahead in 4 of 6.
DISAGREE = {1: [100.0] * 6, 2: [130.0, 90.0, 125.0, 92.0, 112.0, 112.0]}
#: A real paired rise of 8 %: c=2 ahead by 8 % in every one of 8 rounds (round noise shared by both levels).
JITTER = (1.0, 1.02, 0.99, 1.01, 0.98, 1.03, 1.0, 0.97)
REAL8 = {1: [100.0 * j for j in JITTER], 2: [108.0 * j for j in JITTER]}


def _run(thr: dict[int, list[float]], p99: dict[int, list[float]] | None = None, busy: bool = False, name: str = V) -> RunResult:
    """A rounds run of one variant: ``thr`` concurrency -> infer/s per round (p99 ``p99``, else 2 ms x c)."""
    levels = [
        level_result(c, t, (p99 or {}).get(c, [2.0 * c] * len(ts))[r], spread=True, trial=r, host_busy=busy)
        for c, ts in thr.items()
        for r, t in enumerate(ts)
    ]
    run = run_result([variant_result(name, levels)], finished="x")
    run.rounds = RoundsRecord(seed=1)
    return run


def _top_why(run: RunResult) -> str | None:
    pts = run_points(run)[V]
    return unreached(run, pts, max(pts, key=lambda p: p.concurrency))


def test_a_rise_of_medians_whose_rounds_disagree_is_not_still_rising():
    why = _top_why(_run(DISAGREE))
    noise = f"not distinguishable from noise (6 rounds; {p_words(sign_test_p(4, 2))})"
    assert why == f"{UNTOLD}: c=2 is the highest concurrency swept, with throughput +12.0 % from c=1 to c=2, {noise}"
    assert "still rising" not in why  # was "... with throughput still rising, +12.0 % from c=1 to c=2"


def test_a_rise_of_medians_in_two_host_busy_rounds_is_not_still_rising():
    why = _top_why(_run({1: [100.0, 101.0], 2: [112.0, 113.1]}, busy=True))  # +12 % in both rounds, both host busy
    assert why is not None and why.startswith(UNTOLD) and "still rising" not in why
    assert "c=2 ahead in each of the 2 rounds (host busy), but not called: too few rounds for the rule to call it" in why
    assert "not distinguishable" not in why  # both rounds ahead: said so, with why (trial 15, T15-2)


def test_a_real_paired_rise_of_8_percent_is_still_rising_not_a_peak():
    run = _run(REAL8)
    evidence = f"c=2 ahead in 8 of 8 rounds; {p_words(sign_test_p(8, 0))}"
    assert (
        _top_why(run)
        == f"c=2 is the highest concurrency swept, with throughput still rising, +8.0 % from c=1 to c=2 ({evidence})"
    )
    rec = recommend(run)  # was "Best peak throughput": the medians' 8 % is under the words' old 10 %
    assert rec.best_peak is not None and rec.best_peak.unreached == _top_why(run)
    section = "\n".join(recommendation_section(rec, run_points(run)))  # its why under its name (trial 23, T23-5)
    assert "- **Best measured throughput (peak not reached):** " in section and "peak not reached: " in section


def test_the_pick_whose_rise_the_noise_does_not_tell_is_neither_a_peak_nor_unreached():
    run = _run(DISAGREE)
    rec = recommend(run)
    section = "\n".join(recommendation_section(rec, run_points(run)))
    assert "Best peak throughput" not in section and "peak not reached" not in section
    assert "- **Best measured throughput (peak not told):** " in section and f"{UNTOLD}: " in section


def test_the_knee_is_where_the_paired_rule_finds_throughput_flat():
    """c=2 -> c=4 gains 8 % in every round (a rise), c=4 -> c=8 1 %: the knee is c=4 (was c=2: medians under 10 %)."""
    run = _run({c: [t * j for j in JITTER] for c, t in ((1, 100.0), (2, 200.0), (4, 216.0), (8, 218.0))})
    rec = recommend(run)
    assert rec.knees[V] == 4
    section = "\n".join(recommendation_section(rec, run_points(run)))
    rule = "the median of the paired rounds' gains, on at least 3 shared rounds each; never below a best level more than 5 % above it"
    assert f"throughput gains no more than 5 % to every higher level ({rule})" in section


def test_p99_trend_words_only_beyond_the_noise():
    thr = {1: [100.0] * 6, 2: [200.0] * 6}  # throughput doubles in every round: no knee
    noisy = _run(thr, {1: [2.0] * 6, 2: [2.2, 1.8, 2.3, 1.7, 1.94, 1.94]})  # median -3 %, lower in 4 of 6 rounds
    text = "\n".join(knee_lines(recommend(noisy), run_points(noisy), run=noisy))  # the no-knee reason: the knee list
    rose = f"throughput still grew +100.0 % at the last step (c=2 ahead in 6 of 6 rounds; {p_words(sign_test_p(6, 0))})"
    assert (
        f"`{V}`: no knee within the swept range ({rose} and p99 -3.0 % at the last step, not distinguishable from noise (6 rounds; "
        in text
    )
    assert "p99 did not rise" not in text and "p99 fell" not in text
    quiet = _run({1: [100.0] * 8, 2: [200.0] * 8}, {1: [2.0 * j for j in JITTER], 2: [1.6 * j for j in JITTER]})
    text = "\n".join(knee_lines(recommend(quiet), run_points(quiet), run=quiet))
    assert f"p99 fell at the last step: -20.0 % (c=1 higher in 8 of 8 rounds; {p_words(sign_test_p(8, 0))})" in text


def test_the_search_cuts_say_still_rising_by_the_same_rule_as_the_report():
    """A ladder capped at c=2 by the time budget: its cut says "still rose" where the report says "still rising"
    (the real 8 % rise; was: no cut, the medians' 8 % under 10 %), and not where the noise does not tell it
    (the 12 % of disagreeing rounds; was: a cut)."""
    grid = ladder_of(AUTO, SearchRules())[0]
    real, noisy = _run(REAL8, name="real").variants[0], _run(DISAGREE, name="noisy").variants[0]
    run = run_result([real, noisy])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, grid, [1]) for n in ("real", "noisy")}
    setup = Setup(plans, grid, True, SearchRules(), RoundRules(), budget=Budget(100.0, cores=None), cap=2)
    sched = Rounds(run, setup, 1.0)
    for n in plans:
        lad = ladder.start(plans[n], grid, True, RoundRules(), 2)
        sched.ladders[n] = {
            (1, None): ladder.update(lad, plans[n], sched.run_variant(n), grid, True, SearchRules(), RoundRules(), None, 2)
        }
    sched._finish_group(0, "ranking decided", ["real"])
    cuts = {c.variant: c.reason for c in run.rounds.cuts if c.kind == "ladder"}
    assert cuts == {"real": f"{CAP_RISING} 2, the time budget's cap"}
    # the ladder's own judgement of both steps is unchanged: neither is flat (the median paired gain above 5 %), so
    # neither would stop as a knee; only the noisy one's rise is not said
    steps = {
        n: paired_rise(sched.run_variant(n), ladder.side(plans[n], 1), ladder.side(plans[n], 2), SearchRules().min_gain_pct)
        for n in plans
    }
    assert not steps["real"].flat and steps["real"].rises and not steps["noisy"].flat and not steps["noisy"].told


def test_a_gain_beyond_the_concurrencys_ratio_says_what_it_means():
    """Trial 14, T14-11: "+1,330.6 % from c=1 to c=4" from one disturbed c=1 visit, read as "concurrency pays
    13×". A closed loop serves concurrency / latency (Little's law): a gain beyond the concurrency's ratio says
    how much longer the lower level's requests took; a gain within it says nothing more."""
    from perf.analysis.ranking.operating import side_of

    run = _run({1: [100.0], 4: [1430.0]})
    vr = run.variants[0]
    lo, hi = (side_of(vr, next(lv for lv in vr.levels if lv.concurrency == c)) for c in (1, 4))
    words = paired_rise(vr, lo, hi, 5.0).words(1, 4)
    assert (
        "+1,330.0 % from c=1 to c=4 (the gain in the 1 round both were measured in); more than the 4.0× the concurrency gives at equal latency: "
        in words
    ), words
    assert "c=1's requests took 3.6× as long as c=4's (Little's law)" in words
    within = _run({1: [100.0] * 3, 4: [390.0] * 3}).variants[0]
    lo, hi = (side_of(within, next(lv for lv in within.levels if lv.concurrency == c)) for c in (1, 4))
    assert "Little's law" not in paired_rise(within, lo, hi, 5.0).words(1, 4)


def test_two_levels_never_measured_in_the_same_round_say_no_gain():
    """The re-check of trial 14's demo: "its ladder stopped at the p99 latency budget with throughput from c=8 to
    c=16, not distinguishable from noise (never measured in the same round)": a sentence without its gain."""
    from perf.analysis.ranking.operating import side_of

    run = _run({8: [100.0, 0.0, 110.0], 16: [0.0, 120.0, 0.0]})
    vr = run.variants[0]
    vr.levels = [lv for lv in vr.levels if lv.throughput_infer_per_s]
    lo, hi = (side_of(vr, next(lv for lv in vr.levels if lv.concurrency == c)) for c in (8, 16))
    words = paired_rise(vr, lo, hi, 5.0).words(8, 16)
    assert words == "throughput from c=8 to c=16 not told: the two were never measured in the same round", words
