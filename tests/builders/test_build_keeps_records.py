"""A build never drops the records of exports it did not redo, and a build that fails as a
whole leaves the build folder and the repository as they were (issue 25, item 5).

The issue's case: after the demo (TorchScript and ONNX), ``builders build --format trt`` on a
host without a GPU failed, as it should, and rewrote ``manifest.json`` with only the ONNX and
TensorRT entries: the TorchScript record the ``*_ts_*`` variants depend on was gone, so
``triton-perf export-deployment`` refused them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.records import FAILED_MANIFEST_FILE, MANIFEST_FILE, MANIFEST_KIND
from builders.repository.view import Repository
from core.errors import ExportError, GpuRequiredError, PartialBuildError, VerificationError
from core.records import load_record
from perf.deploy.bundle import source_variant

pytestmark = pytest.mark.slow  # real exports

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
FLAGS = ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]


def _opts(tmp_path: Path, model="tiny", formats=("torchscript", "onnx"), **kw) -> BuildOptions:
    return BuildOptions(model, formats=formats, grid=GRID, repository=tmp_path / "repo", build_dir=tmp_path / "builds", **kw)


def _digests(folder: Path) -> dict[str, str]:
    """Every file of a folder (recursively, staging aside) -> its sha256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".staging" not in p.parts
    }


def _exports(manifest_path: Path) -> list[tuple[str, str, bool, bool]]:
    """(format, precision, failed, kept) per export record of a manifest file."""
    m = json.loads(manifest_path.read_text())
    return [(e["format"], e["precision"], bool(e.get("failed")), bool(e.get("kept"))) for e in m["exports"]]


def test_the_issues_sequence_keeps_the_torchscript_record(tmp_path, monkeypatch):
    from builders.serving.tensorrt_env import missing_requirements

    if not missing_requirements():
        pytest.skip("this machine builds TensorRT plans: the trt build does not fail here")
    monkeypatch.chdir(tmp_path)
    first = CliRunner().invoke(cli, ["build", "--model", "tiny", "--format", "torchscript", "--format", "onnx", *FLAGS])
    assert first.exit_code == 0, first.output
    folder, repo = tmp_path / "builds" / "tiny", tmp_path / "model_repository"
    before, repo_before = _digests(folder), _digests(repo)
    res = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["build", "--model", "tiny", "--format", "trt", *FLAGS])
    assert res.exit_code != 0 and isinstance(res.exception, GpuRequiredError)
    assert "nothing was exported or written" in res.exception.message  # refused before any work (issue 26, T18-1)
    assert _digests(folder) == before and _digests(repo) == repo_before  # nothing replaced, nothing written aside
    assert _exports(folder / MANIFEST_FILE) == [("torchscript", "fp32", False, False), ("onnx", "fp32", False, False)]
    ts = Repository(repo).variant("tiny_ts_cpu1_nodb_mbs4")
    assert ts.export is not None and ts.export.file == "model.pt"
    assert source_variant(repo, "tiny_ts_cpu1_nodb_mbs4").export is not None  # what export-deployment needs
    # a later build that succeeds supersedes the failed attempt's record
    again = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["build", "--model", "tiny", "--format", "onnx", *FLAGS])
    assert again.exit_code == 0, again.output
    assert not (folder / FAILED_MANIFEST_FILE).exists()
    assert ("torchscript", "fp32", False, True) in _exports(folder / MANIFEST_FILE)
    assert "torchscript fp32: kept from the earlier build (model.pt unchanged)" in again.output


