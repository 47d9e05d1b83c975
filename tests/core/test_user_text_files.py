"""Every reader of a user's text file says a file that is not UTF-8 text in one message, with the byte and its
offset, through one helper (core.names.read_text; issue 26: a UTF-16 config.pbtxt or Kubernetes manifest ended in
a UnicodeDecodeError traceback, a validated repository called it a syntax error, a JSON input file named the codec)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.config.pbtxt import read_config
from builders.model.spec import ModelSpec
from builders.repository.clean import clean
from builders.repository.validate import validate_model
from clients.input_files import load_input_file
from clients.inputs import ModelSignature
from core.errors import ToolkitError
from core.names import read_text
from perf.deploy.k8s import read_manifests

#: A BOM and text saved as UTF-16: what a Windows editor may write.
UTF16 = b"\xff\xfe" + 'name: "m"'.encode("utf-16-le")
NOT_UTF8 = "is not UTF-8 text (byte 0xff at offset 0)"


def _file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(UTF16)
    return path


@pytest.mark.parametrize(
    "name, read, form",
    [
        ("m/config.pbtxt", read_config, "so not a config.pbtxt"),
        ("deploy.yaml", read_manifests, "so not YAML"),
        ("spec.json", ModelSpec.from_file, "so not a JSON spec"),
        ("data.json", lambda p: load_input_file(p, ModelSignature("m", (), (), 0)), "so not perf_analyzer input data (JSON)"),
    ],
)
def test_a_user_file_not_utf8_is_one_message_naming_the_byte(tmp_path: Path, name, read, form) -> None:
    path = _file(tmp_path, name)
    with pytest.raises(ToolkitError) as e:
        read(path)
    assert e.value.message.endswith(f"{path} {NOT_UTF8}, {form}"), e.value.message
    assert "UTF-8" in (e.value.hint or "")


def test_a_repository_config_not_utf8_is_its_encoding_problem_not_its_syntax(tmp_path: Path) -> None:
    path = _file(tmp_path, "m/config.pbtxt")
    (problem,) = [p for p in validate_model(path.parent, check_artifacts=False) if p.file == str(path)]
    assert (problem.field, problem.problem) == ("(encoding)", f"{NOT_UTF8}, so not a config.pbtxt")


def test_make_clean_says_why_an_index_not_utf8_deletes_nothing(tmp_path: Path) -> None:
    _file(tmp_path, "model_repository/index.json")
    (tmp_path / "model_repository" / "m").mkdir()
    done = clean(tmp_path)
    assert done.note is not None and f"{NOT_UTF8}, so not JSON" in done.note and "codec" not in done.note
    assert "model_repository/m/" in done.kept


def test_read_text_says_a_missing_file_as_every_file_argument(tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text("{}")
    with pytest.raises(ToolkitError) as e:
        read_text(tmp_path / "spek.json", "spec file", "a JSON spec", ToolkitError, "start from the example", "*.json")
    assert f"spec file {tmp_path / 'spek.json'} does not exist (in {tmp_path}: spec.json)" == e.value.message
    assert (e.value.hint or "").endswith("; start from the example")
