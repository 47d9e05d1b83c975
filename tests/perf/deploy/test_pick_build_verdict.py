"""A pick whose precision its build could not exercise on this host says so wherever it is named
(new-user trial 13, T13-10): the demo recommended and bundled an ONNX fp16 variant whose build
verdict was "not verified in fp16 on this host" (`clients check`: "pass* (precision not
exercised)"), and neither the console, report.md's Recommendation nor the bundle's README.md
said a word of it. The verdict is the build manifest's, read by one function
(:func:`perf.analysis.build_checks.run_verdict`), as the sweep recorded it when it started
(:func:`perf.records.build_check.read_checks`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result
from rich.console import Console
from source_builds import ONE_VARIANT, build_module

from builders.repository.view import Repository
from builders.verify.verdicts import describe
from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table
from perf.deploy.bundle import export_deployment
from perf.records import results
from perf.records.build_check import read_checks
from perf.report.write import write_report

pytestmark = pytest.mark.slow  # a real ONNX fp16 export

FP16 = "tiny_onnx-fp16_cpu1_nodb_mbs8"
FP32 = "tiny_onnx_cpu1_nodb_mbs8"


def test_a_pick_not_verified_in_its_precision_says_so_in_the_console_the_report_and_the_bundle(tmp_path: Path):
    repo = build_module(tmp_path, "tiny", None, ("onnx",), ONE_VARIANT, precisions=("fp32", "fp16"))
    index = Repository(repo).index.entries()
    verdict = Repository(repo).variant(FP16).build_verdict  # KIND_CPU: onnxruntime's CPU provider runs fp16 in fp32
    assert verdict is not None and verdict.status == "not_verified_precision"
    assert Repository(repo).variant(FP32).build_verdict is None
    words = describe("not_verified_precision", "fp16", "cpu")  # the build summary's words
    checks = read_checks(repo, [FP16, FP32])  # what the sweep records when it starts
    run = run_result(
        [  # the fp16 variant has the best peak and the best level under the budget
            variant_result(
                FP16,
                [level_result(1, 300.0, 2.0, spread=True), level_result(2, 400.0, 4.0, spread=True)],
                params=index[FP16].params,
                build_check=checks[FP16],
            ),
            variant_result(
                FP32,
                [level_result(1, 200.0, 3.0, spread=True), level_result(2, 250.0, 6.0, spread=True)],
                params=index[FP32].params,
                build_check=checks[FP32],
            ),
        ],
        run_id="r1",
        created="2026-01-01T00:00:00",
        environment={"host": "testhost", "gpus": [], "server": {"runtime": "bundled", "version": "2.51.0"}},
        settings={
            "repository": str(repo),
            "concurrency": [1, 2],
            "batch_sizes": [1],
            "protocol": "grpc",
            "latency_budget_ms": 5.0,
        },
        finished="2026-01-01T00:01:00",
    )
    rec = recommend(run, 5.0)
    for pick in (rec.best_peak, rec.best_under_budget):
        assert pick is not None and pick.variant == FP16 and pick.build_verdict == verdict
        assert words in pick.describe()
    console = Console(width=400, file=io.StringIO(), record=True)
    console.print(summary_table(run))
    row = next(line for line in console.export_text().splitlines() if FP16 in line)
    assert row.count(f"build: onnx fp16 {words}") == 1 and "best under budget" in row  # once in the picks' row
    run_dir = tmp_path / "results" / "r1"
    run_dir.mkdir(parents=True)
    results.save(run, run_dir)
    report = write_report(run_dir).read_text()
    section = report.split("## Recommendation", 1)[1].split("\n## ", 1)[0]
    # both picks are one level: the best peak's line points to the best under the budget, which says it (fe94cf2)
    assert section.count(f"the build's verdict on its onnx fp16 export is **{words}**") == 1
    assert "the same level as the best under the budget above, said there with its verdicts: `" + FP16 in section
    numbers = report[report.index("**The numbers.**") :].split("\n\n", 1)[0]  # its paragraph and bullets (9059bc2)
    assert numbers.count(f"build: onnx fp16 {words}") == 2  # the conclusions name it best twice, each with it
    bundle = export_deployment(run_dir)
    assert bundle.chosen.variant == FP16
    readme = (bundle.folder / "README.md").read_text()
    why = readme.split("## Why this variant", 1)[1].split("\n## ", 1)[0]
    assert f"**{words}**" in why and "accuracy is unchecked" in why
