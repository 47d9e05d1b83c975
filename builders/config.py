"""Triton ``config.pbtxt`` as protobuf: build, check, write and read ``ModelConfig`` messages.

The only source of truth for a config is Triton's own schema,
``tritonclient.grpc.model_config_pb2.ModelConfig``, written and parsed with
``google.protobuf.text_format`` exactly as the server does. Nothing here formats pbtxt by hand.

Triton's rules live in one place, :func:`config_problems` (the config alone) and
:func:`artifact_problems` (the config against the exported artifact's I/O). The generator
(:func:`make_config`) refuses to return a config that breaks them, and
``builders validate`` (:mod:`builders.validate`) reports them for any repository.
Sources: Triton docs "Model Configuration", "Dynamic Batcher", "Model Repository",
"Optimization", and ``core/src/model_config_utils.cc`` (``ValidateModelConfig``,
``ValidateIOShape``, ``ValidateInstanceGroup``).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from google.protobuf import text_format
from tritonclient.grpc import model_config_pb2 as mc

from core import formats
from core.naming import NAME_RE
from core.errors import ConfigError
from builders.spec import ModelSpec, TensorSpec
from builders.variants import Variant

log = logging.getLogger(__name__)

#: How a repository's variants are served (``builders build --serving``):
#: ``python``: a generated python-backend ``model.py`` running the artifact (what the bundled
#: CPU server of the nvidia-pytriton wheel can serve).
#: ``native``: Triton's native backends (pytorch_libtorch, onnxruntime_onnx, tensorrt_plan).
SERVINGS = ("python", "native")
DEFAULT_SERVING = "python"
#: The old names of :data:`SERVINGS` (``builders build --runtime bundled|native`` and the index
#: field ``"runtime"`` before the rename), read for one release: old name -> serving.
LEGACY_SERVINGS = {"bundled": "python", "native": "native"}
#: config ``parameters`` read by the generated python-backend model.py.
PARAM_FORMAT = "artifact_format"
PARAM_FILE = "artifact_file"
PARAM_THREADS = "intra_op_threads"
#: Triton platform -> the backend that serves it (core ``GetBackendTypeFromPlatform``).
PLATFORM_BACKENDS = {
    "pytorch_libtorch": "pytorch",
    "onnxruntime_onnx": "onnxruntime",
    "tensorrt_plan": "tensorrt",
    "tensorflow_savedmodel": "tensorflow",
    "tensorflow_graphdef": "tensorflow",
}
#: Backend -> the model file Triton looks for in a version folder without
#: ``default_model_filename`` (Triton docs, "Model Repository: Model Files").
BACKEND_FILES = {
    "pytorch": "model.pt",
    "onnxruntime": "model.onnx",
    "tensorrt": "model.plan",
    "python": "model.py",
    "openvino": "model.xml",
}
#: Backend -> our export format (for reading the artifact's I/O).
BACKEND_FORMATS = {"pytorch": "torchscript", "onnxruntime": "onnx", "tensorrt": "trt"}
#: ``precision_mode`` values of onnxruntime's TensorRT accelerator (Triton docs, "Optimization").
TRT_PRECISION_MODES = {"fp32": "FP32", "fp16": "FP16"}
#: Default TensorRT workspace for the onnxruntime accelerator, bytes (1 GiB).
TRT_WORKSPACE_BYTES = 1 << 30
WILDCARD = -1


@dataclasses.dataclass(frozen=True)
class Problem:
    """One broken rule: where, what, and what to do.

    Attributes:
        file: The file or folder it concerns (empty while not yet known).
        field: The ``ModelConfig`` field (``"input[INPUT__0].dims"``) or repository item.
        problem: What is wrong, expected vs found.
        fix: What to do about it.
    """

    file: str
    field: str
    problem: str
    fix: str = ""

    def at(self, file: str | Path) -> "Problem":
        return dataclasses.replace(self, file=str(file))


@dataclasses.dataclass(frozen=True)
class TensorIO:
    """One input or output as the exported artifact declares it.

    Attributes:
        name: Tensor name in the artifact (ONNX graph / TensorRT engine / forward argument).
        data_type: Triton ``DataType`` name (``"TYPE_FP32"``); ``None`` = the artifact does not say.
        shape: Full shape *with* the batch axis when the artifact has one; ``-1`` marks a
            dynamic dim; ``None`` = unknown.
    """

    name: str
    data_type: str | None = None
    shape: tuple[int, ...] | None = None


@dataclasses.dataclass(frozen=True)
class ArtifactIO:
    """The I/O signature read from an exported file (see :func:`builders.validate.read_artifact_io`).

    Attributes:
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        inputs: Inputs in the artifact's order.
        outputs: Outputs in order; ``None`` when the artifact does not tell (TorchScript
            returning a dict or list).
        positional: TorchScript: tensors are matched by position, the names are forward
            argument names (Triton's PyTorch backend also accepts ``<name>__<index>``).
        max_batch_size: TensorRT: the largest batch of optimisation profile 0.
    """

    format: str
    inputs: tuple[TensorIO, ...]
    outputs: tuple[TensorIO, ...] | None
    positional: bool = False
    max_batch_size: int | None = None


# --------------------------------------------------------------------------- generation


def make_config(
    variant: Variant,
    spec: ModelSpec,
    serving: str = DEFAULT_SERVING,
    intra_op_threads: int | None = None,
    *,
    io: ArtifactIO | None = None,
    server_gpu: bool | None = None,
) -> mc.ModelConfig:
    """Build the ``ModelConfig`` of one variant and check it against Triton's rules.

    Inputs and outputs take their names from ``spec`` and their dtypes and dims from the
    exported artifact (``io``) where it declares them, from ``spec`` otherwise (TorchScript
    declares neither). With ``max_batch_size > 0`` dims leave out the batch axis; with 0 they
    are the full shape (Triton docs, "Model Configuration: Maximum Batch Size"). A tensor
    with no per-sample dims is written as ``dims: [1]`` with ``reshape { shape: [] }``.

    Args:
        variant: The variant (instance group, batching, warmup, accelerator).
        spec: The model's I/O signature: names, order, and named dynamic axes (their
            ``opt`` sizes give concrete warmup shapes).
        serving: ``"python"`` (python backend serving the artifact) or ``"native"``.
        intra_op_threads: Threads per instance for the python backend; ``None`` lets the
            model divide the host's cores among all instances at load time.
        io: The artifact's I/O as read from the file; ``None`` = use ``spec`` only.
        server_gpu: Whether the server has a GPU; ``False`` rejects KIND_GPU,
            ``None`` does not check.

    Returns:
        The config; ``max_batch_size <= io.max_batch_size`` (TensorRT profile) holds.

    Raises:
        ConfigError: the variant breaks a Triton rule for this serving or artifact; the
            message names every field concerned.
    """
    if serving not in SERVINGS:
        raise ConfigError(f"unknown serving {serving!r}", hint=f"choose one of {', '.join(SERVINGS)}")
    cfg = mc.ModelConfig(name=variant.name, max_batch_size=variant.max_batch_size)
    if serving == "native":
        cfg.platform = formats.get(variant.format).platform
        cfg.default_model_filename = formats.get(variant.format).file
    else:
        if variant.format == "trt":
            raise ConfigError(
                "platform: TensorRT plans cannot be served by the bundled server (python backend only)",
                hint="use --serving native with a Triton container that has the tensorrt_plan backend",
            )
        if variant.trt_accelerator:
            raise ConfigError(
                "optimization.execution_accelerators: the bundled server's python backend does not use "
                "onnxruntime's TensorRT accelerator",
                hint="use --serving native for ORT-TRT variants",
            )
        cfg.backend = "python"
        cfg.parameters[PARAM_FORMAT].string_value = variant.format
        cfg.parameters[PARAM_FILE].string_value = formats.get(variant.format).file
        if intra_op_threads:
            cfg.parameters[PARAM_THREADS].string_value = str(intra_op_threads)
    mbs = variant.max_batch_size
    for kind, tensors, target in (("input", spec.inputs, cfg.input), ("output", spec.outputs, cfg.output)):
        found = _artifact_tensors(io, kind, tensors)
        for t, a in zip(tensors, found):
            dtype, dims = _dtype_dims(kind, t, a, mbs)
            entry = target.add(name=t.name, data_type=mc.DataType.Value(dtype), dims=dims or [1])
            if not dims:
                entry.reshape.SetInParent()  # per-sample scalar: dims [1] seen by the model as []
    group = cfg.instance_group.add(
        count=variant.count,
        kind=mc.ModelInstanceGroup.KIND_GPU if variant.kind == "gpu" else mc.ModelInstanceGroup.KIND_CPU,
    )
    group.gpus.extend(variant.gpus)
    if variant.dynamic_batching:
        cfg.dynamic_batching.max_queue_delay_microseconds = variant.max_queue_delay_us
        cfg.dynamic_batching.preferred_batch_size.extend(variant.preferred_batch_sizes)
    if variant.trt_accelerator:
        acc = cfg.optimization.execution_accelerators.gpu_execution_accelerator.add(name="tensorrt")
        acc.parameters["precision_mode"] = TRT_PRECISION_MODES[variant.trt_accelerator]
        acc.parameters["max_workspace_size_bytes"] = str(TRT_WORKSPACE_BYTES)
    if variant.warmup:
        _add_warmup(cfg, spec, variant.warmup)
    problems = config_problems(cfg, server_gpu=server_gpu)
    if io is not None:
        problems += artifact_problems(cfg, io)
    if problems:
        raise ConfigError(
            f"variant {variant.name} breaks Triton's rules:\n"
            + "\n".join(f"  {p.field}: {p.problem}" + (f" ({p.fix})" if p.fix else "") for p in problems),
        )
    return cfg


def _artifact_tensors(io: ArtifactIO | None, kind: str, tensors: tuple[TensorSpec, ...]) -> list[TensorIO | None]:
    """The artifact's tensor for each spec tensor (by name, or by position for TorchScript)."""
    if io is None:
        return [None] * len(tensors)
    have = io.inputs if kind == "input" else io.outputs
    if have is None:
        return [None] * len(tensors)
    if io.positional:
        if len(have) != len(tensors):
            raise ConfigError(
                f"{kind}: the spec has {len(tensors)} {kind}s, the exported {io.format} artifact {len(have)}",
                hint="the spec and the export disagree: rebuild the artifact from this spec",
            )
        return [None] * len(tensors)  # a TorchScript module declares no dtypes or shapes
    by_name = {a.name: a for a in have}
    missing = [t.name for t in tensors if t.name not in by_name]
    if missing:
        raise ConfigError(
            f"{kind}: {missing} are not {kind}s of the exported {io.format} artifact (it has {sorted(by_name)})",
            hint="the spec and the export disagree: rebuild the artifact from this spec",
        )
    return [by_name[t.name] for t in tensors]


