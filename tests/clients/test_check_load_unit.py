"""``clients check``'s load of a variant on a running server (:mod:`clients.check_load`, trial 31, F13): a folder that
cannot load is refused before the server is asked, by ``builders validate``'s own rule; a load that ran out of time
says what to check."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.repository.validate import validate_model
from builders.repository.version_checks import load_blockers
from clients import check_load

CONFIG = 'name: "m"\nbackend: "python"\nmax_batch_size: 8\n'


def _folder(root: Path, config: str = CONFIG, files: tuple[str, ...] = ()) -> Path:
    (root / "m" / "1").mkdir(parents=True)
    (root / "m" / "config.pbtxt").write_text(config)
    for f in files:
        (root / "m" / "1" / f).write_text("")
    return root / "m"


def test_a_python_folder_without_model_py_is_refused_without_asking_the_server(tmp_path: Path, monkeypatch) -> None:
    _folder(tmp_path)
    monkeypatch.setattr(check_load, "load_by_name", lambda *a: pytest.fail("the server was asked"))
    said = check_load.load_variant(tmp_path, "m", "localhost:1", "http", 60, lambda: None)
    assert said is not None and "its folder cannot load" in said and "m/1: model.py is missing" in said, said
    assert f"builders validate {tmp_path}" in said
    # one rule: builders validate says the same problem
    assert [p.problem for p in load_blockers(tmp_path / "m")] == [
        p.problem for p in validate_model(tmp_path / "m", check_artifacts=False) if p.field == "model file"
    ]


def test_blockers_are_the_versions_triton_loads(tmp_path: Path) -> None:
    model = _folder(tmp_path, files=("model.py",))
    (model / "2").mkdir()
    assert [Path(p.file).name for p in load_blockers(model)] == ["2"]  # the latest version is loaded, without model.py
    (model / "config.pbtxt").write_text(CONFIG + "version_policy { specific { versions: 1 } }\n")
    assert load_blockers(model) == []
    (model / "config.pbtxt").write_text("not { a config")
    assert load_blockers(model) == []  # the server says why


def test_a_load_that_runs_out_of_time_says_what_to_check(tmp_path: Path, monkeypatch) -> None:
    _folder(tmp_path, files=("model.py",))

    def hung(*a) -> None:
        raise TimeoutError("its load request had no answer within 5 s")

    monkeypatch.setattr(check_load, "load_by_name", hung)
    said = check_load.load_variant(tmp_path, "m", "localhost:1", "grpc", 5, lambda: None)
    assert said is not None and "no answer within 5 s (--start-timeout)" in said
    assert f"builders validate {tmp_path}" in said and "server's own log" in said and "`log:`" in said
