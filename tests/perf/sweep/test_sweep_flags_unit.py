"""Sweep flags that take effect or are refused as usage errors (issue 26): ``--round-window`` was
never applied (every visit measured 3 windows of the default 300 ms), and ``--shapes`` naming an
axis no build has only warned per variant and measured every variant at its own shape. No server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.view import Repository
from clients.server import ServerOptions
from core.errors import FlagError
from perf.cli import main as perf_cli
from perf.sweep.run import Sweep, SweepOptions

SPEC = ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 49)),), (TensorSpec("y", "float32", (4,)),), {"seq": (1, 24, 128)})


def _repo(root: Path, names: list[str]) -> Path:
    for n in names:
        (root / n).mkdir(parents=True)
        (root / n / "config.pbtxt").write_text(
            f'name: "{n}"\nbackend: "python"\nmax_batch_size: 8\n'
            'input [ { name: "ids" data_type: TYPE_INT64 dims: [ -1 ] } ]\n'
            'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    return root


@pytest.fixture()
def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Two variants whose builds' specs have the dynamic axis ``seq``."""
    monkeypatch.setattr(Repository, "variant", lambda self, name: type("V", (), {"spec": SPEC, "served_spec": SPEC})())
    return _repo(tmp_path / "repo", ["enc_a", "enc_b"])


def _opts(repo: Path, tmp_path: Path, **kw: Any) -> SweepOptions:
    return SweepOptions(ServerOptions(repo, runtime="bundled"), concurrency=(1,), results_dir=tmp_path / "results", **kw)


def test_the_round_window_is_the_window_the_rounds_measure(built: Path, tmp_path: Path) -> None:
    sw = Sweep(_opts(built, tmp_path, round_window_ms=150, run_id="w"))
    assert sw.run.rounds is not None and sw.run.rounds.rules.window_ms == 150
    assert Sweep(_opts(built, tmp_path, run_id="d")).run.rounds.rules.window_ms == 300  # type: ignore[union-attr]


def test_a_shapes_axis_no_build_has_is_a_usage_error(built: Path, tmp_path: Path) -> None:
    with pytest.raises(
        FlagError, match=r"sq: no variant of this sweep has a dynamic axis of that name; the axes its builds have: seq"
    ):
        Sweep(_opts(built, tmp_path, sweep_axes={"sq": (16, 64)}, run_id="s"))
    sw = Sweep(_opts(built, tmp_path, sweep_axes={"seq": (16, 64)}, run_id="ok"))  # a known axis: swept
    assert sw.plans["enc_a"].shapes == ("seq=16", "seq=64")
    res = CliRunner().invoke(
        perf_cli.cli,
        ["sweep", "--repository", str(built), "--shapes", "sq=16,64", "--results-dir", str(tmp_path / "r"), "--no-report"],
    )
    assert res.exit_code == 2, res.output
    assert "Invalid value for --shapes: sq: " in res.output and "the axes its builds have: seq" in res.output
    assert "Traceback" not in res.output


def test_one_axis_named_by_two_shapes_flags_is_a_usage_error() -> None:
    """``--shapes seq=16 --shapes seq=64`` swept 64 only: the first flag was silently replaced."""
    from perf.sweep.flags import sweep_axes_flags

    assert sweep_axes_flags(("seq=16,64", "img=32")) == {"seq": (16, 64), "img": (32,)}
    with pytest.raises(click.BadParameter, match=r"--shapes seq given twice \(16 and 64\).*--shapes seq=16,64"):
        sweep_axes_flags(("seq=16", "seq=64"))