def _dtype_dims(kind: str, t: TensorSpec, a: TensorIO | None, mbs: int) -> tuple[str, list[int]]:
    """``(Triton dtype, config dims)`` of one tensor: the artifact's where it says, else the spec's."""
    dtype = t.triton_dtype
    if a is not None and a.data_type:
        if a.data_type != dtype:
            log.warning("%s %s: the artifact says %s, the spec %s; the artifact's dtype is used", kind, t.name, a.data_type, dtype)
        dtype = a.data_type
    if a is None or a.shape is None:
        per_sample = t.triton_dims()
        return dtype, per_sample if mbs > 0 else [WILDCARD, *per_sample]
    full = list(a.shape)
    if mbs == 0:
        return dtype, full
    if not full or not (full[0] == WILDCARD or (full[0] == 1 and mbs == 1)):
        first = full[0] if full else "(scalar)"
        raise ConfigError(
            f"max_batch_size: {mbs}, but {kind} {t.name!r} of the artifact has a fixed first axis ({first}) "
            f"in shape {full}: there is no batch axis",
            hint="use --max-batch-sizes 0 for this artifact, or export it with a dynamic batch axis",
        )
    return dtype, full[1:]


def _add_warmup(cfg: mc.ModelConfig, spec: ModelSpec, data: str) -> None:
    """Add ``model_warmup`` samples (Triton docs, "Model Configuration: Model Warmup").

    One sample at batch 1 and, when ``max_batch_size > 1``, one at ``max_batch_size``.
    Dynamic dims take the ``opt`` size of the spec's named axis; a non-batching model's
    leading ``-1`` is its batch axis and becomes 1. ``random`` data is ``random_data: true``
    except for integer inputs with a ``value_range`` (token ids...), which get zeros:
    Triton's random integers are not bounded and would index out of range.

    Raises:
        ConfigError: a dynamic dim has no size in the spec.
    """
    mbs = cfg.max_batch_size
    sizes = spec.axis_sizes("opt")
    by_name = {t.name: t for t in spec.inputs}
    batches = [1] if mbs <= 1 else [1, mbs]
    for b in batches:
        sample = cfg.model_warmup.add(name=f"{data}_batch{b}", batch_size=b, count=1)
        for inp in cfg.input:
            dims = list(inp.dims)
            shape = list(by_name[inp.name].shape)
            if mbs == 0 and len(dims) == len(shape) + 1:  # the leading dim is the batch axis
                shape = [1, *shape]
            concrete = []
            for j, d in enumerate(dims):
                if d != WILDCARD:
                    concrete.append(d)
                    continue
                s = shape[j] if j < len(shape) else None
                size = s if isinstance(s, int) else sizes.get(s) if isinstance(s, str) else None
                if size is None:
                    raise ConfigError(
                        f"model_warmup.inputs[{inp.name}].dims: dim {j} is dynamic and the spec gives it no size",
                        hint="name the axis in the input spec with a (min, opt, max) range, or build without --warmup",
                    )
                concrete.append(size)
            w = sample.inputs[inp.name]
            w.data_type = inp.data_type
            w.dims.extend(concrete)
            bounded = by_name[inp.name].value_range is not None and not by_name[inp.name].dtype.startswith(("float", "bool"))
            if data == "zero" or bounded:  # random integers would break e.g. token ids (Triton draws any value)
                w.zero_data = True
            else:
                w.random_data = True


