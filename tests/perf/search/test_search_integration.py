"""The search on real sweeps: the bundled tritonserver and the real perf_analyzer on the tiny
model, short windows, at most two levels per variant."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from python_models import SERIAL_MODEL, write_python_model

from clients.server import ServerOptions
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import aggregate
from perf.records import results
from perf.records.search import SearchRules
from perf.records.settings import MeasureSettings
from perf.report.sections.search import RULE_WORDS
from perf.report.write import write_report
from perf.search.policy import AUTO, ladder, rising
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

FAST = MeasureSettings(measurement_interval_ms=300, max_trials=5, unstable_retries=0)
#: On this shared host windows disagree by tens of % under load: a wide stability tolerance keeps
#: levels unflagged (ranked by throughput), while the search still uses their measured spread.
WIDE = MeasureSettings(measurement_interval_ms=300, max_trials=4, unstable_retries=1, stability_pct=100.0)
#: The decisions here do not depend on a quiet host: no second measurement of a busy level.
NO_BUSY_CHECK = {"host_busy_threshold_pct": 1e6, "host_busy_pause_s": 0.0}
#: A python-backend model capped by its own execute (see python_models.SERIAL_MODEL).
SERIAL = "serial_py_cpu1_nodb_mbs8"
#: Dynamic batching with a 500 µs queue delay: thousands of infer/s at concurrency 1 and 2 here.
FAST_DB = "tiny_onnx_cpu1_db500_mbs8"
#: Copies of it whose queue delay (µs) holds every request that long: 20-80 infer/s at
#: concurrency 1 and 2; ordered after it (shorter delay first) and clearly dominated by it.
SLOW = {"tiny_onnx_cpu1_db25000_mbs8": 25000, "tiny_onnx_cpu1_db50000_mbs8": 50000}


@pytest.fixture
def repo_with_slow_variants(tiny_repo: Path, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    for name, delay in SLOW.items():
        shutil.copytree(repo / FAST_DB, repo / name)
        cfg = (repo / name / "config.pbtxt").read_text().replace(FAST_DB, name)
        assert "max_queue_delay_microseconds: 500" in cfg
        (repo / name / "config.pbtxt").write_text(
            cfg.replace("max_queue_delay_microseconds: 500", f"max_queue_delay_microseconds: {delay}")
        )
    return repo


@pytest.fixture
def repo_with_a_serial_model(tiny_repo: Path, tmp_path: Path) -> Path:
    """The tiny build plus SERIAL: one instance that holds each request 40 ms, no dynamic batching."""
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    write_python_model(repo, SERIAL, SERIAL_MODEL % {"sleep_ms": 40})
    return repo


def test_the_adaptive_ladder_stops_past_the_knee(repo_with_a_serial_model: Path, tmp_path: Path):
    rules = SearchRules(max_concurrency=16)
    run, run_dir = run_sweep(
        SweepOptions(
            ServerOptions(repo_with_a_serial_model, runtime="bundled"),
            variants=(SERIAL,),
            measure=FAST,
            results_dir=tmp_path / "results",
            warmup_requests=5,
            search_rules=rules,
            **NO_BUSY_CHECK,
            design="sequential",
        )
    )
    assert run.settings["concurrency"] == AUTO and run.settings["search"] == "brute"  # one variant: nothing to prune
    assert run.search is not None and run.search.adaptive and run.search.rules == rules
    decision = run.search.decision(SERIAL)
    points = aggregate(run.variant(SERIAL).levels, SERIAL)
    measured = [p.concurrency for p in points]
    # one instance serving one 40 ms request at a time: 25 infer/s at every concurrency, on any host
    # (the tiny ONNX model kept rising to 16 on a CI runner with more cores: its cap is the host's)
    assert decision is not None and decision.rule in ("knee", "noise"), decision  # flat, or a gain its noise does not tell
    assert measured == list(ladder(AUTO, rules)[0][: len(measured)]) and 2 <= len(measured) < 5
    assert decision.measured == measured and decision.concurrency == measured[-1]
    # the recorded levels back the decision: the last step did not pay more than the noise, every one before did
    tol = FAST.stability_pct
    assert not rising(points[-2], points[-1], rules, tol).rises
    assert all(rising(a, b, rules, tol).rises for a, b in zip(points[:-2], points[1:-1]))
    assert RULE_WORDS[decision.rule] in (write_report(run_dir)).read_text()  # the table words the stop by its rule


def test_pruned_variants_have_reasons_resume_continues_and_the_pick_equals_brute_force(
    repo_with_slow_variants: Path, tmp_path: Path
):
    repo = repo_with_slow_variants
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        variants=(*SLOW, FAST_DB),
        search="prune",  # the auto ladder (an explicit level list is measured whole: brute)
        search_rules=SearchRules(max_concurrency=2),
        measure=WIDE,
        results_dir=tmp_path / "results",
        run_id="prune",
        warmup_requests=5,
        **NO_BUSY_CHECK,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    slow10, slow20 = SLOW
    assert run.search is not None and run.search.mode == "prune"
    assert run.search.order == [FAST_DB, slow10, slow20]  # the shortest queue delay first
    assert [lv.concurrency for lv in run.variant(FAST_DB).levels] == [1, 2]  # the first variant: its whole ladder
    best = recommend(run).best_peak
    assert best is not None and best.variant == FAST_DB
    for name in SLOW:  # probed at the best level so far, then dropped with the evidence
        assert [lv.concurrency for lv in run.variant(name).levels] == [best.concurrency]
        d = run.search.decision(name)
        assert d is not None and d.rule == "pruned" and d.best_variant == FAST_DB and d.best_concurrency == best.concurrency
        assert d.throughput_infer_per_s + d.spread_infer_per_s < d.best_throughput_infer_per_s - d.best_spread_infer_per_s
    report = write_report(run_dir).read_text()
    for name in SLOW:
        assert f"`{name}`: not measured further because at concurrency {best.concurrency} its throughput" in report

    brute, _ = run_sweep(dataclasses.replace(opts, search="brute", run_id="brute"))
    assert all(len(v.levels) == 2 for v in brute.variants)  # every variant's whole ladder (1, 2)
    assert brute.search.decisions and all(d.rule != "pruned" for d in brute.search.decisions)
    wanted = recommend(brute).best_peak
    assert wanted is not None and wanted.variant == best.variant

    # interrupted before the last variant: the resumed search keeps its decisions and measures only what is left
    saved = results.load(run_dir)
    before = {n: [dataclasses.asdict(lv) for lv in saved.variant(n).levels] for n in (FAST_DB, slow10)}
    saved.variant(slow20).levels.clear()
    saved.variant(slow20).status = "pending"
    saved.search.decisions = [d for d in saved.search.decisions if d.variant != slow20]
    saved.finished = None
    results.save(saved, run_dir)
    resumed, _ = run_sweep(dataclasses.replace(opts, search="brute", concurrency=(1, 2, 4), resume=True))
    assert resumed.settings["search"] == "prune" and resumed.settings["concurrency"] == AUTO
    assert {n: [dataclasses.asdict(lv) for lv in resumed.variant(n).levels] for n in (FAST_DB, slow10)} == before
    assert [lv.concurrency for lv in resumed.variant(slow20).levels] == [best.concurrency]
    assert resumed.search.decision(slow10).rule == "pruned" and resumed.search.decision(slow20).rule == "pruned"
    assert resumed.finished is not None
