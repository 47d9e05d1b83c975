"""Every variant named beside a pick says its build's verdict, the verdict the sweep recorded (issue 26).

A re-check of T13-10: with an fp32 pick and two fp16 variants in its tie set (one "has the higher
median"), report.md and the console said the fp16 builds' verdict ("not verified in fp16 on this host")
beside the pick only, and never beside the fp16 names. The verdict was read from the repository when the
report was written (a rebuild after the sweep changed it), and a build whose record could not be read
read as ``ok``. Now each swept variant's verdict is recorded in ``results.json`` when the sweep starts
(:mod:`perf.records.build_check`) and said beside every such name (:func:`perf.analysis.build_checks.named`);
a record that cannot be read is "build check not verified here"."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import bullet_block

from builders.config.variants import Variant
from builders.model.spec import ModelSpec, ModelSpecRecord
from builders.repository.build_verdict import BuildVerdict
from builders.repository.records import INDEX_KIND, MANIFEST_KIND, BuildManifest, ExportRecord, IndexEntry, RepositoryIndex
from builders.verify.verdicts import describe
from clients.server import ServerOptions
from core.errors import ServerError
from core.records import write_record
from perf.cli.summary import summary_table
from perf.records import results
from perf.records.build_check import BuildCheck
from perf.records.rounds import RoundsRecord
from perf.report.write import write_report
from perf.sweep.options import SweepOptions
from perf.sweep.run import Sweep
from perf.sweep.servers import ServerPool

FP32, FP16 = Variant("m", "onnx", max_batch_size=8), Variant("m", "onnx", precision="fp16", max_batch_size=8)
FP16_2 = dataclasses.replace(FP16, count=2)
WORDS = describe("not_verified_precision", "fp16", "cpu")  # the build summary's words
MARK = f"(build: onnx fp16 {WORDS})"
#: A rounds run: the fp32 variant ahead of the first fp16 one in every round they shared (3, too few for
#: the rule), whose median over its own rounds is higher; the second fp16 one not told apart over 6.
ROUNDS = {
    FP32.name: [200.0, 200.0, 200.0, 100.0, 100.0, 100.0],
    FP16.name: [190.0, 195.0, 198.0],
    FP16_2.name: [210.0, 180.0, 190.0, 90.0, 110.0, 95.0],
}


def _run(checks: dict[str, BuildCheck | None], repository: str | None = None) -> results.RunResult:
    variants = [
        variant_result(n, [level_result(1, t, 5.0, spread=True, trial=r) for r, t in enumerate(ts)], build_check=checks.get(n))
        for n, ts in ROUNDS.items()
    ]
    settings = {"repository": repository} if repository else {}
    return run_result(variants, run_id="r1", finished="x", rounds=RoundsRecord(seed=1), settings=settings)


def _report(run: results.RunResult, tmp_path: Path) -> str:
    run_dir = tmp_path / "results" / run.run_id
    run_dir.mkdir(parents=True)
    results.save(run, run_dir)
    return write_report(run_dir).read_text()


def _recommendation(report: str) -> str:
    return report.split("## Recommendation", 1)[1].split("\n## ", 1)[0]


def _console(run: results.RunResult) -> list[str]:
    console = Console(width=1000, file=io.StringIO(), record=True)
    console.print(summary_table(run))
    return console.export_text().splitlines()


def test_the_fp16_members_of_an_fp32_picks_tie_set_say_their_build_verdict_in_the_report_and_the_console(tmp_path: Path):
    verdict = BuildVerdict("onnx fp16", "not_verified_precision", WORDS)
    run = _run({FP32.name: BuildCheck(), FP16.name: BuildCheck(verdict), FP16_2.name: BuildCheck(verdict)})
    report = _report(run, tmp_path)
    section = _recommendation(report)
    pick = bullet_block(section, "- **", f":** `{FP32.name}` at concurrency 1")  # the best peak's, its bullets
    assert f"`{FP32.name}` {MARK}" not in report  # the fp32 pick: ok
    for name in (FP16.name, FP16_2.name):  # each tie-set member, with its verdict
        assert f"`{name}` at c=1 {MARK}" in pick  # each at the level compared (T24-15)
    assert f"`{FP16.name}`'s median at c=1 is higher, 195.0 infer/s over 3 rounds {MARK}" in pick
    numbers = bullet_block(report, "**The numbers.**")  # a bullet a comparison (trial 19, T19-17)
    assert f"The runner-up by highest throughput measured, `{FP16.name}` {MARK}, measured up to 195.0" in numbers
    rows = {line.split("│")[1].strip(): line for line in _console(run) if line.startswith("│ m_")}
    # better on both medians, the pick ahead in 3 of 3 shared rounds (one-sided): not named first, said so (trial 30, F10)
    said = (
        f"not decided: `{FP16.name}` {MARK} c=1 (3 rounds) better on both by the medians; the pick ahead in 3 of 3 shared rounds"
    )
    assert said in rows[FP32.name] and f"`{FP32.name}` {MARK}" not in rows[FP32.name]  # members marked, the pick not
    # each mention of a member carries its verdict (the tie note names a member with its median and its rounds: s21g)
    assert rows[FP32.name].count(MARK.strip("()")) == rows[FP32.name].count(f"`{FP16.name}`") + rows[FP32.name].count(
        f"`{FP16_2.name}`"
    )
    for name in (FP16.name, FP16_2.name):  # each member's own row, once
        assert rows[name].count(MARK.strip("()")) == 1


def test_a_build_whose_manifest_cannot_be_read_is_not_verified_here_not_ok(tmp_path: Path):
    repo = _repository(tmp_path, fp16_status="ok")
    (tmp_path / "builds" / "m" / "manifest.json").write_text("{ not json")
    run = _run({}, str(repo))  # a run saved before build checks were recorded: its repository is read
    section = _recommendation(_report(run, tmp_path))
    assert f"`{FP32.name}` at concurrency 1" in section
    assert "**build check not verified here: its build manifest cannot be read" in section  # the pick's
    assert f"`{FP16.name}` (build check not verified here: its build manifest cannot be read" in section  # a member's


def test_a_run_that_names_no_repository_is_not_verified_here(tmp_path: Path):
    section = _recommendation(_report(_run({}), tmp_path))
    assert "**build check not verified here: the run names no repository**" in section
    assert f"`{FP16.name}` (build check not verified here: the run names no repository)" in section


def test_the_report_says_the_verdict_the_sweep_recorded_not_the_rebuilt_repositorys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    repo = _repository(tmp_path, fp16_status="not_verified_precision")

    def no_server(self: ServerPool) -> None:
        raise ServerError("no server in this test")

    monkeypatch.setattr(ServerPool, "start_all", no_server)
    opts = SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="r1")
    with pytest.raises(ServerError):
        Sweep(opts).run_all()  # the sweep's start records each variant's build check, then no server starts
    run_dir = tmp_path / "results" / "r1"
    swept = results.load(run_dir)
    checks = {v.name: v.build_check for v in swept.variants}
    assert checks[FP32.name] == BuildCheck() and checks[FP16.name] is not None and checks[FP16.name].verdict is not None
    _repository(tmp_path, fp16_status="ok")  # rebuilt after the sweep: fp16 verified (a GPU host, say)
    measured = {v.name: v for v in _run({}).variants}
    for v in swept.variants:  # the numbers the sweep would have measured
        v.levels, v.status = measured[v.name].levels, "ok"
    swept.rounds, swept.finished = RoundsRecord(seed=1), "x"
    results.save(swept, run_dir)
    section = _recommendation(write_report(run_dir).read_text())
    assert f"`{FP16.name}` at c=1 {MARK}" in section and f"`{FP16_2.name}` at c=1 {MARK}" in section


def _repository(root: Path, fp16_status: str) -> Path:
    """``root/repo``: the three variants (python serving, KIND_CPU) of one build whose fp32 export is ``ok``
    and whose fp16 export has ``fp16_status``; written again, a rebuild."""
    build, repo = root / "builds" / "m", root / "repo"
    exports = [
        ExportRecord(format="onnx", file="model", precision=p, strategy="fake", export_s=0.0, size_bytes=0, sha256="0", status=s)
        for p, s in (("fp32", "ok"), ("fp16", fp16_status))
    ]
    spec = ModelSpec.from_flags(["x:float32:4"], ["y"])
    manifest = BuildManifest(
        model="m", source="m", created="now", spec=ModelSpecRecord.from_spec(spec), max_batch_size=8, exports=exports
    )
    write_record(build / "manifest.json", MANIFEST_KIND, manifest)
    for v in (FP32, FP16, FP16_2):
        (repo / v.name / "1").mkdir(parents=True, exist_ok=True)
        (repo / v.name / "config.pbtxt").write_text(
            f'name: "{v.name}"\nbackend: "python"\nmax_batch_size: 8\ninstance_group {{ count: {v.count} kind: KIND_CPU }}\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    entries = [IndexEntry.of(v, "python", str(build)) for v in (FP32, FP16, FP16_2)]
    write_record(repo / "index.json", INDEX_KIND, RepositoryIndex(variants=entries))
    return repo


def test_a_remote_servers_own_models_have_no_build_to_check_and_a_missing_repository_is_said(tmp_path: Path):
    gone = str(tmp_path / "gone")
    own = _run({}, gone)
    own.settings["server"] = {"runtime": "remote", "deploy": False}  # --no-deploy: the server's own models
    assert "build check" not in _recommendation(_report(own, tmp_path / "own"))
    section = _recommendation(_report(_run({}, gone), tmp_path / "deployed"))
    assert f"`{FP16.name}` (build check not verified here: the repository {gone} is not there)" in section