# --------------------------------------------------------------------------- rules


def model_backend(cfg: mc.ModelConfig) -> str:
    """The backend serving ``cfg``: ``backend``, or the one its ``platform`` implies ("" if none)."""
    return cfg.backend or PLATFORM_BACKENDS.get(cfg.platform, "")


def model_filename(cfg: mc.ModelConfig) -> str | None:
    """The file Triton loads from a version folder (``default_model_filename`` or the backend's default)."""
    return cfg.default_model_filename or BACKEND_FILES.get(model_backend(cfg))


def served_artifact(cfg: mc.ModelConfig) -> tuple[str, str] | None:
    """``(format, file name)`` of the exported artifact ``cfg`` serves, or ``None``.

    Native backends serve their model file; our python-backend model names its artifact in
    the ``artifact_format`` / ``artifact_file`` parameters.
    """
    backend = model_backend(cfg)
    if backend == "python":
        fmt = cfg.parameters[PARAM_FORMAT].string_value if PARAM_FORMAT in cfg.parameters else ""
        file = cfg.parameters[PARAM_FILE].string_value if PARAM_FILE in cfg.parameters else ""
        return (fmt, file) if fmt in formats.FORMAT_NAMES and file else None
    if backend in BACKEND_FORMATS:
        return BACKEND_FORMATS[backend], model_filename(cfg) or FORMAT_FILES[BACKEND_FORMATS[backend]]
    return None


