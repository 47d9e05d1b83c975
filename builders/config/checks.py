"""Every Triton rule a whole ``ModelConfig`` breaks, alone or against its artifact.

:func:`config_problems` walks a config (generated or hand-written) and applies the shared
rules of :mod:`builders.triton.rules` field by field, the rules of the backend that serves
it (:mod:`builders.backends`), and the rules only a config can break (names, tensors,
warmup data). :func:`artifact_problems` compares inputs and outputs with the exported
artifact. :func:`builders.config.pbtxt.make_config` refuses a config with problems;
``builders validate`` lists them with their file. Sources: Triton docs "Model
Configuration", "Dynamic Batcher", "Optimization", and core ``src/model_config_utils.cc``
(``ValidateModelConfig``, ``ValidateIOShape``, ``ValidateInstanceGroup``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tritonclient.grpc import model_config_pb2 as mc

from builders import backends
from builders.model.artifact_io import WILDCARD
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.tensor import TensorSpec
from builders.triton import rules
from builders.triton.rules import Problem
from core.naming import NAME_RE


def config_problems(cfg: mc.ModelConfig, *, server_gpu: bool | None = None) -> list[Problem]:
    """Every Triton rule ``cfg`` breaks on its own (without the artifact or the folder).

    Rules: ``name`` safe as a folder name; ``platform`` or ``backend`` given and consistent;
    ``max_batch_size >= 0``; inputs/outputs named uniquely with a data type and non-empty
    dims of ints >= 1 or -1; no ``dynamic_batching`` when ``max_batch_size`` is 0; preferred
    batch sizes within 1..max_batch_size; instance ``count >= 1``, no ``gpus`` on KIND_CPU,
    KIND_GPU only where the server has a GPU; the TensorRT accelerator only for ONNX
    Runtime on GPU instances with a known ``precision_mode``; warmup samples that cover every
    input with concrete dims and the input's data type, batch size within
    1..max(1, max_batch_size); the serving backend's own rules.

    Args:
        cfg: The config.
        server_gpu: ``False`` flags KIND_GPU groups; ``None``/``True`` do not.

    Returns:
        Problems with ``file`` empty (the caller knows the file).
    """
    out: list[Problem] = []
    if cfg.name and not NAME_RE.match(cfg.name):
        out.append(_problem("name", f"{cfg.name!r} is not safe as a directory name", "use letters, digits, '_', '-', '.'"))
    out += _platform_problems(cfg)
    mbs = cfg.max_batch_size
    out += rules.max_batch_size(mbs)
    out += _tensor_problems(cfg)
    batching = cfg.HasField("dynamic_batching")
    out += rules.dynamic_batching(mbs, batching)
    out += rules.preferred_batch_sizes(mbs, cfg.dynamic_batching.preferred_batch_size, batching)
    gpu_instances = not cfg.instance_group  # Triton defaults to KIND_GPU where it can
    for i, g in enumerate(cfg.instance_group):
        ref, kind = f"instance_group[{i}]", mc.ModelInstanceGroup.Kind.Name(g.kind)
        out += rules.instance_count(g.count or 1, ref)  # an unset count is 1
        out += rules.instance_gpus(kind, g.gpus, ref)
        out += rules.kind_gpu_needs_gpu(kind, server_gpu, ref)
        gpu_instances = gpu_instances or kind in ("KIND_GPU", "KIND_AUTO")
    backend = backends.model_backend(cfg)
    for i, acc in enumerate(cfg.optimization.execution_accelerators.gpu_execution_accelerator):
        if acc.name == "tensorrt":
            ref = f"{rules.ACCELERATORS}[{i}]"
            out += rules.ort_trt_accelerator(backend, gpu_instances, ref)
            out += rules.ort_trt_precision_mode(acc.parameters.get("precision_mode"), ref)
    out += _warmup_problems(cfg)
    builder = backends.for_config(cfg)
    if builder is not None:
        out += builder.config_problems(cfg)
    return out


def _problem(field: str, problem: str, fix: str = "") -> Problem:
    """A problem of the config file being checked (``file`` empty: the caller knows it)."""
    return Problem("", field, problem, fix)


def _platform_problems(cfg: mc.ModelConfig) -> list[Problem]:
    """``platform`` or ``backend`` given, and consistent with each other (Triton docs,
    "Model Configuration: Platform and Backend")."""
    implied = backends.platform_backend(cfg.platform)
    if not cfg.platform and not cfg.backend:
        why, fix = (
            "neither 'platform' nor 'backend' is set",
            "set platform (pytorch_libtorch, onnxruntime_onnx, tensorrt_plan) or backend (python, ...)",
        )
        return [_problem("platform", why, fix)]
    known = cfg.backend in backends.BACKENDS or cfg.backend in backends.OTHER_PLATFORMS.values()
    if cfg.platform and cfg.backend and implied != cfg.backend and known:
        why = f"platform {cfg.platform!r} and backend {cfg.backend!r} do not go together"
        return [_problem("backend", why, f"drop one; {cfg.platform!r} is served by backend {implied or '?'!r}")]
    if cfg.platform and not cfg.backend and implied is None and cfg.platform != backends.ENSEMBLE:
        fix = f"use one of {', '.join(backends.known_platforms())}, or set backend"
        return [_problem("platform", f"unknown platform {cfg.platform!r}", fix)]
    return []


def _tensor_problems(cfg: mc.ModelConfig) -> list[Problem]:
    """At least one output; inputs and outputs named uniquely, with a data type and
    non-empty dims of ints >= 1 or -1; an empty reshape only with ``max_batch_size > 0``."""
    out: list[Problem] = []
    mbs = cfg.max_batch_size
    if not cfg.output:
        out.append(_problem("output", "no outputs are declared", "declare every output the model returns"))
    for kind, tensors in (("input", cfg.input), ("output", cfg.output)):
        seen: set[str] = set()
        for i, t in enumerate(tensors):
            ref = f"{kind}[{t.name or i}]"
            if not t.name:
                out.append(_problem(f"{kind}[{i}].name", "is empty", "give every tensor its name in the model"))
            elif t.name in seen:
                out.append(_problem(f"{ref}.name", f"{t.name!r} is declared twice", "remove the duplicate"))
            seen.add(t.name)
            if t.data_type == mc.TYPE_INVALID:
                out.append(_problem(f"{ref}.data_type", "is not set", "set the tensor's data type, e.g. TYPE_FP32"))
            if not t.dims:
                fix = "give the shape; a scalar per sample is dims: [1] with reshape { shape: [] }"
                out.append(_problem(f"{ref}.dims", "are empty", fix))
            elif any(d < 1 and d != WILDCARD for d in t.dims):
                why = f"{list(t.dims)}: each dim must be >= 1, or -1 for a variable size"
                out.append(_problem(f"{ref}.dims", why, "fix the shape"))
            if t.HasField("reshape") and not t.reshape.shape and mbs == 0:
                out.append(
                    _problem(f"{ref}.reshape", "an empty reshape needs max_batch_size > 0 (scalars are not supported)", "")
                )
    return out


def _warmup_problems(cfg: mc.ModelConfig) -> list[Problem]:
    """``model_warmup`` samples (Triton docs, "Model Configuration: Model Warmup")."""
    out: list[Problem] = []
    inputs = {t.name: t for t in cfg.input}
    for i, w in enumerate(cfg.model_warmup):
        ref = f"model_warmup[{w.name or i}]"
        out += rules.warmup_batch_size(w.batch_size, cfg.max_batch_size, ref)
        missing = sorted(set(inputs) - set(w.inputs))
        if missing:
            out.append(
                Problem("", f"{ref}.inputs", f"no data for inputs {', '.join(missing)}", "give every model input a warmup entry")
            )
        for name, data in w.inputs.items():
            field = f"{ref}.inputs[{name}]"
            if name not in inputs:
                out.append(Problem("", field, "is not a model input", f"use one of {', '.join(sorted(inputs))}"))
                continue
            if data.data_type != inputs[name].data_type:
                out.append(
                    Problem(
                        "",
                        f"{field}.data_type",
                        f"{mc.DataType.Name(data.data_type)} differs from the input's {mc.DataType.Name(inputs[name].data_type)}",
                        "use the input's data type",
                    )
                )
            if not data.dims or any(d < 1 for d in data.dims):
                out.append(Problem("", f"{field}.dims", f"{list(data.dims)} must be concrete sizes >= 1", "replace -1 by a size"))
            if data.WhichOneof("input_data_type") is None:
                out.append(Problem("", field, "no data source", "set zero_data: true, random_data: true or input_data_file"))
    return out


def artifact_problems(cfg: mc.ModelConfig, io: ArtifactIO) -> list[Problem]:
    """Every way ``cfg``'s inputs and outputs disagree with the artifact it serves.

    Names must match (ONNX/TensorRT by name; TorchScript by position and, on the native
    PyTorch backend, by its naming convention, :mod:`builders.backends.pytorch_libtorch`),
    data types must match, and dims must match the artifact's shape: without its batch axis
    when ``max_batch_size > 0`` (and the artifact's first axis must then be dynamic), the
    full shape when it is 0 (Triton docs, "Model Configuration: Inputs and Outputs";
    ``reshape``, when present, is the shape the model sees). The serving backend adds its
    own checks (a TensorRT engine's profile bounds ``max_batch_size``).

    Args:
        cfg: The config.
        io: The artifact's I/O (:func:`builders.model.artifact_io.read_artifact_io`).
    """
    out: list[Problem] = []
    mbs = cfg.max_batch_size
    for kind, declared, have in (("input", cfg.input, io.inputs), ("output", cfg.output, io.outputs)):
        if have is None:
            continue
        if io.positional:  # TorchScript declares no names, dtypes or shapes: only the count
            if len(declared) != len(have):
                out.append(
                    Problem(
                        "",
                        kind,
                        f"the config declares {len(declared)} {kind}s, the {io.format} artifact has {len(have)}",
                        f"declare exactly the artifact's {kind}s",
                    )
                )
            continue
        pairs: list[tuple[mc.ModelInput | mc.ModelOutput, TensorIO]] = []
        names = {a.name: a for a in have}
        for t in declared:
            if t.name in names:
                pairs.append((t, names[t.name]))
            else:
                out.append(
                    Problem(
                        "",
                        f"{kind}[{t.name}].name",
                        f"{t.name!r} is not a {kind} of the {io.format} artifact",
                        f"use one of {', '.join(names)}",
                    )
                )
        for extra in sorted(set(names) - {t.name for t in declared}):
            out.append(
                Problem("", kind, f"the artifact's {kind} {extra!r} is missing from the config", f"declare {kind} {extra!r}")
            )
        for t, a in pairs:
            ref = f"{kind}[{t.name}]"
            if a.data_type and t.data_type != mc.TYPE_INVALID and mc.DataType.Name(t.data_type) != a.data_type:
                out.append(
                    Problem(
                        "",
                        f"{ref}.data_type",
                        f"{mc.DataType.Name(t.data_type)} but the artifact has {a.data_type}",
                        f"set data_type: {a.data_type}",
                    )
                )
            if a.shape is not None:
                out += _shape_problems(ref, t, list(a.shape), mbs)
    for i, g in enumerate(cfg.instance_group):
        out += device_constant_problems(mc.ModelInstanceGroup.Kind.Name(g.kind), io.device_constants, f"instance_group[{i}]")
    builder = backends.for_config(cfg)
    if builder is not None:
        out += builder.artifact_problems(cfg, io)
    return out


def _shape_problems(ref: str, t: mc.ModelInput | mc.ModelOutput, full: list[int], mbs: int) -> list[Problem]:
    seen = list(t.reshape.shape) if t.HasField("reshape") else list(t.dims)
    field = f"{ref}.reshape" if t.HasField("reshape") else f"{ref}.dims"
    if mbs > 0:
        if not has_batch_axis(full, mbs):
            return [
                Problem(
                    "",
                    "max_batch_size",
                    f"{mbs}, but the artifact's {ref} shape {full} has no dynamic batch axis",
                    f"set max_batch_size: 0 and dims: {full}",
                )
            ]
        want = full[1:]
        if len(seen) == len(full) and len(seen) != len(want):
            return [
                Problem("", field, f"{seen} include the batch axis; with max_batch_size > 0 leave it out", f"set dims: {want}")
            ]
    else:
        want = full
        if len(seen) + 1 == len(full):
            return [
                Problem(
                    "",
                    field,
                    f"{seen} leave out the batch axis, but max_batch_size is 0: dims are the full shape",
                    f"set dims: {full}, or max_batch_size > 0",
                )
            ]
    if len(seen) != len(want) or any(a != WILDCARD and c != a for c, a in zip(seen, want)):
        return [
            Problem(
                "",
                field,
                f"{seen} do not match the artifact's {'per-sample ' if mbs > 0 else ''}shape {want}",
                f"set dims: {want}",
            )
        ]
    return []


def has_batch_axis(full: list[int], mbs: int) -> bool:
    """Whether an artifact shape can serve ``max_batch_size > 0``: its first axis is dynamic
    (or fixed at 1 when ``max_batch_size`` is 1) (Triton docs, "Model Configuration: Maximum
    Batch Size": with batching, Triton adds the batch axis in front of ``dims``)."""
    return bool(full) and (full[0] == WILDCARD or (full[0] == 1 and mbs == 1))


def device_constant_problems(kind: str, constants: Sequence[str], ref: str) -> list[Problem]:
    """An instance kind whose device differs from a device the TorchScript graph holds as a
    constant (:func:`builders.model.artifact_io.device_constants`): ``torch.jit.trace`` froze the
    trace device (``device=x.device``, ``torch.arange(n)``...) and the module mixes devices
    when served elsewhere (KIND_CPU runs on ``cpu``, KIND_GPU on ``cuda``; KIND_AUTO and
    KIND_MODEL are not decided here).

    Args:
        kind: ``"KIND_CPU"``, ``"KIND_GPU"``...
        constants: The artifact's device constants, ``"cpu (aten::ones)"``.
        ref: The config field of the instance group (``"instance_group[0]"``).
    """
    device = {"KIND_CPU": "cpu", "KIND_GPU": "cuda"}.get(kind)
    others = [c for c in constants if device and c.split(" ")[0].split(":")[0] != device]
    if not others:
        return []
    return [
        Problem(
            "",
            f"{ref}.kind",
            f"{kind} runs on {device}, but the TorchScript graph holds device constants {others} "
            "(a trace froze its device): it fails there",
            "export with torch.jit.script (forward reads x.device at run time) or trace on the serving device, "
            f"or serve it with the kind of {others[0].split(' ')[0]}",
        )
    ]


def recorded_output_problems(cfg: mc.ModelConfig, recorded: tuple[TensorSpec, ...]) -> list[Problem]:
    """Every way ``cfg``'s outputs disagree with the outputs the build recorded for its artifact.

    Outputs are matched by served name (the build's record ties each name to an artifact
    output by its key); each must have the recorded data type and dims (per sample when
    ``max_batch_size > 0``, with a leading ``-1`` batch axis when 0; ``reshape``, when
    present, is what the model sees). Where the serving backend maps outputs by a recorded
    order (our python model's ``artifact_outputs``), that order must be the artifact's.

    Args:
        cfg: The config.
        recorded: The build's outputs under their served names, in the artifact's order
            (``Repository(...).variant(name).served_spec.outputs``).
    """
    out: list[Problem] = []
    have = {t.name: t for t in recorded}
    declared = {t.name: t for t in cfg.output}
    for name in declared:
        if name not in have:
            out.append(
                Problem(
                    "",
                    f"output[{name}].name",
                    f"{name!r} is not an output the build recorded for this artifact",
                    f"use one of {', '.join(sorted(have))}",
                )
            )
    for name in have:
        if name not in declared:
            out.append(
                Problem(
                    "",
                    "output",
                    f"the artifact's output {name!r} (recorded by the build) is missing from the config",
                    f"declare output {name!r}",
                )
            )
    for name, t in declared.items():
        r = have.get(name)
        if r is None:
            continue
        want_type = r.triton_dtype
        if t.data_type != mc.TYPE_INVALID and mc.DataType.Name(t.data_type) != want_type:
            out.append(
                Problem(
                    "",
                    f"output[{name}].data_type",
                    f"{mc.DataType.Name(t.data_type)} but the build recorded {want_type} for this output",
                    f"set data_type: {want_type}",
                )
            )
        seen = list(t.reshape.shape) if t.HasField("reshape") else list(t.dims)
        want = r.triton_dims() if cfg.max_batch_size > 0 else [WILDCARD, *r.triton_dims()]
        if t.HasField("reshape") and not t.reshape.shape:
            seen = [] if cfg.max_batch_size > 0 else [WILDCARD]
        if len(seen) != len(want) or any(w != WILDCARD and s != w for s, w in zip(seen, want)):
            field = f"output[{name}].reshape" if t.HasField("reshape") and t.reshape.shape else f"output[{name}].dims"
            out.append(
                Problem(
                    "",
                    field,
                    f"{seen} but the build recorded {'per-sample ' if cfg.max_batch_size > 0 else ''}"
                    f"shape {want} for this output",
                    f"set dims: {want or [1]}",
                )
            )
    builder = backends.for_config(cfg)
    if builder is not None:
        out += builder.order_problems(cfg, [t.name for t in recorded])
    return out
