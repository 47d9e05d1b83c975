"""A rebuild's words match what the repository and its index hold after it: the summary line
names what this build wrote and what it kept from before (new-user trial: "earlier records
dropped" beside TorchScript variants that were still served)."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.cli.summary import repository_line
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.writer import update_index


def _entry(name: str, model: str, fmt: str) -> dict:
    return {
        "name": name,
        "serving": "python",
        "build": "/b/" + model,
        "model": model,
        "format": fmt,
        "precision": "fp32",
        "kind": "cpu",
        "count": 1,
        "max_batch_size": 8,
        "dynamic_batching": False,
        "max_queue_delay_us": 0,
        "preferred_batch_sizes": [],
        "gpus": [],
        "warmup": None,
        "trt_accelerator": None,
    }


def test_the_repository_line_names_what_was_kept(tmp_path: Path):
    names = [("m_onnx_cpu1_nodb_mbs8", "m", "onnx"), ("m_ts_cpu1_nodb_mbs8", "m", "torchscript")]
    names += [("m_ts_cpu2_nodb_mbs8", "m", "torchscript"), ("o_onnx_cpu1_nodb_mbs8", "o", "onnx")]
    for n, _m, _f in names:
        (tmp_path / n).mkdir()
    update_index(tmp_path, [_entry(*x) for x in names])
    line = repository_line(tmp_path, [tmp_path / "m_onnx_cpu1_nodb_mbs8"])
    assert line == (
        f"repository: {tmp_path} (this build wrote 1 variant; its index lists 4: the 1 written now and 3 kept from "
        "before: m torchscript fp32 ×2, o onnx fp32 ×1)"
    )
    assert (
        repository_line(tmp_path, [tmp_path / n for n, _m, _f in names])
        == f"repository: {tmp_path} (this build wrote 4 variants)"
    )


WEIGHTS_MODEL = """
import torch
from torch import nn


def make():
    torch.manual_seed(SEED)
    return nn.Sequential(nn.Linear(4, 3)).eval()
