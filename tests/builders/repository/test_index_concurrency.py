"""Two builds of different models into one repository at once both update ``index.json``: neither's
entries are lost and neither fails (one shared temp name let one writer's rename take the other's
file, whose rename then raised FileNotFoundError; the read-modify-write lost the other's entries)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from builders.repository.records import INDEX_FILE
from builders.repository.writer import update_index
from core.records import is_temp_of

ROUNDS = 40


def _builds(repo: str, model: str, start: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    start.wait()
    for i in range(ROUNDS):
        name = f"{model}_onnx_cpu{i}_nodb_mbs8"
        (Path(repo) / name).mkdir()
        update_index(Path(repo), [{"name": name, "model": model, "format": "onnx", "serving": "python"}])


def test_two_models_updating_one_index_at_once_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [ctx.Process(target=_builds, args=(str(tmp_path), m, start)) for m in ("alpha", "beta", "gamma")]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]  # a FileNotFoundError in a rename exits 1
    names = [e["name"] for e in json.loads((tmp_path / INDEX_FILE).read_text())["variants"]]
    assert len(names) == 3 * ROUNDS == len(set(names)), f"{3 * ROUNDS - len(names)} entries lost"
    assert not [p.name for p in tmp_path.iterdir() if is_temp_of(p.name, INDEX_FILE)]  # no temp file left


def test_a_temp_file_is_named_for_its_record_only() -> None:
    assert is_temp_of("results.json.0a1b2c3d4e5f.tmp", "results.json")
    assert not is_temp_of("results.json", "results.json")
    assert not is_temp_of("colocation.json.0a1b.tmp", "results.json")
    assert not is_temp_of("results.jsonx.tmp", "results.json")
