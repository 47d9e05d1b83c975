"""An export that failed replaces nothing, and every line that removes or replaces a measured variant
names the runs that measured it (trial 24, T24-16).

The trial's case: the model retrained (other weights) and built again the same way; its ONNX export
failed verification, and the build still removed the earlier ONNX variants four runs had measured,
naming none of them ("removed ...: it served the earlier build"), while the TorchScript line of the
same build named its runs. Such a build is now refused before any export unless --replace
(tests/builders/test_rebuild_measured_refused.py); with --replace, a failed export still replaces nothing.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.repository.records import MANIFEST_FILE
from builders.repository.view import Repository
from core.errors import ExportError, PartialBuildError

pytestmark = pytest.mark.slow  # real exports

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
ONNX = "mine_onnx_cpu1_nodb_mbs4"
TS = "mine_ts_cpu1_nodb_mbs4"


def _mlp(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(6, 3)).eval()


def _opts(tmp_path: Path, seed: int, formats=("torchscript", "onnx"), replace: bool = False) -> BuildOptions:
    return BuildOptions(
        _mlp(seed),
        formats=formats,
        grid=GRID,
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        name="mine",
        example_inputs=torch.randn(2, 6),
        replace=replace,
    )


def _measured(tmp_path: Path, run: str, variant: str) -> None:
    """A run in ``results/`` beside the repository that measured ``variant`` (a level with numbers)."""
    folder = tmp_path / "results" / run
    folder.mkdir(parents=True)
    record = {
        "run_id": run,
        "settings": {"repository": str(tmp_path / "repo")},
        "variants": [{"name": variant, "levels": [{"error": None, "throughput_infer_per_s": 10.0}]}],
    }
    (folder / "results.json").write_text(json.dumps(record))


def test_a_failed_export_of_other_weights_keeps_the_measured_variants(tmp_path, monkeypatch):
    build(_opts(tmp_path, 0))
    repo, folder = tmp_path / "repo", tmp_path / "builds" / "mine"
    onnx_before = (repo / ONNX / "1" / "model.onnx").read_bytes()
    for run in ("s2", "s3"):
        _measured(tmp_path, run, ONNX)

    def broken(*_a, **_k):
        raise ExportError("onnx export failed with every strategy: dynamo: simulated")

    monkeypatch.setattr("builders.build_exports.export_onnx", broken)
    lines: list[str] = []
    with pytest.raises(PartialBuildError):  # without --replace it is refused before any export (test_rebuild_measured_refused)
        build(_opts(tmp_path, 1, replace=True), lines.append)
    said = "\n".join(lines)
    # the failed export replaced nothing: its earlier variant is there, serving the earlier file
    assert (repo / ONNX / "1" / "model.onnx").read_bytes() == onnx_before, said
    assert not any(ln.startswith(f"removed {repo / ONNX}") for ln in lines), said
    assert "earlier records dropped (onnx fp32)" not in said
    # recorded, marked as the earlier build's export of another model
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    kept = [e for e in manifest["exports"] if e["format"] == "onnx" and not e.get("failed")]
    assert len(kept) == 1 and kept[0]["kept"] and "weights_sha256_16" in kept[0]["other_model"]
    assert manifest["kept_variants"] == [ONNX]
    assert Repository(repo).variant(ONNX).export is not None
    # the lines say what was kept, that it serves the earlier build (other weights), and the runs that measured it
    line = next(ln for ln in lines if ln.startswith("onnx fp32: kept from the earlier build"))
    assert "another model" in line and "weights_sha256_16" in line and "failed" in line
    kept_line = next(ln for ln in lines if ln.startswith(f"kept {repo / ONNX}"))
    assert "earlier build" in kept_line and "s2, s3" in kept_line
    from builders.cli.summary import KEPT_WORDS, summary_rows
    from builders.repository.records import BuildManifest

    rows = summary_rows(BuildManifest.model_validate(manifest))  # the build's table says whose export it is
    assert [r[-1] for r in rows if r[0] == "onnx"][-1] == f"{KEPT_WORDS} of another model (this build's attempt failed)"
    # and the repository is consistent
    res = CliRunner().invoke(cli, ["validate", str(repo)])
    assert res.exit_code == 0, res.output


def test_a_removal_line_names_the_runs_that_measured_the_variant(tmp_path):
    """Other weights, ONNX only, --replace (refused without it): the earlier TorchScript variant is removed (its
    record describes another model), and its line names the run that measured it, as the replaced export's line does."""
    build(_opts(tmp_path, 0))
    _measured(tmp_path, "s1", TS)
    lines: list[str] = []
    build(_opts(tmp_path, 1, formats=("onnx",), replace=True), lines.append)
    removed = next(ln for ln in lines if ln.startswith(f"removed {tmp_path / 'repo' / TS}"))
    assert f"the run s1 in {tmp_path / 'results'} measured it" in removed
    onnx = next(ln for ln in lines if ln.startswith("onnx fp32: replaces the earlier export"))
    assert f"no run in {tmp_path / 'results'} measured them" in onnx  # the same lookup, the same words


def test_a_replace_build_names_the_runs_of_the_variants_it_writes_over(tmp_path):
    """--replace over a measured variant of another serving: the build says which it replaced and the runs
    that measured it (one rule with the refusal that --replace overrides)."""
    build(_opts(tmp_path, 0, formats=("onnx",)))
    _measured(tmp_path, "s1", ONNX)
    opts = _opts(tmp_path, 0, formats=("onnx",))
    lines: list[str] = []
    build(dataclasses.replace(opts, serving="native", replace=True), lines.append)
    line = next(ln for ln in lines if ln.startswith(f"replaced {tmp_path / 'repo' / ONNX}"))
    assert "serving: 'python' now 'native'" in line and f"the run s1 in {tmp_path / 'results'} measured it" in line
