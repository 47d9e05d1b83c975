"""Preparing a module for export: reduced precision inside, the served signature outside.

Every exporter exports :func:`prepare_module` ``(module, precision, spec)``: a wrapper whose
``forward`` takes the inputs in spec order, runs the model (weights cast to ``precision``),
and returns a flat tuple of tensors in the spec's output order and dtypes. Flattening here
is what turns tuple and dict outputs into named outputs, the same way for every format.

The wrapper's ``forward`` takes its arguments under the names the model's own ``forward()``
has (:func:`argument_names`), so that an export of the wrapper has the argument names an export
of the bare model has: Triton's PyTorch backend finds a TorchScript input by its ``forward``
argument name, and an fp16 export whose wrapper took ``*args`` (traced as ``a``) served
``history`` as ``history__0`` where the fp32 export of the same model served ``history``
(trial 15, T15-8).
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Sequence
from typing import Any

from builders.model.forward_args import forward_names
from builders.model.outputs import flatten_outputs
from core import dtypes
from core import precision as precisions


def cast_module(
    module: Any,
    precision: str,
    output_dtypes: Sequence[str] | None = None,
    flatten: bool = False,
    inputs: Sequence[str] = (),
) -> Any:
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
        inputs: The spec's input names, in its order: the wrapper's ``forward`` arguments are
            named by :func:`argument_names`; empty: ``forward(*args)``.

    Returns:
        An ``nn.Module`` in eval mode; ``module`` itself for fp32 without ``flatten``.
    """
    if precision == "fp32" and not flatten:
        return module
    return wrap_served(cast_weights(module, precision), precision, output_dtypes, flatten, inputs)


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


def wrap_served(
    inner: Any,
    precision: str,
    output_dtypes: Sequence[str] | None = None,
    flatten: bool = True,
    inputs: Sequence[str] = (),
) -> Any:
    """Wrap an already cast ``inner`` (an ``nn.Module`` or ``ScriptModule``): floating
    inputs cast to ``precision`` on entry, outputs flattened (when ``flatten``) and floating
    outputs cast to ``output_dtypes`` (default float32) on exit; ``forward`` takes one argument
    per name of ``inputs`` (the spec's input names), named by :func:`argument_names`."""
    dtype = precisions.get(precision).data_type.to_torch() if precision != "fp32" else None
    out_dtypes = [dtypes.from_name(d).to_torch() for d in output_dtypes] if output_dtypes else None
    names = argument_names(inner, inputs)
    served = (_named_class(names) if names else _served_class())(inner, dtype, out_dtypes, flatten)
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
    return cast_module(module, precision, [t.dtype for t in spec.outputs], flatten=True, inputs=[t.name for t in spec.inputs])


def argument_names(inner: Any, inputs: Sequence[str]) -> tuple[str, ...] | None:
    """The names a wrapper around ``inner`` takes its arguments by: ``inner``'s own ``forward()``
    names (what an export of ``inner`` alone has; :func:`builders.model.forward_args.forward_names`),
    else, when those are unknown (``forward(*args)``, names a trace generated), the spec's.

    Args:
        inner: The model the wrapper runs (an ``nn.Module`` or ``ScriptModule``).
        inputs: The spec's input names, in the order they are passed.

    Returns:
        One name per input; ``None`` when ``inputs`` is empty or the names cannot be Python
        argument names (a keyword, ``input.1``, one name twice): the wrapper then takes ``*args``.
    """
    if not inputs:
        return None
    own = forward_names(inner)
    names = tuple(own[: len(inputs)]) if own and len(own) >= len(inputs) else tuple(inputs)
    usable = all(n.isidentifier() and not keyword.iskeyword(n) and n != _SELF for n in names)
    return names if usable and len(set(names)) == len(names) else None


def _named_class(names: tuple[str, ...]) -> type:
    """The wrapper's class with a ``forward`` whose signature names its arguments ``names``:
    ``torch.jit.trace`` names the traced module's arguments by :func:`inspect.signature` of
    ``forward`` (``torch._jit_internal.get_callable_argument_names``; ``*args`` gives no names)."""
    base: Any = _served_class()

    def forward(self: Any, *args: Any) -> Any:
        return base.forward(self, *args)

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    forward.__signature__ = inspect.Signature([inspect.Parameter(n, kind) for n in (_SELF, *names)])  # type: ignore[attr-defined]
    return type(base.__name__, (base,), {"forward": forward, "__module__": base.__module__})


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
#: The name of the wrapper's own first argument in the signature :func:`_named_class` gives it.
_SELF = "_wrapper"


def _served_class() -> type:
    global _SERVED
    if _SERVED is None:
        _SERVED = _make_served_class()
    return _SERVED