def test_a_second_build_that_fails_verification_changes_nothing(tmp_path):
    """My own model: its branch on x.mean() scripts (TorchScript passes) but no ONNX exporter
    keeps it (dynamo refuses, the traced one fails verification)."""
    spec = {"spec": ModelSpec.from_flags(["x:float32:4"])}
    build(_opts(tmp_path, "verification_models:branch", ("torchscript",), **spec))
    folder = tmp_path / "builds" / "branch"
    before, repo_before = _digests(folder), _digests(tmp_path / "repo")
    with pytest.raises(VerificationError):
        build(_opts(tmp_path, "verification_models:branch", ("onnx",), **spec))
    after = _digests(folder)
    assert after.pop(FAILED_MANIFEST_FILE) and after == before  # no model.onnx, manifest and reference untouched
    assert _digests(tmp_path / "repo") == repo_before
    assert _exports(folder / FAILED_MANIFEST_FILE) == [("onnx", "fp32", True, False)]
    # both at once: TorchScript reused, ONNX fails again -> a partial build that writes the manifest
    with pytest.raises(PartialBuildError) as e:
        build(_opts(tmp_path, "verification_models:branch", ("torchscript", "onnx"), **spec))
    assert e.value.log_path == str(folder / MANIFEST_FILE) and not (folder / FAILED_MANIFEST_FILE).exists()
    assert _exports(folder / MANIFEST_FILE) == [("torchscript", "fp32", False, False), ("onnx", "fp32", True, False)]


def test_one_format_after_another_keeps_both(tmp_path):
    lines: list[str] = []
    build(_opts(tmp_path, formats=("onnx",)))
    result = build(_opts(tmp_path, formats=("torchscript",)), lines.append)
    folder = tmp_path / "builds" / "tiny"
    assert _exports(folder / MANIFEST_FILE) == [("torchscript", "fp32", False, False), ("onnx", "fp32", False, True)]
    assert result.manifest["variants"] == ["tiny_ts_cpu1_nodb_mbs4", "tiny_onnx_cpu1_nodb_mbs4"]
    assert result.manifest["kept_variants"] == ["tiny_onnx_cpu1_nodb_mbs4"]  # the earlier build's, of its kept export
    assert load_record(folder / MANIFEST_FILE, MANIFEST_KIND).made_variants == ["tiny_ts_cpu1_nodb_mbs4"]
    assert "onnx fp32: kept from the earlier build (model.onnx unchanged)" in lines
    for name in result.manifest["variants"]:
        assert Repository(tmp_path / "repo").variant(name).export is not None
    # and the other way round: ONNX rebuilt (reused), TorchScript kept
    result = build(_opts(tmp_path, formats=("onnx",)))
    assert _exports(folder / MANIFEST_FILE) == [("torchscript", "fp32", False, True), ("onnx", "fp32", False, False)]
    assert sorted(result.manifest["variants"]) == ["tiny_onnx_cpu1_nodb_mbs4", "tiny_ts_cpu1_nodb_mbs4"]


def test_a_changed_artifact_is_not_kept(tmp_path):
    build(_opts(tmp_path))
    folder = tmp_path / "builds" / "tiny"
    (folder / "model.pt").write_bytes(b"someone else's file")
    lines: list[str] = []
    build(_opts(tmp_path, formats=("onnx",)), lines.append)
    assert _exports(folder / MANIFEST_FILE) == [("onnx", "fp32", False, False)]
    assert "torchscript fp32: the earlier record is dropped: model.pt changed since it was recorded (sha256 differs)" in lines
    ts = tmp_path / "repo" / "tiny_ts_cpu1_nodb_mbs4"  # kept (the same model), and said so
    assert ts.is_dir() and any(ln.startswith(f"kept {ts}: it serves the earlier build's torchscript fp32 export") for ln in lines)


