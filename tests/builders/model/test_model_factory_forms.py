"""``--model`` with a Python file: ``path/to/file.py:factory`` loads the factory from the file;
``--model seqnet.py`` (no ``:factory``) is one clear error naming what was given, the two forms
and an example (new-user trial: it said "unknown built-in model 'seqnet.py'")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli
from builders.model.models import load_model
from builders.model.spec import ModelSpec
from core.errors import ModelSpecError

SEQNET = """\
import torch


class SeqNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.lin(x)


def make():
    return SeqNet().eval()


def _helper():
    return None
"""
SPEC = ModelSpec.from_flags(["x:float32:4"])


@pytest.fixture()
def seqnet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "seqnet.py").write_text(SEQNET)
    (tmp_path / "seqnet.py").write_text(SEQNET)
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("seqnet", None)  # another test's file of that name
    yield tmp_path
    sys.modules.pop("seqnet", None)


def test_a_python_file_without_factory_names_the_forms_on_the_cli(seqnet: Path):
    r = CliRunner().invoke(cli, ["build", "--model", "seqnet.py", "--input", "x:float32:4", "--build-dir", "b", "-r", "r"])
    # a mistake in what was typed: exit 2, as a typo'd factory name is (trial 20, T20-6: it exited 1)
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    text = " ".join(r.output.split())
    assert "--model 'seqnet.py' is a Python file without the factory to call in it" in text
    assert "top-level functions in seqnet.py: make" in text and "_helper" not in text  # read as text, not run
    assert "path/to/file.py:factory or package.module:factory" in text and "e.g. --model seqnet.py:make" in text
    assert "seqnet" not in sys.modules  # nothing of the file ran
    assert not Path("b").exists() and not Path("r").exists()


@pytest.mark.parametrize(
    "source, words",
    [
        ("models/seqnet.py", "'models/seqnet.py' is a Python file without the factory"),
        ("models/", "'models/' is a folder (its Python files: seqnet.py) without the factory"),  # re-check 20, NEW-1
        ("seqnet", "'seqnet' names ./seqnet.py without the factory"),
        ("nosuch.py:make", "nosuch.py does not exist"),
        ("seqnet.py:nope", "seqnet.py has no 'nope'; its top-level functions: make -> --model takes"),
        ("seqnet.py:", "is not path/to/file.py:factory or package.module:factory"),
        ("bogus", "--model path/to/file.py:factory or package.module:factory"),
    ],
)
def test_model_forms_that_name_no_factory_are_clear(seqnet: Path, source: str, words: str):
    with pytest.raises(ModelSpecError) as e:
        load_model(source, SPEC)
    assert words in f"{e.value.message} -> {e.value.hint}"
    if source.endswith("/"):  # the example is a form --model takes, not "models/:make"
        assert "e.g. --model models/seqnet.py:make" in e.value.hint and "models/:make" not in e.value.hint


def test_a_factory_in_a_file_is_loaded_from_its_path(seqnet: Path, tmp_path: Path):
    before = list(sys.path)
    loaded = load_model(str(seqnet / "models" / "seqnet.py") + ":make", SPEC)
    assert loaded.name == "make" and loaded.kind == "factory" and type(loaded.module).__name__ == "SeqNet"
    assert sys.path == before  # the file's folder was first on sys.path only for the import
    again = load_model("models/seqnet.py:make", SPEC)
    assert again.fingerprint == loaded.fingerprint  # the class's source is read (the module is registered)
