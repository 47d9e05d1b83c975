"""A build whose every variant is skipped produced nothing to serve (issue 26: it printed
"wrote 0 variants" and exited 0): it fails, naming why each was skipped and what to do, and
leaves the manifest and the repository as they were."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.serving.tensorrt_env import missing_requirements
from core.errors import ConfigError

CPU_TRACE = '''
import torch
from torch import nn


class Bias(nn.Module):
    """Trace-only: a tensor made on x.device in forward (a cpu constant in the traced graph)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, *args):
        x = args[0]
        return self.lin(x) + torch.ones(x.shape[0], 4, device=x.device)


def bias():
    torch.manual_seed(0)
    return Bias().eval()
'''
GPU_ONLY = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,), server_gpu=True)


@pytest.fixture()
def cpu_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "cpu_trace_pkg.py").write_text(textwrap.dedent(CPU_TRACE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "cpu_trace_pkg:bias"
    sys.modules.pop("cpu_trace_pkg", None)


@pytest.mark.slow  # a real TorchScript trace
def test_the_only_variant_refused_by_its_device_is_a_failure(cpu_trace: str, tmp_path: Path) -> None:
    opts = BuildOptions(
        cpu_trace,
        formats=("torchscript",),
        serving="native",
        spec=ModelSpec.from_flags(["x:float32:4"]),
        grid=GPU_ONLY,
        repository=tmp_path / "repo",
        build_dir=tmp_path / "b",
    )
    with pytest.raises(ConfigError) as e:
        build(opts)
    msg = e.value.message
    assert msg.startswith("nothing to serve: torchscript fp32 passed, but every variant was skipped")
    assert "bias_ts_gpu1_nodb_mbs4" in msg and "cpu (aten::ones)" in msg  # which variant, and why
    assert "`builders variants`" in e.value.hint
    assert not (tmp_path / "b" / "bias" / "manifest.json").exists()  # left as it was: no build before
    assert not any((tmp_path / "repo").glob("*/config.pbtxt"))


@pytest.mark.skipif(not missing_requirements(), reason="this host deserializes plans: a fake plan is refused first")
def test_a_plan_the_serving_cannot_serve_fails_with_the_way_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.plan").write_bytes(b"\x00engine")
    flags = ["--model", "tiny", "--format", "trt", "--plan", "p.plan", "--instance-kind", "gpu", "--server-gpu"]
    res = CliRunner().invoke(cli, ["build", *flags, "--instance-counts", "1", "--max-batch-sizes", "8"])
    assert res.exit_code == 1, res.output
    assert "wrote 0 variants" not in res.output
    assert "nothing to serve: trt fp32 passed" in str(res.exception)
    assert "the python backend cannot serve it" in str(res.exception)
    assert "--serving native" in res.exception.hint
