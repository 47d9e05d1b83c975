"""A ``value_range`` bound that names a dynamic axis (trial 12, F4) in clients' and perf's
generators and checks: ``clients infer``/``check``/coldstart's generated inputs, the sweep's
perf_analyzer input data (one file per swept shape) and the warning for a user's file."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from served_configs import variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from clients.input_files import load_input_file
from clients.inputs import ModelSignature, generate_inputs, plan_inputs
from perf.measure.inputs import input_args

SPEC = ModelSpec.from_flags(["waveform:float32:time", "lengths:int64:1:1..time"], ["logits"], ["time=1000,8000,16000"])
CONFIG = variant_config(SPEC, Variant("kws", "onnx", max_batch_size=8))
SIG = ModelSignature.from_config(CONFIG)


@pytest.mark.parametrize("time", [None, 1000, 16000])
def test_generated_requests_send_lengths_within_their_own_waveform(time: int | None) -> None:
    shapes = {"waveform": (time,)} if time else None
    size = time or SPEC.axis_sizes("opt")["time"]
    x = generate_inputs(SIG, 8, SPEC, shapes=shapes)
    assert x["waveform"].shape == (8, size)
    assert 1 <= x["lengths"].min() and x["lengths"].max() <= size
    lengths = next(c for c in plan_inputs(SIG, 8, SPEC, shapes) if c.name == "lengths")
    assert lengths.values == f"integers uniform in [1, {size}] (the build's value_range 1..time at time={size})"


def test_the_sweeps_input_data_is_drawn_at_each_shape(tmp_path: Path) -> None:
    for time in (1000, 16000):
        workdir = tmp_path / f"time{time}"
        workdir.mkdir()
        args = input_args(CONFIG, SPEC, workdir, shapes={"waveform": (time,)}, steps=16)
        data = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
        lengths = [v for entry in data for v in entry["lengths"]["content"]]
        assert all(entry["waveform"]["shape"] == [time] for entry in data)
        assert 1 <= min(lengths) and max(lengths) <= time, (time, max(lengths))


def test_a_files_lengths_above_its_waveform_are_warned(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "over.npz"
    np.savez(path, waveform=np.zeros((4, 12000), np.float32), lengths=np.array([[20000], [16000], [12000], [5]]))
    with caplog.at_level(logging.WARNING):
        load_input_file(path, SIG, 4, SPEC, batch_given=True)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 1 and "'lengths'" in said[0]
    assert "2 above the build's verified range 1..time" in said[0] and "20000 where time=12000 (range 1..12000)" in said[0]
    assert "Gather" not in said[0]  # no embedding-table paragraph for a length
    caplog.clear()
    np.savez(path, waveform=np.zeros((2, 12000), np.float32), lengths=np.array([[12000], [1]]))
    with caplog.at_level(logging.WARNING):
        load_input_file(path, SIG, 2, SPEC, batch_given=True)
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_a_mixed_size_workload_draws_each_entrys_lengths_within_its_own_waveform(tmp_path: Path) -> None:
    args = input_args(CONFIG, SPEC, tmp_path, mixed={"time": (1000, 16000)})
    data = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
    assert len({entry["waveform"]["shape"][0] for entry in data}) > 1  # a mix of sizes
    for entry in data:
        (time,) = entry["waveform"]["shape"]
        assert all(1 <= v <= time for v in entry["lengths"]["content"]), (time, entry["lengths"]["content"])
