"""Preparing a module for export: reduced precision inside, the served signature outside.

Every exporter exports :func:`prepare_module` ``(module, precision, spec)``: a wrapper whose
``forward`` takes the inputs in spec order, runs the model (weights cast to ``precision``),
and returns a flat tuple of tensors in the spec's output order and dtypes. Flattening here
is what turns tuple and dict outputs into named outputs, the same way for every format.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builders.model.outputs import flatten_outputs
from core import dtypes
from core import precision as precisions


def cast_module(module: Any, precision: str, output_dtypes: Sequence[str] | None = None, flatten: bool = False) -> Any:
    """Return ``module`` with floating weights in ``precision`` and the served I/O dtypes kept.

    For ``fp16``/``bf16`` the module is copied, cast, and wrapped so that floating inputs
    are cast to that dtype on entry and floating outputs back on exit: the served signature
    stays as the spec says while the arithmetic runs in reduced precision.

    Args:
        module: The eager model (not modified).
        precision: ``"fp32"`` (default arithmetic), ``"fp16"`` or ``"bf16"``.
        output_dtypes: numpy dtype names of the flattened outputs (from the spec). Floating
            outputs are cast back to these; default ``float32`` for every floating output.
        flatten: Also flatten tuple/dict outputs to a tuple (see :func:`prepare_module`); a
            single output is returned as a bare tensor.

    Returns:
        An ``nn.Module`` in eval mode; ``module`` itself for fp32 without ``flatten``.
    """
    if precision == "fp32" and not flatten:
        return module
    return wrap_served(cast_weights(module, precision), precision, output_dtypes, flatten)


def cast_weights(module: Any, precision: str) -> Any:
    """A copy of ``module`` with floating weights and buffers in ``precision`` (``module``
    itself for fp32).

    Raises:
        ConfigError: unknown precision.
    """
    target = precisions.get(precision).data_type
    if precision == "fp32":
        return module
    import copy

    return copy.deepcopy(module).to(target.to_torch())


def wrap_served(inner: Any, precision: str, output_dtypes: Sequence[str] | None = None, flatten: bool = True) -> Any:
    """Wrap an already cast ``inner`` (an ``nn.Module`` or ``ScriptModule``): floating
    inputs cast to ``precision`` on entry, outputs flattened (when ``flatten``) and floating
    outputs cast to ``output_dtypes`` (default float32) on exit."""
    dtype = precisions.get(precision).data_type.to_torch() if precision != "fp32" else None
    out_dtypes = [dtypes.from_name(d).to_torch() for d in output_dtypes] if output_dtypes else None
    served = _Served(inner, dtype, out_dtypes, flatten)
    served.training = False  # not .eval(): modules from torch.export refuse train()/eval(); inner is in eval mode already
    return served


def prepare_module(module: Any, precision: str, spec: Any) -> Any:
    """The module every exporter exports: cast to ``precision``, outputs flattened to a
    tuple in ``spec.outputs`` order and cast back to their spec dtypes.

    Args:
        module: The eager model.
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"``.
        spec: A :class:`builders.model.spec.ModelSpec` whose outputs are filled in.
    """
    return cast_module(module, precision, [t.dtype for t in spec.outputs], flatten=True)


def _make_served_class() -> type:
    import torch

    class Served(torch.nn.Module):
        """Casts floating inputs to ``dtype``, runs ``inner``, flattens and casts outputs back."""

        def __init__(self, inner: torch.nn.Module, dtype: Any, out_dtypes: list[Any] | None, flatten: bool):
            super().__init__()
            self.inner = inner
            self.dtype = dtype
            self.out_dtypes = out_dtypes
            self.flatten = flatten

        def forward(self, *args: torch.Tensor) -> Any:
            if self.dtype is not None:
                args = tuple(a.to(self.dtype) if a.is_floating_point() else a for a in args)
            out = self.inner(*args)
            outs = flatten_outputs(out) if (self.flatten or not isinstance(out, torch.Tensor)) else [out]
            cast = []
            for i, o in enumerate(outs):
                if o.is_floating_point():
                    want = self.out_dtypes[i] if self.out_dtypes and i < len(self.out_dtypes) else torch.float32
                    o = o.to(want) if o.dtype != want else o
                cast.append(o)
            if len(cast) == 1 and (self.flatten or isinstance(out, torch.Tensor)):
                return cast[0]
            return tuple(cast)

    return Served


_SERVED: type | None = None


def _Served(*args: Any) -> Any:  # noqa: N802 - acts as the class
    global _SERVED
    if _SERVED is None:
        _SERVED = _make_served_class()
    return _SERVED(*args)