def test_other_weights_drop_the_earlier_records_and_say_why(tmp_path):
    """My own nn.Module, built twice under one name with other weights: the first build's
    TorchScript record describes another model, so it is not kept."""

    def mlp(seed: int) -> torch.nn.Module:
        torch.manual_seed(seed)
        return torch.nn.Sequential(torch.nn.Linear(6, 3)).eval()

    x = torch.randn(2, 6)
    build(_opts(tmp_path, mlp(0), name="mine", example_inputs=x))
    lines: list[str] = []
    build(_opts(tmp_path, mlp(1), formats=("onnx",), name="mine", example_inputs=x), lines.append)
    assert _exports(tmp_path / "builds" / "mine" / MANIFEST_FILE) == [("onnx", "fp32", False, False)]
    assert any(ln.startswith("earlier records dropped (torchscript fp32)") and "weights_sha256_16" in ln for ln in lines)
    # the words match what the repository holds after it (new-user trial: "earlier records dropped"
    # while the earlier weights' TorchScript variants were still served): they are removed, and said so
    repo = tmp_path / "repo"
    assert f"removed {repo / 'mine_ts_cpu1_nodb_mbs4'}: the build's manifest no longer records its torchscript fp32 export" in (
        " ".join(lines)
    )
    assert sorted(p.name for p in repo.iterdir() if p.is_dir()) == ["mine_onnx_cpu1_nodb_mbs4"]
    assert list(json.loads((repo / "index.json").read_text())["variants"][0].values())[0] == "mine_onnx_cpu1_nodb_mbs4"
    assert len(json.loads((repo / "index.json").read_text())["variants"]) == 1


def test_a_redone_export_that_fails_keeps_the_earlier_one(tmp_path, monkeypatch):
    """ONNX redone and failing in a partial build: the earlier (unchanged) ONNX export stays
    recorded, marked kept, beside the failure; its variant still serves it."""
    build(_opts(tmp_path))
    folder = tmp_path / "builds" / "tiny"
    onnx_before = (folder / "model.onnx").read_bytes()

    def broken(*_a, **_k):
        raise ExportError("onnx export failed with every strategy: dynamo: simulated")

    monkeypatch.setattr("builders.build_exports.export_onnx", broken)
    with pytest.raises(PartialBuildError):
        build(_opts(tmp_path, force=True))
    assert (folder / "model.onnx").read_bytes() == onnx_before
    assert _exports(folder / MANIFEST_FILE) == [
        ("torchscript", "fp32", False, False),
        ("onnx", "fp32", True, False),
        ("onnx", "fp32", False, True),
    ]
    assert Repository(tmp_path / "repo").variant("tiny_onnx_cpu1_nodb_mbs4").export is not None
    from builders.cli.summary import KEPT_WORDS, summary_rows
    from builders.repository.records import BuildManifest

    rows = summary_rows(BuildManifest.model_validate(json.loads((folder / MANIFEST_FILE).read_text())))
    assert [(r[0], r[5], r[-1]) for r in rows] == [  # the earlier ONNX beside this build's failure, each said
        ("torchscript", "ok", "made now"),
        ("onnx", "failed (export)", "tried now (failed)"),
        ("onnx", "ok", f"{KEPT_WORDS} (this build's attempt failed)"),
    ]


