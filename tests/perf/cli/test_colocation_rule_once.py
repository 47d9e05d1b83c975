"""Whether a folder is a co-location run is one rule (:func:`perf.records.colocation.is_colocation`), asked once per
command: ``report`` asked its own copy twice (its flag refusal and its writer), ``export-deployment`` and a rerun's
empty-folder check (:func:`perf.sweep.preflight.unmeasured_folder`) each had another copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perf.cli.main import cli
from perf.records import colocation


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    asked: list[Path] = []
    rule = colocation.is_colocation

    def counted(run_dir: Path) -> bool:
        asked.append(Path(run_dir))
        return rule(run_dir)

    monkeypatch.setattr(colocation, "is_colocation", counted)
    return asked


def test_report_asks_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / colocation.COLOCATION_FILE).write_text("{}")
    asked = _counted(monkeypatch)
    written: list[Any] = []
    monkeypatch.setattr("perf.cli.report.print_colocation_report", written.append)
    res = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert asked == [tmp_path] and written == [tmp_path]


def test_export_deployment_asks_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / colocation.COLOCATION_FILE).write_text("{}")
    asked = _counted(monkeypatch)

    class Stop(Exception):
        pass

    def stop(*_a: Any, **_k: Any) -> None:
        raise Stop

    monkeypatch.setattr("perf.deploy.combination.export_combination", stop)
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path)])
    assert isinstance(res.exception, Stop), res.output
    assert asked == [tmp_path]


def test_a_rerun_reads_the_same_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perf.sweep.preflight import unmeasured_folder

    (tmp_path / colocation.COLOCATION_FILE).write_text("{}")
    asked = _counted(monkeypatch)
    unmeasured_folder(tmp_path)
    assert asked == [tmp_path]
