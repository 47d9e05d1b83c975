"""No confident wrong verdict (issue 12, kinds 1-4 and 8), without a server: perf_analyzer's
console output parsed at its boundary, level statuses, the ranking rule, the host sampler's
arithmetic and the samplers' windows.

Recorded outputs in ``tests/data/perf_analyzer/``: ``rate_20000_not_reached.txt`` is the
issue's capture (perf_analyzer 2.51 at ``--request-rate-range 20000`` on a small model, exit
0; the lines the issue did not quote come from the same run here), ``rate_1500_verbose_db.txt``
and ``concurrency_4_db500.txt`` were captured here with ``-v`` on the tiny model,
``request_errors_exit0.txt`` and ``zero_throughput.txt`` are built from real lines for
what 2.51 does not print on demand (request errors with exit 0; no completed inference).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import best_under_budget, recommend
from perf.analysis.stats.points import aggregate
from perf.analysis.stats.trials import rank, spread
from perf.measure.analyzer_output import STABILITY_WINDOWS, RunOutcome, Summary, Window, parse_output
from perf.measure.host import HostSampler
from perf.measure.metrics import MetricsSampler, in_span
from perf.records.levels import LevelResult

#: the sweep setting a level's spread is compared with (one trial: the tolerance it failed)
STABILITY = {"stability_pct": 10.0}
DATA = Path(__file__).resolve().parents[2] / "data" / "perf_analyzer"


def recorded(name: str) -> str:
    return (DATA / name).read_text()


# ---------------------------------------------------------------- kind 1: a rate not reached


def test_the_issue_capture_parses_to_delayed_share_and_send_rate():
    s = parse_output(recorded("rate_20000_not_reached.txt"))
    assert s.delayed_pct == 100.0 and s.send_rate_per_s == 2970.54
    assert s.client_request_count == 10793 and s.errors == ()
    assert (s.server_inference_count, s.server_execution_count) == (10796, 10796)


def test_a_second_unreached_rate_parses_too():
    s = parse_output(recorded("rate_1500_verbose_db.txt"))
    assert s.delayed_pct == 98.87 and s.send_rate_per_s == 1101.13 and s.errors == ()


def test_a_reached_rate_has_no_delay_warning():
    s = parse_output(recorded("concurrency_4_db500.txt"))
    assert s.delayed_pct is None and s.send_rate_per_s is None


def test_a_rate_level_below_its_offered_rate_is_not_achieved_and_never_recommended():
    run = run_result(
        [
            variant_result(
                "v_ok",
                [
                    level_result(1, 900, 2.0),
                    level_result(
                        0, 2968.78, 7.2, request_rate=20000, achieved_rate_per_s=2968.78, delayed_pct=100.0, rate_achieved=False
                    ),
                ],
            )
        ],
        settings=STABILITY,
    )
    lv = run.variants[0].level(0, request_rate=20000)
    assert lv.status == "not achieved" and lv.ok and not lv.usable
    rec = recommend(run)
    assert rec.best_peak.throughput_infer_per_s == 900
    assert any("20,000/s not achieved" in e for e in rec.excluded)  # a given rate, as the tables write numbers


# ---------------------------------------------------------------- kind 2: failed or empty levels


def test_request_errors_with_exit_0_fail_the_run():
    out = RunOutcome(0, False, [{"throughput_infer_per_s": 3.2}], "", parse_output(recorded("request_errors_exit0.txt")))
    assert out.summary.errors == ("Thread [0] had error: flaky: refused", "Thread [1] had error: flaky: refused")
    assert out.problem().startswith("perf_analyzer reported request errors: Thread [0] had error: flaky: refused")


def test_zero_throughput_fails_the_run_and_window_errors_are_not_request_errors():
    s = parse_output(recorded("zero_throughput.txt"))
    assert s.errors == () and s.server_success_count == 0
    out = RunOutcome(0, False, [{"throughput_infer_per_s": 0.0}], "", s)
    assert "0 infer/s" in out.problem()


def test_a_zero_or_missing_throughput_level_is_failed_and_never_best():
    zero = LevelResult(8, throughput_infer_per_s=0.0, latency_p99_ms=0.1).settle()
    assert zero.status == "failed" and zero.error == "perf_analyzer measured 0 infer/s" and not zero.ok
    run = run_result(
        [
            variant_result("v_a", [level_result(1, 100, 1.0)]),
            variant_result("v_b", [LevelResult(1, throughput_infer_per_s=0.0, latency_p99_ms=0.01)]),
        ],
        settings=STABILITY,
    )
    rec = recommend(run, 5.0)
    assert rec.best_peak.variant == "v_a" and rec.best_under_budget.variant == "v_a"
    assert any("`v_b` at concurrency 1: failed" in e for e in rec.excluded)


def test_a_variant_with_only_failed_levels_cannot_be_recommended():
    run = run_result(
        [
            variant_result(
                "v_x",
                [LevelResult(1, error="perf_analyzer reported request errors: x")],
                status="failed",
                error="perf_analyzer reported request errors: x",
            )
        ],
        settings=STABILITY,
    )
    rec = recommend(run, 10.0)
    assert rec.best_peak is None and rec.best_under_budget is None
    assert rec.excluded == ["`v_x`: the variant failed (perf_analyzer reported request errors: x)."]


def test_a_results_file_without_statuses_gets_them_from_its_fields():
    old = {"concurrency": 4, "throughput_infer_per_s": 10.0, "latency_p99_ms": 1.0, "stable": False}
    assert LevelResult.from_json(old).status == "unstable"
    assert LevelResult.from_json({**old, "throughput_infer_per_s": 0.0}).status == "failed"


# ---------------------------------------------------------------- kind 3: unstable levels win


def test_a_stable_level_beats_an_unstable_one_within_its_spread():
    # unstable 1,050 vs stable 1,000: one trial, so the spread is the 10 % tolerance it failed (105)
    run = run_result(
        [
            variant_result("v_stable", [level_result(8, 1000, 2.0)]),
            variant_result("v_unstable", [level_result(8, 1050, 1.5, stable=False)]),
        ],
        settings=STABILITY,
    )
    rec = recommend(run, 3.0)
    assert rec.best_peak.variant == "v_stable" and rec.best_peak.why is None
    assert rec.best_under_budget.variant == "v_stable"
    assert any("`v_unstable` at concurrency 8: unstable" in f for f in rec.flagged)


def test_an_unstable_level_wins_only_beyond_its_spread_and_says_so():
    run = run_result(
        [
            variant_result("v_stable", [level_result(8, 1000, 2.0)]),
            variant_result("v_unstable", [level_result(8, 1200, 1.5, stable=False)]),
        ],
        settings=STABILITY,
    )
    best = recommend(run).best_peak
    assert best.variant == "v_unstable" and best.status == "unstable"
    assert (
        "beats the best stable level (`v_stable` at concurrency 8, 1,000.0 infer/s) by 200.0 infer/s, more than "
        "its spread of 120.0 infer/s" in best.why
    )
    assert "unstable" in best.describe() and best.why in best.describe()


def test_a_host_busy_level_ranks_after_stable_levels_by_its_measured_spread():
    # a stable-but-busy level with three trials: its spread is the min–max over them (950..1100)
    busy = [level_result(4, t, 1.0, trial=i, host_busy=True, host_busy_pct=80.0) for i, t in enumerate((950, 1100, 1050))]
    pts = aggregate(busy, "v_busy") + aggregate([level_result(4, 1000, 1.2)], "v_ok")
    assert pts[0].status == "host busy" and spread(pts[0]) == 150
    best, why = rank(pts)
    assert best.variant == "v_ok" and why is None  # 1,050 - 150 is not above 1,000


def test_with_no_stable_level_the_best_flagged_one_is_picked_in_words():
    pts = aggregate([level_result(2, 500, 1.0, stable=False)], "v_u")
    best, why = rank(pts)
    assert best.variant == "v_u" and why.startswith("no stable level qualifies")
    assert best_under_budget(pts, 0.5) is None


# ---------------------------------------------------------------- kind 4: the host sampler


class _Times:
    def __init__(self, **kw: float):
        self.user, self.nice, self.system, self.steal = kw.get("user", 0.0), 0.0, kw.get("system", 0.0), 0.0


def test_host_sampler_subtracts_the_measurement_and_counts_the_rest(monkeypatch: pytest.MonkeyPatch):
    # host busy 0 -> 2 CPU s over 1 s; the server used 0.5 s, perf_analyzer (started inside) 0.3 s
    h = HostSampler([100])
    h.samples = [(10.0, 50.0, {100: 4.0}), (10.5, 51.0, {100: 4.2, 200: 0.1}), (11.0, 52.0, {100: 4.5, 200: 0.3})]
    assert h.other_pct() == pytest.approx((2.0 - 0.5 - 0.3) * 100)
    # a process of the measurement that ended inside the span counts up to its last sample
    h.samples[2] = (11.0, 52.0, {100: 4.5})
    assert h.other_pct() == pytest.approx((2.0 - 0.5 - 0.1) * 100)
    # a span: widened to the samples around it
    assert h.other_pct((10.6, 11.0)) == pytest.approx((1.0 - 0.3 - 0.0) / 0.5 * 100)
    assert HostSampler([]).other_pct() is None


def test_host_sampler_reads_real_processes():
    import os

    with HostSampler([os.getpid()], period_s=0.05) as h:
        sum(i * i for i in range(300_000))  # this process's own work is subtracted
    assert len(h.samples) >= 2 and os.getpid() in h.samples[-1][2]
    assert h.other_pct() is not None and h.other_pct() >= 0


# ---------------------------------------------------------------- kind 8: the windows


def test_the_stable_span_is_the_last_three_windows():
    w = [Window(t, 100.0) for t in (1.0, 2.0, 3.0, 4.0, 5.0)]
    out = RunOutcome(0, False, [], "", Summary(), started_s=0.0, ended_s=6.0, load_started_s=0.2, windows=w)
    assert STABILITY_WINDOWS == 3 and out.stable_span() == (2.0, 5.0, True)
    three = RunOutcome(0, False, [], "", Summary(), 0.0, 6.0, 0.2, w[:3])
    assert three.stable_span() == (0.2, 3.0, True)
    assert RunOutcome(0, False, [], "", Summary(), 0.0, 6.0).stable_span() == (0.0, 6.0, False)


def test_batch_size_formed_comes_from_perf_analyzers_merged_windows():
    s = parse_output(recorded("concurrency_4_db500.txt"))
    assert s.avg_server_batch_size == pytest.approx(4170 / 1137)
    assert Summary().avg_server_batch_size is None


def test_window_spread_of_the_merged_windows():
    w = [Window(1.0, 2744.83), Window(2.0, 1913.08), Window(3.0, 2115.65)]
    out = RunOutcome(0, False, [], "", Summary(), windows=w)
    mean = (2744.83 + 1913.08 + 2115.65) / 3
    assert out.window_spread_pct() == pytest.approx((2744.83 - 1913.08) / mean * 100)


def test_samplers_average_over_the_span_only():
    m = MetricsSampler("localhost:1/metrics")
    m.times = [1.0, 2.0, 3.0, 4.0]
    m.samples = [{"nv_cpu_utilization": [v]} for v in (1.0, 0.2, 0.4, 1.0)]  # warm-up and tail at 100 %
    assert m.summary((1.5, 3.5))["cpu_utilization_pct"] == pytest.approx(30.0)
    assert m.summary()["cpu_utilization_pct"] == pytest.approx(65.0)
    assert in_span([1.0], ["a"], (5.0, 6.0)) == ["a"]  # a span without samples: all of them
