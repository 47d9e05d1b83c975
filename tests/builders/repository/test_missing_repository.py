"""A repository that is not where a command looked names the absolute path looked at (trial 8 F15: a sweep run
from another folder said "model repository model_repository does not exist -> run `builders build` first"), and the
-r that reads the current directory's model_repository where another path was given, never the toolkit install's own
repository (trial 23, T23-11: `builders validate model_repo` from a project folder was told "pass
/work/main/model_repository (this checkout's repository)", the install's checkout). One helper
(builders.repository.missing) for every command whose default repository is relative."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from builders.repository import missing
from builders.repository.validate import validate_repository
from builders.repository.view import Repository
from clients.cli.main import cli as clients_cli
from core.errors import PerfError, RepositoryError, ServerError
from perf.cli.main import cli as perf_cli

#: The toolkit's own checkout, whose model_repository a hint must never name.
INSTALL = Path(missing.__file__).resolve().parents[2]


@pytest.fixture()
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder is a user's, without a model_repository; the toolkit's checkout has one (tracked)."""
    (tmp_path / "user").mkdir()
    monkeypatch.chdir(tmp_path / "user")
    return tmp_path / "user"


def _says_where_and_what(text: str, hint: str, flag: str = "-r") -> None:
    looked = Path.cwd() / "model_repository"
    assert f"model_repository does not exist (looked at {looked}: a relative path is from the current directory)" in text
    assert str(INSTALL / "model_repository") not in hint and "this checkout's" not in hint
    assert "run `builders build` first" in hint


def test_the_message_names_the_path_looked_at_never_the_installs_repository(elsewhere):
    with pytest.raises(RepositoryError) as e:
        Repository("model_repository").names()
    _says_where_and_what(e.value.message, e.value.hint or "")
    with pytest.raises(RepositoryError) as e:
        Repository("model_repository").variant("mlp_onnx_cpu1_nodb_mbs8")  # not "has no variant"
    _says_where_and_what(e.value.message, e.value.hint or "")


def test_without_a_repository_here_it_says_to_build(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RepositoryError) as e:
        Repository("model_repository").names()
    assert "run `builders build` first" in (e.value.hint or "") and " -r " in (e.value.hint or "")
    with pytest.raises(RepositoryError) as e:  # an absolute path: no "relative" words
        Repository(tmp_path / "gone").names()
    assert e.value.message == f"model repository {tmp_path / 'gone'} does not exist"


def test_every_command_with_a_default_repository_says_the_same(elsewhere):
    for cli, args, error in [
        (perf_cli, ["sweep", "--variants", "x_*", "--time-budget", "1m"], PerfError),
        (perf_cli, ["coldstart", "--variants", "x"], RepositoryError),
        (clients_cli, ["check"], RepositoryError),
        (clients_cli, ["serve", "--print-cmd"], ServerError),
    ]:
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2, (args, error, res.output)  # a folder named that is not there: usage (T17-15)
        _says_where_and_what(res.output, " ".join(res.output.split()))


def test_validate_names_the_folder_to_pass(elsewhere):
    (problem,) = validate_repository("model_repository")
    assert problem.file == "model_repository"
    _says_where_and_what(f"{problem.file} {problem.problem}", problem.fix)
    (elsewhere / "model_repository").mkdir()  # the user's own, beside the path mistyped
    res = CliRunner().invoke(builders_cli, ["validate", "model_repo"])
    said = " ".join(res.output.split())
    assert res.exit_code != 0 and "this checkout's repository" not in said and str(INSTALL / "model_repository") not in said
    assert f"pass model_repository (the model repository in the current directory, {elsewhere})" in said


@pytest.mark.parametrize("indexed", [True, False])
def test_an_empty_repository_in_the_current_folder_names_where_it_looked(elsewhere, indexed):
    """Trial 18, T18-14: a sweep run from another folder that held an empty model_repository said
    "model_repository holds no model folder with a config.pbtxt" with no path and no way to the user's build."""
    (Path.cwd() / "model_repository").mkdir()
    with pytest.raises(RepositoryError) as e:
        Repository(Path("model_repository")).names(indexed=indexed)
    what = "has no index.json listing its variants" if indexed else "holds no model folder with a config.pbtxt"
    looked = Path.cwd() / "model_repository"
    assert e.value.message == f"model_repository {what} (looked at {looked}: a relative path is from the current directory)"
    assert str(INSTALL / "model_repository") not in (e.value.hint or "") and "build into it" not in (e.value.hint or "")


def test_validate_reads_model_repository_without_a_path(tmp_path, monkeypatch):
    """T24-18: `builders validate` alone was "Missing argument 'PATH'" while every other command's -r defaults to
    model_repository in the current directory; now it reads that folder, and says where it looked when it is not there."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(builders_cli, ["validate"])
    assert result.exit_code == 2 and "Missing argument" not in result.output
    assert f"looked at {tmp_path / 'model_repository'}" in result.output
    (tmp_path / "model_repository").mkdir()
    result = CliRunner().invoke(builders_cli, ["validate"])
    assert result.exit_code == 1 and "holds no model folders" in result.output
