"""A build never writes over variants of the same name that differ (another serving, parameters or
model) unless asked (``--replace``): it is refused before any export, naming the variants and the runs
in ``results/`` that measured them (trial 16, T16-15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.repository.records import INDEX_FILE
from core.errors import ConfigError
from tests.support.source_builds import ONE_VARIANT, first_variant

pytestmark = pytest.mark.slow  # real exports


def _opts(root: Path, serving: str, **kw) -> BuildOptions:
    return BuildOptions(
        "mlp",
        formats=("torchscript",),
        serving=serving,
        repository=root / "repo",
        build_dir=root / "builds",
        grid=ONE_VARIANT,
        **kw,
    )


def _measured(root: Path, run_id: str, repo: Path, variant: str) -> None:
    """A run in ``root/results`` that swept ``repo`` and measured ``variant`` (the fields the build reads)."""
    folder = root / "results" / run_id
    folder.mkdir(parents=True)
    record = {
        "run_id": run_id,
        "settings": {"repository": str(repo)},
        "variants": [{"name": variant, "levels": [{"throughput_infer_per_s": 100.0, "error": None}]}],
    }
    (folder / "results.json").write_text(json.dumps(record))


def _config(repo: Path, variant: str) -> str:
    return (repo / variant / "config.pbtxt").read_text()


def test_a_build_of_another_serving_is_refused_before_it_replaces_measured_variants(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # results/ is looked for in the working folder, as triton-perf writes it
    build(_opts(tmp_path, "python"))
    repo = tmp_path / "repo"
    variant = first_variant(repo)
    before, index = _config(repo, variant), (repo / INDEX_FILE).read_text()
    _measured(tmp_path, "t16a", repo, variant)
    _measured(tmp_path, "t16z", tmp_path / "elsewhere", variant)  # swept another repository: not named

    with pytest.raises(ConfigError) as err:
        build(_opts(tmp_path, "native"))
    msg = err.value.message
    assert variant in msg and "serving: 'python' now 'native'" in msg
    assert "measured by run t16a" in msg and "t16z" not in msg
    assert "--replace" in err.value.hint and "--repository" in err.value.hint and "--name" in err.value.hint
    assert _config(repo, variant) == before and (repo / INDEX_FILE).read_text() == index  # nothing written

    build(_opts(tmp_path, "native", replace=True))  # asked: replaced
    assert "pytorch_libtorch" in _config(repo, variant)


def test_a_rebuild_with_the_same_serving_is_not_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    build(_opts(tmp_path, "python"))
    repo = tmp_path / "repo"
    _measured(tmp_path, "t16a", repo, first_variant(repo))
    build(_opts(tmp_path, "python", force=True))  # the same variants written again: nothing differs
    assert 'backend: "python"' in _config(repo, first_variant(repo))


def test_a_build_that_would_remove_measured_variants_of_another_grid_is_refused(tmp_path, monkeypatch):
    """Re-check 19, NEW-3: a build for max batch size 16 removed the model's measured ``*_mbs8`` variants ("its onnx
    fp32 export was redone and it was not rewritten"), with no refusal; their runs could then not be bundled."""
    import dataclasses

    monkeypatch.chdir(tmp_path)
    onnx = dataclasses.replace(_opts(tmp_path, "python"), formats=("onnx",))
    build(onnx)
    repo = tmp_path / "repo"
    variant, index = first_variant(repo), (repo / INDEX_FILE).read_text()
    manifest = (tmp_path / "builds" / "mlp" / "manifest.json").read_text()
    other = dataclasses.replace(onnx, grid=dataclasses.replace(ONE_VARIANT, max_batch_sizes=(16,)))
    _measured(tmp_path, "r19", repo, variant)
    said: list[str] = []
    with pytest.raises(ConfigError) as err:
        build(other, progress=said.append)
    # said before the export is made again, not only after it (a TensorRT plan takes minutes): note_s16, NEW-3
    warned = next(i for i, line in enumerate(said) if "this export is made again" in line)
    exported = next(i for i, line in enumerate(said) if "onnx fp32: exported" in line)
    assert warned < exported and f"({variant}; runs r19)" in said[warned] and "--replace" in said[warned], said
    msg = err.value.message
    assert "would remove 1 variant" in msg and variant in msg and "measured by run r19" in msg and "nothing was written" in msg
    assert "--replace" in err.value.hint and "--max-batch-sizes" in err.value.hint
    assert (repo / variant).is_dir() and (repo / INDEX_FILE).read_text() == index  # nothing removed or written
    assert (tmp_path / "builds" / "mlp" / "manifest.json").read_text() == manifest

    (tmp_path / "results" / "r19" / "results.json").unlink()  # no run measured it: it goes, said, as before
    said.clear()
    build(other, progress=said.append)
    assert not any("this export is made again" in line for line in said), said
    assert not (repo / variant).exists()
