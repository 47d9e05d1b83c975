"""A model that takes only multiples of 8 for H and W (trial 24, T24-7: a U-Net-like model, its mixed-size sweep
drew 191x112 and every mixed level failed), built with the step declared, swept for real (bundled tritonserver,
perf_analyzer) over a mixed range of both axes: every size the sweep draws is a multiple of 8, and nothing fails;
``clients infer --shape`` of a size off the step is refused with the nearest valid sizes, one on it is served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from bundled_sweeps import short_sweep
from click.testing import CliRunner
from source_builds import build_module

from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from clients.cli.main import cli as clients_cli
from clients.server import ServerOptions, TritonServer
from perf.measure.mixed import first_size

pytestmark = pytest.mark.integration
VARIANT = "unet_onnx_cpu1_nodb_mbs4"


class UNetLike(torch.nn.Module):
    """[batch, 1, H, W] -> [batch, 1, H, W] through an 8x down/up-sample and a skip concat: H and W not multiples
    of 8 come back from the upsample smaller than the skip, and the concat raises (eager and in ONNX Runtime)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.enc = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.out = torch.nn.Conv2d(8, 1, 1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        skip = self.enc(image)
        up = torch.nn.functional.interpolate(torch.nn.functional.max_pool2d(skip, 8), scale_factor=8.0)
        return self.out(torch.cat([skip, up], 1))


def test_unet_like_model_fails_off_the_step() -> None:
    """The model of this file does take only multiples of 8 (so the sweep below would fail on any other size)."""
    m = UNetLike().eval()
    assert m(torch.zeros(1, 1, 64, 96)).shape == (1, 1, 64, 96)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        m(torch.zeros(1, 1, 100, 96))


@pytest.fixture(scope="module")
def unet_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = ModelSpec.from_flags(["image:float32:1,H,W"], axes=["H=16,64,256/8", "W=16,64,256/8"])
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    return build_module(tmp_path_factory.mktemp("unet"), UNetLike(), spec, ("onnx",), grid=grid, name="unet")


@pytest.mark.timeout(180)
def test_a_mixed_sweep_draws_multiples_of_the_step_and_nothing_fails(unet_repo: Path, tmp_path: Path) -> None:
    manifest = json.loads((unet_repo.parent / "builds" / "unet" / "manifest.json").read_text())
    assert manifest["spec"]["multiple_of"] == {"H": 8, "W": 8}  # the one source every check below reads
    _run, run_dir, v = short_sweep(unet_repo, VARIANT, tmp_path, "step", {"H": ("16..256",), "W": ("16..256",)})
    assert v.levels and all(lv.ok for lv in v.levels), [lv.error for lv in v.levels]
    [data] = (run_dir / "inputs_H16..256_W16..256").glob("input_data_*.json")
    sent = [d["image"]["shape"] for d in json.loads(data.read_text())["data"]]
    sizes = [n for shape in sent for n in shape[1:]]
    assert all(n % 8 == 0 and 16 <= n <= 256 for n in sizes), sent
    assert len({tuple(s) for s in sent}) == len(sent) > 8  # a mix of many sizes, each a multiple of 8
    assert v.cold_start is not None  # its first requests at the mix's first entry, a multiple too
    first = next(f for f in v.cold_start.first if f.shape == "H=16..256,W=16..256")
    assert first.sent_shape == first_size(first.shape, {"H": 8, "W": 8}) == f"H={sent[0][1]},W={sent[0][2]}", first
    assert not first.error

    log = tmp_path / "s.log"
    with TritonServer(
        ServerOptions(unet_repo, runtime="bundled", log_file=log, start_timeout_s=120, load_models=(VARIANT,))
    ) as srv:
        args = ["infer", VARIANT, "-r", str(unet_repo), "--url", srv.http_url]
        res = CliRunner().invoke(clients_cli, [*args, "--shape", "image:1,100,64"])
        said = " ".join(res.output.split())
        assert res.exit_code == 2, res.output
        assert "100 is not a multiple of 8, the step the build declared for axis H" in said
        assert "the nearest valid sizes to 100 are 96 and 104" in said
        res = CliRunner().invoke(clients_cli, [*args, "--shape", "image:1,104,200"])
        assert res.exit_code == 0, res.output
        assert "[1, 1, 104, 200]" in res.output
