"""``clients infer --shared-memory`` on the real bundled tritonserver with a model whose outputs
follow its input's axes (trial 30, F20): ``reconstruction [1, H, W]`` (config dims ``[1, -1, -1]``)
now comes back through a shared-memory region sized from the request, while ``flat [H*W]`` (a dim
that follows no single input axis) comes back over the wire, said in the line with why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from source_builds import build_source, first_variant

from builders.model.spec import ModelSpec
from clients.cli.main import cli
from clients.server import ServerOptions, TritonServer

pytestmark = pytest.mark.integration

AUTOENCODER = """
from torch import nn


class Twice(nn.Module):
    \"\"\"image [batch, 1, H, W] -> reconstruction [batch, 1, H, W] (2 x image), flat [batch, H*W].\"\"\"

    def forward(self, image):
        return image * 2, image.flatten(1)


def make():
    return Twice().eval()
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("shm_out")
    spec = ModelSpec.from_flags(["image:float32:1,H,W"], ["reconstruction", "flat"], ["H=8,16,32", "W=8,16,32"])
    repo = build_source(root, "twice_pkg", AUTOENCODER, spec, ("torchscript",))
    name = first_variant(repo)
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=root / "server.log", start_timeout_s=120)) as srv:
        srv.load(name)
        yield srv, repo, name


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_an_output_that_follows_the_input_comes_back_through_shared_memory_and_one_that_does_not_is_said(
    served, tmp_path: Path, protocol: str
) -> None:
    srv, repo, name = served
    url = srv.http_url if protocol == "http" else srv.grpc_url
    np.save(tmp_path / "image.npy", np.arange(2 * 1 * 24 * 16, dtype=np.float32).reshape(2, 1, 24, 16))
    saved = tmp_path / "out.npz"
    args = ["infer", name, "--url", f"{protocol}://{url}", "-r", str(repo), "--shared-memory", "-v"]
    res = CliRunner().invoke(cli, [*args, "--input", str(tmp_path / "image.npy"), "--save-outputs", str(saved)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert (
        "shared memory: image, reconstruction; over the wire, its size not known before the request: flat (its dims "
        "[batch, flat_dim1] name flat_dim1: no single input axis (the build's record))"
    ) in said  # the old code said nothing, and sent reconstruction over the wire
    assert "output reconstruction through shared memory, [2, 1, 24, 16]" in said  # -v
    with np.load(saved) as z:
        image = np.arange(2 * 24 * 16, dtype=np.float32).reshape(2, 1, 24, 16)
        np.testing.assert_array_equal(z["reconstruction"], image * 2)
        np.testing.assert_array_equal(z["flat"], image.reshape(2, -1))