def config_problems(cfg: mc.ModelConfig, *, server_gpu: bool | None = None) -> list[Problem]:
    """Every Triton rule ``cfg`` breaks on its own (without the artifact or the folder).

    Rules (Triton docs "Model Configuration", "Dynamic Batcher", "Optimization"; core
    ``ValidateModelConfig``/``ValidateIOShape``/``ValidateInstanceGroup``):
    ``name`` safe as a folder name; ``platform`` or ``backend`` given and consistent;
    ``max_batch_size >= 0``; inputs/outputs named uniquely with a data type and non-empty
    dims of ints >= 1 or -1; no ``dynamic_batching`` when ``max_batch_size`` is 0; preferred
    batch sizes within 1..max_batch_size; instance ``count >= 1``, no ``gpus`` on KIND_CPU,
    KIND_GPU only where the server has a GPU; the TensorRT accelerator only for ONNX
    Runtime with a known ``precision_mode``; warmup samples that cover every input with
    concrete dims and the input's data type, batch size within 1..max(1, max_batch_size).

    Args:
        cfg: The config.
        server_gpu: ``False`` flags KIND_GPU groups; ``None``/``True`` do not.

    Returns:
        Problems with ``file`` empty (the caller knows the file).
    """
    out: list[Problem] = []

    def bad(field: str, problem: str, fix: str = "") -> None:
        out.append(Problem("", field, problem, fix))

    if cfg.name and not NAME_RE.match(cfg.name):
        bad("name", f"{cfg.name!r} is not safe as a directory name", "use letters, digits, '_', '-', '.'")
    backend = model_backend(cfg)
    if not cfg.platform and not cfg.backend:
        bad("platform", "neither 'platform' nor 'backend' is set",
            "set platform (pytorch_libtorch, onnxruntime_onnx, tensorrt_plan) or backend (python, ...)")
    elif cfg.platform and cfg.backend and PLATFORM_BACKENDS.get(cfg.platform) != cfg.backend and cfg.backend in {*PLATFORM_BACKENDS.values(), "python"}:
        bad("backend", f"platform {cfg.platform!r} and backend {cfg.backend!r} do not go together",
            f"drop one; {cfg.platform!r} is served by backend {PLATFORM_BACKENDS.get(cfg.platform, '?')!r}")
    elif cfg.platform and not cfg.backend and cfg.platform not in PLATFORM_BACKENDS and cfg.platform != "ensemble":
        bad("platform", f"unknown platform {cfg.platform!r}", f"use one of {', '.join(PLATFORM_BACKENDS)}, or set backend")
    mbs = cfg.max_batch_size
    if mbs < 0:
        bad("max_batch_size", f"must be >= 0, got {mbs}", "0 = no batching; > 0 = the largest batch")
    if not cfg.output:
        bad("output", "no outputs are declared", "declare every output the model returns")
    for kind, tensors in (("input", cfg.input), ("output", cfg.output)):
        seen: set[str] = set()
        for i, t in enumerate(tensors):
            ref = f"{kind}[{t.name or i}]"
            if not t.name:
                bad(f"{kind}[{i}].name", "is empty", "give every tensor its name in the model")
            elif t.name in seen:
                bad(f"{ref}.name", f"{t.name!r} is declared twice", "remove the duplicate")
            seen.add(t.name)
            if t.data_type == mc.TYPE_INVALID:
                bad(f"{ref}.data_type", "is not set", "set the tensor's data type, e.g. TYPE_FP32")
            if not t.dims:
                bad(f"{ref}.dims", "are empty", "give the shape; a scalar per sample is dims: [1] with reshape { shape: [] }")
            elif any(d < 1 and d != WILDCARD for d in t.dims):
                bad(f"{ref}.dims", f"{list(t.dims)}: each dim must be >= 1, or -1 for a variable size", "fix the shape")
            if t.HasField("reshape") and not t.reshape.shape and mbs == 0:
                bad(f"{ref}.reshape", "an empty reshape needs max_batch_size > 0 (scalars are not supported)", "")
    if cfg.HasField("dynamic_batching"):
        if mbs == 0:
            bad("dynamic_batching", "is set but max_batch_size is 0: the model does not batch",
                "remove dynamic_batching, or set max_batch_size > 0 and leave the batch axis out of dims")
        wrong = [p for p in cfg.dynamic_batching.preferred_batch_size if not 1 <= p <= max(mbs, 0)]
        if wrong:
            bad("dynamic_batching.preferred_batch_size", f"{wrong} are not within 1..max_batch_size ({mbs})",
                "use sizes <= max_batch_size")
    has_gpu_group = not cfg.instance_group  # Triton defaults to KIND_GPU where it can
    for i, g in enumerate(cfg.instance_group):
        ref = f"instance_group[{i}]"
        if g.count < 0:
            bad(f"{ref}.count", f"must be >= 1, got {g.count}", "set count: 1 or more")
        if g.kind == mc.ModelInstanceGroup.KIND_CPU and g.gpus:
            bad(f"{ref}.gpus", f"KIND_CPU with gpus {list(g.gpus)}", "remove gpus or use KIND_GPU")
        if g.kind == mc.ModelInstanceGroup.KIND_GPU:
            has_gpu_group = True
            if server_gpu is False:
                bad(f"{ref}.kind", "KIND_GPU but the server has no GPU", "use KIND_CPU, or serve this model on a GPU machine")
        if g.kind == mc.ModelInstanceGroup.KIND_AUTO:
            has_gpu_group = True
    accs = cfg.optimization.execution_accelerators.gpu_execution_accelerator
    for i, acc in enumerate(accs):
        ref = f"optimization.execution_accelerators.gpu_execution_accelerator[{i}]"
        if acc.name == "tensorrt":
            if backend != "onnxruntime":
                bad(f"{ref}.name", f"the TensorRT accelerator is an ONNX Runtime option; this model's backend is {backend or 'unknown'!r}",
                    "remove the optimization block, or use platform onnxruntime_onnx")
            mode = acc.parameters.get("precision_mode")
            if mode is not None and mode not in ("FP32", "FP16", "INT8"):
                bad(f"{ref}.parameters[precision_mode]", f"{mode!r} is not FP32, FP16 or INT8", "use FP16 or FP32")
            if not has_gpu_group:
                bad(f"{ref}", "a GPU execution accelerator on KIND_CPU instances has no effect", "use KIND_GPU instances or remove it")
    inputs = {t.name: t for t in cfg.input}
    for i, w in enumerate(cfg.model_warmup):
        ref = f"model_warmup[{w.name or i}]"
        if not 1 <= w.batch_size <= max(1, mbs):
            bad(f"{ref}.batch_size", f"{w.batch_size} is not within 1..{max(1, mbs)}",
                "use 1 for a non-batching model, at most max_batch_size otherwise")
        missing = sorted(set(inputs) - set(w.inputs))
        if missing:
            bad(f"{ref}.inputs", f"no data for inputs {missing}", "give every model input a warmup entry")
        for name, data in w.inputs.items():
            if name not in inputs:
                bad(f"{ref}.inputs[{name}]", "is not a model input", f"use one of {sorted(inputs)}")
                continue
            if data.data_type != inputs[name].data_type:
                bad(f"{ref}.inputs[{name}].data_type",
                    f"{mc.DataType.Name(data.data_type)} differs from the input's {mc.DataType.Name(inputs[name].data_type)}",
                    "use the input's data type")
            if not data.dims or any(d < 1 for d in data.dims):
                bad(f"{ref}.inputs[{name}].dims", f"{list(data.dims)} must be concrete sizes >= 1", "replace -1 by a size")
            if data.WhichOneof("input_data_type") is None:
                bad(f"{ref}.inputs[{name}]", "no data source", "set zero_data: true, random_data: true or input_data_file")
    return out


