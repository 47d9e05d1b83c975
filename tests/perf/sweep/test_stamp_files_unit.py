"""A variant loaded again in a run (a later group, a restarted server) must be the files its earlier
load measured (trial 6, "measure exactly what is named"): a rebuild while the run goes on stops the
sweep instead of filing two models' numbers under one variant."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from factories import served_model, variant_result

from clients.runtimes.identity import found_artifact
from clients.runtimes.served import Loaded
from core.errors import PerfError
from perf.sweep.server import stamp_loaded


def _variant(tmp_path: Path, weights: bytes) -> Path:
    (tmp_path / "v" / "1").mkdir(parents=True, exist_ok=True)
    (tmp_path / "v" / "1" / "model.onnx").write_bytes(weights)
    return tmp_path / "v"


def _rewrite(path: Path, data: bytes) -> None:
    st = path.stat()
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # the file clock is coarse


def test_a_sweep_stops_when_a_variant_is_loaded_again_with_other_files(tmp_path: Path):
    # a rebuild while a run goes on (or between a server restart's loads): two models' numbers
    # would be filed under one variant
    folder = _variant(tmp_path, b"weights-A")
    vr = variant_result("v")
    stamp_loaded(vr, Loaded(served_model("v", artifact=found_artifact(folder)), 0.1))
    stamp_loaded(vr, Loaded(served_model("v", artifact=found_artifact(folder)), 0.1))  # the same files: loaded again
    assert len(vr.served) == 2
    _rewrite(folder / "1" / "model.onnx", b"weights-B")
    with pytest.raises(PerfError, match=r"not the ones an earlier load of this run measured \(1/model\.onnx: measured"):
        stamp_loaded(vr, Loaded(served_model("v", artifact=found_artifact(folder)), 0.1))
    assert len(vr.served) == 2  # the stamp of what was measured stays the last one
