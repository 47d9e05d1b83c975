"""perf.analysis.stats.fair and its users: an effect where the setting cannot act is "cannot act at this
load"; a comparison with a host-busy level is "not measured fairly" (issue 24 item 4). Hand-made
records (tests/support/factories.py)."""

from __future__ import annotations

import dataclasses

from factories import levels, params

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.stats.fair import cannot_act, unfair
from perf.analysis.stats.points import aggregate, run_points
from perf.records.results import RunResult, VariantResult
from perf.report.sections.effects import effects_section, effects_sentences
from perf.sweep.refused_run import refused_flags_text


def _run(thr: dict[tuple[int, bool], list[float]], batch: dict[bool, list[float] | None] | None = None) -> RunResult:
    variants = []
    for (count, db), t in thr.items():
        p = params(count, db)
        b = (batch or {}).get(db)
        variants.append(VariantResult(p["name"], p, "ok", None, levels(t, [1.0 + i for i in range(len(t))], batch=b)))
    return RunResult("r", "now", {}, {}, variants)


def test_instances_and_batching_measured_at_concurrency_1_cannot_act():
    # issue 24: "2 instances: +80.3 %" and "batching: -47.5 %" measured only at c=1 (batch 1.00)
    run = _run({(1, False): [100.0], (2, False): [180.3], (1, True): [52.5]})
    effects = {e.factor.key: e for e in main_effects(run, run_points(run))}
    for key in ("count", "batching"):
        e = effects[key]
        assert e.throughput is None and e.p99 is None  # no bold number
        assert e.note("throughput") == "cannot act at this load: only one request in flight (concurrency 1)"
    text = "\n".join(effects_section(list(effects.values()), []))
    assert "+80.3" not in text and "-47.5" not in text
    assert text.count("cannot act at this load: only one request in flight (concurrency 1)") == 4
    sentence = effects_sentences(list(effects.values()))
    assert "none is evidence here (why: the table above): 2 instances vs 1 instance; " in sentence  # why: said once
    assert "+80.3" not in sentence


def test_batching_that_formed_no_batch_cannot_act_even_at_higher_concurrency():
    run = _run({(1, False): [100.0, 150.0, 160.0], (1, True): [90.0, 120.0, 125.0]}, {True: [1.0, 1.0, 1.02]})
    (e,) = main_effects(run, run_points(run))
    assert e.factor.key == "batching" and e.throughput is None
    assert (
        e.note("throughput") == "cannot act at this load: executions held 1.02 requests on average (the batcher formed no batch)"
    )
    # where it formed batches, the same numbers are an effect
    run = _run({(1, False): [100.0, 150.0, 160.0], (1, True): [90.0, 120.0, 125.0]}, {True: [1.0, 1.9, 3.6]})
    (e,) = main_effects(run, run_points(run))
    assert e.throughput is not None and e.throughput.median < 0 and e.note("throughput") is None


def test_a_pair_with_a_host_busy_level_is_not_measured_fairly():
    run = _run({(1, False): [100.0, 190.0, 200.0], (2, False): [100.0, 200.0, 390.0]})
    busy = run.variants[1].levels[2]
    busy.host_busy, busy.host_busy_pct = True, 63.0
    (e,) = main_effects(run, run_points(run))
    assert e.throughput is None
    assert e.note("throughput") == "not measured fairly: 1 of 1 pair includes a host-busy level"
    assert e.pairs[0].throughput_note == (
        "not measured fairly: `mlp_onnx_cpu2_nodb_mbs64` c=4 was measured while other processes used 63 % of one core (host busy)"
    )
    assert "+95.0" not in "\n".join(effects_section([e], []))


def test_rules_directly():
    a = aggregate(levels([100.0, 200.0], [1.0, 2.0]), "a")
    b = aggregate(levels([120.0, 260.0], [1.0, 2.0], batch=[1.0, 1.5]), "b")
    assert unfair(a[1], b[1]) is None and cannot_act("format", a[0], b[0]) is None
    assert cannot_act("count", a[0], b[0]) and cannot_act("count", a[1], b[1]) is None
    assert cannot_act("delay", a[1], b[1], batching_on=(b[1],)) is None  # 1.5 requests per execution
    assert cannot_act("delay", a[1], b[1], batching_on=(a[1],))  # 1.0


