"""PyTorch -> TorchScript (``model.pt``): ``torch.jit.script``, falling back to ``torch.jit.trace``.

Tensor names follow Triton's PyTorch backend (``pytorch_libtorch``; Triton docs, "PyTorch
(LibTorch) Backend", model configuration): an input is found either by the
``<name>__<index>`` convention (index = position in ``forward``) or by the name of its
``forward`` argument; outputs have no names in TorchScript, so they are found by the
``<name>__<index>`` convention. :func:`builders.backends.pytorch_libtorch.triton_names`
(where the convention lives) maps spec names onto names the backend accepts; the export
records that map so the generated native config matches the file.
"""

from __future__ import annotations

import logging
import re
import time
import warnings
from pathlib import Path
from typing import Any

from builders.artifacts import Attempt, ExportResult
from builders.precision import cast_weights, prepare_module, wrap_served
from builders.backends.pytorch_libtorch import triton_names
from core.errors import ExportError
from builders.spec import ModelSpec

log = logging.getLogger(__name__)

def export_torchscript(module: Any, spec: ModelSpec, out_dir: Path, precision: str = "fp32") -> ExportResult:
    """Export ``module`` to ``out_dir/model.pt``.

    Strategies, in order, each attempt recorded:

    1. ``script``: ``torch.jit.script`` (keeps data-dependent control flow). When the
       served signature needs a wrapper (reduced precision casts, tuple/dict outputs
       flattened), the wrapper is traced around the *scripted* model, which stays scripted.
    2. ``trace``: ``torch.jit.trace`` of the prepared module on the example inputs
       (batch :data:`builders.spec.EXAMPLE_BATCH`, dynamic axes at their export sizes).
       Tracer warnings (Python values frozen into the graph, the usual cause of a batch
       size baked in at the example size) are logged and kept in ``extra["trace_warnings"]``;
       verification at other sizes then catches the frozen axis.

    Args:
        module: The eager ``nn.Module`` (eval mode) or a loaded ``ScriptModule``.
        spec: Its I/O signature, outputs filled in (``infer_outputs``).
        out_dir: Folder to write ``model.pt`` into (created).
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"`` (see :func:`builders.precision.cast_module`).

    Returns:
        The result; ``extra["triton_names"]`` maps spec names to the names the PyTorch
        backend sees (``{"inputs": {...}, "outputs": {...}}``).

    Raises:
        ExportError: Neither strategy worked (the message lists each strategy's error).
    """
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.pt"
    examples = spec.export_inputs()
    example_args = tuple(torch.from_numpy(examples[t.name]) for t in spec.inputs)
    attempts: list[Attempt] = []
    trace_warnings: list[str] = []

    def script() -> Any:
        scripted = torch.jit.script(cast_weights(module, precision))
        if precision == "fp32" and _flat(scripted(*example_args), len(spec.outputs)):
            return scripted
        # casts / flattening in a traced wrapper; the scripted model inside keeps its control flow
        wrapper = wrap_served(scripted, precision, [t.dtype for t in spec.outputs])
        return _trace(wrapper, example_args, [])

    def trace() -> Any:
        return _trace(prepare_module(module, precision, spec), example_args, trace_warnings)

    for strategy, fn in (("script", script), ("trace", trace)):
        t0 = time.perf_counter()
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit is deprecated upstream, still what Triton serves
                exported = fn()
                exported.save(str(path))
        except Exception as e:  # any failure of one strategy moves on to the next
            attempts.append(Attempt(strategy, False, summarize_error(e), time.perf_counter() - t0))
            log.info("torchscript %s failed: %s", strategy, attempts[-1].error)
            continue
        dt = time.perf_counter() - t0
        attempts.append(Attempt(strategy, True, None, dt))
        log.info("torchscript export via %s in %.2f s", strategy, dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            names = triton_names(spec, _forward_arg_names(torch.jit.load(str(path))))
        extra: dict[str, Any] = {"triton_names": names}
        if strategy == "trace" and trace_warnings:
            extra["trace_warnings"] = trace_warnings[:10]
        return ExportResult("torchscript", path, precision, strategy, attempts, dt, extra)
    raise ExportError(
        "TorchScript export failed with every strategy: "
        + "; ".join(f"{a.strategy}: {a.error}" for a in attempts),
        hint="make forward() scriptable (type annotations, no unsupported Python) or traceable (tensor inputs and outputs only)",
    )


def _trace(model: Any, args: tuple[Any, ...], warnings_out: list[str]) -> Any:
    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", torch.jit.TracerWarning)
        traced = torch.jit.trace(model, args, check_trace=False, strict=False)
    for w in caught:
        if issubclass(w.category, torch.jit.TracerWarning):
            msg = str(w.message).splitlines()[0]
            log.warning("torch.jit.trace: %s", msg)
            warnings_out.append(msg)
    return traced


def _flat(out: Any, n_outputs: int) -> bool:
    """Whether ``out`` is what the PyTorch backend serves directly: one tensor, or a flat
    tuple/list of ``n_outputs`` tensors."""
    import torch

    if isinstance(out, torch.Tensor):
        return n_outputs == 1
    return isinstance(out, (tuple, list)) and len(out) == n_outputs and all(isinstance(o, torch.Tensor) for o in out)


def _forward_arg_names(scripted: Any) -> list[str]:
    try:
        return [a.name for a in scripted.forward.schema.arguments[1:]]
    except (AttributeError, RuntimeError):
        return []


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def summarize_error(e: BaseException, limit: int = 500) -> str:
    """One line for an attempt record: the exception type, its first non-empty line, and
    the first line of its cause (exporters wrap the informative error in a generic one)."""

    def first(x: BaseException) -> str:
        lines = [ln.strip() for ln in _ANSI.sub("", str(x)).splitlines() if ln.strip()]
        return f"{type(x).__name__}: {lines[0] if lines else ''}".rstrip(": ")

    text = first(e)
    if e.__cause__ is not None:
        text += f" <- {first(e.__cause__)}"
    return text[:limit]
