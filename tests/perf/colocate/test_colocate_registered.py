"""A co-location run is registered in its repository's ``.runs.json`` before it loads anything, as a sweep is, so that
``builders remove`` and ``make clean`` see a running ``triton-perf colocate`` wherever ``--results-dir`` put it
(s23r, M4: its folder holds no results.json and was in no ``.runs.json``, so its variants were deleted under it).
A resume registers its run too (s24c: a run begun before registration existed, resumed, was never seen). No server
starts here."""

from __future__ import annotations

from pathlib import Path

import pytest
from colocation_repo import idle_perf_analyzer, variant_repo

from builders.repository.measured_runs import live_runs, recorded_runs
from clients.runtimes.identity import found_artifact
from clients.runtimes.options import ServerOptions
from perf.colocate.options import ColocateOptions
from perf.colocate.run import Colocate
from perf.records import colocation


def _repo(tmp_path: Path) -> Path:
    repo = variant_repo(tmp_path, {"a1": 1, "b1": 1})
    for name in ("a1", "b1"):
        (repo / name / "1" / "model.onnx").write_bytes(f"{name} weights".encode())
    return repo


def _opts(repo: Path, results: Path, **kw: object) -> ColocateOptions:
    return ColocateOptions(
        server=ServerOptions(repository=repo, runtime="bundled"),
        results_dir=results,
        run_id="c",
        perf_analyzer=idle_perf_analyzer(repo.parent),
        **kw,  # type: ignore[arg-type]
    )


def test_a_new_colocate_run_is_registered_and_seen_live_until_it_lets_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo = _repo(tmp_path)
    results = tmp_path / "elsewhere" / "results"  # not a folder builders look in: only .runs.json finds the run
    assert live_runs(repo, ["a1"]) == [] and recorded_runs(repo) == []
    run = Colocate(_opts(repo, results, models={"a": ("a*",), "b": ("b*",)}))
    try:
        assert recorded_runs(repo) == [(results / "c").resolve()]
        assert not (results / "c" / colocation.COLOCATION_FILE).exists()  # seen before its record is written
        live = live_runs(repo, ["a1"])
        assert len(live) == 1 and live[0].startswith(f"c ({(results / 'c').resolve()}"), live
        assert live_runs(repo, None) == live  # make clean's question: any variant of the repository
        assert live_runs(repo, ["not_measured"]) == live  # no record yet: it may be about to load any
    finally:
        run.close()
    assert live_runs(repo, ["a1"]) == [] and recorded_runs(repo) == [(results / "c").resolve()]


def test_a_resumed_colocate_run_is_registered_though_its_first_session_was_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    repo = _repo(tmp_path)
    results = tmp_path / "elsewhere" / "results"
    models = [colocation.ColocatedModel("a", ["a1"]), colocation.ColocatedModel("b", ["b1"])]
    rec = colocation.ColocationRecord("c", "2026-12-02T00:00:00", str(repo.resolve()), models)
    rec.artifacts = {v: found_artifact(repo / v) for v in ("a1", "b1")}
    colocation.save(rec, results / "c")  # a run begun before colocate registered its runs
    assert recorded_runs(repo) == []
    run = Colocate(_opts(repo, results, resume=True))
    try:
        assert run.previous is not None and recorded_runs(repo) == [(results / "c").resolve()]
        assert [line.split(" ")[0] for line in live_runs(repo, ["b1"])] == ["c"]
    finally:
        run.close()
    assert live_runs(repo, ["b1"]) == []
