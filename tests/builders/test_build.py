"""builders build: manifest, reference data, reuse of unchanged exports, user models, CLI."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.pbtxt import read_config
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.manifest import MANIFEST
from builders.verify.input_draws import DRAWS
from builders.verify.verification import REFERENCE, load_reference
from core.errors import GpuRequiredError, PartialBuildError, VerificationError

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))


def _opts(tmp_path: Path, model: str = "tiny", **kw) -> BuildOptions:
    kw.setdefault("grid", GRID)
    return BuildOptions(model, repository=tmp_path / "repo", build_dir=tmp_path / "builds", **kw)


@pytest.mark.slow  # the session's real tiny build
def test_manifest_records_versions_signature_errors_sizes_and_hashes(tiny_build):
    m = tiny_build.manifest
    assert m["versions"]["torch"] and m["versions"]["onnx"] and m["versions"]["onnxruntime"]
    assert "tensorrt" in m["versions"]
    assert ModelSpec.from_json(m["spec"]).outputs[0].shape == (8,)
    by_fmt = {e["format"]: e for e in m["exports"]}
    assert set(by_fmt) == {"torchscript", "onnx"}
    for e in by_fmt.values():
        path = tiny_build.manifest_path.parent / e["file"]
        assert e["size_bytes"] == path.stat().st_size > 0
        assert len(e["sha256"]) == 64 and e["export_s"] > 0 and e["verify_s"] > 0
        assert [(c["batch"], c["draw"]) for c in e["verification"]] == [(b, d) for b in (1, 4, 8) for d in DRAWS]
        assert set(e["errors"]) == {"OUTPUT__0"} and e["errors"]["OUTPUT__0"]["max_rel_err"] <= 1e-4
        assert e["attempts"][-1]["ok"]
    assert by_fmt["onnx"]["extra"]["opset"] == 18


@pytest.mark.slow  # the session's real tiny build
def test_reference_data_loads_without_pickle_and_matches_the_model(tiny_build, tiny_build_dir):
    import torch

    from builders.model.builtin import get_builtin

    inputs, outputs = load_reference(tiny_build_dir)
    assert set(inputs) == {"INPUT__0"} and set(outputs) == {"OUTPUT__0"}
    with torch.no_grad():
        expected = get_builtin("tiny").factory()(torch.from_numpy(inputs["INPUT__0"])).numpy()
    np.testing.assert_array_equal(outputs["OUTPUT__0"], expected)
    with np.load(tiny_build_dir / REFERENCE, allow_pickle=False) as z:
        assert all(z[k].dtype != object for k in z.files)


@pytest.mark.slow  # real export (torch.jit.script)
def test_unchanged_rebuild_reuses_and_any_change_rebuilds(tmp_path):
    first = build(_opts(tmp_path, formats=("torchscript",)))
    artifact = first.manifest_path.parent / "model.pt"
    mtime = artifact.stat().st_mtime_ns
    again = build(_opts(tmp_path, formats=("torchscript",)))
    assert [e["reused"] for e in again.manifest["exports"]] == [True]
    assert artifact.stat().st_mtime_ns == mtime
    assert again.manifest["exports"][0]["verification"] == first.manifest["exports"][0]["verification"]
    assert (tmp_path / "repo" / again.manifest["variants"][0] / "1" / "model.pt").is_file()
    # a changed tolerance, a tampered artifact, or --force: exported and verified again
    changed = build(_opts(tmp_path, formats=("torchscript",), rtol={"OUTPUT__0": 1e-3}))
    assert changed.manifest["exports"][0]["reused"] is False
    assert changed.manifest["exports"][0]["errors"]["OUTPUT__0"]["rtol"] == 1e-3
    artifact.write_bytes(artifact.read_bytes() + b"\0")
    tampered = build(_opts(tmp_path, formats=("torchscript",), rtol={"OUTPUT__0": 1e-3}))
    assert tampered.manifest["exports"][0]["reused"] is False
    forced = build(_opts(tmp_path, formats=("torchscript",), rtol={"OUTPUT__0": 1e-3}, force=True))
    assert forced.manifest["exports"][0]["reused"] is False


USER_PACKAGE = '''
import torch
from torch import nn


class Ranker(nn.Module):
    """float32 features + int64 token ids [batch, seq] -> dict of float32 and int64 outputs."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 8)
        self.proj = nn.Linear(3, 8)

    def forward(self, feats, ids):
        tokens = self.emb(ids) + self.proj(feats)[:, None, :]
        score = tokens.mean(dim=1)
        return {"score": score, "rank": score.argsort(dim=-1), "tokens": tokens}


