"""The build switch is ``--serving python|native``; ``--runtime bundled|native`` is its deprecated
alias for one release, and index files written before the rename still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.backends import LEGACY_SERVINGS, SERVINGS
from builders.cli.main import cli
from builders.repository.view import INDEX_FILE, read_index
from builders.repository.writer import update_index


def _captured_build(monkeypatch: pytest.MonkeyPatch) -> list:
    """Replace the build itself: the CLI's BuildOptions land in the returned list."""
    import builders.build

    seen: list = []

    def fake_build(opts, progress=None, counted=None):
        seen.append(opts)
        raise SystemExit(0)

    monkeypatch.setattr(builders.build, "build", fake_build)
    return seen


@pytest.mark.parametrize(("old", "new"), sorted(LEGACY_SERVINGS.items()))
def test_deprecated_runtime_flag_warns_and_maps(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    seen = _captured_build(monkeypatch)
    res = CliRunner().invoke(cli, ["build", "--model", "tiny", "--runtime", old])
    assert res.exit_code == 0, res.output
    assert seen[0].serving == new
    assert f"--runtime {old} is deprecated" in res.stderr and f"use --serving {new}" in res.stderr


def test_serving_flag_and_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _captured_build(monkeypatch)
    for args, want in (
        ([], "python"),
        (["--serving", "native"], "native"),
        (["--serving", "python", "--runtime", "bundled"], "python"),
    ):
        res = CliRunner().invoke(cli, ["build", "--model", "tiny", *args])
        assert res.exit_code == 0, res.output
        assert seen[-1].serving == want
        assert ("deprecated" in res.stderr) == ("--runtime" in args)
    assert set(LEGACY_SERVINGS.values()) == set(SERVINGS)


def test_serving_and_a_contradicting_runtime_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _captured_build(monkeypatch)
    res = CliRunner().invoke(cli, ["build", "--model", "tiny", "--serving", "native", "--runtime", "bundled"])
    assert res.exit_code == 2 and "drop --runtime" in res.output and not seen


def test_variants_command_takes_the_alias_too() -> None:
    args = ["variants", "--format", "onnx", "--instance-kind", "gpu", "--server-gpu", "--trt-accelerator", "off,fp16"]
    old = CliRunner().invoke(cli, [*args, "--runtime", "bundled"])
    new = CliRunner().invoke(cli, [*args, "--serving", "python"])
    assert old.exit_code == new.exit_code == 0, old.output
    assert "(python serving)" in new.stdout and old.stdout == new.stdout
    assert "skipped TensorRT accelerator fp16" in new.stdout and "use --serving native" in new.stdout
    assert "deprecated" in old.stderr and "deprecated" not in new.stderr
    native = CliRunner().invoke(cli, [*args, "--runtime", "native"])
    assert "8 variants (native serving)" in native.stdout and "_ortrt-fp16" in native.stdout
    assert "4 variants (python serving)" in new.stdout and "_ortrt-fp16" not in new.stdout


def test_an_index_written_before_the_rename_still_reads(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("m_onnx_cpu1_nodb_mbs8", "m_ts_cpu1_nodb_mbs8", "m_onnx_cpu2_nodb_mbs8"):
        (repo / name).mkdir(parents=True)
    old = {
        "variants": [
            {"name": "m_onnx_cpu1_nodb_mbs8", "model": "m", "format": "onnx", "runtime": "bundled", "build": "/b"},
            {"name": "m_ts_cpu1_nodb_mbs8", "model": "m", "format": "torchscript", "runtime": "native", "build": "/b"},
        ]
    }
    (repo / INDEX_FILE).write_text(json.dumps(old))
    index = read_index(repo)
    assert index["m_onnx_cpu1_nodb_mbs8"].serving == "python"
    assert index["m_ts_cpu1_nodb_mbs8"].serving == "native"
    assert all("runtime" not in e.params for e in index.values())
    assert index["m_onnx_cpu1_nodb_mbs8"].build == "/b"  # the rest of the entry is kept
    # merging a new entry rewrites the old ones in the new vocabulary
    update_index(repo, [{"name": "m_onnx_cpu2_nodb_mbs8", "model": "m", "format": "onnx", "serving": "python"}])
    written = json.loads((repo / INDEX_FILE).read_text())["variants"]
    assert [e.get("serving") for e in written] == ["python", "python", "native"]
    assert not any("runtime" in e for e in written)


def test_the_served_name_lookup_reads_old_native_entries(tmp_path: Path, fake_build) -> None:
    """clients check finds PyTorch-backend names of a native TorchScript variant from an old index."""
    from builders.config.variants import Variant
    from builders.model.spec import ModelSpec
    from builders.repository.view import Repository

    names = {"inputs": {"x": "x__0"}, "outputs": {"y": "y__0"}}
    spec = ModelSpec.from_json(
        {
            "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
            "outputs": [{"name": "y", "dtype": "float32", "shape": [2]}],
        }
    )
    repo = fake_build(spec, Variant("m", "torchscript", max_batch_size=8), extra={"triton_names": names}, serving="native")
    index = json.loads((repo / INDEX_FILE).read_text())
    for e in index["variants"]:  # as written before the rename
        e["runtime"] = "native"
        del e["serving"]
    del index["schema"]
    (repo / INDEX_FILE).write_text(json.dumps(index))
    v = Repository(repo).variant("m_ts_cpu1_nodb_mbs8")
    assert v.serving == "native"
    assert [(b.name, b.served) for b in v.inputs] == [("x", "x__0")] and [(b.name, b.served) for b in v.outputs] == [
        ("y", "y__0")
    ]
