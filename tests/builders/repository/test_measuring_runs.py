"""A build's refusal to replace variants names only the runs that measured them: a run that planned a
variant and cut it for time (status ``skipped``, no level), or failed every level of it, measured
nothing of it (trial 19, T19-12: runs were named as having measured variants they only cut)."""

from __future__ import annotations

import json
from pathlib import Path

from builders.repository.measured_runs import measuring_runs


def _run(results: Path, run_id: str, repo: Path, variants: list[dict]) -> None:
    folder = results / run_id
    folder.mkdir(parents=True)
    record = {"run_id": run_id, "settings": {"repository": str(repo)}, "variants": variants}
    (folder / "results.json").write_text(json.dumps(record))


def _level(throughput: float | None, error: str | None = None) -> dict:
    return {"concurrency": 1, "throughput_infer_per_s": throughput, "error": error}


def test_only_runs_with_numbers_of_a_variant_are_said_to_have_measured_it(tmp_path):
    repo, results = tmp_path / "repo", tmp_path / "results"
    repo.mkdir()
    _run(results, "measured", repo, [{"name": "a", "status": "ok", "levels": [_level(120.0)]}])
    _run(results, "cut", repo, [{"name": "a", "status": "skipped", "error": "not measured: cut for time", "levels": []}])
    _run(results, "failed", repo, [{"name": "a", "status": "failed", "levels": [_level(None, "server died")]}])
    _run(results, "zero", repo, [{"name": "a", "status": "failed", "levels": [_level(0.0)]}])
    _run(results, "part", repo, [{"name": "a", "status": "skipped", "levels": [_level(None, "x"), _level(80.0)]}])
    _run(results, "planned", repo, [{"name": "a", "status": "pending"}])

    assert measuring_runs(repo, ["a"], results) == {"a": ["measured", "part"]}