def test_run_comparison_with_a_host_busy_side_is_not_measured_fairly():
    from perf.analysis.comparison.runs import compare_markdown

    a = _run({(1, False): [100.0, 190.0]})
    b = _run({(1, False): [100.0, 120.0]})
    for lv in b.variants[0].levels:
        lv.trial = 0
    b.variants[0].levels[1].host_busy, b.variants[0].levels[1].host_busy_pct = True, 150.0
    a.run_id, b.run_id = "a", "b"
    text = compare_markdown(a, b, refused=refused_flags_text)
    rows = [[c.strip() for c in r.strip("|").split("|")] for r in text.splitlines() if r.startswith("|")]
    row = next(r for r in rows if r[:2] == ["2", "1"])
    assert row[3] == "120.0 † host busy" and row[5] == row[9] == "not measured fairly (host busy)"
    assert "1 not measured fairly (a side host busy)" in text


def test_throughput_that_falls_as_load_rises_is_interference_in_the_reports_words():
    from perf.analysis.recommendation.recommend import recommend
    from perf.analysis.saturation.falls import INTERFERENCE, NOT_TOLD
    from perf.report.sections.knees import knee_lines, knee_text

    run = _run({(1, False): [100.0, 300.0, 240.0], (2, False): [100.0, 190.0, 195.0]})
    for v in (
        run.variants
    ):  # 3 trials a level, 1 % apart: the fall is beyond both levels' spread (perf.analysis.saturation.falls.step)
        v.levels = [
            dataclasses.replace(lv, trial=t, throughput_infer_per_s=lv.throughput_infer_per_s * (1 + t / 100))
            for t in range(3)
            for lv in v.levels
        ]
    pts = run_points(run)
    rec = recommend(run, None)
    falling, flat = run.variants[0].name, run.variants[1].name
    assert rec.knees[falling] is None and rec.knees[flat] == 2
    text = "\n".join(knee_lines(rec, pts))
    assert f"`{falling}`: throughput fell 20 % from c=2 (303.0 infer/s) to c=4 (242.4 infer/s) as load rose" in text
    assert "more than both levels' spread over 3 trials): interference" in text
    assert "not a knee" in text and f"`{flat}`: concurrency 2" in text
    assert knee_text(pts[falling], None, short=True, fall=rec.falls[falling]) == INTERFERENCE
    one = _run({(1, False): [100.0, 300.0, 240.0]})  # one trial a level: its spread is unknown, no cause is said
    rec = recommend(one, None)
    (fall,) = rec.falls.values()
    assert knee_text(run_points(one)[one.variants[0].name], None, short=True, fall=fall) == NOT_TOLD
    assert fall.describe() == (
        "c=4's median is 20 % below c=2's (240.0 vs 300.0 infer/s), spread unknown (1 trial): neither a knee nor a fall is told"
    )


def test_a_point_flagged_in_one_round_says_the_load_that_round_saw_not_its_median():
    # the demo: c=16 flagged host busy in one of 6 rounds (26 % of one core), median over rounds 0 %
    from perf.analysis.stats.fair import busy_load
    from perf.records.levels import LevelResult

    lv = [LevelResult(16, 1, r, throughput_infer_per_s=2800.0, latency_p99_ms=16.0, host_busy_pct=0.0) for r in range(5)]
    lv.append(LevelResult(16, 1, 5, throughput_infer_per_s=2100.0, latency_p99_ms=20.0, host_busy_pct=26.0, host_busy=True))
    (p,) = aggregate(lv, "v")
    assert p.status == "host busy" and p.get("host_busy_pct") == 0.0
    assert busy_load(p) == 26.0
    assert unfair(p) == "not measured fairly: `v` c=16 was measured while other processes used 26 % of one core (host busy)"
