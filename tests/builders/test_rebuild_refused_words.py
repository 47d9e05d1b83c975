"""A rebuild's replace line is said once it replaced something, and names where it looked for runs (break-it F26: a
build refused after its exports, "nothing was written", had said "replaces the earlier export ...: its variants serve
this one now" first; F25: from another working folder it looked in ./results there only and said "no run in results
measured them" while the run beside the repository had)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.measured_runs import measuring_runs, results_dirs, where_runs
from core.errors import ConfigError
from tests.builders.test_rebuild_words import WEIGHTS_MODEL, _measured


def _opts(tmp_path: Path, mbs: int, replace: bool = False) -> BuildOptions:
    return BuildOptions(
        "w_pkg:make",
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(mbs,)),
        formats=("torchscript",),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
        replace=replace,
    )


def _build(tmp_path: Path, seed: int, mbs: int, lines: list[str], replace: bool = False) -> list[str]:
    (tmp_path / "w_pkg.py").write_text(WEIGHTS_MODEL.replace("SEED", str(seed)))
    sys.modules.pop("w_pkg", None)
    try:
        build(_opts(tmp_path, mbs, replace), lines.append)
    finally:
        sys.modules.pop("w_pkg", None)
    return lines


@pytest.mark.slow  # three real TorchScript exports
def test_a_refused_rebuild_says_no_replace_and_a_rebuild_elsewhere_finds_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the run is beside the repository, not in ./results here
    _build(tmp_path, 0, 4, [])
    _measured(tmp_path / "results", "kws1", tmp_path / "repo")
    lines: list[str] = []
    with pytest.raises(ConfigError) as e:  # other weights and another grid: the measured mbs4 variant would go
        _build(tmp_path, 1, 8, lines)
    assert "nothing was exported or written" in str(e.value) and f"the run kws1 in {tmp_path / 'results'}" in str(e.value)
    assert not any("replaces the earlier export" in x for x in lines), lines  # refused before any export (T24-16)
    lines = _build(tmp_path, 1, 4, [], replace=True)  # the same grid, asked: written, said once done
    (said,) = [x for x in lines if "replaces the earlier export" in x]
    assert f"the run kws1 in {tmp_path / 'results'} measured other content and no longer matches them" in said, said
    assert lines.index(said) > min(i for i, x in enumerate(lines) if "exported" in x or "reused" in x)


def test_runs_are_looked_for_here_and_beside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, here = tmp_path / "p" / "model_repository", tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert results_dirs(repo) == [here / "results", tmp_path / "p" / "results"]
    assert where_runs(repo) == f"{here / 'results'} and {tmp_path / 'p' / 'results'}"  # none there: every one looked in
    (tmp_path / "p" / "results").mkdir(parents=True)
    assert where_runs(repo) == str(tmp_path / "p" / "results")  # the one there
    assert results_dirs(repo, tmp_path / "mine") == [tmp_path / "mine"]  # one given: that one only
    monkeypatch.chdir(tmp_path / "p")
    assert results_dirs(repo) == [tmp_path / "p" / "results"]  # the project's folder: one folder, said once
    assert measuring_runs(repo, ["a"]) == {}
