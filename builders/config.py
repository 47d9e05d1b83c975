"""Triton ``config.pbtxt`` as protobuf: build, write and read ``ModelConfig`` messages.

The only source of truth for a config is Triton's own schema,
``tritonclient.grpc.model_config_pb2.ModelConfig``, written and parsed with
``google.protobuf.text_format`` exactly as the server does. Nothing here formats pbtxt by hand.
"""

from __future__ import annotations

from pathlib import Path

from google.protobuf import text_format
from tritonclient.grpc import model_config_pb2 as mc

from builders.artifacts import FORMAT_FILES, FORMAT_PLATFORMS
from builders.errors import ConfigError
from builders.spec import ModelSpec
from builders.variants import Variant

#: Runtimes a repository can be generated for.
#: ``bundled``: the python backend of the bundled CPU server (nvidia-pytriton wheel).
#: ``native``: Triton's native backends (pytorch_libtorch, onnxruntime_onnx, tensorrt_plan).
RUNTIMES = ("bundled", "native")
#: config ``parameters`` read by the generated python-backend model.py.
PARAM_FORMAT = "artifact_format"
PARAM_FILE = "artifact_file"
PARAM_THREADS = "intra_op_threads"


def make_config(variant: Variant, spec: ModelSpec, runtime: str = "bundled", intra_op_threads: int | None = None) -> mc.ModelConfig:
    """Build the ``ModelConfig`` of one variant.

    Args:
        variant: The variant (instance group, batching, max_batch_size).
        spec: The artifact's I/O signature (dtypes and dims come from the export).
        runtime: ``"bundled"`` (python backend serving the artifact) or ``"native"``.
        intra_op_threads: Threads per instance for the python backend; ``None`` lets the
            model divide the host's cores among all instances at load time.

    Raises:
        ConfigError: the runtime cannot serve this variant (e.g. TensorRT on the bundled server).
    """
    if runtime not in RUNTIMES:
        raise ConfigError(f"unknown runtime {runtime!r}", hint=f"choose one of {', '.join(RUNTIMES)}")
    cfg = mc.ModelConfig(name=variant.name, max_batch_size=variant.max_batch_size)
    if runtime == "native":
        cfg.platform = FORMAT_PLATFORMS[variant.format]
        cfg.default_model_filename = FORMAT_FILES[variant.format]
    else:
        if variant.format == "trt":
            raise ConfigError(
                "TensorRT plans cannot be served by the bundled server (python backend only)",
                hint="use --runtime native with a Triton container that has the tensorrt_plan backend",
            )
        cfg.backend = "python"
        cfg.parameters[PARAM_FORMAT].string_value = variant.format
        cfg.parameters[PARAM_FILE].string_value = FORMAT_FILES[variant.format]
        if intra_op_threads:
            cfg.parameters[PARAM_THREADS].string_value = str(intra_op_threads)
    batched = variant.max_batch_size > 0
    for t in spec.inputs:
        cfg.input.add(name=t.name, data_type=mc.DataType.Value(t.triton_dtype), dims=_dims(t.triton_dims(), batched))
    for t in spec.outputs:
        cfg.output.add(name=t.name, data_type=mc.DataType.Value(t.triton_dtype), dims=_dims(t.triton_dims(), batched))
    group = cfg.instance_group.add(
        count=variant.count,
        kind=mc.ModelInstanceGroup.KIND_GPU if variant.kind == "gpu" else mc.ModelInstanceGroup.KIND_CPU,
    )
    group.gpus.extend(variant.gpus)
    if variant.dynamic_batching:
        cfg.dynamic_batching.max_queue_delay_microseconds = variant.max_queue_delay_us
        cfg.dynamic_batching.preferred_batch_size.extend(variant.preferred_batch_sizes)
    return cfg


def _dims(per_sample: list[int], batched: bool) -> list[int]:
    """Triton dims: without the batch axis when max_batch_size > 0, with it (``-1``) when 0."""
    return per_sample if batched else [-1, *per_sample]


def to_text(cfg: mc.ModelConfig) -> str:
    """Serialise to pbtxt. ``max_batch_size: 0`` is written explicitly (protobuf drops
    default-valued scalars) so a reader sees that the model does not batch."""
    text = text_format.MessageToString(cfg)
    if cfg.max_batch_size == 0:
        first, _, rest = text.partition("\n")
        text = f"{first}\nmax_batch_size: 0\n{rest}"
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
