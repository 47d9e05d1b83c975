"""The newcomer's path with the real bundled tritonserver and perf_analyzer (issue 19): a
native repository on the default runtime names the runtime that serves it (item 7); a sweep
in which a variant fails exits with its own code unless --allow-failed-variants (item 9)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from clients.cli.main import cli as clients_cli
from clients.server import ServerOptions
from core.errors import ServerError
from perf.records.settings import MeasureSettings
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
SWEEP = ROOT / "perf" / "run_sweep.sh"


@pytest.fixture(scope="module")
def native_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tiny`` as native variants (onnxruntime_onnx and pytorch_libtorch), one per format."""
    root = tmp_path_factory.mktemp("native")
    opts = BuildOptions(
        "tiny",
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(8,)),
        serving="native",
        repository=root / "model_repository",
        build_dir=root / "builds",
    )
    build(opts)
    return opts.repository


def test_checking_a_native_repository_on_the_bundled_server_names_the_runtime_that_serves_it(native_repo: Path) -> None:
    res = CliRunner(env={"COLUMNS": "400"}).invoke(clients_cli, ["check", "-r", str(native_repo), "--runtime", "bundled"])
    assert res.exit_code == 1 and isinstance(res.exception, ServerError), res.output  # refused before a server starts
    out = " ".join(str(res.exception).split())
    for backend in ("onnxruntime", "pytorch"):
        assert f"needs Triton's '{backend}' backend" in out
    assert "the bundled runtime has only the python backend" in out and "nothing was started or checked" in out
    assert "unable to find backend library" not in out and "server ready" not in res.output  # the server was never asked


def test_sweeping_a_native_repository_on_the_bundled_server_says_why_each_variant_failed(
    native_repo: Path, tmp_path: Path
) -> None:
    opts = SweepOptions(
        ServerOptions(native_repo, runtime="bundled"),
        concurrency=(1,),
        results_dir=tmp_path,
        run_id="n",
        measure=MeasureSettings(measurement_interval_ms=300, max_trials=3),
        warmup_requests=0,
        design="sequential",
    )
    with pytest.raises(ServerError) as e:  # refused before any server starts or folder is written (preflight)
        run_sweep(opts)
    assert "the bundled runtime has only the python backend" in e.value.message
    assert "no run folder was written" in e.value.message and not (tmp_path / "n").exists()


@pytest.fixture
def repo_with_a_variant_that_cannot_load(tiny_repo: Path, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    (repo / "tiny_onnx_cpu1_db500_mbs8" / "1" / "model.onnx").unlink()
    return repo


def test_a_sweep_with_a_variant_that_failed_to_load_exits_3_unless_allowed(
    repo_with_a_variant_that_cannot_load: Path, tmp_path: Path
):
    repo = repo_with_a_variant_that_cannot_load
    base = [
        str(SWEEP),
        "--design",
        "sequential",
        "--repository",
        str(repo),
        "--runtime",
        "bundled",
        "--variants",
        "tiny_onnx_cpu1_*",
        "--concurrency",
        "1",
        "--measurement-interval",
        "300",
        "--max-trials",
        "3",
        "--results-dir",
        str(tmp_path),
        "--no-report",
    ]
    res = subprocess.run([*base, "--run-id", "strict"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert res.returncode == 3, res.stderr
    err = " ".join(res.stderr.split())
    assert "1 of 2 variants failed (tiny_onnx_cpu1_db500_mbs8)" in err
    assert err.count("tiny_onnx_cpu1_db500_mbs8 failed:") == 1  # the failed load is printed once
    assert ".py:" not in res.stderr  # no source file:line without -v
    res = subprocess.run(
        [*base, "--run-id", "lenient", "--allow-failed-variants"], capture_output=True, text=True, timeout=240, cwd=ROOT
    )
    assert res.returncode == 0, res.stderr
    # clients check exits 1 for the same repository: both say "not everything worked"
    res = CliRunner().invoke(
        clients_cli,
        ["check", "-r", str(repo), "--runtime", "bundled", "--variant", "tiny_onnx_cpu1_db500_mbs8", "--protocol", "http"],
    )
    assert res.exit_code == 1
