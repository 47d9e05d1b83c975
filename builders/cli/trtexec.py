"""``builders build --print-trtexec``: the commands that build the TensorRT plans on a GPU host
with Docker, and the command that takes them back (issue 19, item 5; issue 26, K1)."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from builders.build_options import BuildResult
from builders.export.tensorrt import CONTAINER_BUILD_DIR, trtexec_docker_command
from builders.model.spec import ModelSpec
from builders.plan_source import OnnxSource


def print_trtexec(
    result: BuildResult,
    model: str,
    precisions: tuple[str, ...],
    target_triton: str,
    workspace_bytes: int,
    timing_cache: Path | None,
    build_dir: Path,
    repository: Path,
) -> None:
    """Print, per precision, the ``docker run`` that builds the plan from the fp32 ``model.onnx``
    of the build ``result`` (built now or recorded before), then the ``--plan`` command.

    Args:
        result: The build whose manifest records the fp32 ONNX export.
        model: ``--model`` as given (for the take-back command).
        precisions: The plans' precisions.
        target_triton: The Triton release (yy.mm) whose TensorRT image builds them.
        workspace_bytes: TensorRT's workspace limit, bytes.
        timing_cache: The timing cache file (``None``: the build folder's).
        build_dir: ``--build-dir`` as given.
        repository: ``--repository`` as given.
    """
    built = ModelSpec.from_json(result.manifest["spec"])
    folder = result.manifest_path.parent  # plans of every precision are built from its fp32 model.onnx
    mbs = result.manifest["max_batch_size"]
    click.echo(
        f"\nBuild the TensorRT {'plan' if len(precisions) == 1 else 'plans'} on a host with the serving GPU and Docker "
        f"(NVIDIA's TensorRT {target_triton} image carries the TensorRT of Triton {target_triton}); {folder.resolve()} is "
        f"mounted at {CONTAINER_BUILD_DIR}; the plans take batches up to {mbs} (the ONNX export's max batch size):"
    )
    for precision in precisions:
        click.echo("  " + trtexec_docker_command(folder, precision, built, mbs, target_triton, workspace_bytes, timing_cache))
    back = [f"--plan={p}={folder / ('model.plan' if p == 'fp32' else f'{p}/model.plan')}" for p in precisions]
    click.echo("then take them back (variants written; verified where TensorRT and a GPU are, else marked not verified here):")
    again = ["builders", "build", "--model", str(model), "--name", result.manifest["model"], "--build-dir", str(build_dir)]
    again += ["--repository", str(repository), "--format", "trt", "--serving", "native", "--instance-kind", "gpu"]
    click.echo("  " + shlex.join([*again, "--server-gpu", *back]) + " [same --input/--spec and grid flags]")


def say_source(source: OnnxSource, repository: Path) -> BuildResult | None:
    """Say where the plans' ONNX comes from, before anything is built; the recorded build when
    there is one (nothing is built then: only the commands are printed), else ``None``."""
    if source.recorded is not None:
        click.echo(
            f"--print-trtexec: the plans are built from the verified fp32 ONNX export {source.recorded.manifest_path} "
            "records; nothing is built and the repository is left as it is"
        )
        return source.recorded
    click.echo(
        f"--print-trtexec: {source.reason}, so the fp32 ONNX export the plans are built from is built first: "
        f"a build, whose variants are written to {repository}"
    )
    return None
