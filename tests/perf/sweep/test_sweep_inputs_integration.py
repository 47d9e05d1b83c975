"""Inputs perf_analyzer needs help with, swept for real (bundled tritonserver, perf_analyzer):
an FP16 input beside an INT64 one (the generated --input-data, and a user's JSON written again,
give FP16 as base64), and a
repository without the toolkit's build manifest whose dynamic dim needs --shape."""

from __future__ import annotations

import base64
import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from source_builds import build_source, first_variant

from builders.model.spec import ModelSpec
from clients.server import ServerOptions
from core.errors import PerfError
from perf.records.rounds import RoundRules
from perf.records.settings import MeasureSettings
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

FAST = MeasureSettings(measurement_interval_ms=500, max_trials=6, unstable_retries=1)

MIXED = '''
import torch
from torch import nn


class Mixed(nn.Module):
    """x float16 [batch, 4] and ids int64 [batch, seq] -> y float32 [batch, 4]."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(128, 4)
        self.lin = nn.Linear(4, 4)

    def forward(self, x, ids):
        return self.lin(x.float()) + self.emb(ids).mean(dim=1)


def make():
    torch.manual_seed(0)
    return Mixed().eval()
'''


@pytest.fixture(scope="module")
def mixed_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = ModelSpec.from_flags(["x:float16:4", "ids:int64:seq:0..49"], ["y"], ["seq=1,6,12"])
    return build_source(tmp_path_factory.mktemp("mixed"), "mixed_pkg", MIXED, spec, ("torchscript",))


def test_a_model_with_fp16_and_int64_inputs_is_swept(mixed_repo: Path, tmp_path: Path):
    name = first_variant(mixed_repo)
    opts = SweepOptions(
        ServerOptions(mixed_repo, runtime="bundled"),
        variants=(name,),
        concurrency=(1, 2),
        measure=FAST,
        results_dir=tmp_path,
        run_id="fp16",
        warmup_requests=5,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    v = run.variant(name)
    assert v.status == "ok", v.error
    assert all(lv.ok and lv.throughput_infer_per_s > 0 for lv in v.levels)
    data = json.loads((run_dir / f"input_data_{name}.json").read_text())
    assert set(data["data"][0]["x"]["content"]) == {"b64"}  # the FP16 input, as perf_analyzer takes it
    # a user's JSON of FP16 numbers (perf_analyzer refuses FP16 as numbers: it went to it as it was and every
    # level failed) and a dynamic dim without "shape" is written again from the arrays the check read
    numbers = tmp_path / "fp16_as_numbers.json"
    numbers.write_text(json.dumps({"data": [{"x": [0.5, -1, 2, 0], "ids": list(range(n))} for n in (3, 5)]}))
    mine, mine_dir = run_sweep(
        dataclasses.replace(opts, run_id="numbers", input_data=numbers, concurrency=(1,), warmup_requests=0)
    )
    assert mine.variant(name).status == "ok" and mine.variant(name).level(1).ok, mine.variant(name).error
    sent = json.loads((mine_dir / f"input_data_{name}.json").read_text())["data"]
    assert [set(d["x"]["content"]) for d in sent] == [{"b64"}] * 2 and [d["ids"]["shape"] for d in sent] == [[3], [5]]


def test_a_repository_without_manifest_needs_shape_for_a_dynamic_dim(mixed_repo: Path, tmp_path: Path):
    name = first_variant(mixed_repo)
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copytree(mixed_repo / name, bare / name)  # the model folder alone: no index.json, no build manifest
    opts = SweepOptions(
        ServerOptions(bare, runtime="bundled"),
        concurrency=(1,),
        measure=FAST,
        results_dir=tmp_path / "results",
        run_id="r",
        warmup_requests=0,
        design="sequential",
    )
    with pytest.raises(PerfError, match=r"input 'ids' dims\[0\] is dynamic") as e:
        run_sweep(opts)
    assert "--shape ids:N" in e.value.hint and not (tmp_path / "results" / "r").exists()  # stopped before anything ran
    run, run_dir = run_sweep(dataclasses.replace(opts, shapes={"ids": (7,)}))
    v = run.variant(name)
    assert v.status == "ok", v.error
    assert "ids:7" in (run_dir / "commands.txt").read_text()


def test_the_npz_clients_infer_takes_is_swept_and_a_refused_file_stops_before_anything(mixed_repo: Path, tmp_path: Path):
    """Trial 11, F21: the sweep reads the files `clients infer --input-data` reads (one reader), writes an
    .npz as perf_analyzer's JSON in the run folder, refuses a bad file before any server starts (no run
    folder), and a file with values past a table the build found is refused before a server starts too."""
    name = first_variant(mixed_repo)
    rng = np.random.default_rng(0)
    good = tmp_path / "good.npz"
    np.savez(good, x=rng.standard_normal((5, 4)).astype(np.float16), ids=rng.integers(0, 50, (5, 6)))
    opts = SweepOptions(
        ServerOptions(mixed_repo, runtime="bundled"),
        variants=(name,),
        concurrency=(1,),
        results_dir=tmp_path / "results",
        run_id="npz",
        warmup_requests=5,
        time_budget_s=None,
        round_rules=RoundRules(window_ms=150, max_rounds=3),
        baseline=False,
        input_data=good,
    )
    run, run_dir = run_sweep(opts)
    v = run.variant(name)
    assert v.status == "ok", v.error
    written = run_dir / f"input_data_{name}.json"
    commands = (run_dir / "commands.txt").read_text()
    assert f"--input-data {written}" in commands and str(good) not in commands
    assert len(json.loads(written.read_text())["data"]) == 5

    missing = tmp_path / "missing.npz"
    np.savez(missing, x=np.zeros((2, 4), np.float16))
    with pytest.raises(PerfError, match=r"input ids missing") as e:
        run_sweep(dataclasses.replace(opts, run_id="missing", input_data=missing))
    assert str(missing) in e.value.message and not (tmp_path / "results" / "missing").exists()

    past = tmp_path / "past.json"  # the embedding has 128 rows: the server refuses 500
    fp16 = {
        "content": {"b64": base64.b64encode(np.zeros(4, "<f2").tobytes()).decode()},
        "shape": [4],
    }  # as perf_analyzer takes FP16
    past.write_text(json.dumps({"data": [{"x": fp16, "ids": {"content": [500] * 6, "shape": [6]}}]}))
    # values past a table the build found are refused before any server starts (trial 23, T23-6: the sweep
    # started, the server refused every request, and the same error was said 4 times)
    with pytest.raises(PerfError, match="past a table of 128 rows") as e:
        run_sweep(dataclasses.replace(opts, run_id="past", input_data=past))
    assert str(past) in e.value.message and "0..127" in e.value.hint and not (tmp_path / "results" / "past").exists()