def test_a_redone_export_drops_exactly_its_variants_it_did_not_rewrite(tmp_path):
    """ONNX redone at another opset with a smaller grid: the mbs8 ONNX variant, which served the
    earlier model.onnx under the new record, is gone from the folder and the index; the ONNX
    variant rewritten and the TorchScript ones (not redone) stay (issue 25, left over)."""
    wide = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4, 8))
    build(
        BuildOptions(
            "tiny", formats=("torchscript", "onnx"), grid=wide, repository=tmp_path / "repo", build_dir=tmp_path / "builds"
        )
    )
    repo = tmp_path / "repo"
    assert sorted(Repository(repo).index.entries()) == [
        "tiny_onnx_cpu1_nodb_mbs4",
        "tiny_onnx_cpu1_nodb_mbs8",
        "tiny_ts_cpu1_nodb_mbs4",
        "tiny_ts_cpu1_nodb_mbs8",
    ]
    lines: list[str] = []
    build(_opts(tmp_path, formats=("onnx",), opset=17), lines.append)
    assert sorted(Repository(repo).index.entries()) == [
        "tiny_onnx_cpu1_nodb_mbs4",
        "tiny_ts_cpu1_nodb_mbs4",
        "tiny_ts_cpu1_nodb_mbs8",
    ]
    assert not (repo / "tiny_onnx_cpu1_nodb_mbs8").exists()
    assert any(ln.startswith(f"removed {repo / 'tiny_onnx_cpu1_nodb_mbs8'}: its onnx fp32 export was redone") for ln in lines)
    # the TorchScript record is dropped (max_batch_size 8 -> 4: a build setting, not the model): its variants are
    # kept, and the words say so (new-user trial: "earlier records dropped" beside variants still served)
    dropped = next(ln for ln in lines if ln.startswith("earlier records dropped (torchscript fp32)"))
    assert "max_batch_size (build settings, not the model)" in dropped and "their variants in the repository are kept" in dropped
    for name in ("tiny_ts_cpu1_nodb_mbs4", "tiny_ts_cpu1_nodb_mbs8"):
        assert f"kept {repo / name}: it serves the earlier build's torchscript fp32 export of this model" in " ".join(lines)
    folder = tmp_path / "builds" / "tiny"
    assert (repo / "tiny_onnx_cpu1_nodb_mbs4" / "1" / "model.onnx").read_bytes() == (folder / "model.onnx").read_bytes()


def test_the_summary_says_which_records_this_build_made_and_which_it_kept(tmp_path, monkeypatch):
    """New-user trial (T13-3, T13-9): after a build whose ONNX bf16 failed (no bf16 Gemm kernel in
    ONNX Runtime on a CPU), an fp32-only build printed the earlier "failed" row and its rejection
    lines as its own, then exited 0; the kept fp32 rows of a bf16 build read as verified again.
    Each row says what this build did with it, a kept record's lines say so, and the exit code
    is this build's own exports'."""
    from builders.cli.summary import KEPT_WORDS, summary_rows
    from builders.repository.records import BuildManifest

    monkeypatch.chdir(tmp_path)
    runner = CliRunner(env={"COLUMNS": "250"})
    first = runner.invoke(cli, ["build", "--model", "tiny", "--format", "torchscript,onnx", "--precision", "bf16", *FLAGS])
    folder = tmp_path / "builds" / "tiny"
    if first.exit_code == 0:
        pytest.skip("ONNX Runtime runs the bf16 export here: no failed record to keep")
    assert isinstance(first.exception, PartialBuildError), first.output

    def made(manifest_path: Path) -> dict[tuple[str, str, str], str]:
        m = BuildManifest.model_validate(json.loads(manifest_path.read_text()))
        return {(r[0], r[1], r[5]): r[-1] for r in summary_rows(m)}

    assert made(folder / MANIFEST_FILE) == {
        ("torchscript", "bf16", "ok"): "made now",
        ("onnx", "bf16", "failed (verify)"): "tried now (failed)",
    }
    again = runner.invoke(cli, ["build", "--model", "tiny", "--format", "torchscript", *FLAGS])
    assert again.exit_code == 0, again.output  # the kept failure is not this build's
    kept = f"{KEPT_WORDS} (not asked for)"
    assert made(folder / MANIFEST_FILE) == {
        ("torchscript", "fp32", "ok"): "made now",
        ("torchscript", "bf16", "ok"): kept,
        ("onnx", "bf16", "failed (verify)"): kept,
    }
    rejected = [ln for ln in again.output.splitlines() if "strategy dynamo rejected" in ln]
    assert rejected and all(ln.startswith(f"{KEPT_WORDS}: onnx bf16: ") for ln in rejected)
    assert kept in again.output  # the printed table carries the column
    third = runner.invoke(cli, ["build", "--model", "tiny", "--format", "torchscript", *FLAGS])
    assert third.exit_code == 0, third.output
    assert made(folder / MANIFEST_FILE)[("torchscript", "fp32", "ok")] == "reused (unchanged)"
