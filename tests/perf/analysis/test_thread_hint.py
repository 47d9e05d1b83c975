"""A CPU variant far slower than its sibling with more instances, whose intra-op threads outnumber the cores
the host left free, gets a hint naming that as the likely cause in numbers and the config knob to try, labelled
a hint and never a measured finding (trial 16, T16-21: 1-instance TorchScript variants 50x slower than the
2-instance ones on a busy 2-core host; the report said only what it was not)."""

from __future__ import annotations

from factories import level_result, params, served_model

from perf.analysis.effects.thread_hint import thread_hints
from perf.analysis.recommendation.recommend import recommend
from perf.records.results import RunResult, VariantResult


def _run(slow: float = 12.0, load_pct: float | None = 110.0, backend: str = "pytorch", cores: int = 2) -> RunResult:
    variants = []
    for count, thr in ((1, slow), (2, 600.0)):
        p = params(count, False, "torchscript")
        lv = [level_result(c, thr * c, 3.0 * c, trial=r, host_busy_pct=load_pct) for c in (1, 2) for r in range(3)]
        v = VariantResult(p["name"], p, "ok", None, lv)
        v.served = [served_model(p["name"], count=count, backend=backend, threads_per_instance=2 // count)]
        variants.append(v)
    return RunResult("r", "now", {"cpu_count": cores}, {}, variants)


def test_the_hint_says_the_threads_the_cores_the_load_and_the_knob():
    (hint,) = thread_hints(_run())
    assert hint == (
        "Hint, not a measured finding: `mlp_torchscript_cpu1_nodb_mbs64` is 50× slower than "
        "`mlp_torchscript_cpu2_nodb_mbs64` at concurrency 1 (12 vs 600 infer/s), and runs 1 instance × 2 intra-op "
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
