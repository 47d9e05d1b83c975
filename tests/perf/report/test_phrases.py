"""perf.report.phrases: every explanatory phrase of the conclusions is chosen by the sign and size of
the numbers it explains (issue 19 item 13). Table-driven: for each phrase, numbers that must
produce it and numbers that must not."""

from __future__ import annotations

import dataclasses

import pytest
from factories import levels, make_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.report.conclusions.pairs import pair_bullets
from perf.report.conclusions.written import conclusions
from perf.report.phrases import FAMILIES, PHRASES, Facts, choose, say
from perf.report.sections.knees import knee_lines

F = Facts
# key: (facts that must produce the phrase, facts that must not)
CASES: dict[str, tuple[list[Facts], list[Facts]]] = {
    "batcher_wait": (
        [
            F(change_pct=12.0, significant=True, queue_a_us=40, queue_b_us=450),
            F(change_pct=3.0, significant=None, queue_a_us=40, queue_b_us=90),
        ],  # 1 trial: the sign still counts
        [
            F(change_pct=-11.3, significant=None, queue_a_us=40, queue_b_us=450),  # issue 19: p99 fell
            F(change_pct=12.0, significant=False, queue_a_us=40, queue_b_us=450),  # within the trial spread
            F(change_pct=12.0, significant=True, queue_a_us=450, queue_b_us=40),  # queue fell: not the batcher
            F(change_pct=12.0, significant=True, queue_a_us=None, queue_b_us=450),
            F(change_pct=0.0, significant=True, queue_a_us=40, queue_b_us=450),
        ],
    ),
    "no_batcher_wait": (
        [F(change_pct=-11.3, significant=None), F(change_pct=-4.0, significant=True)],
        [F(change_pct=11.3, significant=None), F(change_pct=-4.0, significant=False), F(change_pct=None)],
    ),
    "queue_bound": ([F(queue_share_pct=50.0), F(queue_share_pct=87.0)], [F(queue_share_pct=49.9), F(queue_share_pct=5.0), F()]),
    "compute_bound": ([F(queue_share_pct=12.0), F(queue_share_pct=0.0)], [F(queue_share_pct=66.0), F()]),
    "batching_paid": (
        [F(batch_a=1.0, batch_b=4.6, compute_per_inference_a_us=1364, compute_per_inference_b_us=456)],
        [
            F(batch_a=1.0, batch_b=4.6, compute_per_inference_a_us=400, compute_per_inference_b_us=456),  # no saving
            F(batch_a=1.0, batch_b=1.05, compute_per_inference_a_us=1364, compute_per_inference_b_us=456),  # no batches
            F(batch_a=3.0, batch_b=4.6, compute_per_inference_a_us=1364, compute_per_inference_b_us=456),  # both batched
            F(batch_a=1.0, batch_b=4.6),
        ],
    ),
    "batching_no_saving": (
        [F(batch_a=1.0, batch_b=14.0, compute_per_inference_a_us=400, compute_per_inference_b_us=400)],
        [
            F(batch_a=1.0, batch_b=14.0, compute_per_inference_a_us=400, compute_per_inference_b_us=300),
            F(batch_a=1.0, batch_b=1.0, compute_per_inference_a_us=400, compute_per_inference_b_us=400),
        ],
    ),
    "cpu_saturated": (
        [F(host_cpu_pct=90.0), F(host_cpu_pct=99.5)],
        [F(host_cpu_pct=89.9), F(host_cpu_pct=40.0), F(), F(host_cpu_pct=99.0, others_cpu_pct=110.0)],  # others' load: not ours
    ),
    "cpu_taken_by_others": ([F(host_cpu_pct=99.0, others_cpu_pct=110.0), F(others_cpu_pct=15.0)], [F(host_cpu_pct=99.0), F()]),
    "cpu_spare": ([F(host_cpu_pct=40.0), F(host_cpu_pct=0.0)], [F(host_cpu_pct=70.0), F(host_cpu_pct=98.0), F()]),
    # the no-knee reasons say a trend only by the rules of perf.analysis.saturation.rises (last_gain, last_p99)
    "still_growing": (
        [F(last_gain_pct=10.0, last_gain="rose", last_p99_change_pct=30.0), F(last_gain_pct=6.0, last_gain="rose")],
        [F(last_gain_pct=12.0, last_gain="untold"), F(last_gain_pct=50.0), F(last_gain_pct=-5.0), F()],  # medians alone: no
    ),
    "growth_not_told": (
        [F(last_gain_pct=12.0, last_gain="untold"), F(last_gain="untold")],  # gain None: never in the same round
        [F(last_gain_pct=12.0, last_gain="rose"), F(last_gain_pct=12.0), F()],
    ),
    "p99_fell": (
        [F(last_p99_change_pct=-8.0, last_p99="fell")],
        [F(last_p99_change_pct=-8.0), F(last_p99_change_pct=-8.0, last_p99="untold"), F(last_p99="fell"), F()],
    ),
    "p99_not_told": (
        [F(last_p99_change_pct=0.0, last_p99="untold"), F(last_p99_change_pct=-8.0, last_p99="untold")],
        [
            F(last_p99_change_pct=0.1, last_p99="untold"),
            F(last_p99_change_pct=-8.0),
            F(last_p99_change_pct=-8.0, last_p99="fell"),
            F(),
        ],
    ),
    "first_request_slow": ([F(first_ratio=1.51), F(first_ratio=40.0)], [F(first_ratio=1.5), F(first_ratio=0.9), F()]),
    "first_request_steady": ([F(first_ratio=1.5), F(first_ratio=0.8)], [F(first_ratio=1.51), F()]),
    "new_size_cost": ([F(new_size_ratio=3.1)], [F(new_size_ratio=1.5), F(new_size_ratio=1.1), F(first_ratio=9.0), F()]),
    "warmup_moved": (
        [F(warmup_load_added_s=0.9, warmup_first_saved_ms=120.0)],
        [
            F(warmup_load_added_s=0.9, warmup_first_saved_ms=120.0, warmup_unfair=True),  # a pair on a busy host
            F(warmup_load_added_s=-0.1, warmup_first_saved_ms=120.0),  # load did not grow: nothing moved into it
            F(warmup_load_added_s=0.9, warmup_first_saved_ms=-3.0),  # first request not faster
            F(warmup_load_added_s=0.9),
            F(),
        ],
    ),
    "warmup_free": (
        [F(warmup_load_added_s=-0.05, warmup_first_saved_ms=58.0), F(warmup_load_added_s=0.0, warmup_first_saved_ms=1.0)],
        [
            F(warmup_load_added_s=0.9, warmup_first_saved_ms=58.0),
            F(warmup_load_added_s=-0.05, warmup_first_saved_ms=-1.0),
            F(warmup_load_added_s=-0.05, warmup_first_saved_ms=58.0, warmup_unfair=True),
            F(),
        ],
    ),
    "warmup_no_gain": (
        [F(warmup_first_saved_ms=0.0), F(warmup_load_added_s=0.9, warmup_first_saved_ms=-3.0)],
        [F(warmup_first_saved_ms=120.0), F(warmup_first_saved_ms=0.0, warmup_unfair=True), F()],
    ),
    # trial 27, T27-18: no cause told from pairs the same paragraph calls not measured fairly
    "warmup_unfair": (
        [
            F(warmup_load_added_s=1.19, warmup_first_saved_ms=15.8, warmup_unfair=True),
            F(warmup_first_saved_ms=-3.0, warmup_unfair=True),
        ],
        [F(warmup_load_added_s=1.19, warmup_first_saved_ms=15.8), F(warmup_unfair=True), F()],
    ),
}


