"""A resume of a run whose variants' files a rebuild replaced is refused before its plan line (trial 22,
F-rebuild-runs: ``--resume kws1`` printed a full "will measure ..." line, then "error (perf): the model files ...
are not the ones run kws1 measured")."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, served_model, variant_result

from clients.runtimes.identity import ArtifactFile, ArtifactIdentity
from clients.runtimes.served import ServedModel
from perf.cli import main as perf_cli


def _fake_sweep() -> type:
    """``FakeSweep`` of tests/perf/sweep/test_sweep_cli_unit.py (a Sweep that measures nothing)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sweep_cli_fakes", Path(__file__).with_name("test_sweep_cli_unit.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FakeSweep


def _served(folder: Path, content: bytes) -> ServedModel:
    """The stamp of a load of ``folder`` whose one file held ``content``."""
    files = [ArtifactFile("1/model.onnx", len(content), hashlib.sha256(content).hexdigest())]
    return served_model("v0", artifact=ArtifactIdentity("found", str(folder), files))


@pytest.mark.parametrize("changed", [True, False])
def test_a_resume_of_rebuilt_variants_is_refused_before_its_plan_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, changed: bool
):
    import perf.sweep.run

    repo = tmp_path / "model_repository"
    (repo / "v0" / "1").mkdir(parents=True)
    (repo / "v0" / "config.pbtxt").write_text('name: "v0"\n')
    (repo / "v0" / "1" / "model.onnx").write_bytes(b"rebuilt" if changed else b"measured")
    run = run_result([variant_result("v0", [level_result(1, 100.0, 2.0, batch_size=1)], status="ok")], run_id="r1")
    run.variants[0].served.append(_served(repo / "v0", b"measured"))

    class Rebuilt(_fake_sweep()):  # type: ignore[misc]
        run_result = run

        def __init__(self, opts, progress=None):
            super().__init__(opts, progress)
            self.opts = dataclasses.replace(self.opts, server=dataclasses.replace(self.opts.server, repository=repo))

        def close(self) -> None:
            Rebuilt.closed = True

    Rebuilt.closed = False
    monkeypatch.setattr(perf.sweep.run, "Sweep", Rebuilt)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", "--resume", "r1"])
    if changed:
        assert res.exit_code == 1 and "are not the ones run r1 measured" in str(res.exception), res.output
        assert "will measure" not in res.output and "kept:" not in res.output, res.output
        assert Rebuilt.closed
    else:
        assert res.exit_code == 0, res.output


@pytest.mark.parametrize("weights", ["same", "other"])
def test_a_resume_after_a_re_export_of_the_same_weights_in_other_bytes_is_accepted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, weights: str
):
    """Break-it F10: ``builders build --force`` of the same weights wrote a ``model.pt`` whose bytes differ (an
    unused pickle memo entry), and a --resume of the run that measured the earlier one was refused as "a rebuild
    replaced them". The files are compared by content now; other weights are still refused."""
    from archives import archive_bytes

    import perf.sweep.run
    from clients.runtimes.identity import found_artifact

    repo = tmp_path / "model_repository"
    (repo / "v0" / "1").mkdir(parents=True)
    (repo / "v0" / "config.pbtxt").write_text('name: "v0"\n')
    (repo / "v0" / "1" / "model.pt").write_bytes(archive_bytes())
    run = run_result([variant_result("v0", [level_result(1, 100.0, 2.0, batch_size=1)], status="ok")], run_id="r1")
    run.variants[0].served.append(served_model("v0", artifact=found_artifact(repo / "v0")))
    (repo / "v0" / "1" / "model.pt").unlink()  # the rebuild
    rebuilt = b"\x00\x01" * 32 if weights == "same" else b"\x00\x02" * 32
    (repo / "v0" / "1" / "model.pt").write_bytes(archive_bytes(rebuilt, resaved=True))

    class Rebuilt(_fake_sweep()):  # type: ignore[misc]
        run_result = run

        def __init__(self, opts, progress=None):
            super().__init__(opts, progress)
            self.opts = dataclasses.replace(self.opts, server=dataclasses.replace(self.opts.server, repository=repo))

        def close(self) -> None:
            pass

    monkeypatch.setattr(perf.sweep.run, "Sweep", Rebuilt)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report", "--resume", "r1"])
    if weights == "same":
        assert res.exit_code == 0, (res.output, res.exception)
    else:
        assert res.exit_code == 1 and "are not the ones run r1 measured" in str(res.exception), res.output
