"""Cold start (issue 17 item 1, 4): the steady rule, the server-log load times, the report's
table and conclusion from recorded fields, and "not measured on this host" for TensorRT."""

from __future__ import annotations

import dataclasses

import pytest
from factories import levels, make_run, params, variant_result

from builders.config.variants import Variant
from perf.coldstart import measure as coldstart
from perf.records.coldstart import SETTLE_WINDOW, STEADY_RATIO, ColdStart, FirstRequests
from perf.records.results import RESULTS_KIND, RunResult
from perf.report.sections import coldstart as coldstart_report

LOG = """\
I1201 03:45:27.464123 18727 http_server.cc:362] "Started Metrics Service at 127.0.0.1:32841"
I1201 03:45:27.555599 18727 model_lifecycle.cc:472] "loading: m_onnx_cpu1:1"
I1201 03:45:29.290425 18727 python_be.cc:2249] "TRITONBACKEND_ModelInstanceInitialize: m_onnx_cpu1_0_0 (CPU device 0)"
I1201 03:45:29.390425 18727 python_be.cc:2249] "TRITONBACKEND_ModelInstanceInitialize: m_onnx_cpu1_0_1 (CPU device 0)"
W1201 03:45:30.603624 18727 pinned_memory_manager.cc:170] "failed to allocate pinned system memory"
I1201 03:45:30.690399 18727 model_lifecycle.cc:839] "successfully loaded 'm_onnx_cpu1'"
"""


def test_load_times_come_from_the_server_log_lines_of_that_model():
    load_s, instances_s = coldstart.log_load_times(LOG, "m_onnx_cpu1")
    assert load_s == pytest.approx(3.134800) and instances_s == pytest.approx(1.399974)
    assert coldstart.log_load_times(LOG, "m_onnx") == (None, None)  # another model's lines are not this one's
    assert coldstart.log_load_times(LOG.replace("successfully", "failed"), "m_onnx_cpu1") == (None, None)
    no_instances = "\n".join(ln for ln in LOG.splitlines() if "Instance" not in ln)
    assert coldstart.log_load_times(no_instances, "m_onnx_cpu1") == (pytest.approx(3.1348), None)
    midnight = LOG.replace("03:45:27.555599", "23:59:59.000000").replace("1201 03:45:30.690399", "1202 00:00:01.000000")
    assert coldstart.log_load_times(midnight, "m_onnx_cpu1")[0] == pytest.approx(2.0)


