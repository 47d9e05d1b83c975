"""``triton-perf sweep --shapes`` of an axis with a step (trial 24, T24-7): a fixed size, or a mixed range's end, that
is not a multiple of the step the build declared is refused when the sweep is planned (no server, no level), naming
the axis, the step and the nearest valid sizes; multiples are planned as before. No server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.view import Repository
from clients.server import ServerOptions
from core.errors import PerfError
from perf.sweep.run import Sweep, SweepOptions

SPEC = ModelSpec(
    (TensorSpec("image", "float32", (1, "H", "W")),),
    (TensorSpec("y", "float32", (1, "H", "W")),),
    {"H": (64, 128, 256), "W": (64, 128, 256)},
    {"H": 32, "W": 32},
)


@pytest.fixture()
def repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(
        Repository,
        "variant",
        lambda self, name: type(
            "V", (), {"spec": SPEC, "served_spec": SPEC, "entry": None, "folder": tmp_path / "repo" / name}
        )(),
    )
    root = tmp_path / "repo" / "unet_a"
    root.mkdir(parents=True)
    (root / "config.pbtxt").write_text(
        'name: "unet_a"\nbackend: "python"\nmax_batch_size: 4\n'
        'input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, -1, -1 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 1, -1, -1 ] } ]\n'
    )
    return tmp_path / "repo"


def _sweep(repo: Path, tmp_path: Path, **axes: Any) -> Sweep:
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"), concurrency=(1,), results_dir=tmp_path / "r", run_id="s", sweep_axes=axes
    )
    return Sweep(opts)


@pytest.mark.parametrize(
    "axes, said, near",
    [
        ({"H": (128, 191)}, "--shapes H=128,191: 191 is not a multiple of 32", "to 191 are 160 and 192"),
        ({"W": ("64..250",)}, "--shapes W=64..250: 250 is not a multiple of 32", "to 250 are 224 and 256"),
    ],
)
def test_a_swept_size_off_the_step_is_refused_before_anything_starts(repo: Path, tmp_path: Path, axes, said, near) -> None:
    with pytest.raises(PerfError) as e:
        _sweep(repo, tmp_path, **axes)
    assert said in e.value.message and "the step the build declared for axis" in e.value.message
    assert near in (e.value.hint or "") and e.value.flag == "--shapes"
    assert not list((tmp_path / "r").glob("*/results.json*"))


def test_multiples_of_the_step_are_planned(repo: Path, tmp_path: Path) -> None:
    sw = _sweep(repo, tmp_path, H=(96, "64..256"), W=(128,))
    assert sw.plans["unet_a"].shapes == ("H=96,W=128", "H=64..256,W=128")


def test_a_shape_flag_off_the_step_is_refused_before_anything_starts(repo: Path, tmp_path: Path) -> None:
    """``triton-perf sweep/coldstart --shape``: the one check of ``clients infer --shape`` (clients.shapes)."""
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        concurrency=(1,),
        results_dir=tmp_path / "r",
        run_id="s",
        shapes={"image": (1, 100, 64)},
    )
    with pytest.raises(PerfError) as e:
        Sweep(opts)
    assert "--shape image:1,100,64: 100 is not a multiple of 32, the step the build declared for axis H" in e.value.message
    assert "the nearest valid sizes to 100 are 96 and 128" in (e.value.hint or "")
