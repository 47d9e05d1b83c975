"""What every Triton backend's config builder provides, and the native-backend base.

A backend builder writes the backend-specific part of a ``ModelConfig`` (``platform`` or
``backend``, the model file, backend parameters and optimisations) and checks the rules that
only its backend has; the rules shared by every backend live in :mod:`builders.triton.rules`.
The model file and platform of a native backend come from the :mod:`core.formats` table.
"""

from __future__ import annotations

from collections.abc import Sequence

from tritonclient.grpc import model_config_pb2 as mc

from builders.model.artifact_signature import ArtifactIO
from builders.triton.rules import Problem
from core import formats


class BackendConfig:
    """The config builder of one Triton backend.

    Attributes:
        backend: Triton's backend name (``"python"``, ``"pytorch"``...).
        platform: Triton's ``platform`` name, ``""`` for backends set by ``backend``.
        default_file: The model file Triton loads from a version folder without
            ``default_model_filename`` (Triton docs, "Model Repository: Model Files").
    """

    backend: str = ""
    platform: str = ""
    default_file: str = ""

    def configure(
        self, cfg: mc.ModelConfig, fmt: str, *, trt_accelerator: str | None = None, intra_op_threads: int | None = None
    ) -> None:
        """Write this backend's fields into ``cfg`` for an artifact of format ``fmt``.

        Args:
            cfg: The config being built (name, batching and I/O are the caller's).
            fmt: The exported artifact's format (``"onnx"``...).
            trt_accelerator: ``precision_mode`` (``"fp16"``...) of onnxruntime's TensorRT
                accelerator, or ``None``.
            intra_op_threads: Threads per instance, where the backend takes them.
        """
        raise NotImplementedError

    def record_outputs(self, cfg: mc.ModelConfig, names: Sequence[str]) -> None:
        """Record in ``cfg`` which served output each of the artifact's outputs is, in the
        artifact's order, for a backend that cannot tell by itself (default: nothing; native
        backends find outputs by name or by their ``<name>__<index>`` convention).

        Args:
            cfg: The config being built.
            names: Served output names in the order the artifact returns its outputs.
        """

    def order_problems(self, cfg: mc.ModelConfig, names: Sequence[str]) -> list[Problem]:
        """Problems of ``cfg``'s recorded output order against the artifact's (``names``, served
        names in the artifact's order); default none: native backends match outputs by name."""
        return []

    def model_file(self, cfg: mc.ModelConfig) -> str:
        """The file Triton loads from a version folder of ``cfg``."""
        return cfg.default_model_filename or self.default_file

    def served_artifact(self, cfg: mc.ModelConfig) -> tuple[str, str] | None:
        """``(format, file name)`` of the exported artifact ``cfg`` serves, or ``None``."""
        return None

    def config_problems(self, cfg: mc.ModelConfig) -> list[Problem]:
        """The rules of this backend that ``cfg`` breaks on its own (default: none)."""
        return []

    #: The config parameter a backend reads its intra-op thread count from, if any.
    threads_parameter: str = ""
    #: Where the docs name :attr:`threads_parameter` (said beside it in a hint: trial 16, T16-21).
    threads_doc: str = ""

    def instance_threads(self, cfg: mc.ModelConfig, cpu_count: int | None) -> int | None:
        """Intra-op threads one instance of ``cfg`` runs with, or ``None`` when the backend
        keeps its library's default (no :attr:`threads_parameter` in ``cfg``).

        Args:
            cfg: The variant's config.
            cpu_count: Cores of the host the server runs on.
        """
        if self.threads_parameter and self.threads_parameter in cfg.parameters:
            value = cfg.parameters[self.threads_parameter].string_value.strip()
            return int(value) if value.isdigit() and int(value) > 0 else None
        return None

    def artifact_problems(self, cfg: mc.ModelConfig, io: ArtifactIO) -> list[Problem]:
        """The rules of this backend that ``cfg`` breaks against its artifact (default: none)."""
        return []


class NativeBackend(BackendConfig):
    """A Triton backend that loads one export format itself (``platform`` set, the
    format's file as ``default_model_filename``; Triton docs, "Model Configuration:
    Platform and Backend")."""

    format = ""

    def __init__(self) -> None:
        f = formats.get(self.format)
        self.backend, self.platform, self.default_file = f.backend, f.platform, f.file

    #: Extra parameters written beside :attr:`threads_parameter` when a thread count is given
    #: (what the toolkit's python model sets besides its intra-op threads).
    threads_companions: dict[str, str] = {}  # noqa: RUF012 - read-only class table

    def configure(
        self, cfg: mc.ModelConfig, fmt: str, *, trt_accelerator: str | None = None, intra_op_threads: int | None = None
    ) -> None:
        """Set ``platform`` and the format's file as ``default_model_filename``; with
        ``intra_op_threads``, the backend's thread parameter (:attr:`threads_parameter`, and
        :attr:`threads_companions`): the threads one instance ran with where it was measured.

        A native backend takes no accelerator here (see :meth:`BackendConfig.configure`)."""
        cfg.platform = self.platform
        cfg.default_model_filename = self.default_file
        if intra_op_threads and self.threads_parameter:
            cfg.parameters[self.threads_parameter].string_value = str(intra_op_threads)
            for k, v in self.threads_companions.items():
                cfg.parameters[k].string_value = v

    def served_artifact(self, cfg: mc.ModelConfig) -> tuple[str, str] | None:
        """The native format and :meth:`model_file`: the file Triton loads is the export itself."""
        return self.format, self.model_file(cfg)
