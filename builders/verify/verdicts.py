"""What a verification verdict can say, and what ran the artifact when it was given.

A verdict is one of :data:`STATUSES`. ``ok`` is given only when the artifact ran, on the
device and runtime that verified it, *in the precision asked for*, and agreed with eager
PyTorch on every input draw and verification point. Where the verifying kernels compute in
another precision than the export's (onnxruntime's CPU provider runs fp16/bf16 graphs in
fp32), the verdict is ``not_verified_precision``: the numbers agreed, but fp16 arithmetic
was never exercised, so an fp16 overflow or underflow would not have been seen. Where a
device the variants need (a GPU for ``KIND_GPU``) is not on this host, the verdict is
``not_verified_device``.

:data:`KERNEL_PRECISION` is the one table of which (format, device, precision) combinations
really run in that precision; :func:`verified_on` reads it for the manifest.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from core import formats
from core import precision as precisions

#: The verdict of one export on one device.
Status = Literal["ok", "failed", "not_verified_precision", "not_verified_device"]
STATUSES: tuple[str, ...] = ("ok", "failed", "not_verified_precision", "not_verified_device")
#: Verdicts that are not failures but not "ok" either: the export is written, the summary says why.
NOT_VERIFIED: tuple[str, ...] = ("not_verified_precision", "not_verified_device")


@dataclasses.dataclass(frozen=True)
class KernelPrecision:
    """In what precision the kernels of one runtime compute an export of one precision.

    Attributes:
        format: Export format (``core.formats`` name).
        device: ``"cpu"`` or ``"cuda"``.
        precision: The export's precision.
        computes_in: The precision the arithmetic really runs in.
        why: The mechanism, for the manifest and the README.
    """

    format: str
    device: str
    precision: str
    computes_in: str
    why: str


_TORCH = (
    "torch's kernels take {p} tensors and round every operator's result to {p} "
    "(accumulating inside an operator in fp32, on CPU as on CUDA)"
)
_ORT_CPU = (
    "onnxruntime's CPUExecutionProvider has {p} kernels for few operators; it runs the others in fp32 "
    "between inserted Cast nodes and removes back-to-back casts, so intermediate values are never rounded "
    "to {p} (an overflow of {p} arithmetic is not seen)"
)
_ORT_CUDA = "onnxruntime's CUDAExecutionProvider runs {p} operators with {p} kernels"
_TRT = "TensorRT runs the plan's layers in the precisions the builder allowed ({p}); the plan verified is the one served"

#: The one table: (format, device, precision) -> what the arithmetic runs in.
KERNEL_PRECISION: tuple[KernelPrecision, ...] = tuple(
    KernelPrecision(fmt, dev, p, computes, why.format(p=p))
    for p in precisions.PRECISION_NAMES
    for fmt, dev, computes, why in (
        ("torchscript", "cpu", p, _TORCH),
        ("torchscript", "cuda", p, _TORCH),
        ("onnx", "cpu", "fp32", _ORT_CPU if p != "fp32" else "onnxruntime's CPUExecutionProvider runs fp32 kernels"),
        ("onnx", "cuda", p, _ORT_CUDA),
        ("trt", "cuda", p, _TRT),
    )
)
_TABLE = {(k.format, k.device, k.precision): k for k in KERNEL_PRECISION}


def device_kind(device: str) -> str:
    """``"cuda"`` for ``"cuda"`` / ``"cuda:N"``, else ``"cpu"``."""
    return "cuda" if device.startswith("cuda") else "cpu"


def kernel_precision(fmt: str, precision: str, device: str) -> KernelPrecision:
    """The row of :data:`KERNEL_PRECISION` for an export verified on ``device``.

    A combination missing from the table (e.g. a TensorRT plan on a CPU) is reported as
    computing in fp32, which never counts as verified in a reduced precision.
    """
    kind = device_kind(device)
    return _TABLE.get((fmt, kind, precision)) or KernelPrecision(
        fmt, kind, precision, "fp32", f"no entry for {fmt} on {kind}: not known to run {precision} kernels"
    )


def tf32_disabled_for(fmt: str) -> bool:
    """Whether verification of ``fmt`` on a CUDA device runs with TF32 off.

    TorchScript runs under ``builders.verify.verification.no_tf32`` (torch's ``allow_tf32``
    switches); ONNX Runtime's CUDA provider and TensorRT choose their own kernels (TensorRT
    enables TF32 by default), so their fp32 tolerance is widened instead (:mod:`core.precision`).
    """
    return fmt == "torchscript"


def verified_on(fmt: str, precision: str, device: str) -> dict[str, Any]:
    """What verified an export, for the manifest: device, the runtime that ran the artifact
    (``core.formats`` runner, with the ONNX Runtime execution provider), the TF32 policy, and
    the precision its kernels compute in (:data:`KERNEL_PRECISION`).

    Returns:
        ``{"device": "cpu"|"cuda", "runner": str, "tf32": "n/a"|"disabled"|"allowed (fp32 rtol
        widened to 1e-3)", "computes_in": "fp32"|"fp16"|"bf16"}``.
    """
    runner = formats.get(fmt).runner
    cuda = device.startswith("cuda")
    if fmt == "onnx":
        runner += " CUDAExecutionProvider" if cuda else " CPUExecutionProvider"
    tf32 = "n/a"
    if cuda and precision == "fp32":
        tf32 = "disabled" if tf32_disabled_for(fmt) else f"allowed (fp32 rtol widened to {precisions.TF32_RTOL:g})"
    return {
        "device": device_kind(device),
        "runner": runner,
        "tf32": tf32,
        "computes_in": kernel_precision(fmt, precision, device).computes_in,
    }


def describe(status: str, precision: str, device: str) -> str:
    """The words the build summary shows for a verdict (``"not verified in fp16 on this host"``)."""
    if status == "not_verified_precision":
        return f"not verified in {precision} on this host"
    if status == "not_verified_device":
        return f"not verified on {device_kind(device)} (none on this host)"
    return status


def overall(statuses: list[str]) -> str:
    """One export's verdict from its per-device verdicts (one per device its variants run
    on): ``failed`` if any failed; ``not_verified_device`` if a device was missing; ``ok``
    when a device verified it in its precision (a fp16 ONNX verified on CUDA is right in
    fp16, whatever onnxruntime's CPU provider upcasts); else ``not_verified_precision``."""
    if not statuses or "failed" in statuses:
        return "failed"
    if "not_verified_device" in statuses:
        return "not_verified_device"
    return "ok" if "ok" in statuses else "not_verified_precision"
