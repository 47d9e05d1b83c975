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
from builders.repository.records import MANIFEST_FILE
from builders.repository.view import Repository
from builders.triton.releases import NOT_CONFIRMED, TritonRelease, same_tensorrt
from builders.triton.rules import Problem
from core import formats
from core.errors import RecordError, RepositoryError

#: The fields of the checks this module makes, each a prefix of its problems' field (:func:`is_release_check`).
ONNX_IR, ONNX_OPSET, TENSORRT, ONNX_LIMITS = "ONNX IR version", "ONNX opset", "TensorRT version", "ONNX limits of"
RELEASE_FIELDS = (ONNX_IR, ONNX_OPSET, TENSORRT, ONNX_LIMITS)


def is_release_check(problem: Problem) -> bool:
    """Whether ``problem`` (or a check not run) is one of this module's release checks."""
    return problem.field.startswith(RELEASE_FIELDS)


def check_tensorrt_version(
    model_dir: Path, artifact: Path, target: TritonRelease, problems: list[Problem], skipped: list[Problem]
) -> None:
    """Compare the TensorRT version a plan's build recorded with the target release's.

    A plan runs only on the TensorRT that built it. The version is the one its export
    recorded (:func:`plan_tensorrt`).

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
                f"{TENSORRT} against {target.describe()}",
                f"{NOT_CONFIRMED}: builders/triton/releases.py has no sourced TensorRT version for Triton {target.container}",
                "check the plan with trtexec inside the target container, or add the "
                "version with its source to builders/triton/releases.py",
            )
        )
        return
    built_with, why, fix = plan_tensorrt(model_dir, target)
    if built_with is None:
        skipped.append(Problem(str(artifact), f"{TENSORRT} against {target.describe()}", why, fix))
        return
    if not same_tensorrt(built_with, target.tensorrt):
        problems.append(
            Problem(
                str(artifact),
                TENSORRT,
                f"the plan was built with TensorRT {built_with}, Triton {target.container} serves "
                f"TensorRT {target.tensorrt}: plans load only on the TensorRT that built them",
                f"rebuild the plan inside nvcr.io/nvidia/tritonserver:{target.container}-py3 "
                "(builders build --print-trtexec prints the command)",
            )
        )


def plan_tensorrt(model_dir: Path, target: TritonRelease) -> tuple[str | None, str, str]:
    """The TensorRT version that built a variant's plan, as its build recorded it.

    The repository index names the variant's build folder; that folder's manifest holds the
    record of the variant's export (format and precision), whose ``extra.tensorrt_version``
    is the TensorRT the plan was built (or, imported with ``--plan``, deserialized) with. A
    build from before that field gives the build host's TensorRT (``versions.tensorrt``),
    except for an imported plan, whose host TensorRT says nothing about it.

    Args:
        model_dir: The model folder (its parent is the repository).
        target: The release it is checked against (named in what to do).

    Returns:
        ``(version, "", "")``, or ``(None, why, what to do)``: the first link of that chain that
        is missing, named.
    """
    check_there = f"check it with trtexec --loadEngine in nvcr.io/nvidia/tritonserver:{target.container}-py3"
    try:
        v = Repository(model_dir.parent).variant(model_dir.name)
        manifest = v.manifest
    except (RecordError, RepositoryError) as e:
        return None, f"the build record cannot be read: {e.message}", "rebuild with `builders build`"
    if v.entry is None:
        return (
            None,
            f"{model_dir.name} is not listed in {model_dir.parent}/index.json",
            f"build it with `builders build`, or {check_there}",
        )
    if v.build_dir is None:
        return None, "the repository index names no build folder for it", f"{v.rebuild_words()}, or {check_there}"
    if manifest is None:
        return (
            None,
            f"the build folder the index names ({v.build_dir}) holds no {MANIFEST_FILE}",
            f"{v.rebuild_words()}, or {check_there}",  # the command the index recorded (s22z, Z-5)
        )
    export = v.export
    if export is None:
        p = v.params
        what = f"{p.format} {p.precision}" if p else "this variant's"
        return None, f"{v.build_dir / MANIFEST_FILE} has no record of the {what} export", f"rebuild it, or {check_there}"
    imported = export.strategy == "imported"
    built_with = export.extra.get("tensorrt_version") or (None if imported else manifest.versions.get("tensorrt"))
    if built_with:
        return str(built_with), "", ""
    if imported:
        return (
            None,
            f"the plan was imported with --plan from {export.extra.get('imported_from', '?')} and could not be "
            "deserialized here (no TensorRT or GPU on the build host): the TensorRT that built it is not recorded",
            f"build it with the command `builders build --print-trtexec --target-triton {target.container}` prints, or "
            + check_there,
        )
    return None, f"{v.build_dir / MANIFEST_FILE} records no TensorRT version for it", f"rebuild it, or {check_there}"


def check_onnx_limits(
    cfg: mc.ModelConfig,
    fmt: str,
    artifact: Path,
    io: ArtifactIO | None,
    target: TritonRelease | None,
    problems: list[Problem],
    skipped: list[Problem],
) -> None:
    """Check an ONNX graph against the target release's limits on its onnxruntime backend.

    Args:
        cfg: The model's config (which backend serves it).
        fmt: The artifact's format; only ``onnx`` is checked.
        artifact: The artifact file.
        io: What the artifact declares (its IR version and opset); ``None``: not read (``--no-artifacts``).
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
                f"{ONNX_LIMITS} {target.describe()}",
                f"served by the {model_backend(cfg) or '?'} backend, which runs the ONNX Runtime installed for it, not "
                f"the release's: the release's limits apply to its onnxruntime backend (builders build --serving native)",
                "nothing to do for this serving; to serve the graph with the release's ONNX Runtime, build with "
                "--serving native and validate that repository",
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
                f"{ONNX_LIMITS} {target.describe()}",
                f"{NOT_CONFIRMED}: builders/triton/releases.py has no sourced {what}",
                "load the model with the target container's onnxruntime backend, or add the "
                "limits with their source to builders/triton/releases.py",
            )
        )
        return
    if io is None:  # --no-artifacts: the graph is not read, so the target's check is listed as not run (s19)
        skipped.append(
            Problem(
                str(artifact),
                f"{ONNX_LIMITS} {target.describe()}",
                "not read: --no-artifacts opens no model file, and the graph's IR version and opset are in it",
                "drop --no-artifacts to check them",
            )
        )
        return
    if io.ir_version is not None and io.ir_version > limits.max_ir_version:
        problems.append(
            Problem(
                str(artifact),
                ONNX_IR,
                f"{io.ir_version}, but ONNX Runtime {target.onnxruntime} of Triton {target.container} "
                f"reads IR <= {limits.max_ir_version}",
                "re-export with an older exporter or down-convert the model's ir_version",
            )
        )
    if io.opset is not None and io.opset > limits.max_opset:
        problems.append(
            Problem(
                str(artifact),
                ONNX_OPSET,
                f"{io.opset}, but ONNX Runtime {target.onnxruntime} of Triton {target.container} "
                f"implements opsets <= {limits.max_opset}",
                f"re-export with --opset {limits.max_opset} or lower",
            )
        )
