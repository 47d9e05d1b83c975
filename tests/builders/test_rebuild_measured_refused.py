"""A build that would write over or remove variants runs measured, with another model's exports, is refused unless
``--replace``, as one of another grid is (trial 24, T24-16: a retrained model built again the same way replaced and
removed the variants four runs had measured; the runs then described a model no longer in the repository).

Each path that writes over a variant: a build of other weights (refused before any export), a ``--formats`` subset
of other weights (the other format's variants would be removed), another model source of the same weights (found
after the exports: the content differs), another imported plan, and a failed export under another spec (its earlier
variants cannot stay: refused, nothing written, rather than removed).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.serving.tensorrt_env import missing_requirements
from core.errors import ConfigError, ExportError, PartialBuildError
from tests.builders.test_rebuild_words import _measured

pytestmark = pytest.mark.slow  # real exports

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
TS, ONNX = "m_ts_cpu1_nodb_mbs4", "m_onnx_cpu1_nodb_mbs4"
MODEL = """
import torch
from torch import nn


def make():
    torch.manual_seed(SEED)
    return nn.Sequential(nn.Linear(4, 3)LAST).eval()
"""


def _build(tmp_path: Path, seed: int, lines: list[str] | None = None, last: str = "", **kw) -> None:
    """Build ``m`` (TorchScript and ONNX unless ``formats``) of weights ``seed`` into ``tmp_path/repo``."""
    (tmp_path / "m_pkg.py").write_text(MODEL.replace("SEED", str(seed)).replace("LAST", last))
    sys.modules.pop("m_pkg", None)
    opts = BuildOptions(
        "m_pkg:make",
        name="m",
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        grid=GRID,
        formats=("torchscript", "onnx"),
        spec=ModelSpec.from_flags(["x:float32:4"], [kw.pop("output", "y")]),
    )
    try:
        build(dataclasses.replace(opts, **kw), (lines if lines is not None else []).append)
    finally:
        sys.modules.pop("m_pkg", None)


def _files(repo: Path) -> dict[str, bytes]:
    return {str(p.relative_to(repo)): p.read_bytes() for p in sorted(repo.rglob("*")) if p.is_file()}


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_build_of_other_weights_over_measured_variants_is_refused_before_any_export(here: Path):
    _build(here, 0)
    _measured(here / "results", "s2", here / "repo")
    before = _files(here / "repo")
    lines: list[str] = []
    with pytest.raises(ConfigError) as e:
        _build(here, 1, lines)
    msg = str(e.value)
    assert msg.startswith(f"this build would write over or remove 2 variants of {here / 'repo'} that runs measured: {ONNX} ")
    assert "this build's weights are" in msg and "measured by run s2" in msg and "nothing was exported or written" in msg
    assert f"the run s2 in {here / 'results'}" in msg and "--replace" in (e.value.hint or "")
    assert not any("exporting" in x for x in lines), lines  # before any export
    assert _files(here / "repo") == before
    lines = []
    _build(here, 1, lines, replace=True)  # asked: replaced, and its lines name the run
    assert any("replaces the earlier export" in x and "s2" in x for x in lines), lines


def test_unmeasured_variants_are_replaced_as_before(here: Path):
    _build(here, 0)
    lines: list[str] = []
    _build(here, 1, lines)
    assert any(x.startswith("torchscript fp32: replaces the earlier export") for x in lines), lines


def test_a_formats_subset_of_other_weights_does_not_remove_the_other_formats_measured_variants(here: Path):
    _build(here, 0)
    _measured(here / "results", "s1", here / "repo")
    (here / "results" / "s1" / "results.json").write_text(
        (here / "results" / "s1" / "results.json").read_text().replace(f'"name": "{ONNX}"', '"name": "gone"')
    )  # the run measured the TorchScript variant only
    with pytest.raises(ConfigError) as e:
        _build(here, 1, formats=("onnx",))
    assert f": {TS} (it serves the earlier build's torchscript fp32 export" in str(e.value), str(e.value)
    assert (here / "repo" / TS).is_dir()


def test_another_source_of_the_same_weights_is_refused_once_its_exports_differ(here: Path):
    """The weights are the same (nothing to refuse before the exports), the model's code is not: the new
    exports are other content, found once made; refused before anything is moved in or written."""
    _build(here, 0)
    _measured(here / "results", "s1", here / "repo")
    before = _files(here / "repo")
    lines: list[str] = []
    with pytest.raises(ConfigError) as e:
        _build(here, 0, lines, last=", nn.ReLU()")
    msg = str(e.value)
    assert msg.startswith(f"this build would write over 2 variants of {here / 'repo'} that runs measured: {ONNX} ")
    assert "this build writes it again from its onnx fp32 export, of other content (model.onnx sha256 " in msg
    assert "nothing was written" in msg and "--replace" in (e.value.hint or "")
    assert any("exporting" in x for x in lines) and _files(here / "repo") == before
    assert not any("replaces the earlier export" in x for x in lines), lines  # said only once it replaced (F26)
    _build(here, 0, last=", nn.ReLU()", replace=True)


def test_a_failed_export_under_another_spec_is_refused_rather_than_removing_measured_variants(
    here: Path, monkeypatch: pytest.MonkeyPatch
):
    """Another spec (the output renamed): the earlier ONNX variant's config no longer fits this build's, so it cannot
    be kept when this build's ONNX export fails; a run measured it: the build is refused, nothing written, rather
    than removing it (it removed it, the failure said after)."""
    _build(here, 0)
    _measured(here / "results", "s1", here / "repo")
    before = _files(here / "repo")

    def broken(*_a, **_k):
        raise ExportError("onnx export failed with every strategy: dynamo: simulated")

    monkeypatch.setattr("builders.build_exports.export_onnx", broken)
    lines: list[str] = []
    with pytest.raises(ConfigError) as e:
        _build(here, 0, lines, output="out")
    msg = str(e.value)
    assert (
        f"{ONNX} (the earlier build was of another model (it differs in spec) and this build failed to export its onnx fp32 again"
        in msg
    )
    assert "nothing was written" in msg and any("onnx fp32: FAILED" in x for x in lines), lines
    assert _files(here / "repo") == before


@pytest.mark.skipif(not missing_requirements(), reason="this host runs TensorRT plans: a fake plan does not load")
def test_another_imported_plan_over_a_measured_plan_variant_is_refused(here: Path):
    plan = here / "engine.plan"
    plan.write_bytes(b"\x00serialized engine bytes")
    opts = BuildOptions(
        "tiny",
        formats=("trt",),
        grid=VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(8,), server_gpu=True),
        serving="native",
        plans={"fp32": plan},
        repository=here / "repo",
        build_dir=here / "builds",
    )
    build(opts)
    _measured(here / "results", "s1", here / "repo")
    plan.write_bytes(b"\x00another engine")
    with pytest.raises(ConfigError) as e:
        build(opts)
    assert "tiny_trt_gpu1_nodb_mbs8 (this build writes it again from its trt fp32 export, of other content" in str(e.value)
    assert (here / "repo" / "tiny_trt_gpu1_nodb_mbs8" / "1" / "model.plan").read_bytes() == b"\x00serialized engine bytes"
    build(dataclasses.replace(opts, replace=True))
    assert (here / "repo" / "tiny_trt_gpu1_nodb_mbs8" / "1" / "model.plan").read_bytes() == b"\x00another engine"


def test_a_build_into_another_repository_does_not_remove_the_earlier_repositorys_measured_variants(here: Path):
    """The same build folder into ``--repository OTHER``: its earlier variants in the first repository serve an export
    the manifest no longer records, and the build removed them there (a way out the refusals used to offer). Refused
    before any export for other weights, after them for other content of the same weights."""
    _build(here, 0)
    _measured(here / "results", "s1", here / "repo")
    before = _files(here / "repo")
    for seed, last in ((1, ""), (0, ", nn.ReLU()")):
        with pytest.raises(ConfigError) as e:
            _build(here, seed, last=last, repository=here / "other")
        assert f"variants of {here / 'repo'} that runs measured" in str(e.value) and "measured by run s1" in str(e.value)
        assert _files(here / "repo") == before
    _build(here, 1, name="m2", repository=here / "other")  # its own build folder: the first repository stays
    assert _files(here / "repo") == before


def test_a_build_of_another_source_names_the_runs_and_force_alone_does_not_write_over_them(here: Path):
    _build(here, 0)
    _measured(here / "results", "s1", here / "repo")
    (here / "n_pkg.py").write_text(MODEL.replace("SEED", "1").replace("LAST", ""))
    opts = BuildOptions(
        "n_pkg:make",
        name="m",
        repository=here / "repo",
        build_dir=here / "builds",
        grid=GRID,
        formats=("torchscript", "onnx"),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
    )
    with pytest.raises(ConfigError) as e:
        build(opts)
    assert f"the run s1 in {here / 'results'} measured its variants in {here / 'repo'}" in str(e.value)
    assert "--force" in (e.value.hint or "") and "and --replace: runs measured them" in (e.value.hint or "")
    with pytest.raises(ConfigError) as e:
        build(dataclasses.replace(opts, force=True))
    assert "this build would write over or remove 2 variants" in str(e.value) and "--replace" in (e.value.hint or "")
    build(dataclasses.replace(opts, force=True, replace=True))


def test_the_in_process_baseline_does_not_time_the_new_eager_model_as_a_kept_variants_baseline(
    here: Path, monkeypatch: pytest.MonkeyPatch
):
    """--replace, other weights, the ONNX export failed: the ONNX variant is kept (``other_model``), serving the
    earlier file, while the build's source loads the new weights. The baseline timed that eager model beside it as its
    baseline (the same model in the table). Its served file is timed as served; the eager model only for the variants
    it is the model of (TorchScript here), and a note says why."""
    from perf.profile.baseline import BaselineOptions, run_baseline
    from perf.profile.timing import TimingSettings

    _build(here, 0)

    def broken(*_a, **_k):
        raise ExportError("onnx export failed with every strategy: dynamo: simulated")

    monkeypatch.setattr("builders.build_exports.export_onnx", broken)
    with pytest.raises(PartialBuildError):
        _build(here, 1, replace=True)
    monkeypatch.syspath_prepend(str(here))  # the eager model's factory, m_pkg (now the new weights)
    quick = TimingSettings(min_run_time_s=0.01, warmup_s=0.0, warmup_runs=1, rounds=1)
    result = run_baseline(BaselineOptions(here / "repo", variants=[ONNX], timing=quick, batch_sizes=(1,)))
    assert {p.key.format for p in result.points} == {"onnx"}, result.points  # no eager point as the ONNX one's baseline
    assert all(p.ok for p in result.points), result.points  # its served file, timed as served
    (note,) = [n for n in result.notes if n.startswith(f"{ONNX}: ")]
    assert "serves the earlier build's onnx fp32 export, of another model (weights_sha256_16 " in note
    assert "the eager model of the source is not timed as its baseline" in note
    both = run_baseline(BaselineOptions(here / "repo", timing=quick, batch_sizes=(1,)))
    assert {(p.key.format, p.ok) for p in both.points} == {("onnx", True), ("torchscript", True), ("eager", True)}


def test_files_are_hashed_only_for_variants_a_run_measured(here: Path, monkeypatch: pytest.MonkeyPatch):
    """The refusal reads a variant's files only where a run measured it (a model of gigabytes, served by many variants,
    is not hashed again per variant on every rebuild)."""
    import builders.repository.replacing as replacing
    import builders.repository.run_stamps as run_stamps

    _build(here, 0)
    read: list[Path] = []
    digests = run_stamps.file_digests

    def counted(path: Path) -> set[str]:
        read.append(path)
        return digests(path)

    monkeypatch.setattr(replacing, "file_digests", counted)
    monkeypatch.setattr(run_stamps, "file_digests", counted)
    _build(here, 0, last=", nn.ReLU()")  # other content, no run: written over as before, nothing hashed for it
    assert read == []
