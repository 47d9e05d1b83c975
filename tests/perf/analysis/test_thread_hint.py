"""A CPU variant far slower than its sibling with more instances, whose intra-op threads outnumber the cores
the host left free, gets a hint naming that as the likely cause in numbers and the config knob to try, labelled
a hint and never a measured finding (trial 16, T16-21: 1-instance TorchScript variants 50x slower than the
2-instance ones on a busy 2-core host; the report said only what it was not)."""

from __future__ import annotations

from factories import level_result, params, served_model

from perf.analysis.effects.thread_hint import thread_hints
from perf.analysis.recommendation.recommend import recommend
from perf.records.results import RunResult, VariantResult


def _variant(count: int, batching: bool, thr: float, levels, backend: str = "pytorch") -> VariantResult:
    p = params(count, batching, "torchscript")
    v = VariantResult(p["name"], p, "ok", None, levels(thr))
    v.served = [served_model(p["name"], count=count, backend=backend, threads_per_instance=2 // count)]
    return v


def _run(slow: float = 12.0, load_pct: float | None = 110.0, backend: str = "pytorch", cores: int = 2) -> RunResult:
    def levels(thr):
        return [level_result(c, thr * c, 3.0 * c, trial=r, host_busy_pct=load_pct) for c in (1, 2) for r in range(3)]

    variants = [_variant(count, False, thr, levels, backend) for count, thr in ((1, slow), (2, 600.0))]
    return RunResult("r", "now", {"cpu_count": cores}, {}, variants)


def test_the_hint_says_the_threads_the_cores_the_load_and_the_knob():
    (hint,) = thread_hints(_run())
    assert hint == (
        "Hint, not a measured finding: `mlp_torchscript_cpu1_nodb_mbs64` is 50× slower than "
        "`mlp_torchscript_cpu2_nodb_mbs64` at concurrency 1 (12.0 vs 600.0 infer/s; `mlp_torchscript_cpu1_nodb_mbs64`: 3 visits), "
        "and runs 1 instance × 2 intra-op "
        "threads on 2 cores with load 1.1 (0.9 free; `mlp_torchscript_cpu2_nodb_mbs64`: 2 instances × 1 thread each): "
        "threads that outnumber the free cores wait for one another in every operator; try 1 intra-op thread per "
        'instance (the config\'s `INTRA_OP_THREAD_COUNT` parameter, pytorch_backend README, "Parameters").'
    )
    assert hint in recommend(_run()).notes  # the report's Recommendation and the console say it
    (python,) = thread_hints(_run(backend="python"))
    assert "`intra_op_threads` parameter, read by the toolkit's python-backend model.py" in python


def test_no_hint_where_the_numbers_do_not_back_it():
    assert thread_hints(_run(slow=300.0)) == []  # 2x slower: what a second instance alone can give
    assert thread_hints(_run(load_pct=0.0)) == []  # 2 threads on 2 free cores: not outnumbered
    assert thread_hints(_run(load_pct=None)) == []  # the load not sampled: no number to say
    assert thread_hints(_run(cores=0)) == []  # the host's cores not known


def _trial19(twin_thr: float | None) -> RunResult:
    """Trial 19, T19-5 (demo run, busy 2-core host): `ts_cpu1_db500` visited concurrency 4 once, host busy (55 infer/s
    against its 2-instance sibling's 240) and was dropped; its twin with the same 1 instance x 2 threads, batching
    off, did 251/159/217 infer/s there (``twin_thr``: its three visits' median; ``None``: not measured)."""

    def rounds(thr):
        return [level_result(4, thr, 50.0, trial=r, host_busy_pct=120.0, host_busy=True) for r in range(3)]

    slow = _variant(1, True, 54.5, lambda thr: rounds(thr)[:1])
    out = [slow, _variant(2, True, 240.0, rounds)]
    if twin_thr is not None:
        out += [_variant(1, False, twin_thr, rounds), _variant(2, False, 257.0, rounds)]
    return RunResult("r", "now", {"cpu_count": 2}, {}, out)


def test_the_hint_says_a_single_host_busy_visit_and_is_not_given_where_the_twin_contradicts_it():
    (hint,) = thread_hints(_trial19(None))  # no twin measured: the hint stands, on the visit it rests on
    assert "at concurrency 4 (54.5 vs 240.0 infer/s; `mlp_torchscript_cpu1_db500_mbs64`: 1 visit, host busy)" in hint
    assert thread_hints(_trial19(217.0)) == []  # the same threads on the same cores ran 217 infer/s there
    assert len(thread_hints(_trial19(60.0))) == 2  # a twin as slow: the threads explain both; each its own hint


def test_the_hint_rests_on_the_level_visited_most():
    """Two levels far slower: the hint names the one of 3 visits, not the one of 1 with the larger ratio."""
    run = _run()
    one = run.variants[0]
    one.levels = [lv for lv in one.levels if lv.concurrency == 1 or lv.trial == 0]  # concurrency 2 visited once
    one.levels[-1].throughput_infer_per_s = 1.0  # 1200x slower there
    (hint,) = thread_hints(run)
    assert "at concurrency 1 (12.0 vs 600.0 infer/s; `mlp_torchscript_cpu1_nodb_mbs64`: 3 visits)" in hint
