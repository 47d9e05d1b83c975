"""Triton ``config.pbtxt`` as protobuf: build, write and read ``ModelConfig`` messages.

The only source of truth for a config is Triton's own schema,
``tritonclient.grpc.model_config_pb2.ModelConfig``, written and parsed with
``google.protobuf.text_format`` exactly as the server does. Nothing here formats pbtxt by hand.

:func:`make_config` writes what every backend shares (name, batching, inputs and outputs,
instance group, dynamic batcher, warmup) and lets the serving backend's builder
(:mod:`builders.backends`) write its part. It refuses to return a config that breaks a
Triton rule (:mod:`builders.triton.rules`, applied to the whole config by
:func:`builders.config.checks.config_problems` and, against the artifact,
:func:`builders.config.checks.artifact_problems`), the same checks ``builders validate`` runs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from google.protobuf import text_format
from tritonclient.grpc import model_config_pb2 as mc

from builders import backends
from builders.backends import DEFAULT_SERVING
from builders.config.checks import artifact_problems, config_problems, has_batch_axis
from builders.config.variants import Variant
from builders.config.warmup import DEFAULT_WARMUP_COUNT, add_warmup
from builders.model.artifact_io import WILDCARD
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import BATCH_AXIS, TensorSpec
from builders.triton.rules import raise_problems
from core.errors import ConfigError
from core.names import read_text
from core.wording import agree

log = logging.getLogger(__name__)

#: What to do about a model folder's config.pbtxt that cannot be read (:func:`read_config`).
CONFIG_HINT = "every model folder needs a config.pbtxt (UTF-8 text; `builders build` writes one per variant)"


# --------------------------------------------------------------------------- generation


def make_config(
    variant: Variant,
    spec: ModelSpec,
    serving: str = DEFAULT_SERVING,
    intra_op_threads: int | None = None,
    *,
    io: ArtifactIO | None = None,
    server_gpu: bool | None = None,
    warmup_count: int = DEFAULT_WARMUP_COUNT,
) -> mc.ModelConfig:
    """Build the ``ModelConfig`` of one variant and check it against Triton's rules.

    Inputs and outputs take their names from ``spec`` and their dtypes and dims from the
    exported artifact (``io``) where it declares them, from ``spec`` otherwise (TorchScript
    declares neither); a dim the artifact leaves dynamic but the spec fixes is the spec's. With ``max_batch_size > 0`` dims leave out the batch axis; with 0 they
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
        warmup_count: Runs of each ``model_warmup`` sample when the variant has warmup
            (:func:`builders.config.warmup.add_warmup`: every batch size it will see, the dynamic
            axes' ends); default :data:`builders.config.warmup.DEFAULT_WARMUP_COUNT`.

    Returns:
        The config; ``max_batch_size <= io.max_batch_size`` (TensorRT profile) holds.

    Raises:
        ConfigError: unknown ``serving``, or the variant breaks a Triton rule for this
            serving or artifact; the message names every field concerned.
    """
    cfg = mc.ModelConfig(name=variant.name, max_batch_size=variant.max_batch_size)
    builder = backends.for_serving(serving, variant.format)
    builder.configure(cfg, variant.format, trt_accelerator=variant.trt_accelerator, intra_op_threads=intra_op_threads)
    mbs = variant.max_batch_size
    for kind, tensors, target in (("input", spec.inputs, cfg.input), ("output", spec.outputs, cfg.output)):
        found = _artifact_tensors(io, kind, tensors)
        for t, a in zip(tensors, found):
            dtype, dims = _dtype_dims(kind, t, a, mbs)
            entry = target.add(name=t.name, data_type=mc.DataType.Value(dtype), dims=dims or [1])
            if not dims:
                entry.reshape.SetInParent()  # per-sample scalar: dims [1] seen by the model as []
    builder.record_outputs(cfg, [t.name for t in spec.outputs])  # the artifact's output order
    group = cfg.instance_group.add(
        count=variant.count,
        kind=mc.ModelInstanceGroup.KIND_GPU if variant.kind == "gpu" else mc.ModelInstanceGroup.KIND_CPU,
    )
    group.gpus.extend(variant.gpus)
    if variant.dynamic_batching:
        cfg.dynamic_batching.max_queue_delay_microseconds = variant.max_queue_delay_us
        cfg.dynamic_batching.preferred_batch_size.extend(variant.preferred_batch_sizes)
    if variant.warmup:
        add_warmup(cfg, spec, variant.warmup, warmup_count)
    # the variant's rules for the backend that serves it (e.g. no ORT-TRT on the python
    # backend, which writes no accelerator block), then the whole config's
    problems = variant.problems(backend=builder.backend) + config_problems(cfg, server_gpu=server_gpu)
    if io is not None:
        problems += artifact_problems(cfg, io)
    raise_problems(problems, f"variant {variant.name}")
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
            f"{kind}: {', '.join(missing)} {agree(len(missing), 'is not an ' + kind, 'are not ' + kind + 's')} of the exported "
            f"{io.format} artifact (it has {', '.join(sorted(by_name))})",
            hint="the spec and the export disagree: rebuild the artifact from this spec",
        )
    return [by_name[t.name] for t in tensors]


def _dtype_dims(kind: str, t: TensorSpec, a: TensorIO | None, mbs: int) -> tuple[str, list[int]]:
    """``(Triton dtype, config dims)`` of one tensor: the artifact's where it says, else the spec's;
    a dim the artifact leaves dynamic (an exporter's symbolic dim, e.g. of ``F.normalize``) but
    the spec fixes (the build ran the model at several sizes and it did not change) is the spec's:
    one served signature for every format, the one ``builders validate`` checks against the
    build's record (a model dim of -1 accepts any config dim: Triton docs, "Model
    Configuration: Inputs and Outputs")."""
    dtype, dims = _artifact_dtype_dims(kind, t, a, mbs)
    spec = t.triton_dims() if mbs > 0 else unbatched_dims(t)
    if len(spec) != len(dims):
        return dtype, dims
    return dtype, [s if d == WILDCARD and s != WILDCARD else d for d, s in zip(dims, spec)]


def unbatched_dims(t: TensorSpec) -> list[int]:
    """The config dims of a ``max_batch_size: 0`` variant's tensor: its whole shape, the batch axis (where the model
    puts it) at 1, the size it is verified at (:func:`builders.verify.verification.verification_points`), each dynamic
    axis ``-1``. Triton then refuses a request of another row count itself, as ``clients`` and ``triton-perf`` do
    (trial 30, F5: ``dims: -1, 3`` advertised any row count of a variant verified at one row)."""
    return [1 if d == BATCH_AXIS else d if isinstance(d, int) else WILDCARD for d in t.full_shape()]


def _artifact_dtype_dims(kind: str, t: TensorSpec, a: TensorIO | None, mbs: int) -> tuple[str, list[int]]:
    dtype = t.triton_dtype
    if a is not None and a.data_type:
        if a.data_type != dtype:
            log.warning(
                "%s %s: the artifact says %s, the spec %s; the artifact's dtype is used", kind, t.name, a.data_type, dtype
            )
        dtype = a.data_type
    if a is None or a.shape is None:
        if mbs > 0:
            return dtype, t.triton_dims()
        return dtype, unbatched_dims(t)
    full = list(a.shape)
    if mbs == 0:
        return dtype, full
    if not has_batch_axis(full, mbs):
        first = full[0] if full else "(scalar)"
        raise ConfigError(
            f"max_batch_size: {mbs}, but {kind} {t.name!r} of the artifact has a fixed first axis ({first}) "
            f"in shape {full}: there is no batch axis",
            hint="use --max-batch-sizes 0 for this artifact, or export it with a dynamic batch axis",
        )
    return dtype, full[1:]


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
        raise ConfigError(
            f"{source}: not a valid Triton ModelConfig: {e}",
            hint="fix the field at that line and column (Triton's model_config.proto names the valid fields), "
            "or let `builders build` write the config",
        ) from e


def read_config(path: Path) -> mc.ModelConfig:
    """Read and parse ``config.pbtxt``.

    Raises:
        ConfigError: a missing, unreadable or not UTF-8 file (:func:`core.names.read_text`), or invalid content.
    """
    return parse_config(read_text(path, "config", "a config.pbtxt", ConfigError, CONFIG_HINT, "*.pbtxt"), str(path))
