"""Per-backend config builders, and which backend serves a config.

One module per Triton backend the toolkit writes configs for, each documenting the Triton
rule it follows: :mod:`.python` (the toolkit's python-backend ``model.py`` serving an
artifact), :mod:`.pytorch_libtorch`, :mod:`.onnxruntime_onnx`, :mod:`.tensorrt_plan`. Native
backends take their platform and model file from :mod:`core.formats`; the tables below hold
only what the formats table does not (platforms and files of backends the toolkit reads in
hand-written repositories but does not write).
"""

from __future__ import annotations

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import BackendConfig
from builders.backends.onnxruntime_onnx import OnnxRuntimeBackend
from builders.backends.python import PythonBackend
from builders.backends.pytorch_libtorch import PyTorchBackend
from builders.backends.tensorrt_plan import TensorRTBackend
from core import formats
from core.errors import ConfigError

#: How a repository's variants are served (``builders build --serving``):
#: ``python``: a generated python-backend ``model.py`` running the artifact (what the bundled
#: CPU server of the nvidia-pytriton wheel can serve).
#: ``native``: Triton's native backends (pytorch_libtorch, onnxruntime_onnx, tensorrt_plan).
SERVINGS = ("python", "native")
DEFAULT_SERVING = "python"
#: The old names of :data:`SERVINGS` (``builders build --runtime bundled|native`` and the index
#: field ``"runtime"`` before the rename), read for one release: old name -> serving.
LEGACY_SERVINGS = {"bundled": "python", "native": "native"}
#: The builders, by Triton backend name.
BACKENDS: dict[str, BackendConfig] = {
    b.backend: b for b in (PythonBackend(), PyTorchBackend(), OnnxRuntimeBackend(), TensorRTBackend())
}
#: Platforms of backends the toolkit does not write -> their backend (Triton core
#: ``GetBackendTypeFromPlatform``); ours come from :mod:`core.formats`.
OTHER_PLATFORMS = {"tensorflow_savedmodel": "tensorflow", "tensorflow_graphdef": "tensorflow"}
#: Default model files of backends the toolkit does not write (Triton docs, "Model Repository: Model Files").
OTHER_FILES = {"openvino": "model.xml"}
#: Platforms that need no backend (Triton docs, "Ensemble Models").
ENSEMBLE = "ensemble"


def for_serving(serving: str, fmt: str) -> BackendConfig:
    """The builder that serves format ``fmt``: the python backend (``serving`` ``"python"``)
    or the format's native backend (``"native"``).

    Raises:
        ConfigError: unknown serving or format.
    """
    if serving not in SERVINGS:
        raise ConfigError(f"unknown serving {serving!r}", hint=f"choose one of {', '.join(SERVINGS)}")
    native = formats.get(fmt).backend
    return BACKENDS[native if serving == "native" else PythonBackend.backend]


def servable(fmt: str, serving: str) -> bool:
    """Whether ``serving`` can serve format ``fmt``: native backends serve every format; the
    python backend only those its ``model.py`` runs (:data:`core.formats.PYTHON_SERVED`)."""
    return serving == "native" or formats.get(fmt).python_serving


def platform_backend(platform: str) -> str | None:
    """The backend serving a Triton ``platform`` (``"onnxruntime_onnx"`` -> ``"onnxruntime"``), or ``None``."""
    f = formats.from_platform(platform)
    return f.backend if f else OTHER_PLATFORMS.get(platform)


def known_platforms() -> tuple[str, ...]:
    """Every platform :func:`platform_backend` knows."""
    return (*(f.platform for f in formats.FORMATS), *OTHER_PLATFORMS)


def model_backend(cfg: mc.ModelConfig) -> str:
    """The backend serving ``cfg``: ``backend``, or the one its ``platform`` implies ("" if none)."""
    return cfg.backend or platform_backend(cfg.platform) or ""


def for_config(cfg: mc.ModelConfig) -> BackendConfig | None:
    """The builder of the backend serving ``cfg``, or ``None`` for a backend the toolkit does not write."""
    return BACKENDS.get(model_backend(cfg))


def model_filename(cfg: mc.ModelConfig) -> str | None:
    """The file Triton loads from a version folder (``default_model_filename`` or the backend's default)."""
    b = for_config(cfg)
    if b is not None:
        return b.model_file(cfg)
    return cfg.default_model_filename or OTHER_FILES.get(model_backend(cfg))


def served_artifact(cfg: mc.ModelConfig) -> tuple[str, str] | None:
    """``(format, file name)`` of the exported artifact ``cfg`` serves, or ``None``.

    Native backends serve their model file; the python-backend model names its artifact in
    the ``artifact_format`` / ``artifact_file`` parameters.
    """
    b = for_config(cfg)
    return b.served_artifact(cfg) if b is not None else None