def test_every_phrase_has_cases():
    assert set(CASES) == {p.key for p in PHRASES}
    assert len({p.key for p in PHRASES}) == len(PHRASES)


@pytest.mark.parametrize("key", sorted(CASES))
def test_phrase_condition(key: str):
    phrase = next(p for p in PHRASES if p.key == key)
    produce, not_produce = CASES[key]
    for facts in produce:
        assert phrase in choose(phrase.family, facts), (key, facts)
        assert phrase.words(facts) in say(phrase.family, facts)
    for facts in not_produce:
        assert phrase not in choose(phrase.family, facts), (key, facts)


def test_phrases_that_contradict_never_come_together():
    opposite = [
        ("batcher_wait", "no_batcher_wait"),
        ("queue_bound", "compute_bound"),
        ("cpu_saturated", "cpu_spare"),
        ("cpu_saturated", "cpu_taken_by_others"),
        ("batching_paid", "batching_no_saving"),
    ]
    for keys in opposite:
        for key in keys:
            for facts in CASES[key][0]:
                chosen = {p.key for p in choose(next(p.family for p in PHRASES if p.key == key), facts)}
                assert not set(keys) <= chosen, (keys, facts)


def test_words_carry_the_numbers():
    f = F(change_pct=12.0, significant=True, queue_a_us=40, queue_b_us=450)
    assert say("light_load", f) == "the batcher's wait when load is light: queue 40 → 450 µs"
    rose = F(last_gain_pct=50.0, last_gain="rose", last_gain_evidence="c=16 ahead in 8 of 8 rounds; p = 0.0078, sign test")
    fell = F(last_p99_change_pct=-3.0, last_p99="fell", last_p99_evidence="c=8 higher in 8 of 8 rounds; p = 0.0078, sign test")
    both = dataclasses.replace(rose, **{k: getattr(fell, k) for k in ("last_p99_change_pct", "last_p99", "last_p99_evidence")})
    assert say("no_knee", both, " and ") == (
        "throughput still grew +50.0 % at the last step (c=16 ahead in 8 of 8 rounds; p = 0.0078, sign test) and "
        "p99 fell at the last step: -3.0 % (c=8 higher in 8 of 8 rounds; p = 0.0078, sign test)"
    )
    noise = "not distinguishable from noise (3 rounds; p = 0.25, sign test)"
    assert say("no_knee", F(last_gain_pct=12.0, last_gain="untold", last_gain_evidence=noise)) == (
        f"throughput +12.0 % at the last step, {noise}"
    )
    with pytest.raises(KeyError, match="no phrase family"):
        choose("nonsense", f)
    assert FAMILIES == {"light_load", "server_time", "contrast", "no_knee", "cold_start"}
    cold = F(first_ratio=40.0, new_size_ratio=3.1, warmup_load_added_s=0.9, warmup_first_saved_ms=120.0)
    assert "load +0.90 s, first request -120.0 ms" in say("cold_start", cold)
    assert say("cold_start", F(warmup_first_saved_ms=0.0)) == "warmup did not shorten the first request here (+0.0 ms)"


