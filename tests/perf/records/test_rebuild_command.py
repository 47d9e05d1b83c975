"""Trial 27, T27-12: after ``make clean`` (which deletes the variant folders and the build folder with its manifest,
the spec's only record), a command on a run's variants advised "rebuild it with `builders build`" and nothing more:
a user who built with ``--input ... --dynamic-axis ...`` weeks ago could not. ``builders build`` now records the
command as typed, in its folder, in each index entry (so in the run's params of every variant it measures), and the
advice prints it; a run that recorded none says what the user must give."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from builders.cli.build import typed_command
from builders.config.variants import Variant
from builders.repository.records import IndexEntry
from core.errors import PerfError
from perf.records.measured_files import refuse_missing
from perf.records.results import RunResult, VariantResult

NAME = "tinyvit_onnx_cpu1_nodb_mbs64"
TYPED = ["build", "--model", "tinyvit.py:tinyvit", "--input", "image:uint8:3,H,W", "--dynamic-axis", "H=64,128,256/16"]


def test_the_build_records_its_command_as_typed_in_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["/venv/bin/builders", *TYPED])
    command = typed_command()
    assert (
        command == f"cd {tmp_path} && /venv/bin/builders build --model tinyvit.py:tinyvit --input image:uint8:3,H,W "
        "--dynamic-axis H=64,128,256/16"
    )  # the program that ran, by its path: a bare `builders` is not found outside the activated .venv (s22z, Z-4)
    monkeypatch.setattr(sys, "argv", [".venv/bin/builders", *TYPED])
    assert typed_command().startswith(f"cd {tmp_path} && {tmp_path}/.venv/bin/builders build ")  # type: ignore[union-attr]
    monkeypatch.setattr(sys, "argv", ["/ck/builders/cli/main.py", *TYPED])  # make demo's `python -m builders.cli.main`
    assert typed_command().startswith(f"cd {tmp_path} && {sys.executable} -m builders.cli.main build ")  # type: ignore[union-attr]
    variant = Variant("tinyvit", "onnx")
    assert IndexEntry.of(variant, "python", "/b", command).params["build_command"] == command
    assert "build_command" not in IndexEntry.of(variant, "python", "/b").params  # built from Python: none known
    monkeypatch.setattr(sys, "argv", ["pytest", "-q"])
    assert typed_command() is None


def _run(tmp_path: Path, command: str | None) -> RunResult:
    params = {"model": "tinyvit", "build": str(tmp_path / "builds" / "tinyvit"), "format": "onnx", "precision": "fp32"}
    if command:
        params["build_command"] = command
    return RunResult("sweepA", "now", settings={"repository": str(tmp_path / "repo")}, variants=[VariantResult(NAME, params)])


def test_after_make_clean_the_advice_is_the_recorded_command(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()  # make clean: the variant folders and builds/tinyvit are gone
    command = f"cd {tmp_path} && builders build --model tinyvit.py:tinyvit --input image:uint8:3,H,W"
    with pytest.raises(PerfError) as e:
        refuse_missing(_run(tmp_path, command), [NAME], tmp_path / "repo", "a bundle")
    assert f"rebuild it with the command that built it, as the run recorded it: `{command}`" in (e.value.hint or "")
    with pytest.raises(PerfError) as old:  # a run from before the record: what the user must give
        refuse_missing(_run(tmp_path, None), [NAME], tmp_path / "repo", "a bundle")
    assert "the run recorded no build command: give the model source and the spec it was built with" in (old.value.hint or "")
