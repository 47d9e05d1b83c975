"""The in-process baseline's estimate reads no repository file again (perf.sweep.baseline_step.BaselineStep.baseline_estimate):
the budget asks for it at every cut it weighs and the plan and a skip once each, and each call read every
variant's ``config.pbtxt`` again, with the repository's index, the build manifests and, for a model with
a dynamic axis, its reference inputs. Now it counts from the configs the sweep parsed when it planned
and from the sweep's repository, as read once."""

from __future__ import annotations

import builtins
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from served_configs import write_variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.verify.verification import REFERENCE
from clients.server import ServerOptions
from perf.profile.baseline import SWEEP_TIMING, BaselineOptions, plan_targets
from perf.profile.estimate import estimate
from perf.sweep.run import Sweep, SweepOptions

#: A model with a dynamic axis: planning its baseline targets reads its reference inputs for their shape.
SPEC = ModelSpec.from_flags(["ids:int64:seq:0..9", "num:float32:2"], ["y"], ["seq=1,4,8"])
VARIANT = Variant("seqs", "onnx", max_batch_size=8)


@pytest.fixture
def repo(fake_build, tmp_path: Path) -> Path:
    """A variant with a real ``config.pbtxt``, a build manifest and reference inputs."""
    path = fake_build(SPEC, VARIANT)
    write_variant_config(path, SPEC, VARIANT)
    np.savez(tmp_path / "builds" / "seqs" / REFERENCE, **{"input:ids": np.zeros((1, 4), np.int64)})
    return path


def _opened(monkeypatch: pytest.MonkeyPatch, under: Path) -> list[str]:
    """The files below ``under`` opened from now on (``open``, ``Path.read_text``/``read_bytes``, ``np.load``)."""
    seen: list[str] = []
    real = io.open

    def counting(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, Path)) and Path(file).resolve().is_relative_to(under.resolve()):
            seen.append(Path(file).name)
        return real(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting)
    monkeypatch.setattr(builtins, "open", counting)
    return seen


def test_the_estimate_reads_no_config_manifest_or_reference_again(repo: Path, tmp_path: Path, monkeypatch) -> None:
    opts = SweepOptions(ServerOptions(repo, runtime="bundled"), concurrency=(1,), results_dir=tmp_path / "results", run_id="r")
    sweep = Sweep(opts)
    names = [VARIANT.name]
    from_files = estimate(BaselineOptions(repo, run=sweep.run, variants=names, timing=SWEEP_TIMING))
    assert from_files.points > 0  # the variants are planned: the estimate counts real points
    opened = _opened(monkeypatch, tmp_path)
    for _ in range(3):  # as the budget asks, once for each cut it weighs
        assert sweep.baseline_estimate(names) == from_files  # the same count as from the files
    assert opened == [], opened
    plan_targets(BaselineOptions(repo, run=sweep.run, variants=names))  # the baseline's own plan reads them: counted
    assert {"config.pbtxt", "index.json", "manifest.json", REFERENCE} <= set(opened), opened