def artifact_problems(cfg: mc.ModelConfig, io: ArtifactIO, *, positional: bool | None = None) -> list[Problem]:
    """Every way ``cfg``'s inputs and outputs disagree with the artifact it serves.

    Names must match (ONNX/TensorRT by name; TorchScript by position and, on the native
    PyTorch backend, forward-argument names or ``<name>__<index>``), data types must match,
    and dims must match the artifact's shape: without its batch axis when
    ``max_batch_size > 0`` (and the artifact's first axis must then be dynamic), the full
    shape when it is 0 (Triton docs, "Model Configuration: Inputs and Outputs"; ``reshape``,
    when present, is the shape the model sees). A TensorRT engine's profile bounds
    ``max_batch_size``.

    Args:
        cfg: The config.
        io: The artifact's I/O (:func:`builders.validate.read_artifact_io`).
        positional: Match TorchScript tensors by position only (our python backend);
            default: only when ``io.positional`` and the backend is not ``pytorch``.
    """
    out: list[Problem] = []
    mbs = cfg.max_batch_size
    backend = model_backend(cfg)
    by_position = io.positional and (positional if positional is not None else backend != "pytorch")
    for kind, declared, have in (("input", cfg.input, io.inputs), ("output", cfg.output, io.outputs)):
        if have is None:
            continue
        pairs: list[tuple[mc.ModelInput | mc.ModelOutput, TensorIO]] = []
        if io.positional:
            if len(declared) != len(have):
                out.append(Problem("", kind, f"the config declares {len(declared)} {kind}s, the {io.format} artifact has {len(have)}",
                                   f"declare exactly the artifact's {kind}s"))
            if not by_position:
                out += _torchscript_names(kind, declared, have)
            continue  # TorchScript declares no dtypes or shapes
        names = {a.name: a for a in have}
        for t in declared:
            if t.name in names:
                pairs.append((t, names[t.name]))
            else:
                out.append(Problem("", f"{kind}[{t.name}].name", f"{t.name!r} is not a {kind} of the {io.format} artifact",
                                   f"use one of {sorted(names)}"))
        for extra in sorted(set(names) - {t.name for t in declared}):
            out.append(Problem("", kind, f"the artifact's {kind} {extra!r} is missing from the config", f"declare {kind} {extra!r}"))
        for t, a in pairs:
            ref = f"{kind}[{t.name}]"
            if a.data_type and t.data_type != mc.TYPE_INVALID and mc.DataType.Name(t.data_type) != a.data_type:
                out.append(Problem("", f"{ref}.data_type", f"{mc.DataType.Name(t.data_type)} but the artifact has {a.data_type}",
                                   f"set data_type: {a.data_type}"))
            if a.shape is not None:
                out += _shape_problems(ref, t, list(a.shape), mbs)
    if io.max_batch_size is not None and mbs > io.max_batch_size:
        out.append(Problem("", "max_batch_size", f"{mbs} exceeds the TensorRT engine's profile maximum batch {io.max_batch_size}",
                           f"set max_batch_size <= {io.max_batch_size}, or rebuild the engine with a larger profile"))
    return out


