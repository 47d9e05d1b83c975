"""``make demo`` checks and sweeps the variants its own build made (trial 13, T13-11: it took every
``detr_*`` variant of the repository, 12 fp16/bf16 variants of an earlier build among its 20, and said
nothing of why 20), or the ones ``DEMO_VARIANTS`` names."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from builders.model.spec import ModelSpec, ModelSpecRecord
from builders.repository.records import MANIFEST_KIND, BuildManifest, ExportRecord
from builders.repository.writer import update_index
from core.records import load_record, write_record
from perf.cli.demo_variants import chosen, main

NOW = [f"detr_{f}_cpu{n}_nodb_mbs64" for f in ("ts", "onnx") for n in (1, 2)]
EARLIER = [f"detr_{f}_cpu{n}_nodb_mbs64" for f in ("ts-fp16", "onnx-fp16") for n in (1, 2)]


def _entry(name: str) -> dict:
    fmt = "onnx" if "_onnx" in name else "torchscript"
    return {
        "name": name, "serving": "python", "build": "/b/detr", "model": "detr", "format": fmt,
        "precision": "fp16" if "fp16" in name else "fp32", "kind": "cpu", "count": int(name.split("_cpu")[1][0]),
        "max_batch_size": 64, "dynamic_batching": False, "max_queue_delay_us": 0, "preferred_batch_sizes": [],
        "gpus": [], "warmup": None, "trt_accelerator": None,
    }  # fmt: skip


def _export(fmt: str, precision: str, kept: bool) -> ExportRecord:
    return ExportRecord(
        format=fmt, file="m", precision=precision, strategy="s", export_s=0.0, size_bytes=1, sha256="0", kept=kept
    )


@pytest.fixture
def demo_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A rebuild of ``detr`` in fp32 beside an earlier fp16 build's variants (kept), as in trial 13."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    for name in NOW + EARLIER:
        (repo / name).mkdir(parents=True)
    update_index(repo, [_entry(n) for n in NOW + EARLIER + ["other_onnx_cpu1_nodb_mbs64"]])
    exports = [_export(f, "fp32", False) for f in ("torchscript", "onnx")]
    exports += [_export(f, "fp16", True) for f in ("torchscript", "onnx")]
    manifest = BuildManifest(
        model="detr", source="m", created="now", spec=ModelSpecRecord.from_spec(ModelSpec.from_flags(["x:float32:4"], ["y"])),
        max_batch_size=64, exports=exports, variants=NOW + EARLIER, kept_variants=EARLIER, weights_sha256_16="w",
        source_sha256_16="s",
    )  # fmt: skip
    (tmp_path / "builds" / "detr").mkdir(parents=True)
    write_record(tmp_path / "builds" / "detr" / "manifest.json", MANIFEST_KIND, manifest)
    return tmp_path


def test_the_demo_takes_its_own_builds_variants_and_names_the_earlier_ones_it_leaves_out(demo_folder: Path) -> None:
    names, line = chosen("detr", None)
    assert names == NOW == load_record(demo_folder / "builds" / "detr" / "manifest.json", MANIFEST_KIND).made_variants
    assert line == (
        "   checked and swept: the 4 variants this build made; model_repository also holds 4 other variants of detr, "
        "from an earlier build (detr onnx fp16 ×2, detr torchscript fp16 ×2), left out (DEMO_VARIANTS='detr_*' takes "
        "them too) (DEMO_VARIANTS=NAME|PATTERN[,...] names fewer)"
    )


def test_demo_variants_names_them_and_one_that_matches_none_is_refused(
    demo_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    names, line = chosen("detr", "detr_onnx*")
    assert sorted(names) == sorted(n for n in NOW + EARLIER if n.startswith("detr_onnx")) and "DEMO_VARIANTS=detr_onnx*" in line
    with pytest.raises(click.UsageError, match=r"DEMO_VARIANTS=detr_trt\*: 'detr_trt\*' matches no variant"):
        chosen("detr", "detr_trt*")
    with pytest.raises(click.UsageError, match=r"'detr_onxx\*' \(did you mean 'detr_onnx\*'\?\) matches no variant"):
        chosen("detr", "detr_onxx*")  # the one did-you-mean rule of variant patterns (s22z, Z-6)
    monkeypatch.setenv("DEMO_VARIANTS", "detr_ts_cpu1_nodb_mbs64,detr_ts_cpu2*")
    assert main(["detr"]) == 0
    assert capsys.readouterr().out == "detr_ts_cpu1_nodb_mbs64,detr_ts_cpu2_nodb_mbs64\n"
