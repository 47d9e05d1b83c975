"""A real co-location run: the bundled tritonserver serving two built-in models of different cost
(the demo's mlp and tiny), two variants each, one real perf_analyzer per model started together."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from perf.cli.main import cli
from perf.colocate import judge
from perf.records import colocation

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(900)]

TINY = ("tiny_onnx_cpu1_nodb_mbs8", "tiny_onnx_cpu2_nodb_mbs8")
MLP = ("mlp_onnx_cpu1_nodb_mbs8", "mlp_onnx_cpu2_nodb_mbs8")


@pytest.fixture(scope="module")
def two_models(tiny_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny repository copied, with the demo mlp (ONNX, 1 and 2 instances) built into it."""
    root = tmp_path_factory.mktemp("colocate")
    repo = root / "model_repository"
    shutil.copytree(tiny_repo, repo)
    grid = VariantGrid(counts=(1, 2), queue_delays_us=(None,), max_batch_sizes=(8,))
    build(BuildOptions("mlp", formats=("onnx",), grid=grid, repository=repo, build_dir=root / "builds"))
    assert all((repo / v / "config.pbtxt").is_file() for v in (*TINY, *MLP))
    return repo


def test_two_models_of_different_cost_are_co_located_and_the_combination_named(two_models: Path, tmp_path: Path) -> None:
    args = [
        "colocate",
        "-r",
        str(two_models),
        "--runtime",
        "bundled",
        "--model",
        f"mlp={','.join(MLP)}",
        "--model",
        "tiny=tiny_onnx_cpu?_nodb_mbs8",
        "--mix",
        "mlp=2",
        "--mix",
        "tiny=2",
        "--latency-budget-ms",
        "500,tiny=400",
        "--time-budget",
        "10m",
        "--max-rounds",
        "6",
        "--round-window",
        "200",
        "--results-dir",
        str(tmp_path),
        "--run-id",
        "colo",
        "--seed",
        "3",
    ]
    res = CliRunner().invoke(cli, args)
    out = res.output
    assert res.exit_code == 0, out
    rec = colocation.load(tmp_path / "colo")
    assert [m.name for m in rec.models] == ["mlp", "tiny"]
    assert rec.models[0].variants == list(MLP) and rec.models[1].variants == list(TINY)
    assert rec.budgets == {"mlp": 500.0, "tiny": 400.0}  # one for every model, tiny its own
    assert rec.pick is not None and set(rec.pick) == {"mlp", "tiny"}
    # the run names the combination, each model alone vs co-located, and the decisions
    assert f"combination: {judge.describe(rec.pick)}" in out
    assert "each model alone and co-located" in out and rec.pick["mlp"] in out and rec.pick["tiny"] in out
    assert all(d.reason in out.replace("\n", " ") or d.reason[:40] in out for d in rec.decisions) and rec.decisions
    assert (tmp_path / "colo" / "report.md").is_file()
    # every step in rounds; each combination with one perf_analyzer per model, started together
    assert rec.steps[0].kind == "alone" and rec.steps[-1].kind == "final"
    assert all(s.rounds >= (6 if s.kind == "final" else 3) for s in rec.steps)  # --min-rounds 3; the final step 6
    together = [v for v in rec.visits if len(v.combination) == 2]
    assert together and all(len(v.samples) == 2 for v in together)
    assert all(s.ok for v in rec.visits for s in v.samples), [s.error for v in rec.visits for s in v.samples if not s.ok]
    commands = (tmp_path / "colo" / "commands.txt").read_text()
    assert "--concurrency-range 2:2" in commands and "--measurement-interval 200" in commands
    # the two models differ in cost: the mlp serves fewer inferences per second alone than tiny
    alone = rec.steps[0]
    mlp_alone = judge.median(judge.model_series(rec.visits, 0, {"mlp": MLP[0]}, alone.rounds, "mlp", "throughput_infer_per_s"))
    tiny_alone = judge.median(
        judge.model_series(rec.visits, 0, {"tiny": TINY[0]}, alone.rounds, "tiny", "throughput_infer_per_s")
    )
    assert mlp_alone is not None and tiny_alone is not None and mlp_alone < tiny_alone
    # what the neighbours cost each model: alone and co-located in the same final rounds
    rows = judge.neighbour_cost(rec)
    assert {r.model for r in rows} == {"mlp", "tiny"}
    assert all(r.paired is not None and r.paired.rounds == rec.steps[-1].rounds for r in rows)
    assert rec.combinations_total == 4 and 1 <= rec.combinations_measured <= 4


def test_the_fewest_instances_that_meet_each_models_required_throughput(two_models: Path, tmp_path: Path) -> None:
    """From two instances of each model, the fewest-instances objective moves each to one when
    one still serves its required throughput within its budget (real server, both models loaded)."""
    args = [
        "colocate",
        "-r",
        str(two_models),
        "--runtime",
        "bundled",
        "--model",
        f"mlp={','.join(MLP)}",
        "--model",
        f"tiny={','.join(TINY)}",
        "--start",
        f"mlp={MLP[1]}",
        "--start",
        f"tiny={TINY[1]}",
        "--objective",
        "fewest-instances",
        "--required-throughput",
        "mlp=40,tiny=60",
        "--latency-budget-ms",
        "500",
        "--max-rounds",
        "6",
        "--round-window",
        "200",
        "--results-dir",
        str(tmp_path),
        "--run-id",
        "fewest",
        "--seed",
        "5",
        "--no-report",
    ]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    rec = colocation.load(tmp_path / "fewest")
    assert rec.objective == "fewest-instances" and rec.required == {"mlp": 40.0, "tiny": 60.0}
    assert rec.model("mlp").instances == {MLP[0]: 1, MLP[1]: 2}
    assert rec.pick == {"mlp": MLP[0], "tiny": TINY[0]}, rec.pick_reason
    assert f"combination: {judge.describe(rec.pick)} (2 instances in all)" in res.output
    assert rec.pick_reason.startswith("the fewest instances found that meet every model's budget and required throughput (2:")
    moves = [d for d in rec.decisions if d.accepted]
    assert len(moves) == 2 and all("fewer instances" in d.reason for d in moves)
    # mlp, then tiny moved; mlp tried again beside tiny's new variant; then the final rounds
    assert [s.kind for s in rec.steps] == ["move", "move", "move", "final"]
    assert not judge.misses(rec.visits, rec.steps[-1].index, rec.pick, rec.steps[-1].rounds, rec.models)
