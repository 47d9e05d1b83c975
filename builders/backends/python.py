"""The ``python`` backend serving an exported artifact through the toolkit's ``model.py``.

The bundled server (nvidia-pytriton wheel) has the python backend only; there the toolkit's
generated ``model.py`` (``builders/templates/triton_python_model.py``) loads the exported
TorchScript or ONNX file with torch / onnxruntime and serves it. Triton finds ``model.py`` in
the version folder (Triton docs, "Python Backend: Usage"); the model reads which artifact to
load from config ``parameters`` (Triton docs, "Model Configuration: Parameters"):

- ``artifact_format``: a format the python model runs (:data:`core.formats.PYTHON_SERVED`);
- ``artifact_file``: the file in the version folder (the format's default file name);
- ``intra_op_threads`` (optional): torch / onnxruntime threads per instance.

TensorRT plans are not served this way (they need the ``tensorrt_plan`` backend), and
onnxruntime's TensorRT accelerator does not apply (:func:`builders.triton_rules.ort_trt_accelerator`).
"""

from __future__ import annotations

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import BackendConfig
from builders.triton_rules import PYTHON_BACKEND, Problem
from core import formats

PARAM_FORMAT = "artifact_format"
PARAM_FILE = "artifact_file"
PARAM_THREADS = "intra_op_threads"


def _param(cfg: mc.ModelConfig, key: str) -> str:
    return cfg.parameters[key].string_value if key in cfg.parameters else ""


class PythonBackend(BackendConfig):
    """``backend: "python"`` with the artifact named in ``parameters``."""

    backend = PYTHON_BACKEND
    default_file = "model.py"

    def configure(self, cfg: mc.ModelConfig, fmt: str, *, trt_accelerator: str | None = None,
                  intra_op_threads: int | None = None) -> None:
        cfg.backend = self.backend
        cfg.parameters[PARAM_FORMAT].string_value = fmt
        cfg.parameters[PARAM_FILE].string_value = formats.get(fmt).file
        if intra_op_threads:
            cfg.parameters[PARAM_THREADS].string_value = str(intra_op_threads)

    def served_artifact(self, cfg: mc.ModelConfig) -> tuple[str, str] | None:
        fmt, file = _param(cfg, PARAM_FORMAT), _param(cfg, PARAM_FILE)
        return (fmt, file) if fmt in formats.PYTHON_SERVED and file else None

    def config_problems(self, cfg: mc.ModelConfig) -> list[Problem]:
        """Our python model needs a format it runs in ``artifact_format`` (a python-backend
        model of someone else's, without ``artifact_file``, is not checked)."""
        fmt = _param(cfg, PARAM_FORMAT)
        if PARAM_FILE not in cfg.parameters or fmt in formats.PYTHON_SERVED:
            return []
        if fmt == "trt":
            return [Problem("", f"parameters[{PARAM_FORMAT}]", "TensorRT plans cannot be served by the python backend",
                            "use --serving native (platform tensorrt_plan) with a Triton container that has that backend")]
        return [Problem("", f"parameters[{PARAM_FORMAT}]", f"{fmt or '(missing)'} is not one of {', '.join(formats.PYTHON_SERVED)}",
                        f"set {PARAM_FORMAT} to one of {', '.join(formats.PYTHON_SERVED)}")]
