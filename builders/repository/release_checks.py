"""Checks of a repository against the Triton release that will serve it (``--target-triton``).

A TensorRT plan's recorded TensorRT version against the release's TensorRT; an ONNX graph's
IR version and opset against the release's ONNX Runtime (:mod:`builders.triton.releases`).
Where the table has no sourced value for the release, the check is listed as not run
("version not confirmed for this release"), never passed.
"""

from __future__ import annotations

from pathlib import Path

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends import model_backend
from builders.model.artifact_signature import ArtifactIO
from builders.repository.view import Repository
from builders.triton.releases import NOT_CONFIRMED, TritonRelease, same_tensorrt
from builders.triton.rules import Problem
from core import formats
from core.errors import RecordError, RepositoryError


def check_tensorrt_version(
    model_dir: Path, artifact: Path, target: TritonRelease, problems: list[Problem], skipped: list[Problem]
) -> None:
    """Compare the TensorRT version a plan's build recorded with the target release's.

    A plan runs only on the TensorRT that built it. The version comes from the build
    manifest, reached through the repository index.

    Args:
        model_dir: The model folder (its parent is the repository).
        artifact: The plan file.
        target: The Triton release that will serve it.
        problems: Gets the version mismatch, when there is one.
        skipped: Gets the check, with why, when it cannot run (no sourced TensorRT version
            for the release, no readable build record, no recorded version).
    """
    if target.tensorrt is None:
        skipped.append(
            Problem(
                str(artifact),
                f"TensorRT version against {target.describe()}",
                f"{NOT_CONFIRMED}: builders/triton/releases.py has no sourced TensorRT version for Triton {target.container}",
                "check the plan with trtexec inside the target container, or add the "
                "version with its source to builders/triton/releases.py",
            )
        )
        return
    built_with = None
    try:
        v = Repository(model_dir.parent).variant(model_dir.name)
        built_with = v.manifest.versions.get("tensorrt") if v.manifest else None
    except (RecordError, RepositoryError) as e:
        skipped.append(
            Problem(
                str(artifact),
                f"TensorRT version against {target.describe()}",
                f"the build record cannot be read: {e.message}",
                "rebuild with `builders build`",
            )
        )
        return
    if not built_with:
        skipped.append(
            Problem(
                str(artifact),
                f"TensorRT version against {target.describe()}",
                "no recorded TensorRT version (the repository index names no build manifest for it)",
                "build the plan with `builders build`, or check it with trtexec in the target container",
            )
        )
        return
    if not same_tensorrt(built_with, target.tensorrt):
        problems.append(
            Problem(
                str(artifact),
                "TensorRT version",
                f"the plan was built with TensorRT {built_with}, Triton {target.container} serves "
                f"TensorRT {target.tensorrt}: plans load only on the TensorRT that built them",
                f"rebuild the plan inside nvcr.io/nvidia/tritonserver:{target.container}-py3 "
                "(builders build --print-trtexec prints the command)",
            )
        )


def check_onnx_limits(
    cfg: mc.ModelConfig,
    fmt: str,
    artifact: Path,
    io: ArtifactIO,
    target: TritonRelease | None,
    problems: list[Problem],
    skipped: list[Problem],
) -> None:
    """Check an ONNX graph against the target release's limits on its onnxruntime backend.

    Args:
        cfg: The model's config (which backend serves it).
        fmt: The artifact's format; only ``onnx`` is checked.
        artifact: The artifact file.
        io: What the artifact declares (its IR version and opset).
        target: The Triton release that will serve it; ``None``: nothing is checked.
        problems: Gets an IR version or opset above what the release's ONNX Runtime reads.
        skipped: Gets the check, with why, when it cannot run (another backend serves the
            graph, or no sourced limits for the release).
    """
    if target is None or fmt != "onnx":
        return
    if model_backend(cfg) != formats.get("onnx").backend:
        skipped.append(
            Problem(
                str(artifact),
                f"ONNX limits of {target.describe()}",
                f"served by the {model_backend(cfg) or '?'} backend, which runs its own ONNX Runtime, not the release's",
                "verify it where it is served",
            )
        )
        return
    limits = target.onnxruntime_limits
    if limits is None:
        what = (
            f"ONNX Runtime version of Triton {target.container}"
            if target.onnxruntime is None
            else f"highest opset and IR version of ONNX Runtime {target.onnxruntime}"
        )
        skipped.append(
            Problem(
                str(artifact),
                f"ONNX limits of {target.describe()}",
                f"{NOT_CONFIRMED}: builders/triton/releases.py has no sourced {what}",
                "load the model with the target container's onnxruntime backend, or add the "
                "limits with their source to builders/triton/releases.py",
            )
        )
        return
    if io.ir_version is not None and io.ir_version > limits.max_ir_version:
        problems.append(
            Problem(
                str(artifact),
                "ONNX IR version",
                f"{io.ir_version}, but ONNX Runtime {target.onnxruntime} of Triton {target.container} "
                f"reads IR <= {limits.max_ir_version}",
                "re-export with an older exporter or down-convert the model's ir_version",
            )
        )
    if io.opset is not None and io.opset > limits.max_opset:
        problems.append(
            Problem(
                str(artifact),
                "ONNX opset",
                f"{io.opset}, but ONNX Runtime {target.onnxruntime} of Triton {target.container} "
                f"implements opsets <= {limits.max_opset}",
                f"re-export with --opset {limits.max_opset} or lower",
            )
        )