def make():
    torch.manual_seed(0)
    return Ranker().eval()
'''


@pytest.fixture()
def user_model(tmp_path, monkeypatch):
    (tmp_path / "ranker_pkg.py").write_text(textwrap.dedent(USER_PACKAGE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "ranker_pkg:make"
    sys.modules.pop("ranker_pkg", None)


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace, torch.onnx.export, torch.export)
def test_user_model_with_flags_spec_builds_native_configs_that_match_the_files(tmp_path, user_model):
    spec = ModelSpec.from_flags(["feats:float32:3", "ids:int64:seq:0..29"], ["score", "rank", "tokens"], ["seq=1,5,12"])
    result = build(
        _opts(tmp_path, user_model, spec=spec, serving="native", formats=("torchscript", "onnx"), external_data_threshold_bytes=0)
    )
    m = result.manifest
    assert m["model"] == "make" and m["model_kind"] == "factory"
    outs = {t["name"]: (t["dtype"], t["shape"]) for t in m["spec"]["outputs"]}
    assert outs == {"score": ("float32", [8]), "rank": ("int64", [8]), "tokens": ("float32", ["seq", 8])}
    ts_dir = next(d for d in result.variant_dirs if "_ts_" in d.name)
    onnx_dir = next(d for d in result.variant_dirs if "_onnx_" in d.name)
    ts_cfg, onnx_cfg = read_config(ts_dir / "config.pbtxt"), read_config(onnx_dir / "config.pbtxt")
    assert ts_cfg.platform == "pytorch_libtorch" and onnx_cfg.platform == "onnxruntime_onnx"
    ts_names = next(e for e in m["exports"] if e["format"] == "torchscript")["extra"]["triton_names"]
    assert [o.name for o in ts_cfg.output] == [ts_names["outputs"][n] for n in ("score", "rank", "tokens")]
    assert [o.name for o in ts_cfg.output] == ["score__0", "rank__1", "tokens__2"]  # the spec's names, as <name>__<index>
    assert [i.name for i in onnx_cfg.input] == ["feats", "ids"] and [o.name for o in onnx_cfg.output] == [
        "score",
        "rank",
        "tokens",
    ]
    assert list(onnx_cfg.input[1].dims) == [-1]  # seq stays dynamic in the config
    # external weights travel with the graph into the repository
    assert (onnx_dir / "1" / "model.onnx.data").is_file()


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_a_failed_verification_still_writes_the_manifest(tmp_path, monkeypatch):
    # an fp16 export of a model that overflows fp16 but not fp32: the fp32 variants are written,
    # the fp16 failure is listed (issue 19 item 4)
    (tmp_path / "overflow_pkg.py").write_text(
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return (x * 1e5) * 1e-5\n"
        "def make():\n    return M()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = ModelSpec.from_flags(["x:float32:4"])
    with pytest.raises(PartialBuildError, match=r"1 of 2 exports failed: torchscript fp16 \(verify\): .*NaN or Inf") as e:
        build(_opts(tmp_path, "overflow_pkg:make", spec=spec, formats=("torchscript",), precisions=("fp32", "fp16")))
    assert isinstance(e.value.failed[0][2], VerificationError)
    assert e.value.result.variant_dirs and all("-fp16" not in d.name for d in e.value.result.variant_dirs)
    m = json.loads((tmp_path / "builds" / "make" / MANIFEST).read_text())
    assert m["exports"][0]["precision"] == "fp32" and m["exports"][0]["verification"]
    assert m["exports"][1]["failed"] == "verify" and "NaN or Inf" in m["exports"][1]["error"]
    sys.modules.pop("overflow_pkg", None)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["cnn", "encoder"])
def test_builtin_kinds_export_and_verify_in_both_cpu_formats(tmp_path, model):
    result = build(_opts(tmp_path, model, formats=("torchscript", "onnx")))
    exports = {e["format"]: e for e in result.manifest["exports"]}
    assert exports["torchscript"]["strategy"] == "script" and exports["onnx"]["strategy"] == "dynamo"
    for e in exports.values():
        assert all(o["passed"] for c in e["verification"] for o in c["outputs"])
    if model == "encoder":
        seqs = {c["axes"]["seq"] for c in exports["onnx"]["verification"]}
        assert seqs == {1, 11, 32, 128}  # min, off every multiple (trial 30, F1), opt, max of the seq axis
    assert len(result.variant_dirs) == 2


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_cli_builds_a_user_model_from_flags_and_prints_the_trtexec_command(tmp_path, user_model):
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "build",
            "--model",
            user_model,
            "--input",
            "feats:float32:3",
            "--input",
            "ids:int64:seq:0..29",
            "--output",
            "score",
            "--output",
            "rank",
            "--output",
            "tokens",
            "--dynamic-axis",
            "seq=1,5,12",
            "--format",
            "trt",
            "--print-trtexec",
            "--max-batch-sizes",
            "4",
            "--instance-counts",
            "1",
            "--dynamic-batching",
            "off",
            "--repository",
            str(tmp_path / "repo"),
            "--build-dir",
            str(tmp_path / "b"),
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    line = next(ln.strip() for ln in res.output.splitlines() if ln.strip().startswith("docker run "))
    assert "--minShapes=feats:1x3,ids:1x1" in line and "--maxShapes=feats:4x3,ids:4x12" in line
    # the whole docker command, paths as the container sees them (issue 19 item 5)
    assert f"-v {(tmp_path / 'b' / 'make').resolve()}:/build nvcr.io/nvidia/tensorrt:24.10-py3 trtexec" in line
    assert (
        "--onnx=/build/model.onnx --saveEngine=/build/model.plan" in line and "--timingCacheFile=/build/trt_timing.cache" in line
    )
    assert str(tmp_path) not in line.split(" trtexec ")[1]
    back = next(ln.strip() for ln in res.output.splitlines() if ln.strip().startswith("builders build "))
    assert f"--plan=fp32={tmp_path / 'b' / 'make' / 'model.plan'}" in back and "--serving native" in back


def test_trt_without_gpu_is_one_clear_error_with_the_trtexec_way_out(tmp_path):
    from builders.serving.tensorrt_env import missing_requirements

    if not missing_requirements():
        pytest.skip("this machine can build TensorRT plans; the no-GPU error cannot occur here")
    with pytest.raises(GpuRequiredError) as e:
        build(_opts(tmp_path, formats=("trt",), serving="native"))
    assert "tensorrt" in e.value.message or "GPU" in e.value.message
    assert (
        "`builders build --format trt --print-trtexec` prints the docker command (from the build folder's fp32 ONNX export"
        in e.value.hint
    )
    assert not (tmp_path / "builds").exists()  # refused before the ONNX export (issue 26, T18-1)


def test_plans_of_every_precision_are_built_from_the_fp32_onnx():
    from builders.build_exports import export_tasks

    assert export_tasks(("trt",), ("fp16", "bf16")) == [("onnx", "fp32"), ("trt", "fp16"), ("trt", "bf16")]
    assert export_tasks(("onnx", "torchscript", "trt"), ("fp32",)) == [("torchscript", "fp32"), ("onnx", "fp32"), ("trt", "fp32")]


def test_cli_user_error_is_one_message_and_exit_code_1(tmp_path):
    import subprocess

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "builders.cli.main",
            "build",
            "--model",
            "nosuchpkg_xyz:make",
            "--input",
            "x:float32:4",
            "--build-dir",
            str(tmp_path / "b"),
            "--repository",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 1
    assert "error (model): cannot import 'make' from 'nosuchpkg_xyz'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_empty_grid_fails_before_any_export(tmp_path):
    from builders.config.variants import VariantGrid
    from core.errors import ConfigError

    opts = BuildOptions(
        "tiny",
        grid=VariantGrid(queue_delays_us=(500,), max_batch_sizes=(0,)),
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
    )
    with pytest.raises(ConfigError, match="variant grid is empty"):
        build(opts)
    assert not list((tmp_path / "builds").rglob("model.*"))
