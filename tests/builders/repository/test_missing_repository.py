"""A repository that is not where a command looked names the absolute path looked at and, when
this checkout has a model_repository/ of its own, the -r that reads it (trial 8 F15: a sweep run
from another folder said "model repository model_repository does not exist -> run `builders build`
first" to a user who had built it in the checkout). One helper (builders.repository.missing) for
every command whose default repository is relative."""

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


@pytest.fixture()
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder is not the checkout; the checkout's own repository is ``checkout/model_repository``."""
    own = tmp_path / "checkout" / "model_repository"
    own.mkdir(parents=True)
    monkeypatch.setattr(missing, "CHECKOUT_REPOSITORY", own)
    (tmp_path / "user").mkdir()
    monkeypatch.chdir(tmp_path / "user")
    return own


def _says_where_and_what(text: str, hint: str, own: Path, flag: str = "-r ") -> None:
    looked = Path.cwd() / "model_repository"
    assert f"model_repository does not exist (looked at {looked}: a relative path is from the current directory)" in text
    assert f"pass {flag}{own} (this checkout's repository)" in hint


def test_the_message_names_the_path_looked_at_and_the_checkout_s_repository(elsewhere):
    with pytest.raises(RepositoryError) as e:
        Repository("model_repository").names()
    _says_where_and_what(e.value.message, e.value.hint or "", elsewhere)
    with pytest.raises(RepositoryError) as e:
        Repository("model_repository").variant("mlp_onnx_cpu1_nodb_mbs8")  # not "has no variant"
    _says_where_and_what(e.value.message, e.value.hint or "", elsewhere)


def test_without_a_checkout_repository_it_says_to_build(tmp_path, monkeypatch):
    monkeypatch.setattr(missing, "CHECKOUT_REPOSITORY", tmp_path / "nowhere" / "model_repository")
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
        _says_where_and_what(res.output, res.output, elsewhere)


def test_validate_names_the_folder_to_pass(elsewhere):
    (problem,) = validate_repository("model_repository")
    assert problem.file == "model_repository"
    _says_where_and_what(f"{problem.file} {problem.problem}", problem.fix, elsewhere, flag="")
    res = CliRunner().invoke(builders_cli, ["validate", "model_repository"])
    assert res.exit_code != 0 and "this checkout's repository" in res.output


@pytest.mark.parametrize("indexed", [True, False])
def test_an_empty_repository_in_the_current_folder_names_where_it_looked_and_the_checkouts(elsewhere, indexed):
    """Trial 18, T18-14: a sweep run from another folder that held an empty model_repository said
    "model_repository holds no model folder with a config.pbtxt" with no path and no way to the user's build."""
    (Path.cwd() / "model_repository").mkdir()
    with pytest.raises(RepositoryError) as e:
        Repository(Path("model_repository")).names(indexed=indexed)
    what = "has no index.json listing its variants" if indexed else "holds no model folder with a config.pbtxt"
    looked = Path.cwd() / "model_repository"
    assert e.value.message == f"model_repository {what} (looked at {looked}: a relative path is from the current directory)"
    assert f"pass -r {elsewhere} (this checkout's repository)" in (e.value.hint or "")