def test_steady_rule_counts_the_slow_requests_before_the_first_steady_one():
    fr = FirstRequests(1, latencies_ms=[80.0, 30.0] + [1.0, 1.1, 0.9] * (SETTLE_WINDOW // 3))
    assert fr.first_ms == 80.0 and fr.settled_ms == pytest.approx(1.0)
    assert fr.requests_to_steady() == 2 and fr.first_ratio == pytest.approx(80 / 1.0)
    assert FirstRequests(1, latencies_ms=[1.0, 1.1, 0.9] * (SETTLE_WINDOW // 3)).requests_to_steady() == 0
    assert FirstRequests(1, latencies_ms=[1.0 * STEADY_RATIO + 0.01] + [1.0] * SETTLE_WINDOW).requests_to_steady() == 1
    assert FirstRequests(1, latencies_ms=[5.0, 1.0]).requests_to_steady() is None  # never settled: nothing to judge by
    assert FirstRequests(1, latencies_ms=[5.0, 1.0]).requests_to_steady(1.0) == 1  # the sweep's level judges
    cs = ColdStart("m", first=[FirstRequests(8, error="refused"), fr, FirstRequests(4, latencies_ms=[9, 1, 1, 1, 1])])
    assert cs.first_request is fr and cs.at(4) is cs.first[2] and cs.at(4, "seq=8") is None


def test_a_slow_first_request_is_never_counted_steady():
    """Issue 26: the table said a first request was 49x its steady latency and "requests to steady 0":
    the count judged against the median of 12 requests that were all slow. It now judges against the
    steady latency the ratio uses (the sweep's p50 at concurrency 1), and says when none got there."""
    slow = [724.9, 700.0, 690.0, 710.0, 705.0, 698.0, 702.0, 699.0, 701.0, 703.0, 697.0, 700.0]
    fr = FirstRequests(1, latencies_ms=slow)
    assert fr.requests_to_steady() is None  # 12 requests: too few to settle (no sweep level to judge by)
    assert fr.requests_to_steady(14.8) == 12 and fr.never_steady == "none of 12"  # 49x the sweep's p50
    run = make_run()
    v = run.variants[0]  # its c=1 p50 is 0.6 ms (make_run)
    v.cold_start = ColdStart(v.name, first=[FirstRequests(1, latencies_ms=[30.0] * 12)])
    row = [c.strip() for c in next(ln for ln in coldstart_report.section(run) if f"`{v.name}`" in ln).split("|")[1:-1]]
    assert row[5] == "50×" and row[-1] == "none of 12"
    n, reason = coldstart_report.measured_warmup_count(coldstart_report.entries(run), run.run_id)
    assert n == 12 and "was not steady within the 12 requests sent at batch 1 (at least 12)" in reason
    v.cold_start = ColdStart(v.name, first=[FirstRequests(1, latencies_ms=[30.0, 5.0, 0.8] + [0.6] * 9)])
    row = [c.strip() for c in next(ln for ln in coldstart_report.section(run) if f"`{v.name}`" in ln).split("|")[1:-1]]
    assert row[-1] == "2"  # 30 and 5 ms before the first within 1.5 x 0.6 ms


def _cold(first_b1: float, first_b8: float, load_s: float = 2.0, warmup: str | None = None) -> ColdStart:
    return ColdStart(
        "x",
        warmup,
        load_s=load_s,
        load_log_s=load_s - 0.01,
        instances_log_s=0.8,
        first=[
            FirstRequests(1, latencies_ms=[first_b1, 3.0, 0.9, 1.0, 1.0, 1.1]),
            FirstRequests(8, latencies_ms=[first_b8] + [2.0] * SETTLE_WINDOW),  # settled at 2 ms
        ],
    )


def _run() -> RunResult:
    run = make_run()
    base, warm = run.variants[0], run.variants[1]
    base.cold_start = dataclasses.replace(_cold(60.0, 6.0), variant=base.name)
    wp = {**params(1, False), "warmup": "zero", "name": "mlp_onnx_cpu1_nodb_mbs64_warm-zero"}
    warm_v = variant_result(params=wp, levels=levels([100, 180], [1.2, 1.5]))
    warm_v.cold_start = dataclasses.replace(_cold(2.0, 2.0, load_s=2.5, warmup="zero"), variant=warm_v.name)
    trt = {**params(1, False), "format": "trt", "kind": "gpu", "name": "mlp_trt_gpu1_nodb_mbs64"}
    trt_v = variant_result(params=trt, status="failed", error="the bundled runtime has only the python backend")
    trt_v.cold_start = ColdStart(trt["name"], not_measured=f"{coldstart.NOT_MEASURED_HERE}: TensorRT engines need ...")
    run.variants[1:] = [warm_v, run.variants[2], trt_v]
    assert warm.cold_start is None
    return run


def test_the_conclusion_never_says_alone_when_other_models_were_loaded():
    run = _run()
    assert "were each loaded (whether other models were loaded beside them was not recorded) on" in "\n".join(
        coldstart_report.section(run)
    )  # a run saved before the stamps: not claimed
    run.variants[0].cold_start.others_loaded = ["their_model"]
    text = "\n".join(coldstart_report.section(run))
    assert "loaded beside other models loaded on the server (`their_model`), not alone on the bundled" in text
    assert "loaded alone" not in text


def test_report_table_compares_first_requests_with_the_sweeps_levels_and_says_when_none():
    run = _run()
    lines = coldstart_report.section(run)
    text = "\n".join(lines)
    assert lines[0] == "## Cold start"
    row = [c.strip() for c in next(ln for ln in lines if "`mlp_onnx_cpu1_nodb_mbs64`" in ln).split("|")[1:-1]]
    # batch 1: the sweep's concurrency-1 p50 is 0.6 ms (make_run: p99 1.2 x 0.5) -> 60 / 0.6 = 100x
    assert row[1:6] == ["off", "2.00", "1.99 (instances 0.80)", "60.0", "100×"]
    # batch 8: no level at batch 8 -> the latency its requests settled at (2 ms), marked; 2 slow requests at b1
    assert row[6:] == [f"b8 3.0×{coldstart_report.OWN_MARK}", "2"]
    assert f"{coldstart_report.OWN_MARK} the sweep measured no level" in text
    trt_row = next(ln for ln in lines if "mlp_trt_gpu1" in ln)
    assert "not measured on this host" in trt_row
    assert "`mlp_onnx_cpu2_nodb_mbs64`" not in text  # no cold-start record: no row


def test_a_cold_start_without_a_sweep_never_names_the_sweeps_p50():
    """`triton-perf coldstart` alone said each first request "is compared with the sweep's steady p50" with
    no sweep (trial 9): every ratio is to the latency the requests settled at, and the words say so."""
    run = _run()
    for v in run.variants:
        v.levels = []
    text = "\n".join(coldstart_report.section(run))
    assert "sweep's steady p50" not in text and "the sweep measured no level" not in text
    none = f"run {run.run_id} measured no level of these variants"
    assert f"{none}, so each first request is compared with the latency its requests settled at" in text
    assert f"{coldstart_report.OWN_MARK} {none}: compared with the latency its requests settled at" in text


def test_a_cold_start_without_into_says_no_run_was_named_not_that_no_sweep_measured():
    """Trial 15, T15-7: `triton-perf coldstart` without --into said "no sweep measured these variants" while two
    sweeps of results/ had measured them; what it means is that no run was named, and --into RUN is the way."""
    run = _run()
    run.run_id = coldstart_report.STANDALONE_RUN  # what `triton-perf coldstart` measures into without --into
    for v in run.variants:
        v.levels = []
    entries = coldstart_report.entries(run)
    said = (
        "no run was named (`--into RUN` compares each first request with that run's steady p50 at concurrency 1), "
        f"so each first request is compared with the latency its requests settled at (marked {coldstart_report.OWN_MARK})."
    )
    assert said in coldstart_report.conclusion(run, entries)  # what the command prints
    assert "no sweep" not in "\n".join(coldstart_report.section(run))


def test_conclusion_has_the_four_parts_and_the_warmup_pair_numbers():
    run = _run()
    for v in run.variants:
        if v.cold_start is not None:
            v.cold_start.others_loaded = []  # nothing else was loaded beside any of them
    text = "\n".join(coldstart_report.section(run))
    assert text[text.index("**Cold start.**") :].startswith(
        "**Cold start.** 3 variants were each loaded alone on the bundled tritonserver"
    )
    assert "The first request at batch 1 was up to 100× its steady latency (`mlp_onnx_cpu1_nodb_mbs64`: 60.0 ms)" in text
    assert "up to 3.0× its steady latency (`mlp_onnx_cpu1_nodb_mbs64`, b8)" in text
    assert "load time changed by a median +0.50 s and the first request at batch 1 by -58.0 ms" in text
    assert "Why: the serving process initialised lazily" in text and "warmup moved that work into the load" in text
    assert "1 variant not measured (mlp_trt_gpu1_nodb_mbs64: not measured on this host" in text
    assert "--warmup-count 2 --warmup-count-reason 'measured in run 20240101-000000: mlp_onnx_cpu1_nodb_mbs64 without" in text


def test_no_cause_is_told_from_a_warmup_pair_not_measured_fairly():
    """Trial 27, T27-18: "(not measured fairly: in 1 pair a first request was sent while other processes used the
    host)", then "Why: ... warmup moved that work into the load: load +1.19 s, first request -15.8 ms" as a fact."""
    run = _run()
    warm = next(v for v in run.variants if v.cold_start and v.cold_start.warmup)
    warm.cold_start.first[0].host_busy = True
    text = " ".join("\n".join(coldstart_report.section(run)).split())
    assert "(not measured fairly: in 1 pair a first request was sent" in text
    assert "warmup moved that work into the load" not in text and "is not distinguishable here" in text


def test_no_warmup_pair_and_no_record_are_said_not_invented():
    run = _run()
    run.variants = [v for v in run.variants if not (v.cold_start and v.cold_start.warmup)]
    assert "no variants differing only in warmup" in "\n".join(coldstart_report.section(run))
    assert coldstart_report.section(make_run()) == []  # a run from before cold starts were recorded
    assert coldstart_report.measured_warmup_count([]) is None


def test_cold_start_survives_results_json_and_old_files_still_load():
    run = _run()
    again = RESULTS_KIND.parse(run.to_json(), "test")
    assert again.variants[0].cold_start == run.variants[0].cold_start
    old = run.to_json()
    for v in old["variants"]:
        v.pop("cold_start", None)
    assert RESULTS_KIND.parse(old, "old").variants[0].cold_start is None


@pytest.mark.parametrize(
    ("variant", "backends", "gpu", "said"),
    [
        (
            Variant("m", "trt", kind="gpu"),
            ("python",),
            False,
            "need Triton's native backends; the bundled server has only python",
        ),
        (Variant("m", "onnx", kind="gpu", trt_accelerator="fp16"), None, False, "need an NVIDIA GPU; this host has none"),
        (Variant("m", "trt", kind="gpu"), None, True, None),
        (Variant("m", "onnx"), ("python",), False, None),
    ],
)
def test_engine_backends_are_not_measured_where_the_server_cannot_show_them(monkeypatch, variant, backends, gpu, said):
    class Srv:
        runtime = "bundled"

        class runtime_impl:  # noqa: N801 - stands for TritonServer.runtime_impl
            pass

    Srv.runtime_impl.backends = backends  # type: ignore[attr-defined]
    monkeypatch.setattr(coldstart.gpu, "gpu_available", lambda: gpu)
    note = coldstart.engine_note(variant, Srv())  # type: ignore[arg-type]
    assert (note is None) if said is None else (note.startswith(coldstart.NOT_MEASURED_HERE) and said in note)


def test_many_variants_show_the_slowest_first_requests_and_the_appendix_has_them_all():
    run = _run()
    lines = coldstart_report.section(run, limit=1)
    rows = [ln for ln in lines if ln.startswith("| `")]
    assert len(rows) == 1 and "`mlp_onnx_cpu1_nodb_mbs64`" in rows[0]  # 100x at batch 1: the slowest
    assert any("The 1 slowest first requests of 3 variants" in ln for ln in lines)
    assert any(ln.startswith("**Cold start.** 3 variants") for ln in lines)  # the conclusion still covers every variant
    assert len([ln for ln in coldstart_report.appendix_lines(run) if ln.startswith("| `")]) == 3


def test_a_rounds_run_says_its_variants_were_loaded_one_after_another_not_alone():
    """The rounds design loads its group on one server before any round: "each loaded alone" is the
    sequential design's sentence."""
    from perf.records.rounds import RoundsRecord

    run = _run()
    run.rounds = RoundsRecord(seed=1)
    text = "\n".join(coldstart_report.section(run))
    assert "each loaded alone" not in text
    assert text[text.index("**Cold start.**") :].startswith(
        "**Cold start.** 3 variants were loaded one after another on the same bundled tritonserver (those loaded "
        "before a variant stayed loaded, idle) and sent single requests"
    )


def test_a_rounds_sentence_names_models_that_are_not_the_runs():
    from perf.records.rounds import RoundsRecord

    run = _run()
    run.rounds = RoundsRecord(seed=1)
    names = [v.name for v in run.variants]
    for i, v in enumerate(run.variants):
        if v.cold_start is not None:
            v.cold_start.others_loaded = names[:i]  # the group loaded one after another
    text = "\n".join(coldstart_report.section(run))
    assert "stayed loaded, idle)" in text and "other models were loaded there too" not in text
    run.variants[1].cold_start.others_loaded = [names[0], "their_model"]
    assert "idle; other models were loaded there too: `their_model`)" in "\n".join(coldstart_report.section(run))
