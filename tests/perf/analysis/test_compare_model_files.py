"""``triton-perf compare`` says whether the two runs measured the same model files (trial 25, T25-5: seqtight measured
the rebuild, model.onnx sha256 e2530887ad5f, seq1 the weights v1, afbe45145528; the comparison listed host, runtime,
protocol and "measurement (differs)", and matched the levels by variant name without a word of it).

The runs' records (each variant's stamp after its load) are compared by the one comparison a resume and
export-deployment make (clients.runtimes.identity.compare_files): the header row "model files" says same, differ
(naming the variants) or not recorded, and where they differ a Summary bullet, printed by the console too, says a
difference may come from the model, not the setting.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

from click.testing import CliRunner
from factories import served_model

from clients.runtimes.identity import ArtifactFile, ArtifactIdentity
from perf.analysis.comparison.runs import compare_markdown, compare_runs, headline
from perf.records.results import RunResult
from perf.sweep.refused_run import refused_flags_text
from tests.perf.analysis.test_compare import lv, run

DATA = Path(__file__).resolve().parents[2] / "data" / "trial25_rebuild"
MODEL = "not the setting"


def _stamped(r: RunResult, content: dict[str, tuple[bytes, bytes | None]]) -> RunResult:
    """``r`` with each variant's load stamped: ``1/model.onnx`` of the bytes given (and a content digest when given)."""
    for v in r.variants:
        data, same_as = content[v.name]
        digest = hashlib.sha256(same_as).hexdigest() if same_as is not None else None
        files = [ArtifactFile("1/model.onnx", len(data), hashlib.sha256(data).hexdigest(), content_sha256=digest)]
        v.served = [served_model(v.name, artifact=ArtifactIdentity("found", f"/repo/{v.name}", files))]
    return r


def _runs(a_content: dict, b_content: dict | None) -> tuple[RunResult, RunResult]:
    a = _stamped(run("before", "h", {"x": [lv(1, 100, 2.0)], "y": [lv(1, 50, 2.0)]}), a_content)
    b = run("after", "h", {"x": [lv(1, 130, 2.0)], "y": [lv(1, 51, 2.0)]})
    return a, (_stamped(b, b_content) if b_content is not None else b)


def _row(md: str) -> str:
    return next(ln for ln in md.splitlines() if ln.startswith("| model files"))


def _cells(md: str) -> list[str]:
    return [c.strip() for c in _row(md).strip("|").split("|")]


def test_runs_of_other_model_files_say_so_in_the_header_and_beside_the_verdicts() -> None:
    a, b = _runs({"x": (b"weights v1", None), "y": (b"same", None)}, {"x": (b"weights v2", None), "y": (b"same", None)})
    md = compare_markdown(a, b, refused=refused_flags_text)
    assert _cells(md) == ["model files (differ)", "differ: x", "differ: x"]
    v1, v2 = (hashlib.sha256(w).hexdigest()[:12] for w in (b"weights v1", b"weights v2"))
    bullet = next(ln for ln in md.splitlines() if ln.startswith("- Model files differ"))
    assert f"x: 1/model.onnx: measured in A 10 bytes (sha256 {v1}), measured in B 10 bytes (sha256 {v2})" in bullet
    assert bullet.endswith("may come from the model, not the setting compared.") and bullet.count(". ") == 0
    # the console prints the Summary's verdict lines: this one with them, right after p99's
    said = headline(md)
    assert said[2].startswith("p99 latency:") and said[3] == bullet[2:]


def test_the_same_model_files_say_same_and_nothing_more() -> None:
    a, b = _runs({"x": (b"w", None), "y": (b"w", None)}, {"x": (b"w", None), "y": (b"w", None)})
    md = compare_markdown(a, b, refused=refused_flags_text)
    assert _cells(md) == ["model files", "same", "same"]
    assert MODEL not in md and not any("Model files" in ln for ln in headline(md))


def test_a_torchscript_archive_of_the_same_content_is_the_same_model() -> None:
    """Other bytes of the same weights (a TorchScript export again: builders/export/content.py) are the same content."""
    a, b = _runs({"x": (b"archive 1", b"weights"), "y": (b"w", None)}, {"x": (b"archive 2", b"weights"), "y": (b"w", None)})
    assert _cells(compare_markdown(a, b, refused=refused_flags_text)) == ["model files", "same", "same"]
    a, b = _runs({"x": (b"archive 1", b"weights"), "y": (b"w", None)}, {"x": (b"archive 1", b"other"), "y": (b"w", None)})
    assert _cells(compare_markdown(a, b, refused=refused_flags_text))[1] == "differ: x"


def test_a_run_that_recorded_no_files_is_not_recorded_never_the_same() -> None:
    a, b = _runs({"x": (b"w", None), "y": (b"w", None)}, None)  # b saved before the stamps
    md = compare_markdown(a, b, refused=refused_flags_text)
    assert _cells(md) == ["model files", "not recorded", "not recorded"]
    assert MODEL not in md
    for v in b.variants:  # recorded by size and mtime only (before the hash): not the same either
        v.served = [served_model(v.name, artifact=ArtifactIdentity("found", "/r", [ArtifactFile("1/model.onnx", 1)]))]
    assert _cells(compare_markdown(a, b, refused=refused_flags_text))[1] == "not recorded"
    b = _stamped(b, {"x": (b"v2", None), "y": (b"w", None)})
    b.variants[1].served = []  # y not recorded, x differs
    assert _cells(compare_markdown(a, b, refused=refused_flags_text))[1] == "differ: x; not recorded: y"


def test_the_trial_runs_of_two_builds_compare_as_other_model_files(tmp_path: Path) -> None:
    """The trial's own runs (their results.json, gzipped): seqtight measured the rebuild, seq1 the weights v1."""
    from perf.cli.main import cli

    folders = []
    for name in ("seqtight", "seq1"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_bytes(gzip.decompress((DATA / f"{name}.json.gz").read_bytes()))
        folders.append(tmp_path / name)
    md = compare_runs(folders[0], folders[1], tmp_path / "c.md", refused=refused_flags_text).read_text()
    both = "seqnet_onnx_cpu2_db500_mbs64, seqnet_onnx_cpu2_nodb_mbs64"
    assert _cells(md) == ["model files (differ)", f"differ: {both}", f"differ: {both}"]
    assert re.search(
        r"measured in A [\d,]+ bytes \(sha256 e2530887ad5f\), measured in B [\d,]+ bytes \(sha256 afbe45145528\)", md
    )
    out = CliRunner().invoke(cli, ["compare", str(folders[0]), str(folders[1]), "--out", str(tmp_path / "d.md")])
    assert out.exit_code == 0, out.output
    assert f"Model files differ for 2 variants measured in both ({both}: 1/model.onnx: " in out.output
    assert "may come from the model, not the setting compared." in out.output
