"""What an export produces: a typed result per format, shared by every exporter."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

from builders.export.content import content_sha256


@dataclasses.dataclass
class Attempt:
    """One export strategy tried: its name, whether it worked, and the error if not.

    Attributes:
        strategy: The strategy's name (``"script"``, ``"trace"``, ``"dynamo"``...).
        ok: Whether it gave an export that passed verification (or, without verification,
            an export at all).
        error: Why not, one line.
        seconds: Wall time of the export (and its verification), s.
        stage: Where it failed: ``"export"`` (the exporter raised or its graph check
            failed) or ``"verify"`` (the export ran but disagreed with eager PyTorch).
        tracer_warnings: What ``torch.jit``'s tracer warned while making this export.
        output: What native code wrote to stderr while it ran (the TorchScript-based ONNX
            exporter's "Torch IR graph at exception" dump, onnxruntime's log lines), captured
            instead of printed (:func:`builders.export.capture.native_stderr`); ``None``: nothing.
    """

    strategy: str
    ok: bool
    error: str | None = None
    seconds: float = 0.0
    stage: str = "export"
    tracer_warnings: list[str] = dataclasses.field(default_factory=list)
    output: str | None = None


@dataclasses.dataclass
class ExportResult:
    """An exported artifact.

    Attributes:
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        path: The written file (``model.pt`` / ``model.onnx`` / ``model.plan``).
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"``.
        strategy: The strategy that produced it (e.g. ``"script"``, ``"trace"``, ``"dynamo"``).
        attempts: Every strategy tried, in order, with errors.
        export_s: Wall time of the successful export, seconds.
        extra: Format-specific facts (opset, TensorRT version, GPU name...).
        tracer_warnings: What ``torch.jit``'s tracer warned while making it (each warning
            once, first line): a tensor turned into a Python value inside ``forward()``.
            Verification names them when the export disagrees with eager PyTorch.
    """

    format: str
    path: Path
    precision: str
    strategy: str
    attempts: list[Attempt]
    export_s: float
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    tracer_warnings: list[str] = dataclasses.field(default_factory=list)

    @property
    def size_bytes(self) -> int:
        """The artifact file's size, bytes (external data files not counted)."""
        return self.path.stat().st_size

    def sha256(self) -> str:
        """The artifact file's sha256, hex (read now, in 1 MiB chunks)."""
        return file_sha256(self.path)

    def to_json(self) -> dict[str, Any]:
        """The manifest's record of the file: format, file name, size in bytes, sha256, the digest of
        its content (:func:`builders.export.content.content_sha256`: what decides whether another
        export is the same model), and ``extra`` and ``tracer_warnings`` when there are any."""
        sha256 = self.sha256()
        return {
            "format": self.format,
            "file": self.path.name,
            "precision": self.precision,
            "strategy": self.strategy,
            "attempts": [dataclasses.asdict(a) for a in self.attempts],
            "export_s": round(self.export_s, 3),
            "size_bytes": self.size_bytes,
            "sha256": sha256,
            "content_sha256": content_sha256(self.path, sha256),
            **({"extra": self.extra} if self.extra else {}),
            **({"tracer_warnings": list(self.tracer_warnings)} if self.tracer_warnings else {}),
        }


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, hex, read in 1 MiB chunks.

    Raises:
        OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
