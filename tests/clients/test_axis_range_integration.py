"""A ``lengths`` input whose value_range names the waveform's ``time`` axis (trial 12, F4), built
and served for real on the bundled tritonserver: the requests ``clients infer`` generates hold
lengths within each request's own waveform, at the opt size and at a ``--shape`` size, as the
model itself reports back; the Triton warmup the server runs at load draws them per sample size too."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from source_builds import ONE_VARIANT, build_source, first_variant

from builders.config.pbtxt import read_config
from builders.model.spec import ModelSpec
from clients.cli.main import cli
from clients.server import ServerOptions, TritonServer

pytestmark = pytest.mark.integration

#: The time axis (min, opt, max): small, so that a batch of draws reaches its ends.
TIME = (20, 40, 80)

AUDIO = """
import torch
from torch import nn


class Audio(nn.Module):
    \"\"\"waveform float32 [batch, time], lengths int64 [batch, 1] -> over float32 [batch, 1]: 1 where
    lengths exceeds the waveform's time, and masked float32 [batch]: the sum over the valid samples.\"\"\"

    def forward(self, waveform, lengths):
        t = waveform.shape[1]
        valid = (torch.arange(t).unsqueeze(0) < lengths).to(waveform.dtype)
        return (lengths > t).to(waveform.dtype), (waveform * valid).sum(1)


def make():
    return Audio().eval()
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("audio")
    spec = ModelSpec.from_flags(
        ["waveform:float32:time", "lengths:int64:1:1..time"], ["over", "masked"], [f"time={','.join(map(str, TIME))}"]
    )
    repo = build_source(root, "audio_pkg", AUDIO, spec, ("torchscript",), dataclasses.replace(ONE_VARIANT, warmups=("random",)))
    name = first_variant(repo)
    cfg = read_config(repo / name / "config.pbtxt")  # Triton runs these at load: each sample's lengths within its time
    for sample in cfg.model_warmup:
        lengths = np.fromfile(repo / name / "warmup" / sample.inputs["lengths"].input_data_file, np.int64)
        assert 1 <= lengths.min() and lengths.max() <= sample.inputs["waveform"].dims[0], sample.name
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=root / "server.log", start_timeout_s=120)) as srv:
        srv.load(name)
        yield srv, repo, name


@pytest.mark.parametrize("time", [None, TIME[0], TIME[2]])
def test_generated_requests_hold_lengths_within_their_waveform(served, tmp_path: Path, time: int | None) -> None:
    srv, repo, name = served
    saved = tmp_path / "out.npz"
    shape = ["--shape", f"waveform:{time}"] if time else []
    res = CliRunner().invoke(
        cli, ["infer", name, "--url", srv.http_url, "-r", str(repo), "-b", "8", *shape, "--save-outputs", str(saved)]
    )
    assert res.exit_code == 0, res.output
    size = time or TIME[1]
    said = " ".join(res.output.split())
    assert f"integers uniform in [1, {size}] (the build's value_range 1..time at time={size})" in said
    with np.load(saved) as z:
        assert z["over"].shape == (8, 1) and not z["over"].any()  # the server's model saw no lengths > time
