"""ONNX -> TensorRT plan (``model.plan``) with the TensorRT Python API.

A plan is specific to the TensorRT version and the GPU (compute capability) it was built
on, and only runs where those match the serving Triton's (Triton docs, "TensorRT backend";
TensorRT docs, "Engine compatibility"). So the build records both, and where this machine
has no GPU or no ``tensorrt`` it fails with one :class:`GpuRequiredError` naming what is
missing and the equivalent ``trtexec`` command to run inside the target Triton container.

Optimization profile (TensorRT docs, "Working with Dynamic Shapes"): for every input,
``min``/``opt``/``max`` shapes with the batch axis at ``1`` / ``opt_batch`` / ``max_batch_size``
and every other dynamic axis at its declared ``(min, opt, max)``.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import time
from pathlib import Path, PurePath, PurePosixPath
from typing import Any

from builders.export.artifacts import Attempt, ExportResult
from builders.model.spec import ModelSpec
from builders.serving.tensorrt_env import gpu_facts, missing_requirements, require_tensorrt
from builders.triton.releases import DEFAULT_RELEASE
from core.errors import ExportError

log = logging.getLogger(__name__)

#: Default builder workspace limit (bytes): 4 GiB.
DEFAULT_WORKSPACE_BYTES = 4 << 30
#: Timing-cache file kept in the build folder and reused by later builds.
TIMING_CACHE_FILE = "trt_timing.cache"


def shape_profile(spec: ModelSpec, max_batch_size: int) -> dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Input name -> ``(min, opt, max)`` full shapes (batch axis first).

    The batch axis runs ``1 .. max_batch_size`` with ``opt = max(1, max_batch_size // 2)``
    (the middle of the range, where dynamic batching usually lands); other dynamic axes
    use their declared ``(min, opt, max)``.
    """
    mbs = max(1, max_batch_size)
    batches = (1, max(1, mbs // 2), mbs)
    out = {}
    for t in spec.inputs:
        out[t.name] = tuple((b, *t.concrete_shape(spec.axis_sizes(which))) for b, which in zip(batches, ("min", "opt", "max")))
    return out  # type: ignore[return-value]


def trtexec_command(
    onnx_path: str | PurePath,
    spec: ModelSpec,
    max_batch_size: int,
    precision: str = "fp32",
    plan_path: str | PurePath | None = None,
    workspace_bytes: int = DEFAULT_WORKSPACE_BYTES,
    timing_cache: str | PurePath | None = None,
) -> str:
    """The ``trtexec`` command line that builds the same plan as :func:`export_tensorrt`.

    Run it where the plan will be served (same TensorRT, same GPU model):
    :func:`trtexec_docker_command` wraps it in the ``docker run`` of NVIDIA's TensorRT image.

    Args:
        onnx_path: The exported ``model.onnx`` (paths as seen inside the container).
        spec: The I/O signature (input names and dynamic axes).
        max_batch_size: Upper end of the batch axis.
        precision: ``fp32``, ``fp16`` (``--fp16``) or ``bf16`` (``--bf16``, TensorRT >= 9).
        plan_path: Where to save the plan (default ``model.plan`` beside the ONNX).
        workspace_bytes: Builder workspace limit, bytes (``--memPoolSize=workspace:<MiB>``).
        timing_cache: Timing cache file (``--timingCacheFile``), reused across builds.
    """
    onnx_path = Path(onnx_path)
    plan = Path(plan_path) if plan_path else onnx_path.with_name("model.plan")

    def shapes(i: int) -> str:
        return ",".join(f"{n}:{'x'.join(map(str, s[i]))}" for n, s in shape_profile(spec, max_batch_size).items())

    args = [
        "trtexec",
        f"--onnx={onnx_path}",
        f"--saveEngine={plan}",
        f"--minShapes={shapes(0)}",
        f"--optShapes={shapes(1)}",
        f"--maxShapes={shapes(2)}",
        f"--memPoolSize=workspace:{max(1, workspace_bytes >> 20)}",
    ]
    if precision in ("fp16", "bf16"):
        args.append(f"--{precision}")
    if timing_cache:
        args.append(f"--timingCacheFile={timing_cache}")
    return shlex.join(args)


#: NVIDIA's TensorRT image: ``trtexec`` on its PATH; the release ``yy.mm`` of it carries the
#: TensorRT of the Triton server image of the same release (both are built from one NGC
#: release), so a plan built there loads in that Triton.
TENSORRT_IMAGE = "nvcr.io/nvidia/tensorrt"
#: Where the build folder is mounted inside that container.
CONTAINER_BUILD_DIR = "/build"


def trtexec_docker_command(
    build_dir: Path,
    precision: str,
    spec: ModelSpec,
    max_batch_size: int,
    release: str,
    workspace_bytes: int = DEFAULT_WORKSPACE_BYTES,
    timing_cache: Path | None = None,
    gpus: str = "all",
) -> str:
    """The whole ``docker run`` that builds the ``precision`` plan of a build from its fp32
    ONNX export inside NVIDIA's TensorRT container of the target Triton release, with every
    path as the container sees it: the build folder mounted at :data:`CONTAINER_BUILD_DIR`
    (read-write: the plan and the timing cache are written there), the plan written where
    ``builders build --plan`` takes it back (``<precision>/model.plan``, fp32 beside the ONNX).

    Args:
        build_dir: The build folder (``builds/<model>``, holding ``model.onnx``).
        precision: Plan precision (``fp32``, ``fp16``, ``bf16``).
        spec: The build's spec (input names, dynamic axes -> the optimization profile).
        max_batch_size: Upper end of the batch axis in the profile.
        release: Target Triton release ``yy.mm`` (the image tag).
        workspace_bytes: Builder workspace limit, bytes.
        timing_cache: Timing cache on the host (default ``build_dir/trt_timing.cache``); a
            file outside the build folder is mounted at ``/cache``.
        gpus: ``docker run --gpus`` value: the GPU (model) the plan will be served on.
    """
    build_dir = Path(build_dir).resolve()
    inside = PurePosixPath(CONTAINER_BUILD_DIR)
    mounts = ["-v", f"{build_dir}:{inside}"]
    cache = Path(timing_cache).resolve() if timing_cache else build_dir / TIMING_CACHE_FILE
    if cache.is_relative_to(build_dir):
        cache_inside = inside / cache.relative_to(build_dir).as_posix()
    else:
        mounts += ["-v", f"{cache.parent}:/cache"]
        cache_inside = PurePosixPath("/cache") / cache.name
    plan = inside / ("model.plan" if precision == "fp32" else f"{precision}/model.plan")
    trtexec = trtexec_command(inside / "model.onnx", spec, max_batch_size, precision, plan, workspace_bytes, cache_inside)
    docker = ["docker", "run", "--rm", f"--gpus={gpus}", *mounts, f"{TENSORRT_IMAGE}:{release}-py3"]
    return shlex.join(docker) + " " + trtexec


def import_plan(
    plan_file: Path, spec: ModelSpec, out_dir: Path, precision: str = "fp32", max_batch_size: int = 64
) -> ExportResult:
    """Take a plan built elsewhere (:func:`trtexec_docker_command`) into ``out_dir/model.plan``.

    Where TensorRT and a GPU are here, the plan is deserialized and its optimization profile
    read: every spec input must be in it and its batch axis must reach ``max_batch_size``
    (Triton would send batches the plan cannot take). Elsewhere the plan is recorded with
    the profile the printed trtexec command asked for, ``profile_read: false``; its
    verification then says "not verified here" (:mod:`builders.verify.verdicts`).

    Raises:
        ExportError: the file is missing or empty, cannot be deserialized, or its profile
            does not cover the spec's inputs and batch range.
    """
    plan_file = Path(plan_file)
    if not plan_file.is_file() or plan_file.stat().st_size == 0:
        raise ExportError(
            f"plan {plan_file} does not exist or is empty",
            hint="build it with the command `builders build --format trt --print-trtexec` prints",
        )
    t0 = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.plan"
    if plan_file.resolve() != path.resolve():
        shutil.copyfile(plan_file, path)
    asked = {n: [list(s) for s in v] for n, v in shape_profile(spec, max_batch_size).items()}
    extra: dict[str, Any] = {"imported_from": str(plan_file.resolve()), "profile": asked, "profile_read": False}
    if not missing_requirements():
        extra.update(_read_profile(path, spec, max_batch_size), profile_read=True, **gpu_facts())
    dt = time.perf_counter() - t0
    return ExportResult("trt", path, precision, "imported", [Attempt("imported", True, None, dt)], dt, extra)


def _read_profile(path: Path, spec: ModelSpec, max_batch_size: int) -> dict[str, Any]:
    """The plan's optimization profile 0, checked against the spec's inputs and batch range."""
    import tensorrt as trt

    engine = trt.Runtime(trt.Logger(trt.Logger.WARNING)).deserialize_cuda_engine(path.read_bytes())
    if engine is None:
        raise ExportError(
            f"TensorRT {trt.__version__} could not deserialize {path}",
            hint="build the plan with the TensorRT of the Triton release that serves it, on that GPU model",
        )
    profile = {}
    for t in spec.inputs:
        try:
            shapes = engine.get_tensor_profile_shape(t.name, 0)
        except Exception as e:  # noqa: BLE001 - TensorRT raises a plain error for an unknown name
            raise ExportError(
                f"plan {path} has no input {t.name!r} in its profile: {e}",
                hint="build it from this build's model.onnx (the printed trtexec command)",
            ) from e
        profile[t.name] = [list(s) for s in shapes]
        if shapes[2][0] < max_batch_size:
            raise ExportError(
                f"plan {path}: input {t.name!r} takes batches up to {shapes[2][0]}, the grid's max_batch_size is "
                f"{max_batch_size}",
                hint=f"rebuild the plan with --maxShapes batch {max_batch_size}, or lower --max-batch-sizes",
            )
    return {"profile": profile}


def export_tensorrt(
    onnx_path: Path,
    spec: ModelSpec,
    out_dir: Path,
    precision: str = "fp32",
    max_batch_size: int = 64,
    workspace_bytes: int = DEFAULT_WORKSPACE_BYTES,
    timing_cache: Path | None = None,
    onnx_kept_in: Path | None = None,
) -> ExportResult:
    """Build ``out_dir/model.plan`` from ``onnx_path``.

    Args:
        onnx_path: The verified ONNX export (external data beside it is read too).
        spec: The I/O signature; input names are the ONNX graph's.
        out_dir: Folder for ``model.plan`` (created).
        precision: ``fp32``; ``fp16`` or ``bf16`` enable those builder flags (TensorRT then
            picks per layer; bf16 needs TensorRT >= 9 and an Ampere or newer GPU).
        max_batch_size: Upper end of the batch axis in the optimization profile.
        workspace_bytes: Builder workspace memory-pool limit, bytes (default 4 GiB).
        timing_cache: Timing cache file, loaded when present and saved after the build so
            that rebuilds skip kernel timing (default ``out_dir/trt_timing.cache``).
        onnx_kept_in: The folder the verified ONNX is kept in after the build (the build
            folder: ``onnx_path`` may be in a staging folder the build removes), which the
            ``docker run`` way out mounts; default ``onnx_path``'s folder.

    Returns:
        The result; ``extra`` records TensorRT version, GPU name, compute capability,
        the profile shapes, workspace and the timing-cache path.

    Raises:
        GpuRequiredError: no GPU or no ``tensorrt`` (the hint has the ``trtexec`` command).
        ExportError: the ONNX parser or the builder failed (parser errors listed).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.plan"
    cache_path = timing_cache or out_dir / TIMING_CACHE_FILE
    command = trtexec_command(onnx_path, spec, max_batch_size, precision, path, workspace_bytes, cache_path)
    elsewhere = trtexec_docker_command(
        onnx_kept_in or onnx_path.parent, precision, spec, max_batch_size, DEFAULT_RELEASE, workspace_bytes, cache_path
    )
    trt = require_tensorrt("building a TensorRT plan", elsewhere)
    t0 = time.perf_counter()
    logger = trt.Logger(trt.Logger.WARNING)
    builder = trt.Builder(logger)
    flags = 0
    if int(trt.__version__.split(".")[0]) < 10:  # explicit batch is the only mode from TensorRT 10
        flags = 1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH)
    network = builder.create_network(flags)
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(onnx_path)):
        errors = [str(parser.get_error(i)) for i in range(parser.num_errors)]
        raise ExportError(
            f"TensorRT could not parse {onnx_path}: " + "; ".join(errors[:5]),
            hint=f"try another --opset, or check the operators against TensorRT {trt.__version__}'s ONNX support",
        )
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, workspace_bytes)
    if precision == "fp16":
        config.set_flag(trt.BuilderFlag.FP16)
    elif precision == "bf16":
        if not hasattr(trt.BuilderFlag, "BF16"):
            raise ExportError(f"bf16 needs TensorRT >= 9; this is {trt.__version__}", hint="use --precision fp16")
        config.set_flag(trt.BuilderFlag.BF16)
    profile = builder.create_optimization_profile()
    shapes = shape_profile(spec, max_batch_size)
    for i in range(network.num_inputs):
        name = network.get_input(i).name
        if name not in shapes:
            raise ExportError(
                f"the ONNX graph has an input {name!r} that the spec does not declare",
                hint="build the plan from the ONNX export of this spec (builders build --format onnx,trt), or add the "
                "input to the spec (--input or the spec file)",
            )
        profile.set_shape(name, *shapes[name])
    config.add_optimization_profile(profile)
    cache = config.create_timing_cache(cache_path.read_bytes() if cache_path.is_file() else b"")
    config.set_timing_cache(cache, ignore_mismatch=False)
    plan = builder.build_serialized_network(network, config)
    if plan is None:
        raise ExportError(
            f"TensorRT failed to build a {precision} plan from {onnx_path} (see the TensorRT log above)",
            hint=f"raise the workspace limit (now {workspace_bytes >> 20} MiB) or try another precision",
        )
    path.write_bytes(bytes(plan))
    cache_path.write_bytes(bytes(config.get_timing_cache().serialize()))
    dt = time.perf_counter() - t0
    log.info("TensorRT %s plan built in %.1f s", precision, dt)
    extra = {
        **gpu_facts(),
        "workspace_bytes": workspace_bytes,
        "timing_cache": str(cache_path),
        "profile": {n: [list(s) for s in v] for n, v in shapes.items()},
        "trtexec": command,
    }
    return ExportResult("trt", path, precision, "tensorrt-python", [Attempt("tensorrt-python", True, None, dt)], dt, extra)