def _shape_problems(ref: str, t: mc.ModelInput | mc.ModelOutput, full: list[int], mbs: int) -> list[Problem]:
    seen = list(t.reshape.shape) if t.HasField("reshape") else list(t.dims)
    field = f"{ref}.reshape" if t.HasField("reshape") else f"{ref}.dims"
    if mbs > 0:
        if not full or not (full[0] == WILDCARD or (full[0] == 1 and mbs == 1)):
            return [Problem("", "max_batch_size", f"{mbs}, but the artifact's {ref} shape {full} has no dynamic batch axis",
                            f"set max_batch_size: 0 and dims: {full}")]
        want = full[1:]
        if len(seen) == len(full) and len(seen) != len(want):
            return [Problem("", field, f"{seen} include the batch axis; with max_batch_size > 0 leave it out",
                            f"set dims: {want}")]
    else:
        want = full
        if len(seen) + 1 == len(full):
            return [Problem("", field, f"{seen} leave out the batch axis, but max_batch_size is 0: dims are the full shape",
                            f"set dims: {full}, or max_batch_size > 0")]
    if len(seen) != len(want) or any(a != WILDCARD and c != a for c, a in zip(seen, want)):
        return [Problem("", field, f"{seen} do not match the artifact's {'per-sample ' if mbs > 0 else ''}shape {want}",
                        f"set dims: {want}")]
    return []


