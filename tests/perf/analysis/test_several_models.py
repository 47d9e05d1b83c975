"""A sweep answers "which setup serves my model best", a question of one model (trial 25, T25-12): a sweep over the
variants of mlp and seqnet (``--variants`` defaults to every model in the repository, and ``make demo`` leaves the 8
mlp variants there) ranked them against each other and recommended one; export-deployment bundled that pick.

Now a sweep whose variants serve several models is refused before anything starts (exit 2, no run folder), naming
each model with its variant count, the ``--variants 'MODEL_*'`` to give and ``triton-perf colocate``; a run saved
before (tests/data/trial25_mixmodels: the trial's run t25mixmodels, one variant of each model) gets no pick across
models: report, console summary and export-deployment refuse with the same words; ``--variant NAME`` still bundles a
variant named on purpose, its level judged among its own model's variants."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.config.variants import Variant
from builders.repository.records import IndexEntry
from builders.repository.writer import update_index
from clients.server import ServerOptions
from core.errors import PerfError
from perf.analysis.recommendation.models import advice, models_of, run_models
from perf.analysis.recommendation.recommend import recommend
from perf.cli import main as perf_cli
from perf.deploy.choose import choose_variant
from perf.records.results import load
from perf.sweep.run import Sweep, SweepOptions

MIXED = Path(__file__).resolve().parents[2] / "data" / "trial25_mixmodels" / "results.json.gz"
MLP, SEQ = "mlp_onnx_cpu1_nodb_mbs64", "seqnet_onnx_cpu1_nodb_mbs64"


def _repo(root: Path, models: dict[str, int]) -> Path:
    """``root/repo`` holding ``n`` variants (instance counts 1..n) of each model, listed in its index as a build
    writes them."""
    repo, entries = root / "repo", []
    for model, n in models.items():
        for c in range(1, n + 1):
            v = Variant(model, "onnx", count=c)
            (repo / v.name / "1").mkdir(parents=True)
            (repo / v.name / "config.pbtxt").write_text(
                f'name: "{v.name}"\nbackend: "python"\nmax_batch_size: 64\n'
                'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
                'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
                f"instance_group {{ count: {c} kind: KIND_CPU }}\n"
            )
            entries.append(IndexEntry.of(v, "python", None))
    update_index(repo, entries)
    return repo


def _pa(root: Path) -> Path:
    path = root / "perf_analyzer"
    path.write_text("#!/bin/sh\necho 'perf_analyzer 2.50.0'\n")
    path.chmod(0o755)
    return path


def _opts(repo: Path, root: Path, variants: tuple[str, ...] = (), **kw) -> SweepOptions:
    return SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        variants=variants,
        concurrency=(1, 2),
        results_dir=root / "results",
        run_id="r",
        perf_analyzer=str(_pa(root)),
        **kw,
    )


def test_a_sweep_over_two_models_is_refused_before_anything_naming_each_model(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"mlp": 3, "seqnet": 2})
    with pytest.raises(PerfError) as e:
        Sweep(_opts(repo, tmp_path))  # --variants: every model in the repository
    assert e.value.flag == "--variants"  # a usage error: exit 2
    assert "serve 2 models: mlp (3 variants), seqnet (2 variants)" in e.value.message
    assert "--variants 'mlp_*' or --variants 'seqnet_*'" in (e.value.hint or "")
    assert "triton-perf colocate --model mlp='mlp_*' --model seqnet='seqnet_*'" in (e.value.hint or "")
    assert not (tmp_path / "results").exists()  # no run folder
    sweep = Sweep(_opts(repo, tmp_path, ("seqnet_*",)))  # one model: planned as before
    try:
        assert sorted(sweep.names) == ["seqnet_onnx_cpu1_nodb_mbs64", "seqnet_onnx_cpu2_nodb_mbs64"]
    finally:
        sweep.close()


def test_the_cli_exits_2_and_says_what_to_type(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"mlp": 1, "seqnet": 1})
    res = CliRunner().invoke(
        perf_cli.cli,
        ["sweep", "-r", str(repo), "--runtime", "bundled", "--concurrency", "1", "--results-dir", str(tmp_path / "results"),
         "--run-id", "r", "--perf-analyzer", str(_pa(tmp_path))],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "mlp (1 variant), seqnet (1 variant)" in res.output
    assert not (tmp_path / "results").exists()


def test_the_recorded_model_decides_not_the_name(tmp_path: Path) -> None:
    # a model named mlp_big beside mlp: 'mlp_*' would take both; the advice names mlp's variants instead
    models = models_of({"mlp_onnx_cpu1_nodb_mbs64": "mlp", "mlp_big_onnx_cpu1_nodb_mbs64": "mlp_big", "hand_made": None})
    assert models == {"mlp": ["mlp_onnx_cpu1_nodb_mbs64"], "mlp_big": ["mlp_big_onnx_cpu1_nodb_mbs64"]}
    assert "--variants mlp_onnx_cpu1_nodb_mbs64 or --variants 'mlp_big_*'" in advice(models)
    # several variants of it: a glob per format, not every name (trial 27, T27-16: tinyvit's 8 names beside tinyvit_v2)
    mine = [f"tinyvit_{f}_cpu{c}_nodb_mbs64" for f in ("onnx", "ts") for c in (1, 2)]
    many = models_of({**dict.fromkeys(mine, "tinyvit"), "tinyvit_v2_onnx_cpu1_nodb_mbs64": "tinyvit_v2"})
    assert "--variants 'tinyvit_onnx_*,tinyvit_ts_*' or --variants 'tinyvit_v2_*'" in advice(many), advice(many)


def _mixed(tmp_path: Path) -> Path:
    run_dir = tmp_path / "t25mixmodels"
    run_dir.mkdir()
    with gzip.open(MIXED) as src, (run_dir / "results.json").open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return run_dir


def test_an_old_run_of_two_models_gets_no_pick_across_them(tmp_path: Path) -> None:
    run_dir = _mixed(tmp_path)
    run = load(run_dir)
    assert run_models(run) == {"mlp": [MLP], "seqnet": [SEQ]}
    with pytest.raises(PerfError, match=r"measured variants of 2 models: mlp \(1 variant\), seqnet \(1 variant\)"):
        recommend(run, 20.0)  # the report, the console summary and their plots read it
    with pytest.raises(PerfError, match="no variant is ranked or picked across them") as e:
        choose_variant(run)  # export-deployment's default pick
    assert "--variant NAME" in (e.value.hint or "")
    chosen = choose_variant(run, SEQ)  # named on purpose: its level among its own model's variants
    assert chosen.variant == SEQ
    res = CliRunner().invoke(perf_cli.cli, ["report", str(run_dir)])  # core.cli.run_cli: one message, exit 1
    assert isinstance(res.exception, PerfError) and res.exception.flag is None, res.output
    assert "2 models: mlp (1 variant), seqnet (1 variant)" in res.exception.message
    assert not (run_dir / "report.md").exists()
    assert "writing the report" not in res.output  # refused before it says it writes (trial 26, T26-6's NIT)