"""


@pytest.mark.slow  # two real TorchScript exports
def test_a_rebuild_with_other_weights_says_it_replaced_the_earlier_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # trial 6: the weights edited in place and rebuilt under the same name; the build said nothing
    # of the earlier export it replaced, which a run had measured
    monkeypatch.syspath_prepend(str(tmp_path))
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    opts = BuildOptions(
        "w_pkg:make",
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        grid=grid,
        formats=("torchscript",),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
    )
    lines: list[str] = []
    for seed in (0, 0, 1):
        (tmp_path / "w_pkg.py").write_text(WEIGHTS_MODEL.replace("SEED", str(seed)))
        sys.modules.pop("w_pkg", None)
        lines.clear()
        build(opts, lines.append)
        if seed == 0:
            assert not any("replaces" in x for x in lines), lines  # the first build, then an unchanged one (reused)
    (said,) = [x for x in lines if "replaces the earlier export" in x]
    assert said.startswith("torchscript fp32: replaces the earlier export of another content (model.pt sha256 ")
    # trial 24, T24-11: a --force rebuild of the same weights said "made now" alone; it says the content is the same
    sys.modules.pop("w_pkg", None)
    lines.clear()
    build(dataclasses.replace(opts, force=True), lines.append)
    (same,) = [x for x in lines if "same content" in x]
    assert same.startswith("torchscript fp32: made again with the same content as the earlier export (model.pt sha256 ")
    assert not any("replaces the earlier export" in x for x in lines), lines
    sys.modules.pop("w_pkg", None)


def _measured(results: Path, run_id: str, repo: Path) -> None:
    """A run in ``results`` that measured every variant of ``repo``, stamped with the files they serve now."""
    import hashlib
    import json

    variants = [
        {
            "name": v.name,
            "levels": [{"error": None, "throughput_infer_per_s": 100.0}],
            "served": [
                {
                    "moment": "after load",
                    "artifact": {
                        "source": "found",
                        "where": str(v),
                        "files": [
                            {
                                "path": str(f.relative_to(v)),
                                "size_bytes": f.stat().st_size,
                                "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
                            }
                            for f in sorted(v.glob("[0-9]*/*"))
                            if f.is_file()
                        ],
                    },
                }
            ],
        }
        for v in sorted(repo.iterdir())
        if (v / "config.pbtxt").is_file()
    ]
    (results / run_id).mkdir(parents=True)
    (results / run_id / "results.json").write_text(
        json.dumps({"run_id": run_id, "settings": {"repository": str(repo)}, "variants": variants})
    )


@pytest.mark.slow  # three real TorchScript exports
def test_a_rebuild_names_the_runs_it_leaves_behind_and_those_it_matches_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Trial 22, F-rebuild-runs: the line said "runs that measured the earlier one no longer match them" without naming
    them; F-rebuild-msg: the same words when the rebuild restored the weights the runs measured. Now each run in
    results/ is checked: those that measured other content are named as no longer matching, those that measured this
    content as matching again."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    repo = tmp_path / "repo"
    opts = BuildOptions(
        "w_pkg:make",
        repository=repo,
        build_dir=tmp_path / "builds",
        grid=grid,
        formats=("torchscript",),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
    )
    said: list[str] = []
    replaced: list[list[str]] = []
    for seed in (0, 1, 0):
        (tmp_path / "w_pkg.py").write_text(WEIGHTS_MODEL.replace("SEED", str(seed)))
        sys.modules.pop("w_pkg", None)
        lines: list[str] = []
        build(dataclasses.replace(opts, replace=seed == 1), lines.append)  # other weights over measured ones: asked
        said += [x for x in lines if "replaces the earlier export" in x]
        replaced.append([x for x in lines if x.startswith("replaced ")])
        if seed == 0 and not said:
            _measured(tmp_path / "results", "kws1", repo)
            _measured(tmp_path / "results", "kws2", repo)
    sys.modules.pop("w_pkg", None)
    assert len(said) == 2, said
    assert said[0].endswith(
        f"its variants serve this one now; the runs kws1, kws2 in {tmp_path / 'results'} measured other content and no longer match "
        "them (no --resume of them measures these files: one that would is refused; a new run measures them)"
    ), said[0]  # break-it F11: "a --resume of them is refused", and a resume of a finished one is taken
    assert said[1].endswith(
        f"its variants serve this one now; the runs kws1, kws2 in {tmp_path / 'results'} measured this content and match them again"
    ), said[1]
    # trial 30, F6: each variant the runs measured is named in a `replaced ...` line (README), not the export alone
    names = sorted(v.name for v in repo.iterdir() if (v / "config.pbtxt").is_file())
    assert [x.split(" (")[0] for x in replaced[1]] == [f"replaced {repo / n}" for n in names], replaced
    assert all(
        "the runs kws1, kws2 measured the earlier one" in x and "print the build that restores it" in x for x in replaced[1]
    )
    assert replaced[2] == []  # the weights they measured again: nothing of theirs replaced


@pytest.mark.slow  # three real TorchScript exports
def test_a_re_export_of_the_same_weights_in_other_bytes_replaces_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Break-it F10: ``torch.jit.save`` of the same module writes other bytes in another process (an unused pickle
    memo entry in ``data.pkl``); a ``--force`` build then said "replaces the earlier export of another content ... the
    run R ... no longer matches them (a --resume of it is refused)", and a build of another grid refused to go on
    (its re-export "would remove" the measured variants of the earlier grid). The same content is the same model now."""
    from archives import resave

    import builders.export.torchscript as torchscript
    from builders.export.artifacts import file_sha256

    saved = torchscript.save_archive

    def save_again(module, path: Path) -> None:  # another process's save of the same module
        saved(module, path)
        resave(path)

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w_pkg.py").write_text(WEIGHTS_MODEL.replace("SEED", "0"))
    sys.modules.pop("w_pkg", None)
    repo = tmp_path / "repo"
    opts = BuildOptions(
        "w_pkg:make",
        repository=repo,
        build_dir=tmp_path / "builds",
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
        formats=("torchscript",),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
    )
    build(opts, lambda _line: None)
    manifest = tmp_path / "builds" / "make" / "manifest.json"
    record = json.loads(manifest.read_text())
    content = record["exports"][0].pop("content_sha256")
    manifest.write_text(json.dumps(record))  # a manifest written before content digests
    build(opts, lambda _line: None)  # unchanged: the export is reused, and its record gains its content digest
    assert json.loads(manifest.read_text())["exports"][0]["content_sha256"] == content
    _stamped(tmp_path / "results", "f10", repo)
    first = file_sha256(repo / "make_ts_cpu1_nodb_mbs4" / "1" / "model.pt")
    monkeypatch.setattr(torchscript, "save_archive", save_again)
    lines: list[str] = []
    build(dataclasses.replace(opts, force=True), lines.append)
    assert file_sha256(repo / "make_ts_cpu1_nodb_mbs4" / "1" / "model.pt") != first  # other bytes
    assert not any("replaces the earlier export" in x for x in lines), lines
    monkeypatch.setattr(torchscript, "save_archive", saved)
    lines.clear()
    other_grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(2,))
    build(dataclasses.replace(opts, grid=other_grid), lines.append)  # re-exported: another max batch size
    assert (repo / "make_ts_cpu1_nodb_mbs4").is_dir()  # kept, serving the same content
    sys.modules.pop("w_pkg", None)


