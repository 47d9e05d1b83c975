"""A mistake in the spec the user typed exits 2 wherever it is found (trial 30, F8: ``--input img`` for
``forward(image)``, one ``--output`` for a model that returns two, an input's dynamic axis with no
``--dynamic-axis`` and a ``value_range`` on a float input exited 1, found once the model loaded; README's
exit codes: 2 for "a mistake in what was typed ... or one refused after parsing"). A model's own fault
(an output that is not a tensor) stays 1, and so does a spec the toolkit recorded itself (perf's eager
baseline loads the build's spec: a model edited since is no typed mistake)."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.cli import EXIT_ERROR, EXIT_USAGE
from core.errors import ModelSpecError

ROOT = Path(__file__).resolve().parents[2]

MODEL = """\
import torch


class Two(torch.nn.Module):
    def forward(self, image, feats):
        return image.mean(-1, keepdim=True) + feats.sum(-1, keepdim=True), feats * 2


class Bad(torch.nn.Module):
    def forward(self, image):
        return "not a tensor"


def two():
    return Two().eval()


def bad():
    return Bad().eval()
"""

OUT = ["--build-dir", "b", "-r", "r", "--format", "onnx"]
GOOD = ["--input", "image:float32:4", "--input", "feats:float32:8", "--output", "y", "--output", "z"]
#: (the flags of the build, what the refusal says): each a mistake in the spec typed on the command line.
TYPED = [
    (["--input", "img:float32:4", "--input", "feats:float32:8", "--output", "y", "--output", "z"], "is not an argument of"),
    (["--input", "image:float32:4", "--input", "feats:float32:8", "--output", "y"], "the model returns 2"),
    (["--input", "image:float32:H", "--input", "feats:float32:8", "--output", "y", "--output", "z"], "no declared range"),
    (["--input", "image:float32:4", "--input", "feats:float32:8:0..1", "--output", "y", "--output", "z"], "value_range is for"),
    (["--input", "feats:float32:8", "--input", "image:float32:4", "--output", "y", "--output", "z"], "in another order than"),
]


def _build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], factory: str = "two"):
    from builders.cli.main import cli

    (tmp_path / "m30.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "m30", raising=False)
    return CliRunner().invoke(cli, ["build", "--model", f"m30.py:{factory}", *args, *OUT])


@pytest.mark.parametrize(("args", "said"), TYPED, ids=[s for _, s in TYPED])
def test_a_typed_spec_mistake_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str) -> None:
    r = _build(tmp_path, monkeypatch, args)
    assert r.exit_code == EXIT_USAGE, (r.output, r.exception)
    assert said in r.output
    assert not (tmp_path / "r").exists()


def test_the_same_mistake_in_a_spec_file_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {
        "inputs": [{"name": "img", "dtype": "float32", "shape": [4]}, {"name": "feats", "dtype": "float32", "shape": [8]}],
        "outputs": ["y", "z"],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    r = _build(tmp_path, monkeypatch, ["--spec", "spec.json"])
    assert r.exit_code == EXIT_USAGE and "is not an argument of" in r.output, (r.output, r.exception)
    (tmp_path / "spec.json").write_text("{")
    r = _build(tmp_path, monkeypatch, ["--spec", "spec.json"])
    assert r.exit_code == EXIT_USAGE and "is not valid JSON" in r.output, (r.output, r.exception)


def test_a_model_s_own_fault_still_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _build(tmp_path, monkeypatch, ["--input", "image:float32:4", "--output", "y"], factory="bad")
    assert r.exit_code == EXIT_ERROR and isinstance(r.exception, ModelSpecError), (r.output, r.exception)
    assert "not a tensor" in r.exception.message and r.exception.flag is None


def test_a_recorded_spec_that_no_longer_fits_the_model_is_no_typed_mistake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from builders.model.spec import ModelSpec
    from perf.profile.runners import _load_eager

    (tmp_path / "m30.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "m30", raising=False)
    with pytest.raises(ModelSpecError) as e:
        _load_eager("m30.py:two", ModelSpec.from_flags(["img:float32:4", "feats:float32:8"]))
    assert "is not an argument of" in e.value.message and e.value.flag is None


#: The modules whose every refusal is of the spec as given (its flags, its file, or ModelSpec in Python).
SPEC_MODULES = ["spec_checks.py", "value_ranges.py", "domains.py", "forward_args.py", "axis_steps.py", "spec_flags.py"]


@pytest.mark.parametrize("name", SPEC_MODULES)
def test_every_refusal_of_the_spec_as_given_carries_its_flag(name: str) -> None:
    source = (ROOT / "builders" / "model" / name).read_text()
    missing = [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Raise | ast.Return)
        and isinstance(node.value if isinstance(node, ast.Return) else node.exc, ast.Call)
        and (call := node.value if isinstance(node, ast.Return) else node.exc) is not None
        and getattr(call.func, "id", "").endswith("Error")
        and getattr(call.func, "id", "") not in ("UnknownAxisError", "ValueError")  # a bug's, or pydantic's
        and not any(k.arg == "flag" for k in call.keywords)
    ]
    assert not missing, f"builders/model/{name}: lines {missing} raise without flag="
