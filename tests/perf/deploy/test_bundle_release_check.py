"""A bundle's model files are checked against the release its image is (trial 11, F18: a bundle for
Triton 24.10's onnxruntime backend, whose ONNX limits the toolkit has no source for, said nothing):
a problem refuses the bundle, a check that cannot run is said (perf.deploy.release)."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.writer import write_variant
from builders.triton.releases import RELEASES, coverage
from core.errors import PerfError
from perf.deploy.release import check_release, refuse_unloadable

SPEC = ModelSpec((TensorSpec("x", "float32", (4,)),), (TensorSpec("y", "float32", (4,)),))
CONFIRMED = next(c for c, r in RELEASES.items() if r.onnxruntime_limits is not None)
UNCONFIRMED = next(c for c, r in RELEASES.items() if r.onnxruntime_limits is None and r.onnxruntime is not None)


def _repo(tmp_path: Path, opset: int) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    onnx.save(model, tmp_path / "model.onnx")
    write_variant(tmp_path / "repo", Variant("m", "onnx", max_batch_size=8), tmp_path / "model.onnx", SPEC, "native")
    return tmp_path / "repo"


def _image(tag: str) -> str:
    return f"nvcr.io/nvidia/tritonserver:{tag}-py3"


def test_a_release_without_confirmed_limits_is_said_not_checked(tmp_path: Path) -> None:
    checked = check_release(_repo(tmp_path, 17), _image(UNCONFIRMED))
    assert checked.problems == () and len(checked.not_run) == 1
    (not_run, confirmed) = checked.lines()
    assert (
        not_run.startswith(f"- **Not checked:** model.onnx: ONNX limits of Triton {UNCONFIRMED}") and "not confirmed" in not_run
    )
    assert coverage() in confirmed
    refuse_unloadable(checked, _image(UNCONFIRMED))  # nothing found: not refused


def test_a_confirmed_release_checks_and_refuses_what_it_cannot_load(tmp_path: Path) -> None:
    ok = check_release(_repo(tmp_path, 17), _image(CONFIRMED))
    assert ok.not_run == () and ok.lines() == [
        f"- Checked against {RELEASES[CONFIRMED].describe()}: the image's backends load the model files (builders validate --target-triton)."
    ]
    limit = RELEASES[CONFIRMED].onnxruntime_limits
    assert limit is not None
    (tmp_path / "high").mkdir()
    too_new = check_release(_repo(tmp_path / "high", limit.max_opset + 1), _image(CONFIRMED))
    assert [p.split(": ")[1] for p in too_new.problems] == ["ONNX opset"]
    with pytest.raises(PerfError, match=rf"the image {_image(CONFIRMED)} \(Triton {CONFIRMED} .*\) cannot load") as e:
        refuse_unloadable(too_new, _image(CONFIRMED))
    assert "--image" in (e.value.hint or "")


def test_an_image_that_is_no_known_release_is_said_not_checked(tmp_path: Path) -> None:
    checked = check_release(_repo(tmp_path, 17), "registry.local/triton:1")
    assert checked.target is None and "is not a Triton release builders/triton/releases.py knows" in checked.not_run[0]


def test_the_default_image_is_checked_not_skipped(tmp_path: Path) -> None:
    """Trial 24, T24-14: the default image (export-deployment's, the container runtime's: 24.10) was one whose ONNX
    Runtime limits the table did not confirm, so an ONNX pick's bundle was never checked by default ("Not checked:
    ... version not confirmed for this release"). Its ONNX Runtime 1.19's limits are confirmed now (cited in
    builders/triton/releases.py): a graph it cannot load refuses the bundle, one it loads is checked."""
    from builders.triton.releases import DEFAULT_RELEASE
    from clients.runtimes.options import DEFAULT_TAG, image_for_tag

    default = image_for_tag(DEFAULT_TAG)
    assert DEFAULT_RELEASE in default and RELEASES[DEFAULT_RELEASE].tensorrt is not None  # the plan check runs too
    ok = check_release(_repo(tmp_path, 17), default)
    assert ok.problems == () and ok.not_run == () and ok.lines()[0].startswith(f"- Checked against Triton {DEFAULT_RELEASE}")
    limit = RELEASES[DEFAULT_RELEASE].onnxruntime_limits
    assert limit is not None and (limit.max_opset, limit.max_ir_version) == (21, 10)
    (tmp_path / "high").mkdir()
    with pytest.raises(PerfError, match="cannot load"):
        refuse_unloadable(check_release(_repo(tmp_path / "high", limit.max_opset + 1), default), default)
