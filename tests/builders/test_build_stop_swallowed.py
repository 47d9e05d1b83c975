"""A Ctrl-C that a library swallows, or wraps in an ordinary error, still stops ``builders build`` (trial 28, T28-11:
torch.export made a ``TorchExportError`` <- ``AttributeError`` of a Ctrl-C during the dynamo ONNX export; the build
recorded it as dynamo's failure, exported via the TorchScript-based exporter, wrote every variant and exited 0).

The build keeps its own record of the stop (:func:`core.processes.recorded_stops`) and looks at it after every
strategy, export and step: a stop before the commit ends the build with nothing written, one while the variants are
written with what was written said. Each test sends this process a real SIGINT from inside the build."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

import builders.build as build_module
import builders.build_exports as build_exports
from builders.build import BuildOptions, build
from builders.build_stop import BuildInterrupted
from builders.config.variants import VariantGrid
from builders.repository.records import FAILED_MANIFEST_FILE
from core.errors import ExportError

pytestmark = pytest.mark.slow  # real exports of the built-in model with torch

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))


@pytest.fixture(autouse=True)
def ctrl_c_raises() -> None:
    """A suite started in the background hands SIGINT down ignored: Ctrl-C raises here as in a terminal."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _ctrl_c_wrapped(what: type[Exception], text: str) -> None:
    """A Ctrl-C lands, and the library raises ``what`` in its place."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
    except KeyboardInterrupt:
        raise what(text) from AttributeError("module 'torch._dynamo' has no attribute 'exc'")
    raise AssertionError("the Ctrl-C never came")


def _opts(tmp_path: Path, *formats: str) -> BuildOptions:
    return BuildOptions("tiny", formats=formats, grid=GRID, repository=tmp_path / "repo", build_dir=tmp_path / "builds")


def _nothing_written(tmp_path: Path, stop: BuildInterrupted) -> None:
    out = tmp_path / "builds" / "tiny"
    assert stop.text.startswith(f"nothing of this build was written: {out} (its manifest)"), stop.text
    assert not (tmp_path / "repo").exists()
    assert not (out / "manifest.json").exists() and not (out / FAILED_MANIFEST_FILE).exists()


def test_a_ctrl_c_the_dynamo_export_turns_into_an_error_stops_the_build_before_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    real, dynamo = torch.onnx.export, []

    def export(*args: Any, **kwargs: Any) -> Any:
        dynamo.append(kwargs.get("dynamo"))
        if kwargs.get("dynamo"):
            _ctrl_c_wrapped(RuntimeError, "Failed to export the model with torch.export (TorchExportError)")
        return real(*args, **kwargs)

    monkeypatch.setattr(torch.onnx, "export", export)
    with pytest.raises(BuildInterrupted) as stop:
        build(_opts(tmp_path, "onnx"))
    assert dynamo == [True]  # the TorchScript-based exporter was never tried
    _nothing_written(tmp_path, stop.value)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the build's own handler is gone


def test_a_ctrl_c_an_exporter_turns_into_its_export_error_is_no_failed_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not through the strategies (a TensorRT build, an imported plan): the build went on with the next format
    and listed this one as failed."""
    onnx: list[str] = []

    def torchscript(*_a: Any, **_k: Any) -> Any:
        _ctrl_c_wrapped(ExportError, "torch.jit.script failed")

    monkeypatch.setattr(build_exports, "export_torchscript", torchscript)
    monkeypatch.setattr(build_exports, "export_onnx", lambda *a, **k: onnx.append("exported"))
    with pytest.raises(BuildInterrupted) as stop:
        build(_opts(tmp_path, "torchscript", "onnx"))
    assert onnx == []
    _nothing_written(tmp_path, stop.value)


def test_a_ctrl_c_swallowed_while_the_variants_are_written_is_said_once_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = build_module.write_repository

    def write_repository(*args: Any, **kwargs: Any) -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:
            pass  # a library that caught it and went on
        real(*args, **kwargs)

    monkeypatch.setattr(build_module, "write_repository", write_repository)
    with pytest.raises(BuildInterrupted) as stop:
        build(_opts(tmp_path, "onnx"))
    manifest, repo = tmp_path / "builds" / "tiny" / "manifest.json", tmp_path / "repo"
    assert stop.value.text == (
        f"it came as the build's last records were written, and they were: {repo} holds every variant of this build "
        f"(1 variant, in its index) and {manifest} records them; the build is complete"
    )
    assert manifest.is_file() and (repo / "tiny_onnx_cpu1_nodb_mbs4").is_dir()


def test_a_ctrl_c_once_the_build_is_written_is_ignored_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 28, T28-12: one rule, the README's: a stop that comes once the build is written (its summary printing)
    has nothing left to stop; the command says so in one line and exits as the build ended (0)."""
    from click.testing import CliRunner

    import builders.cli.build as build_cli
    from builders.cli.main import cli

    real = build_cli.print_build_summary

    def summary(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(build_cli, "print_build_summary", summary)
    flags = ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4", "--format", "onnx"]
    repo = tmp_path / "repo"
    res = CliRunner().invoke(cli, ["build", "--model", "tiny", *flags, "--repository", str(repo), "--build-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output  # was 1, click's "Aborted!", after the whole summary
    assert "Ctrl-C came once the build was written: ignored, the build above is complete" in " ".join(res.output.split())
    assert f"repository: {repo}" in res.output


def test_a_ctrl_c_the_model_s_run_turns_into_a_model_error_stops_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outputs are found by running the eager model, which makes a ModelSpecError of any failure: a Ctrl-C there
    ended the build as that error (exit 1, 'the model failed to run')."""
    from builders.model import outputs
    from core.errors import ModelSpecError

    def infer_outputs(*_a: Any, **_k: Any) -> Any:
        _ctrl_c_wrapped(ModelSpecError, "the model failed to run on the example inputs")

    monkeypatch.setattr(build_module, "infer_outputs", infer_outputs)
    assert outputs.infer_outputs is not infer_outputs
    with pytest.raises(BuildInterrupted) as stop:
        build(_opts(tmp_path, "onnx"))
    assert stop.value.text.startswith("nothing of this build was written: it stopped while the model was loaded and run")
    assert not (tmp_path / "builds").exists() and not (tmp_path / "repo").exists()
