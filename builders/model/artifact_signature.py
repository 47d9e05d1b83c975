"""The I/O signature an exported artifact declares (:class:`ArtifactIO`), as read by
:mod:`builders.model.artifact_io` and :mod:`builders.model.torchscript_archive`."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["ArtifactIO", "TensorIO"]


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
    """The I/O signature read from an exported file (see :func:`builders.repository.validate.read_artifact_io`).

    Attributes:
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        inputs: Inputs in the artifact's order.
        outputs: Outputs in order; ``None`` when the artifact does not tell (TorchScript
            returning a dict or list).
        positional: TorchScript: tensors are matched by position, the names are forward
            argument names (Triton's PyTorch backend also accepts ``<name>__<index>``).
        max_batch_size: TensorRT: the largest batch of optimisation profile 0.
        external_data: ONNX: files the graph's initializers name as external data
            (relative to the graph's folder), e.g. ``("model.onnx.data",)``.
        ir_version: ONNX: ``ModelProto.ir_version``.
        opset: ONNX: the default-domain (``ai.onnx``) opset the graph imports.
        device_constants: TorchScript: devices frozen into the graph as constants (a trace
            of ``torch.ones(..., device=x.device)`` records the trace device), each as
            ``"cpu (aten::ones)"``; see :func:`device_constants`.
    """

    format: str
    inputs: tuple[TensorIO, ...]
    outputs: tuple[TensorIO, ...] | None
    positional: bool = False
    max_batch_size: int | None = None
    external_data: tuple[str, ...] = ()
    ir_version: int | None = None
    opset: int | None = None
    device_constants: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON form: every field, tensors as ``{"name", "data_type", "shape"}``."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ArtifactIO:
        """Inverse of :meth:`to_json`; ``inputs``/``outputs`` may be ``None`` (not read)."""

        def tensors(ts: list[dict[str, Any]] | None) -> tuple[TensorIO, ...] | None:
            if ts is None:
                return None
            return tuple(
                TensorIO(t["name"], t.get("data_type"), tuple(t["shape"]) if t.get("shape") is not None else None) for t in ts
            )

        return cls(
            d["format"],
            tensors(d["inputs"]) or (),
            tensors(d.get("outputs")),
            bool(d.get("positional")),
            d.get("max_batch_size"),
            tuple(d.get("external_data") or ()),
            d.get("ir_version"),
            d.get("opset"),
            tuple(d.get("device_constants") or ()),
        )
