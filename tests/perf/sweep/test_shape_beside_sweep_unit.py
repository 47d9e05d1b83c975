"""A sweep's ``--shape`` that sizes an axis ``--shapes`` sweeps is refused before anything starts (issue 26):
a ``--shape`` wins over a level's size (:func:`clients.shapes.resolve`), so ``--shapes H=64,256 --shape
image:3,64,64`` sent 64 at the levels labelled ``H=256``. A ``--shape`` of an input the swept axes do not
size stays."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from served_configs import write_variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.repository.view import Repository
from core.errors import FlagError
from perf.cli.main import cli as perf_cli
from perf.sweep.preflight import check_shape_beside_sweep

SPEC = ModelSpec.from_flags(["image:float32:3,H,W", "extra:float32:L"], ["y"], ["H=16,64,256", "W=16,64,256", "L=1,8,32"])
VARIANT = Variant("img", "onnx", max_batch_size=8)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def repo(fake_build) -> Path:
    path = fake_build(SPEC, VARIANT)
    write_variant_config(path, SPEC, VARIANT)
    return path


@pytest.mark.parametrize("swept", [(64, 256), ("16..256",)])
def test_a_shape_that_sizes_a_swept_axis_is_refused(repo: Path, swept: tuple[object, ...]) -> None:
    sweeps = f"--shapes H={','.join(map(str, swept))}"
    said = rf"^--shape image:3,64,64 sizes axis H, which {sweeps} sweeps: a --shape wins over a level's size, so a level "
    with pytest.raises(FlagError, match=said + "labelled with another size would send the --shape's") as e:
        check_shape_beside_sweep(Repository(repo), [VARIANT.name], {"H": swept}, {"image": (3, 64, 64)})
    assert e.value.flag == "--shape"
    # the sizes the --shape gave, as --shapes: the swept axis's levels and the other axis it fixed
    assert e.value.hint == f"give the sizes with --shapes only ({sweeps} --shapes W=64), or drop --shapes"


def test_each_shape_names_the_axes_it_sizes_and_the_flags_that_sweep_them(repo: Path) -> None:
    with pytest.raises(FlagError) as e:
        check_shape_beside_sweep(Repository(repo), [VARIANT.name], {"H": (64,), "W": (16, 32)}, {"image": (3, 64, 64)})
    assert str(e.value).startswith("--shape image:3,64,64 sizes axes H, W, which --shapes H=64 --shapes W=16,32 sweep: ")
    assert e.value.hint == "give the sizes with --shapes only (--shapes H=64 --shapes W=16,32), or drop --shapes"


def test_a_shape_of_an_input_without_a_swept_axis_stays(repo: Path) -> None:
    check_shape_beside_sweep(Repository(repo), [VARIANT.name], {"H": (64, 256)}, {"extra": (8,)})
    check_shape_beside_sweep(Repository(repo), [VARIANT.name], {}, {"image": (3, 64, 64)})
    check_shape_beside_sweep(Repository(repo), [VARIANT.name], {"H": (64, 256)}, {})


def _sweep_args(repo: Path, results: Path) -> list[str]:
    return [
        "-r", str(repo), "--shapes", "H=64,256", "--shape", "image:3,64,64", "--results-dir", str(results),
        "--runtime", "remote", "--url", "127.0.0.1:9",
    ]  # fmt: skip


def test_the_sweep_refuses_it_before_a_server_starts(repo: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    res = CliRunner().invoke(perf_cli, ["sweep", *_sweep_args(repo, results)], terminal_width=400)
    assert res.exit_code == 2, res.output
    assert "Error: --shape image:3,64,64 sizes axis H, which --shapes H=64,256 sweeps" in res.output
    assert "give the sizes with --shapes only (--shapes H=64,256 --shapes W=64), or drop --shapes" in res.output
    assert not results.exists()


def test_run_sweep_sh_passes_it_to_the_same_refusal(repo: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}
    done = subprocess.run(
        [str(ROOT / "perf" / "run_sweep.sh"), *_sweep_args(repo, results)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "--shape image:3,64,64 sizes axis H, which --shapes H=64,256 sweeps" in done.stderr
    assert not results.exists()