def _torchscript_names(kind: str, declared: object, have: tuple[TensorIO, ...]) -> list[Problem]:
    """Triton's PyTorch backend: names are forward-argument names or ``<name>__<index>``."""
    out = []
    args = [a.name for a in have]
    for t in declared:  # type: ignore[attr-defined]
        prefix, sep, idx = t.name.rpartition("__")
        if sep and prefix and idx.isdigit():
            if int(idx) >= len(have):
                out.append(Problem("", f"{kind}[{t.name}].name", f"index {idx} but the module has {len(have)} {kind}s",
                                   f"use indices 0..{len(have) - 1}"))
        elif kind == "output":
            out.append(Problem("", f"{kind}[{t.name}].name", "PyTorch backend outputs must be named <name>__<index>",
                               "rename it, e.g. OUTPUT__0"))
        elif t.name not in args:
            out.append(Problem("", f"{kind}[{t.name}].name", f"neither a forward() argument ({args}) nor <name>__<index>",
                               "rename it to the argument's name or e.g. INPUT__0"))
    return out


# --------------------------------------------------------------------------- text


def to_text(cfg: mc.ModelConfig) -> str:
    """Serialise to pbtxt with ``text_format``.

    ``max_batch_size: 0`` is written explicitly (protobuf's text writer drops scalars equal
    to their default) right after ``name`` so a reader sees that the model does not batch.
    """
    text = text_format.MessageToString(cfg)
    if cfg.max_batch_size == 0:
        line = "max_batch_size: 0\n"
        if text.startswith("name:"):
            first, _, rest = text.partition("\n")
            text = f"{first}\n{line}{rest}"
        else:
            text = line + text
    return text


def write_config(cfg: mc.ModelConfig, path: Path) -> None:
    """Write ``cfg`` to ``path`` (``.../<model>/config.pbtxt``)."""
    path.write_text(to_text(cfg))


def parse_config(text: str, source: str = "<text>") -> mc.ModelConfig:
    """Parse pbtxt text into a ``ModelConfig``.

    Raises:
        ConfigError: the text is not a valid ``ModelConfig`` (message has line and column).
    """
    try:
        return text_format.Parse(text, mc.ModelConfig())
    except text_format.ParseError as e:
        raise ConfigError(f"{source}: not a valid Triton ModelConfig: {e}") from e


def read_config(path: Path) -> mc.ModelConfig:
    """Read and parse ``config.pbtxt``.

    Raises:
        ConfigError: missing file or invalid content.
    """
    if not path.is_file():
        raise ConfigError(f"{path} does not exist", hint="every model folder needs a config.pbtxt")
    return parse_config(path.read_text(), str(path))
