"""Casting a module to a reduced precision while keeping its served I/O dtypes."""

from __future__ import annotations

from typing import Any

TORCH_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def cast_module(module: Any, precision: str) -> Any:
    """Return ``module`` with floating weights in ``precision``.

    For ``fp16``/``bf16`` the module is wrapped so that floating inputs are cast to that
    dtype on entry and floating outputs back to float32 on exit: the served signature stays
    FP32 (as the spec says) while the arithmetic runs in reduced precision.
    """
    if precision == "fp32":
        return module
    import copy

    import torch

    dtype = getattr(torch, TORCH_DTYPES[precision])

    class ReducedPrecision(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module):
            super().__init__()
            self.inner = inner

        def forward(self, *args: torch.Tensor) -> Any:
            cast = [a.to(dtype) if a.is_floating_point() else a for a in args]
            out = self.inner(*cast)
            if isinstance(out, torch.Tensor):
                return out.float() if out.is_floating_point() else out
            return tuple(o.float() if o.is_floating_point() else o for o in out)

    return ReducedPrecision(copy.deepcopy(module).to(dtype)).eval()
