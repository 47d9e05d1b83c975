"""PyTorch -> ONNX (``model.onnx``): the dynamo exporter, falling back to the TorchScript-based one."""

from __future__ import annotations

import logging
import time
import warnings
from pathlib import Path
from typing import Any

from builders.artifacts import Attempt, ExportResult
from builders.errors import ExportError
from builders.spec import ModelSpec

log = logging.getLogger(__name__)

DEFAULT_OPSET = 18
BATCH_AXIS = "batch"


def export_onnx(
    module: Any,
    spec: ModelSpec,
    out_dir: Path,
    precision: str = "fp32",
    opset: int = DEFAULT_OPSET,
    max_batch_size: int = 64,
) -> ExportResult:
    """Export ``module`` to ``out_dir/model.onnx`` with symbolic batch and dynamic axes.

    Strategies, in order: ``dynamo`` (``torch.onnx.export(dynamo=True)`` with
    ``dynamic_shapes``), then ``torchscript`` (the legacy exporter with ``dynamic_axes``).
    The batch axis is named ``batch``; other dynamic axes keep their spec names. The result
    is checked with ``onnx.checker`` before it is accepted.

    Args:
        module: The eager ``nn.Module`` (eval mode).
        spec: Its I/O signature; input/output names become the graph's names.
        out_dir: Folder to write ``model.onnx`` into (created).
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"`` (see :func:`builders.precision.cast_module`).
        opset: ONNX opset version (default 18).
        max_batch_size: Upper bound of the batch axis given to the dynamo exporter.

    Raises:
        ExportError: Every strategy failed (each strategy's error is listed).
    """
    import onnx
    import torch

    from builders.precision import cast_module

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.onnx"
    model = cast_module(module, precision)
    examples = spec.example_inputs(2)
    args = tuple(torch.from_numpy(examples[t.name]) for t in spec.inputs)
    in_names = [t.name for t in spec.inputs]
    out_names = [t.name for t in spec.outputs]
    attempts: list[Attempt] = []

    def dynamo() -> None:
        from torch.export import Dim

        dims = {BATCH_AXIS: Dim(BATCH_AXIS, min=1, max=max(2, max_batch_size))}
        for axis, (lo, _opt, hi) in spec.dynamic_axes.items():
            dims[axis] = Dim(axis, min=lo, max=hi)
        shapes = tuple(
            {0: dims[BATCH_AXIS], **{i + 1: dims[d] for i, d in enumerate(t.shape) if isinstance(d, str)}}
            for t in spec.inputs
        )
        torch.onnx.export(
            model, args, str(path), dynamo=True, opset_version=opset,
            input_names=in_names, output_names=out_names, dynamic_shapes=shapes,
            external_data=_needs_external_data(model),
        )

    def legacy() -> None:
        axes = {
            t.name: {0: BATCH_AXIS, **{i + 1: d for i, d in enumerate(t.shape) if isinstance(d, str)}}
            for t in spec.inputs
        }
        axes.update({n: {0: BATCH_AXIS} for n in out_names})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(
                model, args, str(path), dynamo=False, opset_version=opset,
                input_names=in_names, output_names=out_names, dynamic_axes=axes,
            )

    for strategy, fn in (("dynamo", dynamo), ("torchscript", legacy)):
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                fn()
            onnx.checker.check_model(str(path))
        except Exception as e:  # one strategy failing moves on to the next
            attempts.append(Attempt(strategy, False, f"{type(e).__name__}: {e}".splitlines()[0][:500], time.perf_counter() - t0))
            log.info("onnx %s export failed: %s", strategy, attempts[-1].error)
            continue
        dt = time.perf_counter() - t0
        attempts.append(Attempt(strategy, True, None, dt))
        log.info("onnx export via %s in %.2f s", strategy, dt)
        return ExportResult("onnx", path, precision, strategy, attempts, dt, {"opset": opset})
    raise ExportError(
        "ONNX export failed with every strategy: " + "; ".join(f"{a.strategy}: {a.error}" for a in attempts),
        hint="check that the model's operators are supported by torch.onnx (try another --opset)",
    )


def _needs_external_data(model: Any) -> bool:
    """ONNX protobufs are limited to 2 GiB: larger weights go to an external data file."""
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    return total > 1.8 * 2**30
