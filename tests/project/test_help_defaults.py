"""Every default a ``builders`` or ``clients`` command's ``-h`` states as a value is what the
command does without the flag (issue 26: help texts checked against behaviour, by running the
command; tests/support/cli_defaults.py reads them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_defaults import DECLARED, _infer_call, run_recorded, stated_defaults


@pytest.mark.parametrize("key", list(DECLARED), ids=" ".join)
def test_a_declared_default_is_what_the_command_does(key: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    text, declared = stated_defaults()[key]
    assert text == declared, f"-h of {key[1]} now says {text!r} for {key[2]}"
    run, read, value = DECLARED[key]
    monkeypatch.chdir(Path(__file__).parent)
    assert read(run(monkeypatch)) == value


def test_check_protocol_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import clients.check

    seen = run_recorded(monkeypatch, clients.check, "check_with_server", "clients", ["check"])
    assert seen["args"][1] == ("http", "grpc")  # both


def test_infer_seed_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import clients.infer
    from clients.inputs import generate_inputs

    call = _infer_call(monkeypatch)
    again = generate_inputs(clients.infer.model_signature("", "", "m"), 1, None, 0, {})  # seed 0
    assert (call["args"][3]["x"] == again["x"]).all()


def test_infer_repository_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import clients.infer
    import clients.inputs

    _infer_call(monkeypatch)  # the signature faked
    seen = run_recorded(monkeypatch, clients.inputs, "spec_for", "clients", ["infer", "m"])
    assert seen["args"] == (Path("model_repository"), "m")
    assert clients.infer  # the module the fake signature lives on


def test_prune_repository_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """builders prune -r [default: model_repository]: the repository in the current folder."""
    import builders.repository.writer

    monkeypatch.chdir(tmp_path)
    (tmp_path / "model_repository").mkdir()
    (tmp_path / "model_repository" / "index.json").write_text("{}")  # without one, prune says so and drops nothing
    seen = run_recorded(monkeypatch, builders.repository.writer, "prune_index", "builders", ["prune"])
    assert seen["args"] == (Path("model_repository"),)


def test_remove_repository_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """builders remove -r [default: model_repository]: the repository in the current folder."""
    import builders.repository.remove

    monkeypatch.chdir(tmp_path)
    seen = run_recorded(monkeypatch, builders.repository.remove, "remove_model", "builders", ["remove", "net"])
    assert seen["args"] == (Path("model_repository"), "net")


def test_target_triton_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """--target-triton [default: 24.10]: the release whose TensorRT image --print-trtexec prints."""
    import builders.cli.build
    from builders.triton.releases import DEFAULT_RELEASE

    seen = run_recorded(monkeypatch, builders.cli.build, "release", "builders", ["build", "--print-trtexec"])
    assert seen["args"][0] == DEFAULT_RELEASE == "24.10"