def _batching_run(on_c1_p99: float, on_c1_queue: float):
    """make_run with the batching-on variant's concurrency-1 p99 (off: 1.2 ms) and queue (off: 50 µs) set."""
    run = make_run()
    on = run.variants[1].levels[0]
    on.latency_p99_ms, on.server_queue_us = on_c1_p99, on_c1_queue
    return run


def test_conclusions_do_not_blame_the_batcher_for_a_p99_that_fell():
    """Issue 19 item 13: "p99 -11.3 % (the batcher's wait when load is light)" contradicted itself."""
    run = _batching_run(1.2 * (1 - 0.113), 480.0)
    text = "\n".join(pair_bullets(run))
    assert "at concurrency 1 p99 -11.3 % (lower, so the batcher's wait added no latency at light load)" in text
    assert "the batcher's wait when load is light" not in text


def test_conclusions_name_the_batcher_when_p99_and_queue_rose():
    run = _batching_run(1.8, 480.0)
    text = "\n".join(pair_bullets(run))
    assert "at concurrency 1 p99 +50.0 % (the batcher's wait when load is light: queue 50 → 480 µs)." in text
    run = _batching_run(1.8, 50.0)  # p99 rose but the queue did not: no mechanism is claimed
    text = "\n".join(pair_bullets(run))
    assert "at concurrency 1 p99 +50.0 %." in text and "batcher's wait" not in text


def test_why_paragraph_phrases_follow_the_numbers():
    run = make_run()
    text = "\n".join(conclusions(run, recommend(run)))
    # the best (db500 at c=16): queue 800 µs of 800+10+5600+8: compute-bound; baseline queue-bound
    why = text.split("**Why.**")[1].split("**When")[0]
    assert "(queue = 12 % of server time: compute took most of the server time)" in why
    assert "(queue = 66 % of server time: requests mostly waited for a busy instance)" in why
    assert "the host CPU was saturated (100 % of all cores, perf_analyzer included)" in why
    # the same run with idle cores and cheaper batched executions: the other phrases
    for v in run.variants:
        for lv in v.levels:
            lv.cpu_utilization_pct = 35.0
    run.variants[1].levels[-1].server_compute_infer_us = 14 * 150.0
    why = "\n".join(conclusions(run, recommend(run))).split("**Why.**")[1].split("**When")[0]
    assert "host CPU had capacity left (35 % of all cores)" in why and "saturated" not in why
    assert (
        "dynamic batching paid in compute at this load: executions of 14.00 inferences cost ≈150 µs infer time per inference against 400 µs"
        in why
    )


def test_no_knee_reason_is_the_one_that_holds():
    run = make_run()
    run.variants[1].levels = levels([95, 185, 340, 600, 620], [1.8, 2.0, 2.4, 3.0, 2.9])  # flat, p99's median lower
    rec = recommend(run)
    text = "\n".join([*knee_lines(rec, run_points(run), run=run), *conclusions(run, rec)])
    # one trial: the p99 change is said with its evidence, not as a trend (perf.analysis.saturation.rises.p99_step);
    # said beside the variant in the knee list, once (trial 19, T19-17)
    assert (
        "`mlp_onnx_cpu1_db500_mbs64`: no knee within the swept range (p99 -3.3 % at the last step, spread unknown (1 trial))"
        in text
    )
    assert "throughput still grew" not in text and "p99 fell" not in text and "did not rise" not in text
