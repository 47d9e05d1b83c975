"""An interrupted build loses no record: ``builders build --force`` stopped by Ctrl-C during its
exports deleted the earlier build's ``manifest.failed.json`` (removed when the build claimed its
folder) and wrote none of its own, so what the failed build had tried was gone."""

from __future__ import annotations

from pathlib import Path

import pytest

import builders.build as build_module
from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.repository.records import FAILED_MANIFEST_FILE

pytestmark = pytest.mark.slow  # loads the built-in model with torch


def test_an_interrupted_build_keeps_the_earlier_failed_builds_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "builds" / "tiny"
    out.mkdir(parents=True)
    earlier = '{"what": "the earlier build that failed"}\n'
    (out / FAILED_MANIFEST_FILE).write_text(earlier)

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(build_module, "export_each_format", interrupted)
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    opts = BuildOptions(
        "tiny", formats=("onnx",), grid=grid, repository=tmp_path / "repo", build_dir=tmp_path / "builds", force=True
    )
    with pytest.raises(KeyboardInterrupt):
        build(opts)
    assert (out / FAILED_MANIFEST_FILE).read_text() == earlier
