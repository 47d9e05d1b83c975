"""Trial 25, T25-22: export-deployment of a variant whose dynamic batching formed no batch said "build and deploy the
variant with dynamic batching off", where that twin (`seqnet_onnx_cpu2_nodb_mbs64`) was built, swept, and cut for
time in this run (3 s short). The note names the twin, says it was not measured and why, and gives the resume that
measures it. The trial's own run (tests/data/trial25_seqmix). No server."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from perf.deploy.workloads import batching_caveat
from perf.records.results import load

DATA = Path(__file__).resolve().parents[2] / "data" / "trial25_seqmix" / "results.json.gz"
MIXED = " [T=8..256 (mixed)]"


def _run(tmp_path: Path):
    (tmp_path / "results.json").write_bytes(gzip.decompress(DATA.read_bytes()))
    return load(tmp_path)


def test_a_twin_cut_for_time_is_named_with_the_resume_that_measures_it(tmp_path: Path) -> None:
    run = _run(tmp_path)
    said = batching_caveat(run, "seqnet_onnx_cpu2_db500_mbs64" + MIXED)
    assert said is not None and "formed no batch" in said
    assert "build and deploy the variant with dynamic batching off" not in said, said
    assert "`seqnet_onnx_cpu2_nodb_mbs64`, is in this run but not measured (cut for time)" in said, said
    assert f"`--resume {run.run_id} --time-budget 3m` measures it" in said and "--variant seqnet_onnx_cpu2_nodb_mbs64" in said


def test_a_measured_twin_is_still_the_one_to_deploy_and_a_missing_one_is_to_build(tmp_path: Path) -> None:
    run = _run(tmp_path)
    said = batching_caveat(run, "seqnet_onnx_cpu1_db500_mbs64" + MIXED)
    assert said is not None and said.endswith(
        "which the run measured: `triton-perf export-deployment` with --variant seqnet_onnx_cpu1_nodb_mbs64"
    )
    data = json.loads((tmp_path / "results.json").read_text())
    data["variants"] = [v for v in data["variants"] if v["name"] != "seqnet_onnx_cpu2_nodb_mbs64"]
    (tmp_path / "results.json").write_text(json.dumps(data))
    said = batching_caveat(load(tmp_path), "seqnet_onnx_cpu2_db500_mbs64" + MIXED)  # the twin not in the run at all
    assert said is not None and said.endswith(
        "build and deploy the variant with dynamic batching off, or pad requests to a few fixed sizes"
    )


def test_the_pick_says_the_same_in_report_md_and_on_the_console(tmp_path: Path) -> None:
    """README: a pick whose batching formed no batch is said "with the variant with batching off to deploy instead"
    in report.md and the console's Recommendation line, not only in the bundle."""
    from perf.analysis.recommendation.recommend import recommend
    from perf.records.workloads import split_by_workload

    rec = recommend(split_by_workload(_run(tmp_path)), 15.0)
    pick = rec.best_under_budget
    assert pick is not None and pick.variant == "seqnet_onnx_cpu2_db500_mbs64" + MIXED and pick.no_batch is not None
    assert "`seqnet_onnx_cpu2_nodb_mbs64`, is in this run but not measured (cut for time)" in pick.no_batch
