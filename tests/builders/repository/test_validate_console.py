"""``builders validate``'s console output stays short: one row per kind of problem or check not
run (its files counted, the first named), every file with ``--details``; the tables are drawn
whole when not a terminal (new-user trial: 214 lines for a default build)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import builders.cli.validate as validate_cli
from builders.cli.main import cli
from builders.repository.validate import Validation, validate
from builders.triton.rules import Problem

WHY = "TorchScript archive read from its structure and code text, not deserialised: whether libtorch loads it was not checked"


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    names = [f"m_{f}_cpu{c}_{d}_mbs64" for f in ("ts", "onnx") for c in (1, 2) for d in ("nodb", "db500")]
    for n in names:
        (tmp_path / n).mkdir()
    skipped = [Problem(str(tmp_path / n / "1" / "model.pt"), "torchscript load", WHY, "pass --load-artifacts") for n in names[:4]]
    skipped += [Problem(str(tmp_path / n / "1" / "model.onnx"), "ONNX limits", "python backend", "nothing") for n in names[4:]]
    skipped.append(Problem(str(tmp_path), "target server limits", "no target release", "pass --target-triton"))
    result = Validation(problems=[], skipped=skipped, notes=["artifacts: ONNX graphs parsed as protobuf " + "x" * 150])
    monkeypatch.setattr(validate_cli, "validate_run", lambda *_a, **_k: result)
    return tmp_path


def test_validate_prints_one_row_per_kind_and_every_file_with_details(repo: Path):
    short = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(repo)])
    assert short.exit_code == 0, short.output
    assert len(short.output.splitlines()) <= 40, short.output
    assert short.output.count("pass --load-artifacts") == 1
    assert "4 files: m_ts_cpu1_nodb_mbs64/1/model.pt and 3 more" in short.output
    assert "8 models checked, no problems (9 checks not run, 3 rows above, one per kind; --details: a row each)" in (
        " ".join(short.output.split())
    )
    assert "x" * 150 in short.output  # a note is one line when not a terminal, never cut
    full = CliRunner().invoke(cli, ["validate", str(repo), "--details"])
    assert full.output.count("pass --load-artifacts") == 4 and "(9 checks not run, a row each above)" in full.output


def test_a_warning_is_its_own_table_and_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # a repository Triton serves right (a mix of PyTorch naming conventions in the names' order) is not failed
    (tmp_path / "m").mkdir()
    mixed = Problem(
        str(tmp_path / "m" / "config.pbtxt"), "input[x, mask__1].name", "the inputs mix", "name every one", warning=True
    )
    monkeypatch.setattr(validate_cli, "validate_run", lambda *_a, **_k: Validation(warnings=[mixed]))
    out = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(tmp_path)])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "warnings (served as meant today; not failures)" in text and "input[x, mask__1].name" in text
    assert "1 model checked, no problems; 1 warning (a table above: served as meant, not a failure)" in text


def test_load_artifacts_says_each_model_as_it_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # trial 12, F20: 22 models, 1.5 minutes of TorchScript loads, nothing printed until the tables
    def run(*_a, progress=None, **_k):
        for i, name in enumerate(("a", "b")):
            progress(i, 2, name)
        progress(2, 2, "")
        return Validation()

    monkeypatch.setattr(validate_cli, "validate_run", run)
    loaded = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(tmp_path), "--load-artifacts"])
    assert loaded.exit_code == 0, loaded.output
    assert "checking 1/2: a" in loaded.output and "checking 2/2: b" in loaded.output
    quick = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(tmp_path)])
    assert "checking 1/2" not in quick.output  # seconds without loads: the bar alone, on a terminal


def test_validate_reports_each_model_folder_to_progress(tmp_path: Path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    seen = []
    validate(tmp_path, check_artifacts=False, progress=lambda done, total, model: seen.append((done, total, model)))
    assert seen == [(0, 2, "a"), (1, 2, "b"), (2, 2, "")]
