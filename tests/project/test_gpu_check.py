"""scripts/gpu_check.sh and scripts/gpu_check.py: the no-GPU stop, the sweep planner, the
compact table, wheel slimming; the pipeline on the CPU (integration) and on a GPU (gpu)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result

from core.gpu import gpu_available
from perf.records.results import RunResult

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"


def _load_module():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["gpu_check"] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


gc = _load_module()
import gpu_check_colocate as colocate_step  # noqa: E402 - importable once gpu_check put scripts/ on sys.path
import gpu_check_plan as planner  # noqa: E402
import gpu_check_table as table  # noqa: E402
import slim_wheel as slim  # noqa: E402


# --- the no-GPU stop -------------------------------------------------------------------------
def _run_script(path_env: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PATH": path_env}
    t0 = time.monotonic()
    out = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=20, env=env, cwd=tmp_path)
    return out, time.monotonic() - t0


def test_no_gpu_driver_stops_at_once_with_clear_message(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    smi = fake / "nvidia-smi"  # what nvidia-smi says on a host whose driver is not loaded
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n")
    smi.chmod(0o755)
    out, elapsed = _run_script(f"{fake}:{os.environ['PATH']}", tmp_path)
    assert out.returncode == 3, out.stderr
    assert "no NVIDIA GPU here: nvidia-smi lists none" in out.stderr
    assert "NVIDIA-SMI has failed" in out.stderr
    assert "nothing was installed" in out.stderr
    assert "installing" not in out.stdout + out.stderr
    assert elapsed < 5


@pytest.mark.skipif(
    shutil.which("nvidia-smi") is not None, reason="nvidia-smi is installed here; the missing-driver case cannot be shown"
)
def test_no_nvidia_smi_stops_at_once_with_clear_message(tmp_path: Path) -> None:
    out, elapsed = _run_script(os.environ["PATH"], tmp_path)
    assert out.returncode == 3, out.stderr
    assert out.stderr.startswith("gpu_check: no NVIDIA GPU here: nvidia-smi is not installed")
    assert "--cpu-dry-run" in out.stderr
    assert elapsed < 5


# --- the sweep planner -----------------------------------------------------------------------
def _groups(n_groups: int) -> list[list[tuple[str, int]]]:
    return [[(f"g{g}_{c}{db}", c) for c in (1, 2, 4) for db in ("nodb", "db")] for g in range(n_groups)]


def test_plan_keeps_groups_that_fit_and_fits_the_window() -> None:
    costs = planner.Costs()
    plan = planner.plan_sweep(_groups(4), levels=7, budget_s=10_000, costs=costs)
    assert len(plan.variants) == 24 and not plan.dropped
    assert plan.interval_ms == 1000  # ceiling when time is plenty
    one = planner.plan_sweep(_groups(4), levels=7, budget_s=200, costs=costs)
    assert one.variants == [n for n, _ in _groups(4)[0]] and len(one.dropped) == 18
    # 6 variants: 44 s loading + 42 levels x 0.6 s; the rest spread over 42 x 4 windows
    assert one.interval_ms == 750 and one.estimate_s <= 200
    tight = planner.plan_sweep(_groups(4), levels=7, budget_s=60, costs=costs)
    assert tight.variants == one.variants  # the first group is always kept
    assert tight.interval_ms == 250  # floor: the one group does not fit even at the floor
    mid = planner.plan_sweep(_groups(4), levels=7, budget_s=300, costs=costs)
    assert 0 < len(mid.dropped) < 18
    assert mid.estimate_s <= 300
    assert 250 <= mid.interval_ms <= 1000 and mid.interval_ms % 50 == 0


def test_plan_fixed_interval_and_keep_all() -> None:
    plan = planner.plan_sweep(_groups(3), levels=7, budget_s=60, interval_ms=400, keep_all=True)
    assert len(plan.variants) == 18 and plan.interval_ms == 400 and plan.estimate_s > 60


def test_cost_model_arithmetic() -> None:
    c = planner.Costs(load_s=3, load_per_instance_s=1, variant_extra_s=2, level_overhead_s=0.5, windows_per_level=4)
    # two variants (1 and 4 instances), 7 levels, 250 ms windows: (6 + 9) + 2 * 7 * (0.5 + 1.0)
    assert c.estimate_s([1, 4], 7, 250) == pytest.approx(15 + 21)


# --- the compact table -------------------------------------------------------------------------
def _run() -> RunResult:
    gpu = {"gpu_memory_used_bytes": 3 * 2**30}
    mlp1 = variant_result(
        "mlp_ts_gpu1_nodb_mbs64",
        [
            level_result(1, 900.0, 1.2, gpu_utilization_pct=20.0, nvml_gpu_utilization_pct=22.5, **gpu),
            level_result(8, 5000.0, 4.0, gpu_utilization_pct=70.0, nvml_gpu_utilization_pct=68.0, **gpu),
            level_result(64, 9000.0, 25.0, stable=False),
        ],
        params={"model": "mlp", "count": 1},
    )
    mlp4 = variant_result(
        "mlp_ts_gpu4_db500_mbs64",
        [level_result(8, 7000.0, 3.5), level_result(64, stable=False, error="perf_analyzer failed: timeout")],
        params={"model": "mlp", "count": 4},
    )
    cnn = variant_result("cnn_ts-fp16_gpu2_nodb_mbs64", [level_result(1, 300.0, 12.0)], params={"model": "cnn", "count": 2})
    broken = variant_result(
        "cnn_ts_gpu4_nodb_mbs64", params={"model": "cnn"}, status="failed", error="tritonserver could not load model"
    )
    return run_result(
        [mlp1, mlp4, cnn, broken],
        run_id="r1",
        created="2026-01-01T00:00:00",
        settings={"latency_budget_ms": 5.0, "measurement_interval_ms": 300},
    )


def test_compact_table_rows_units_and_notes() -> None:
    text = table.compact_table(_run())
    lines = text.splitlines()
    head = ["variant", "conc", "n", "infer/s", "p99", "ms", "GPU%", "srv", "GPU%", "nvml", "GPU", "MiB", "note"]
    assert lines[0].split() == head
    row = next(ln for ln in lines if ln.startswith("mlp_ts_gpu1_nodb_mbs64"))
    assert row.split() == ["mlp_ts_gpu1_nodb_mbs64", "1", "1", "900", "1.20", "20", "22", "3072"]
    c64 = [ln for ln in lines if ln.split()[:1] == ["64"] and "unstable" in ln]
    assert c64 and "over budget" in c64[0] and c64[0].split()[4:7] == ["-", "-", "-"]
    assert any("error: perf_analyzer failed: timeout" in ln for ln in lines)
    assert any(ln.startswith("cnn_ts_gpu4_nodb_mbs64") and "failed: tritonserver could not load model" in ln for ln in lines)
    # the variant name is printed once per variant
    assert sum(ln.startswith("mlp_ts_gpu1_nodb_mbs64") for ln in lines) == 1


def test_a_level_measured_in_several_rounds_is_one_row_of_medians() -> None:
    """The rounds design measures a level once a round: the table folds them (median, n), as the report does."""
    rounds = [
        level_result(8, tput, p99, trial=i, gpu_utilization_pct=util, batch_size=8)
        for i, (tput, p99, util) in enumerate([(1000.0, 9.0, 50.0), (3000.0, 5.0, 90.0), (2000.0, 7.0, 70.0)])
    ]
    run = run_result([variant_result("cnn_ts_gpu1_nodb_mbs64", rounds, params={"model": "cnn", "count": 1})], run_id="r2")
    lines = table.compact_table(run, budget_ms=100.0).splitlines()
    rows = [ln for ln in lines[2:] if ln.strip() and not ln.startswith("best")]
    assert len(rows) == 1, lines
    assert rows[0].split() == ["cnn_ts_gpu1_nodb_mbs64", "8", "3", "2000", "7.00", "70", "-", "-", "b=8"]


def test_best_under_budget_per_model() -> None:
    text = table.compact_table(_run(), budget_ms=5.0)
    assert "best mlp under p99 5 ms: mlp_ts_gpu4_db500_mbs64 at concurrency 8: 7000 infer/s, p99 3.50 ms" in text
    assert "best cnn under p99 5 ms: none" in text
    best = table.best_under_budget(_run(), 30.0)
    assert best["mlp"].variant == "mlp_ts_gpu1_nodb_mbs64" and best["mlp"].concurrency == 64  # unstable levels count
    assert best["cnn"].variant == "cnn_ts-fp16_gpu2_nodb_mbs64"


def test_model_names_with_underscores_group_by_the_naming_rule() -> None:
    v = variant_result("my_net_ts_gpu1_nodb_mbs64")
    assert table._model_of(v) == "my_net"


@pytest.mark.parametrize("flags", [["--interval-ms", "300"], ["--stability-pct", "10"], ["--sweep-all"]])
def test_flags_of_the_sequential_design_are_refused_with_rounds(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        gc.main(["run", "--design", "rounds", *flags])
    assert e.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{flags[0]} is read by --design sequential only" in err and "use --design sequential" in err


def test_summary_text_header_and_notes() -> None:
    env = {"cuda_device": "NVIDIA H200", "torch": "2.13.0", "torch_cuda": "12.8", "kind": "gpu"}
    text = gc.summary_text(_run(), 5.0, env, ["ONNX not served"], ["mlp_onnx_gpu1_nodb_mbs64"], 301.0)
    assert text.startswith("GPU check: NVIDIA H200\n")
    assert "windows 300 ms" in text and "total time 301 s" in text
    assert "check failed (not swept): mlp_onnx_gpu1_nodb_mbs64" in text and "note: ONNX not served" in text
    assert "CPU DRY RUN" in gc.summary_text(_run(), 5.0, {**env, "kind": "cpu"}, [], [], 1.0)


def test_summary_of_a_rounds_sweep_says_its_rounds_not_the_sequential_windows() -> None:
    levels = [level_result(8, 1000.0 + i, 5.0, trial=i, batch_size=8) for i in range(3)]
    run = run_result(
        [variant_result("cnn_ts_gpu1_nodb_mbs64", levels, params={"model": "cnn", "count": 1})],
        run_id="r3",
        settings={"design": "rounds", "round_window_ms": 400, "measurement_interval_ms": 2000, "max_trials": 10},
    )
    text = gc.summary_text(run, 25.0, {"kind": "gpu"}, [], [], 10.0)
    assert "interleaved rounds: 3 rounds of 400 ms windows" in text
    assert "windows 2000 ms" not in text and "max 10 windows" not in text


# --- wheel slimming ----------------------------------------------------------------------------
@pytest.mark.slow  # runs pip
def test_slim_wheel_drops_files_and_record_lines(tmp_path: Path) -> None:
    src = tmp_path / "demo_pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("demo_pkg/__init__.py", "X = 1\n")
        z.writestr("demo_pkg/big/stub_3.8.bin", b"\0" * 1000)
        z.writestr("demo_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n")
        z.writestr(
            "demo_pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        z.writestr(
            "demo_pkg-1.0.dist-info/RECORD",
            "demo_pkg/__init__.py,,\ndemo_pkg/big/stub_3.8.bin,,\n"
            "demo_pkg-1.0.dist-info/METADATA,,\ndemo_pkg-1.0.dist-info/WHEEL,,\ndemo_pkg-1.0.dist-info/RECORD,,\n",
        )
    out = slim.slim_wheel(src, tmp_path / "out", drop=["demo_pkg/big/*"], build_tag="1slim")
    assert out.name == "demo_pkg-1.0-1slim-py3-none-any.whl"
    with zipfile.ZipFile(out) as z:
        assert "demo_pkg/big/stub_3.8.bin" not in z.namelist()
        assert all(i.compress_type == zipfile.ZIP_LZMA for i in z.infolist())
        assert "stub_3.8" not in z.read("demo_pkg-1.0.dist-info/RECORD").decode()
    target = tmp_path / "site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target", str(target), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert pip.returncode == 0, pip.stderr
    assert (target / "demo_pkg" / "__init__.py").read_text() == "X = 1\n"


# --- the co-location step ---------------------------------------------------------------------
def _params(model: str, fmt: str, prec: str, count: int, db: bool = False) -> object:
    import types

    return types.SimpleNamespace(model=model, format=fmt, precision=prec, count=count, dynamic_batching=db)


def test_the_colocation_step_takes_two_models_two_checked_variants_each() -> None:
    served = {
        "mlp_ts_gpu4_nodb": _params("mlp", "torchscript", "fp32", 4),
        "mlp_ts_gpu2_nodb": _params("mlp", "torchscript", "fp32", 2),
        "mlp_ts_gpu1_nodb": _params("mlp", "torchscript", "fp32", 1),
        "mlp_ts_gpu1_db500": _params("mlp", "torchscript", "fp32", 1, db=True),
        "mlp_ts16_gpu1_nodb": _params("mlp", "torchscript", "fp16", 1),
        "cnn_ts_gpu1_nodb": _params("cnn", "torchscript", "fp32", 1),
        "cnn_ts_gpu2_nodb": _params("cnn", "torchscript", "fp32", 2),
        "cnn_ts_gpu4_nodb": _params("cnn", "torchscript", "fp32", 4),
    }
    order = (["mlp", "cnn"], ["torchscript", "onnx"], ["fp32", "fp16"])
    got = colocate_step.colocation_variants(served, [], *order)
    assert got == {"mlp": ["mlp_ts_gpu1_nodb", "mlp_ts_gpu2_nodb"], "cnn": ["cnn_ts_gpu1_nodb", "cnn_ts_gpu2_nodb"]}
    # a failed check leaves a variant out; one model alone is no co-location
    assert colocate_step.colocation_variants(served, ["cnn_ts_gpu1_nodb"], *order)["cnn"] == [
        "cnn_ts_gpu2_nodb",
        "cnn_ts_gpu4_nodb",
    ]
    assert colocate_step.colocation_variants(served, [], ["mlp"], *order[1:]) == {}
    assert colocate_step.colocation_variants(served, ["cnn_ts_gpu1_nodb", "cnn_ts_gpu2_nodb"], *order) == {}


def test_the_colocation_step_is_a_flag_with_its_share_of_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        gc.main(["run", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--colocate-s COLOCATE_S seconds of the budget kept for co-locating two models on the GPU (0: skip)" in text


# --- the pipeline ------------------------------------------------------------------------------
def _pipeline(tmp_path: Path, kind: str, budget_s: int, *extra: str, interval: bool = True) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        str(ROOT / "scripts" / "gpu_check.py"),
        "run",
        "--kind",
        kind,
        "--models",
        "tiny",
        "--formats",
        "torchscript",
        "--precisions",
        "fp32",
        "--counts",
        "1,2",
        "--batching",
        "off,500",
        "--concurrency",
        "1,4",
        *(["--interval-ms", "300"] if interval else []),
        "--budget-s",
        str(budget_s),
        "--p99-budget-ms",
        "1000",
        "--results-dir",
        str(tmp_path),
        *extra,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=budget_s + 120, cwd=ROOT)


def _check_outputs(out: subprocess.CompletedProcess, tmp_path: Path, n_variants: int) -> None:
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    run_dir = next(tmp_path.glob("gpu-check-*"))
    summary = (run_dir / "summary.txt").read_text()
    assert "best tiny under p99 1000 ms:" in summary
    for name in ("check.json", "plan.json", "environment.json", "sweep/results.json", "sweep/flat.csv"):
        assert (run_dir / name).is_file(), name
    assert f"{n_variants * 2} of {n_variants * 2} rows passed (every output within tolerance)" in out.stdout
    assert gc._size_mib(run_dir) < 5
    # built and swept through the Python API, each step logged in the run folder
    assert "wrote 4 variants" in (run_dir / "build-tiny.log").read_text()
    assert "infer/s" in (run_dir / "sweep.log").read_text()


@pytest.mark.integration
def test_pipeline_cpu_dry_run(tmp_path: Path) -> None:
    """The whole pipeline on KIND_CPU (what the GPU run does, minus the GPU)."""
    out = _pipeline(tmp_path, "cpu", 240)
    _check_outputs(out, tmp_path, 4)
    assert "CPU DRY RUN" in out.stdout


@pytest.mark.integration
def test_pipeline_cpu_dry_run_in_rounds_at_a_client_batch(tmp_path: Path) -> None:
    """--design rounds --batch-sizes 2: the variants measured in interleaved rounds, each level one row of medians."""
    out = _pipeline(tmp_path, "cpu", 150, "--design", "rounds", "--batch-sizes", "2", "--colocate-s", "0", interval=False)
    _check_outputs(out, tmp_path, 4)
    run_dir = next(tmp_path.glob("gpu-check-*"))
    from perf.records import results

    run = results.load(run_dir / "sweep")
    assert run.settings["design"] == "rounds" and run.settings["batch_sizes"] == [2]
    summary = (run_dir / "summary.txt").read_text()
    assert "interleaved rounds:" in summary and "windows 2000 ms" not in summary
    # one row per (variant, level) however many rounds measured it (a busy host's budget may cut variants: those print
    # one row saying so, with no level)
    seen, variant = [], None
    for ln in summary.splitlines():
        cells = ln.split()
        if ln.startswith("tiny_"):
            variant, cells = cells[0], cells[1:]
        if variant and cells[:1] in (["1"], ["4"]):
            assert "b=2" in ln, ln
            seen.append((variant, cells[0]))
    measured = {v.name for v in run.variants if v.levels}
    assert measured and len(seen) == len(set(seen)) == 2 * len(measured), summary


@pytest.mark.gpu
@pytest.mark.integration
@pytest.mark.skipif(
    not gpu_available(), reason="needs an NVIDIA GPU (NVML finds none here); run scripts/gpu_check.sh on a GPU host"
)
def test_pipeline_on_gpu(tmp_path: Path) -> None:
    """tiny on KIND_GPU: served on CUDA by the bundled server's python backend, checked, swept."""
    out = _pipeline(tmp_path, "gpu", 300)
    _check_outputs(out, tmp_path, 4)
    run_dir = next(tmp_path.glob("gpu-check-*"))
    from perf.records import results

    run = results.load(run_dir / "sweep")
    levels = [lv for v in run.variants for lv in v.levels if lv.ok]
    assert levels and any(lv.nvml_gpu_utilization_pct is not None for lv in levels)
