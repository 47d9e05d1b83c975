"""The ``python`` backend serving an exported artifact through the toolkit's ``model.py``.

The bundled server (nvidia-pytriton wheel) has the python backend only; there the toolkit's
generated ``model.py`` (``builders/templates/triton_python_model.py``) loads the exported
TorchScript or ONNX file with torch / onnxruntime and serves it. Triton finds ``model.py`` in
the version folder (Triton docs, "Python Backend: Usage"); the model reads which artifact to
load from config ``parameters`` (Triton docs, "Model Configuration: Parameters"):

- ``artifact_format``: a format the python model runs (:data:`core.formats.PYTHON_SERVED`);
- ``artifact_file``: the file in the version folder (the format's default file name);
- ``intra_op_threads`` (optional): torch / onnxruntime threads per instance;
- ``artifact_outputs``: the served output names, as a JSON list, in the order the artifact
  returns its outputs (the build's recorded output identity). The model maps the artifact's
  outputs to names by this list, never by the order of the ``output`` blocks, and refuses to
  load when the config's outputs are not exactly these names.

TensorRT plans are not served this way (they need the ``tensorrt_plan`` backend), and
onnxruntime's TensorRT accelerator does not apply (:func:`builders.triton.rules.ort_trt_accelerator`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import BackendConfig
from builders.serving.runners import OUTPUTS_BY_NAME, instance_threads
from builders.triton.rules import PYTHON_BACKEND, Problem
from core import formats

PARAM_FORMAT = "artifact_format"
PARAM_FILE = "artifact_file"
PARAM_THREADS = "intra_op_threads"
PARAM_OUTPUTS = "artifact_outputs"


def _param(cfg: mc.ModelConfig, key: str) -> str:
    return cfg.parameters[key].string_value if key in cfg.parameters else ""


class PythonBackend(BackendConfig):
    """``backend: "python"`` with the artifact named in ``parameters``."""

    backend = PYTHON_BACKEND
    default_file = "model.py"
    #: The toolkit's model.py reads its torch / onnxruntime threads per instance from this parameter
    #: (:meth:`instance_threads`, which overrides the base rule; Triton docs, "Model Configuration: Parameters").
    threads_parameter = PARAM_THREADS
    threads_doc = 'read by the toolkit\'s python-backend model.py (Triton docs, "Model Configuration: Parameters")'

    def configure(
        self, cfg: mc.ModelConfig, fmt: str, *, trt_accelerator: str | None = None, intra_op_threads: int | None = None
    ) -> None:
        """Set ``backend: "python"`` and the parameters our ``model.py`` reads: the artifact's
        format and file, and ``intra_op_threads`` when given (see :meth:`BackendConfig.configure`)."""
        cfg.backend = self.backend
        cfg.parameters[PARAM_FORMAT].string_value = fmt
        cfg.parameters[PARAM_FILE].string_value = formats.get(fmt).file
        if intra_op_threads:
            cfg.parameters[PARAM_THREADS].string_value = str(intra_op_threads)

    def record_outputs(self, cfg: mc.ModelConfig, names: Sequence[str]) -> None:
        """Record the served output names, in the artifact's order, in the ``artifact_outputs``
        parameter: our ``model.py`` names the artifact's outputs by it."""
        cfg.parameters[PARAM_OUTPUTS].string_value = json.dumps(list(names))

    def order_problems(self, cfg: mc.ModelConfig, names: Sequence[str]) -> list[Problem]:
        """``artifact_outputs`` must list the artifact's outputs in its order: the model names
        the artifact's outputs by it."""
        have = artifact_outputs(cfg)
        if PARAM_FILE not in cfg.parameters or have is None or sorted(have) != sorted(names) or have == list(names):
            return []  # absent/malformed/other names: reported by config_problems
        if _param(cfg, PARAM_FORMAT) in OUTPUTS_BY_NAME:
            return []  # the runner looks each output up by its graph name: another order serves the same
        return [
            Problem(
                "",
                f"parameters[{PARAM_OUTPUTS}]",
                f"{have} but the artifact returns its outputs in the order "
                f"{list(names)}: outputs would be served under each other's names",
                f"set it to {json.dumps(list(names))}",
            )
        ]

    def instance_threads(self, cfg: mc.ModelConfig, cpu_count: int | None) -> int | None:
        """The toolkit's ``model.py`` rule (:func:`builders.serving.runners.instance_threads`):
        ``intra_op_threads``, else the host's cores divided among the instances."""
        instances = sum(g.count or 1 for g in cfg.instance_group) or 1
        return instance_threads(_param(cfg, PARAM_THREADS) or None, instances, cpu_count)

    def served_artifact(self, cfg: mc.ModelConfig) -> tuple[str, str] | None:
        """``(artifact_format, artifact_file)`` from the parameters when the format is one our
        ``model.py`` runs (:data:`core.formats.PYTHON_SERVED`); ``None`` for someone else's python model."""
        fmt, file = _param(cfg, PARAM_FORMAT), _param(cfg, PARAM_FILE)
        return (fmt, file) if fmt in formats.PYTHON_SERVED and file else None

    def config_problems(self, cfg: mc.ModelConfig) -> list[Problem]:
        """Our python model needs a format it runs in ``artifact_format`` (a python-backend
        model of someone else's, without ``artifact_file``, is not checked)."""
        fmt = _param(cfg, PARAM_FORMAT)
        if PARAM_FILE not in cfg.parameters:
            return []
        if fmt in formats.PYTHON_SERVED:
            return output_order_problems(cfg)
        if fmt == "trt":
            return [
                Problem(
                    "",
                    f"parameters[{PARAM_FORMAT}]",
                    "TensorRT plans cannot be served by the python backend",
                    "use --serving native (platform tensorrt_plan) with a Triton container that has that backend",
                )
            ]
        return [
            Problem(
                "",
                f"parameters[{PARAM_FORMAT}]",
                f"{fmt or '(missing)'} is not one of {', '.join(formats.PYTHON_SERVED)}",
                f"set {PARAM_FORMAT} to one of {', '.join(formats.PYTHON_SERVED)}",
            )
        ]


def artifact_outputs(cfg: mc.ModelConfig) -> list[str] | None:
    """The ``artifact_outputs`` parameter: served names in the artifact's output order, or
    ``None`` when it is missing or not a JSON list of strings."""
    try:
        names = json.loads(_param(cfg, PARAM_OUTPUTS))
    except json.JSONDecodeError:
        return None
    return names if isinstance(names, list) and all(isinstance(n, str) for n in names) else None


def output_order_problems(cfg: mc.ModelConfig) -> list[Problem]:
    """Our python model maps the artifact's outputs to served names by ``artifact_outputs``:
    it must be there and name exactly the config's outputs, each once."""
    field = f"parameters[{PARAM_OUTPUTS}]"
    names = artifact_outputs(cfg)
    declared = [o.name for o in cfg.output]
    if names is None:
        found = _param(cfg, PARAM_OUTPUTS)
        return [
            Problem(
                "",
                field,
                f"{'is missing' if not found else repr(found) + ' is not a JSON list of names'}: the "
                "python model cannot tell which of the artifact's outputs each config output is",
                f"rebuild with `builders build` (it records the artifact's outputs), e.g. {json.dumps(declared)} "
                "in the artifact's output order",
            )
        ]
    if sorted(names) != sorted(declared) or len(set(names)) != len(names):
        return [
            Problem(
                "",
                field,
                f"{names} (the artifact's outputs) differ from the config's outputs {declared}",
                "declare exactly the artifact's outputs, by the names the build gave them",
            )
        ]
    return []