def _stamped(results: Path, run_id: str, repo: Path) -> None:
    """A run in ``results`` that measured every variant of ``repo``, stamped as a sweep stamps a load
    (:func:`clients.runtimes.identity.found_artifact`)."""
    import json

    from clients.runtimes.identity import found_artifact

    variants = [
        {
            "name": v.name,
            "levels": [{"error": None, "throughput_infer_per_s": 100.0}],
            "served": [{"moment": "after load", "artifact": dataclasses.asdict(found_artifact(v))}],
        }
        for v in sorted(repo.iterdir())
        if (v / "config.pbtxt").is_file()
    ]
    (results / run_id).mkdir(parents=True)
    (results / run_id / "results.json").write_text(
        json.dumps({"run_id": run_id, "settings": {"repository": str(repo)}, "variants": variants})
    )


@pytest.mark.slow  # two real TorchScript exports, then one taken back and one made again
def test_a_replace_build_of_the_same_weights_says_it_is_still_not_what_the_runs_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Trial 31, F12: the weights retrained in place and rebuilt with --replace; the restore command a refusal printed
    (the same command) then rebuilt the new weights again, said nothing, and the refusal printed it again. The build
    now says its export is still not what the runs measured, and what restores it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    repo = tmp_path / "repo"
    opts = BuildOptions(
        "w_pkg:make", repository=repo, build_dir=tmp_path / "builds", grid=grid, formats=("torchscript",),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
    )  # fmt: skip
    said: list[list[str]] = []
    for seed, force in ((0, False), (1, False), (1, False), (1, True)):
        (tmp_path / "w_pkg.py").write_text(WEIGHTS_MODEL.replace("SEED", str(seed)))
        sys.modules.pop("w_pkg", None)
        lines: list[str] = []
        build(dataclasses.replace(opts, replace=seed == 1, force=force), lines.append)
        said.append([x for x in lines if "still not what" in x or "same content" in x])
        if len(said) == 1:
            _measured(tmp_path / "results", "r1", repo)
    sys.modules.pop("w_pkg", None)
    assert said[0] == [] and said[1] == [], said
    for lines in said[2:]:  # taken back (its reuse key), then made again (--force): the same words
        assert len(lines) == 1 and "still not what the run r1 in " in lines[0], lines
        assert lines[0].startswith("torchscript fp32: the same content as the earlier export (")
        assert "built from the same model files (weights_sha256_16 " in lines[0]
        assert lines[0].endswith("put back the weights (model source) it measured and build again to restore it")
        assert "still match them" not in lines[0]
