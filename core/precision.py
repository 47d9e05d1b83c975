"""Export precisions and the tolerances their verification uses.

The default relative tolerance of a precision is what ``builders build`` verifies an export
with and what ``clients check`` compares served outputs with, unless the user gave
``--rtol`` at build time (then the recorded value is used by both).

fp32 on a GPU: cuDNN/cuBLAS (and TensorRT) may use TF32 tensor cores for fp32 matrix
products on Ampere and newer GPUs (PyTorch docs, "TensorFloat-32 (TF32) on Ampere (and later)
devices"), whose 10-bit mantissa gives relative errors around 1e-3. The toolkit verifies
fp32 on a CUDA device with TF32 **disabled** (``torch.backends.*.allow_tf32 = False``) where
it controls the kernels (eager PyTorch, TorchScript), and with :data:`TF32_RTOL` where it does
not (ONNX Runtime's CUDA provider, TensorRT): :meth:`Precision.rtol` says which, and the
manifest records it.
"""

from __future__ import annotations

import dataclasses

from core import dtypes
from core.errors import ConfigError

#: fp32 tolerance where TF32 may be in use (a 10-bit mantissa: 2**-10 ~ 1e-3).
TF32_RTOL = 1e-3


@dataclasses.dataclass(frozen=True)
class Precision:
    """One export precision.

    Attributes:
        name: ``"fp32"``, ``"fp16"`` or ``"bf16"``.
        dtype: The data type floating weights are cast to (a :mod:`core.dtypes` name).
        rtol: Default relative tolerance of verification against fp32 eager PyTorch
            (max |err| / max |expected|, see ``builders.verify.compare``).
        trt_accelerator: Whether onnxruntime's TensorRT accelerator accepts it as
            ``precision_mode`` (Triton docs, "Optimization: ONNX with TensorRT").
    """

    name: str
    dtype: str
    rtol: float
    trt_accelerator: bool

    @property
    def data_type(self) -> dtypes.DataType:
        """The :class:`core.dtypes.DataType` floating weights are cast to."""
        return dtypes.from_name(self.dtype)

    def rtol_on(self, device: str, tf32_disabled: bool) -> float:
        """The default tolerance for verification on ``device`` (``"cpu"``, ``"cuda:0"``).

        Args:
            device: Where the artifact is verified.
            tf32_disabled: Whether the verifying kernels are known to run without TF32
                (eager/TorchScript with ``allow_tf32`` off); ``False`` for ONNX Runtime's CUDA
                provider and TensorRT.

        Returns:
            :attr:`rtol`, or :data:`TF32_RTOL` for fp32 on a CUDA device where TF32 may be used.
        """
        if self.name == "fp32" and device.startswith("cuda") and not tf32_disabled:
            return max(self.rtol, TF32_RTOL)
        return self.rtol


#: Every precision, fp32 first.
PRECISIONS: tuple[Precision, ...] = (
    Precision("fp32", "float32", 1e-4, True),
    Precision("fp16", "float16", 1e-2, True),
    Precision("bf16", "bfloat16", 1e-2, False),
)
PRECISION_NAMES: tuple[str, ...] = tuple(p.name for p in PRECISIONS)
#: ``precision_mode`` values of onnxruntime's TensorRT accelerator.
TRT_ACCELERATOR_PRECISIONS: tuple[str, ...] = tuple(p.name for p in PRECISIONS if p.trt_accelerator)
_BY_NAME = {p.name: p for p in PRECISIONS}


def get(name: str) -> Precision:
    """The precision named ``name``.

    Raises:
        ConfigError: unknown name (the message lists the known ones).
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ConfigError(f"precision {name!r} is unknown", hint=f"choose one of {', '.join(PRECISION_NAMES)}") from None
