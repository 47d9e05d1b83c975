"""What a sweep prints before its first level (issue 26): the inputs it will send — seq=64 was
said only in report.md — grouped over the variants, from the plan the sweep measures. No server."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.runtimes.options import ServerOptions
from core.errors import RepositoryError
from perf.cli import main as perf_cli
from perf.records.results import RunResult, VariantResult
from perf.search.plan import VariantPlan
from perf.sweep.opening import input_lines
from perf.sweep.options import SweepOptions

SPEC = ModelSpec(
    (TensorSpec("input_ids", "int64", ("seq",), (0, 999)), TensorSpec("attention_mask", "int64", ("seq",), (0, 1))),
    (),
    {"seq": (1, 64, 128)},
)
DYNAMIC = [{"name": n, "data_type": "TYPE_INT64", "dims": [-1]} for n in ("input_ids", "attention_mask")]
CONFIG = {"name": "enc", "max_batch_size": 8, "input": DYNAMIC}
FIXED = {"name": "mlp", "max_batch_size": 64, "input": [{"name": "INPUT__0", "data_type": "TYPE_FP32", "dims": [512]}]}
LEVELS = [(1, 1, 0, None, None)]


def _opts(**kw: Any) -> SweepOptions:
    return SweepOptions(ServerOptions(Path("model_repository")), **kw)


def test_the_inputs_are_said_per_group_of_variants():
    plans = {n: VariantPlan(n, LEVELS, config=CONFIG) for n in ("enc_onnx_cpu1", "enc_ts_cpu1")}
    plans["mlp_onnx_cpu1"] = VariantPlan("mlp_onnx_cpu1", LEVELS, config=FIXED)
    plans["enc_skipped"] = VariantPlan("enc_skipped", [], config=CONFIG)  # nothing planned: not said
    specs = {n: SPEC for n in plans if n.startswith("enc")}
    lines = input_lines(plans, specs, _opts())
    assert lines == [
        "inputs sent per request (enc_onnx_cpu1, enc_ts_cpu1): input_ids [1, 64] (batch 1 × [64] per sample) int64, "
        "attention_mask [1, 64] (batch 1 × [64] per sample) int64 — seq=64 (the build's opt size of axis seq)",
        "inputs sent per request (mlp_onnx_cpu1): INPUT__0 [1, 512] (batch 1 × [512] per sample) float32",
    ]
    given = input_lines(
        {"e": VariantPlan("e", LEVELS, config=CONFIG)}, {"e": None}, _opts(shapes={"input_ids": (16,), "attention_mask": (16,)})
    )
    assert given == [
        "inputs sent per request (e): input_ids [1, 16] (batch 1 × [16] per sample) int64, attention_mask [1, 16] (batch 1 × "
        "[16] per sample) int64 — input_ids [16] per sample (--shape); attention_mask [16] per sample (--shape)"
    ]
    swept = input_lines({"e": VariantPlan("e", LEVELS, config=CONFIG, shapes=("seq=16", "seq=128"))}, {"e": SPEC}, _opts())
    assert swept == [  # trial 9, F22: "[64]" first, a size the sweep never sends
        "inputs sent per request (e): input_ids [1, seq] (batch 1 × [seq] per sample) int64, attention_mask [1, seq] (batch "
        "1 × [seq] per sample) int64; swept (--shapes): seq=16, "
        "seq=128, each a level of its own"
    ]
    two = ModelSpec(
        (TensorSpec("series", "float32", (4, "time")), TensorSpec("calendar", "float32", (8,))), (), {"time": (16, 128, 512)}
    )
    config = {
        "name": "f",
        "max_batch_size": 64,
        "input": [
            {"name": "series", "data_type": "TYPE_FP32", "dims": [4, -1]},
            {"name": "calendar", "data_type": "TYPE_FP32", "dims": [8]},
        ],
    }
    swept = input_lines({"f": VariantPlan("f", LEVELS, config=config, shapes=("time=16", "time=512"))}, {"f": two}, _opts())
    assert swept[0].startswith(
        "inputs sent per request (f): series [1, 4, time] (batch 1 × [4, time] per sample) float32, calendar [1, 8] (batch 1 × "
        "[8] per sample) float32; swept"
    )
    assert "128" not in swept[0]
    one = input_lines({"f": VariantPlan("f", LEVELS, config=config, shapes=("time=16..512",))}, {"f": two}, _opts())
    assert one[0].endswith("; swept (--shapes): time=16..512 (mixed), sent at every level")  # s22z, Z-11: "each" of one
    data = input_lines({"e": VariantPlan("e", LEVELS, config=CONFIG)}, {"e": SPEC}, _opts(input_data=Path("d.json")))
    assert data == ["inputs sent per request (e): your --input-data d.json (its shapes and values)"]


class _Repository:
    def variant(self, name: str) -> Any:
        if name != "enc_onnx_cpu1":
            raise RepositoryError(f"{name}: no build record")
        return type("V", (), {"served_spec": SPEC})()


class _FakeSweep:
    nothing_to_measure = False  # perf.sweep.context.SweepBase.nothing_to_measure: a fresh or unfinished run
    stopped_in_baseline = False  # perf.sweep.baseline_step.BaselineStep's

    def __init__(self, opts: SweepOptions, progress: Any = None):
        self.opts, self.run_id, self.run_dir = opts, "r1", Path("results") / "r1"
        self.plans = {"enc_onnx_cpu1": VariantPlan("enc_onnx_cpu1", LEVELS, config=CONFIG)}
        self.repository = _Repository()
        self.run = RunResult("r1", "now")

    def level_counts(self) -> tuple[int, int]:
        return 1, 0

    def run_all(self) -> RunResult:
        raise KeyboardInterrupt  # stop before any level: the opening is what this test reads


def test_the_sweep_opens_with_the_inputs_it_will_send(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import perf.sweep.run

    monkeypatch.setattr(perf.sweep.run, "Sweep", _FakeSweep)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--no-report"])
    said = " ".join(res.output.split())
    assert "inputs sent per request (enc_onnx_cpu1): input_ids [1, 64] (batch 1 × [64] per sample) int64, attention_mask" in said
    assert "— seq=64" in said
    assert said.index("inputs sent per request") < said.index("interrupted")


def test_a_resumed_rounds_run_says_its_rounds_and_that_more_follow():
    from factories import level_result

    from perf.records.results import VariantResult
    from perf.records.rounds import RoundRecord, RoundsRecord, Visit
    from perf.sweep.opening import resume_line

    rounds = [RoundRecord(i, 0, 7 + i, "now", order=[Visit("a", 1), Visit("b", 1)]) for i in range(3)]
    run = RunResult("r9", "now", variants=[VariantResult(n, None, "ok", None, [level_result(1, 10.0, 1.0)]) for n in "ab"])
    run.rounds = RoundsRecord(seed=7, rounds=rounds)
    line = resume_line(run, {}, _opts(baseline=True))
    assert "design rounds, 300 ms round windows" in line and "and 3 rounds (6 visits) of 2 variants" in line
    assert line.endswith(
        "will measure: more rounds where the paired ranking is not decided, within the time budget "
        "(estimate below), then the in-process baseline"
    )
    run.finished = "then"  # its rounds had ended (perf.sweep.final.ResumedRounds.finished_before)
    line = resume_line(run, {}, _opts(baseline=True))
    assert line.endswith(
        "will measure: no round (its rounds had ended: a new --run-id measures again); then its missing in-process baseline"
    )
    assert resume_line(run, {}, _opts(baseline=False)).endswith("measures again); no in-process baseline (--no-baseline)")


def _finished(tmp_path: Path, design: str) -> Path:
    """A finished run of two hand-made variants, every planned level measured, each stamped with
    the files it measured (``1/model.bin``); its results dir."""
    from factories import level_result, served_model
    from python_models import write_measured_models

    from clients.runtimes.identity import found_artifact
    from clients.server import ServerOptions as Server
    from perf.records import results
    from perf.sweep.run import Sweep

    repo = write_measured_models(tmp_path / "repo", ("a_mbs8", "b_mbs8"))
    opts = SweepOptions(Server(repo, runtime="bundled"), concurrency=(1, 2), results_dir=tmp_path / "results", run_id="done")
    sw = Sweep(dataclasses.replace(opts, design=design))
    run = sw.run
    run.settings = sw._settings()  # type: ignore[typeddict-item]
    run.variants = [VariantResult(n, None, "ok", None, [level_result(c, 100.0 * c, 1.0) for c in (1, 2)]) for n in sw.names]
    for v in run.variants:
        v.served = [served_model(v.name, max_batch_size=8, artifact=found_artifact(repo / v.name))]
    run.finished = "then"
    results.save(run, sw.run_dir)
    return tmp_path / "results"


@pytest.mark.parametrize("design", ["rounds", "sequential"])
def test_a_resumed_finished_run_says_it_measures_nothing_and_draws_no_bar(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, design: str
):
    """It printed the inputs line (sequential) and an empty progress bar ('nothing to measure
    0/0'; sequential: '4/4' after starting a server), though nothing is sent."""
    from perf.sweep.servers import ServerPool

    results_dir = _finished(tmp_path, design)

    def no_server(self: Any) -> None:
        raise AssertionError("a server was started for a run with nothing to measure")

    monkeypatch.setattr(ServerPool, "start_all", no_server)
    res = CliRunner().invoke(
        perf_cli.cli, ["sweep", "--resume", "done", "--results-dir", str(results_dir), "--no-baseline", "--no-report"]
    )
    said = " ".join(res.output.split())
    assert res.exit_code == 0, res.output
    assert "will measure: no " in said and "nothing more is measured into it" in said
    assert "inputs sent per request" not in said
    assert not any(bar in said for bar in ("0/0", "4/4", "tritonserver", "nothing to measure"))


def test_a_resumed_finished_run_with_rebuilt_files_refuses_before_its_resume_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """Trial 7 (F22): --resume of a finished run refused on the model files a rebuild changed
    before saying there was nothing left to measure; nothing is served, so nothing is refused,
    except the in-process baseline it still owes: it loads the files, which must be the measured ones.
    Trial 26 (T26-15): that refusal came after the resume line and "its in-process baseline is measured
    now": it comes first, before anything is promised. With --no-baseline nothing is loaded: no refusal."""
    from perf.sweep.servers import ServerPool

    results_dir = _finished(tmp_path, "sequential")
    (tmp_path / "repo" / "a_mbs8" / "1" / "model.bin").write_bytes(b"weights of a rebuild")
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started"))
    args = ["sweep", "--resume", "done", "--results-dir", str(results_dir), "--no-report"]
    res = CliRunner().invoke(perf_cli.cli, args)  # its baseline was never measured: it would load the rebuilt file
    refused = str(res.exception)
    assert res.exit_code != 0 and "a baseline filed under the run of them" in refused, res.output
    assert "1/model.bin: measured" in refused
    said = " ".join(res.output.split())
    assert not any(w in said for w in ("resume done", "nothing more is measured", "baseline is measured now")), said
    res = CliRunner().invoke(perf_cli.cli, [*args, "--no-baseline"])
    assert res.exit_code == 0, res.output
    assert "nothing more is measured into it" in " ".join(res.output.split())
