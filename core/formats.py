"""One table of export formats: file name, Triton platform/backend, name token, runner.

Each :class:`Format` row holds every fact the toolkit keeps about one export format; the
Triton names follow the Triton docs, "Model Configuration" (``platform``) and "Model
Repository: Model Files" (the default file name of each backend).
"""

from __future__ import annotations

import dataclasses

from core.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class Format:
    """One export format.

    Attributes:
        name: The toolkit's name, used on the command line and in records:
            ``"torchscript"``, ``"onnx"``, ``"trt"``.
        file: Artifact file name in a version folder (Triton's default model file name).
        platform: Triton ``platform`` of the native backend (``"pytorch_libtorch"``).
        backend: Triton ``backend`` of the native backend (``"pytorch"``).
        token: Short token in variant names (``"ts"``).
        runner: What runs the artifact for verification and on the bundled python backend
            (``builders.serving.runners``): ``"torch.jit"``, ``"onnxruntime"``, ``"tensorrt"``.
        needs_gpu: Whether building or running the artifact needs an NVIDIA GPU.
        python_serving: Whether the toolkit's python-backend ``model.py`` serves it (the
            bundled server has the python backend only; TensorRT plans need ``tensorrt_plan``).
    """

    name: str
    file: str
    platform: str
    backend: str
    token: str
    runner: str
    needs_gpu: bool = False
    python_serving: bool = True


#: Every export format, in the order builds run them.
FORMATS: tuple[Format, ...] = (
    Format("torchscript", "model.pt", "pytorch_libtorch", "pytorch", "ts", "torch.jit"),
    Format("onnx", "model.onnx", "onnxruntime_onnx", "onnxruntime", "onnx", "onnxruntime"),
    Format("trt", "model.plan", "tensorrt_plan", "tensorrt", "trt", "tensorrt", needs_gpu=True, python_serving=False),
)
#: Format names, for flags and messages.
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)
#: Formats the python-backend model serves.
PYTHON_SERVED: tuple[str, ...] = tuple(f.name for f in FORMATS if f.python_serving)
_BY_NAME = {f.name: f for f in FORMATS}
_BY_TOKEN = {f.token: f for f in FORMATS}
_BY_BACKEND = {f.backend: f for f in FORMATS}
_BY_PLATFORM = {f.platform: f for f in FORMATS}


def get(name: str) -> Format:
    """The format named ``name``.

    Raises:
        ConfigError: unknown name (the message lists the known ones).
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ConfigError(f"format {name!r} is unknown", hint=f"choose one of {', '.join(FORMAT_NAMES)}") from None


def from_token(token: str) -> Format | None:
    """The format whose variant-name token is ``token`` (``"ts"``), or ``None``."""
    return _BY_TOKEN.get(token)


def from_backend(backend: str) -> Format | None:
    """The format a native Triton ``backend`` serves (``"onnxruntime"`` -> onnx), or ``None``."""
    return _BY_BACKEND.get(backend)


def from_platform(platform: str) -> Format | None:
    """The format a Triton ``platform`` serves (``"tensorrt_plan"`` -> trt), or ``None``."""
    return _BY_PLATFORM.get(platform)
