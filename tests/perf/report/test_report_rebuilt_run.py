"""``triton-perf report RUN`` of a run whose variants a rebuild replaced (trial 22, F-rebuild-runs: the report advised
``--resume kws1 --time-budget 2m``, and that resume was refused with "the model files ... are not the ones run kws1
measured"): the report says the files changed and advises no resume."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_run, served_model

from clients.runtimes.identity import ArtifactFile, ArtifactIdentity
from perf.cli.main import cli
from perf.records.results import save

#: What the report says of a resume (break-it F11: "a --resume of it is refused" of a finished run, whose resume
#: measures nothing and is taken: it is refused where it would measure)
RESUME = "no --resume of it measures them (one that would is refused), so no resume is advised here"


@pytest.mark.parametrize("rebuilt", [True, False])
def test_the_report_of_a_rebuilt_run_says_so_and_advises_no_resume(tmp_path: Path, rebuilt: bool) -> None:
    run, repo = make_run(), tmp_path / "model_repository"
    run.finished = None  # an unfinished run: its report advises the resume that continues it
    run.settings["repository"] = str(repo)
    for v in run.variants:
        (repo / v.name / "1").mkdir(parents=True)
        (repo / v.name / "1" / "model.onnx").write_bytes(b"rebuilt" if rebuilt else b"measured")
        files = [ArtifactFile("1/model.onnx", 8, hashlib.sha256(b"measured").hexdigest())]
        v.served.append(served_model(v.name, artifact=ArtifactIdentity("found", str(repo / v.name), files)))
    save(run, tmp_path / "results" / run.run_id)
    res = CliRunner().invoke(cli, ["report", str(tmp_path / "results" / run.run_id)], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    if rebuilt:
        assert f"are not the ones run {run.run_id} measured (a rebuild replaced them)" in text, text
        assert RESUME in text and f"--resume {run.run_id}" not in text, text
        written = " ".join((tmp_path / "results" / run.run_id / "report.md").read_text().split())
        assert RESUME in written, written[:2000]
        assert "continue it with" not in written, written[:2000]
    else:
        assert "a rebuild replaced them" not in text and f"--resume {run.run_id}" in text, text


def test_a_re_export_of_the_same_weights_in_other_bytes_is_not_a_rebuild_in_the_report(tmp_path: Path) -> None:
    """Break-it F10: after ``builders build --force`` of the same weights (a ``model.pt`` whose bytes differ in unused
    pickle memo entries), the report said "a rebuild replaced them" and advised no resume."""
    from archives import archive_bytes

    from clients.runtimes.identity import found_artifact

    run, repo = make_run(), tmp_path / "model_repository"
    run.finished = None
    run.settings["repository"] = str(repo)
    for v in run.variants:
        (repo / v.name / "1").mkdir(parents=True)
        (repo / v.name / "1" / "model.pt").write_bytes(archive_bytes())
        v.served.append(served_model(v.name, artifact=found_artifact(repo / v.name)))
        (repo / v.name / "1" / "model.pt").unlink()
        (repo / v.name / "1" / "model.pt").write_bytes(archive_bytes(resaved=True))
    save(run, tmp_path / "results" / run.run_id)
    res = CliRunner().invoke(cli, ["report", str(tmp_path / "results" / run.run_id)], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "a rebuild replaced them" not in text and f"--resume {run.run_id}" in text, text
