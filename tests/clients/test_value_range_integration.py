"""Category codes outside the build's verified range, sent for real to an ONNX variant on the
bundled tritonserver (trial 11, F7): ONNX Runtime's Gather answers a negative index (it reads
-1 as the last row) where eager PyTorch refuses it, and ``clients infer --input-data`` sent such
codes without a word. Now codes below and above the verified range are sent with one warning;
a code past the table is refused by the server, with the verified range in the advice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from source_builds import build_source, first_variant

from builders.model.spec import ModelSpec
from clients.cli.main import cli
from clients.server import ServerOptions, TritonServer
from core.errors import ClientError

pytestmark = pytest.mark.integration

#: Rows of each category column's table: the spec's one range must fit the smallest.
ROWS = (5, 9)

TABULAR = f'''
import torch
from torch import nn


class Tabular(nn.Module):
    """codes int64 [batch, {len(ROWS)}], one table per column -> y float32 [batch, 2]."""

    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList([nn.Embedding(r, 2) for r in {ROWS}])

    def forward(self, codes):
        return sum(t(codes[:, i]) for i, t in enumerate(self.tables))


def make():
    torch.manual_seed(0)
    return Tabular().eval()
'''


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("tabular")
    spec = ModelSpec.from_flags([f"codes:int64:{len(ROWS)}:0..{min(ROWS) - 1}"], ["y"])
    repo = build_source(root, "tabular_pkg", TABULAR, spec, ("onnx",))
    name = first_variant(repo)
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=root / "server.log", start_timeout_s=120)) as srv:
        srv.load(name)
        yield srv, repo, name


def _infer(served, path: Path):
    srv, repo, name = served
    return CliRunner().invoke(cli, ["infer", name, "--url", srv.http_url, "-r", str(repo), "--input-data", str(path)])


def test_codes_outside_the_verified_range_are_sent_with_one_warning_at_both_ends(served, tmp_path: Path) -> None:
    hi = min(ROWS) - 1
    codes = {"below": np.full((2, len(ROWS)), -1, np.int64), "above": np.full((2, len(ROWS)), hi + 1, np.int64)}
    codes["above"][:, 0] = hi  # within the smallest table: the server answers
    said = {}
    for side, values in codes.items():
        np.savez(tmp_path / f"{side}.npz", codes=values)
        res = _infer(served, tmp_path / f"{side}.npz")
        assert res.exit_code == 0, res.output  # answered by ONNX Runtime at both ends
        said[side] = " ".join(res.output.split())  # the warning as logged, rich's line breaks undone
        assert (
            "inputs: codes [2, 2] (batch 2 × [2] per sample) int64" in said[side] and "│ y " in said[side]
        )  # sent, and answered
        assert said[side].count("outside the build's verified range") == 1
        assert f"outside the build's verified range 0..{hi} (its value_range)" in said[side]
    assert "holds -1..-1, outside" in said["below"] and "4 below 0 of its 4 values" in said["below"]
    assert f"holds {hi}..{hi + 1}, outside" in said["above"] and f"2 above {hi} of its 4 values" in said["above"]


def test_a_code_past_its_table_is_refused_with_the_verified_range(served, tmp_path: Path) -> None:
    np.savez(tmp_path / "past.npz", codes=np.full((1, len(ROWS)), max(ROWS), np.int64))
    res = _infer(served, tmp_path / "past.npz")
    e = res.exception
    assert isinstance(e, ClientError), res.output
    assert "an integer input holds an index past a table the model indexes" in e.message
    assert f"the build verified 'codes' 0..{min(ROWS) - 1} (its value_range)" in (e.hint or "")
