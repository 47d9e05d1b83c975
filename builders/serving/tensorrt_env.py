"""Whether this host can build and run TensorRT plans, and the facts a plan is tied to.

A plan only runs with the TensorRT version and GPU (compute capability) it was built for
(TensorRT docs, "Engine compatibility"); the exporter records :func:`gpu_facts`, and the
verifier and runner check them. ``tensorrt`` and ``torch`` are imported only when asked for.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from core.errors import GpuRequiredError


def missing_requirements() -> list[str]:
    """What this machine lacks for a TensorRT build (empty when it can build)."""
    missing = []
    if importlib.util.find_spec("tensorrt") is None:
        missing.append("the `tensorrt` Python package (pip install tensorrt, matching the target Triton's TensorRT)")
    try:
        import torch

        if not torch.cuda.is_available():
            missing.append("an NVIDIA GPU visible to CUDA (torch.cuda.is_available() is False)")
    except ImportError:
        missing.append("torch")
    return missing


def require_tensorrt(what: str, command: str | None = None) -> Any:
    """Import ``tensorrt`` for ``what``, or raise one clear error naming what is missing.

    Args:
        what: The task, for the message (``"building a TensorRT plan"``).
        command: The equivalent command (``docker run ... trtexec ...``), given as the way out.

    Raises:
        GpuRequiredError: no GPU and/or no ``tensorrt``.
    """
    missing = missing_requirements()
    if missing:
        hint = "run this on a GPU host with TensorRT"
        if command:
            hint += (
                f", or build the plan where the serving GPU is (NVIDIA's TensorRT image of the target release) with:"
                f"\n     {command}\n  and take it back with `builders build --format trt --plan PRECISION=PATH`"
            )
        else:
            hint += " (`builders build --format trt --print-trtexec` prints the docker command that builds it elsewhere)"
        raise GpuRequiredError(f"{what} needs " + " and ".join(missing) + "; not found on this machine", hint=hint)
    import tensorrt as trt

    return trt


def gpu_facts() -> dict[str, Any]:
    """TensorRT version, GPU name and compute capability of CUDA device 0 (what a plan is tied to)."""
    import tensorrt as trt
    import torch

    major, minor = torch.cuda.get_device_capability(0)
    return {
        "tensorrt_version": trt.__version__,
        "gpu_name": torch.cuda.get_device_name(0),
        "compute_capability": f"{major}.{minor}",
        "cuda_version": torch.version.cuda,
    }
