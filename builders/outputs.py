"""A model's outputs: flattening tuple/dict outputs, and naming/typing them from the eager model."""

from __future__ import annotations

from typing import Any

from builders.spec import EXAMPLE_BATCH, ModelSpec, TensorSpec
from core import dtypes
from core.errors import ModelSpecError


def flatten_outputs(out: Any) -> list[Any]:
    """Flatten a model's output (tensor, tuple/list, or dict in insertion order) to a list."""
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten_outputs(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in flatten_outputs(o)]
    return [out]


def run_eager(module: Any, spec: ModelSpec, inputs: dict[str, Any]) -> list[Any]:
    """Run the eager model on numpy ``inputs`` (name -> array, spec input order) without
    gradients; returns its flattened outputs as torch tensors."""
    import torch

    with torch.no_grad():
        return flatten_outputs(module(*(torch.from_numpy(inputs[t.name]) for t in spec.inputs)))


def infer_outputs(module: Any, spec: ModelSpec) -> ModelSpec:
    """Fill in output names, dtypes and per-sample shapes by running the eager model.

    The model runs at two sizes (batch 2 at ``opt`` axes, batch 3 at ``max`` axes); a
    per-sample dim that changes between them is named after the input axis of that size.
    Outputs without names in the spec are named ``OUTPUT__<i>`` (Triton PyTorch backend
    convention). Declared output dtypes and shapes are replaced by the eager model's.

    Args:
        module: The eager model.
        spec: Its input spec; outputs may be empty or bare names.

    Returns:
        ``spec`` with one :class:`TensorSpec` per flattened output (tuple/dict in order).

    Raises:
        ModelSpecError: the model does not run on inputs made from the spec, the number of
            declared output names differs from the model's, an output has no batch axis
            first, or an output dtype has no Triton type (e.g. bfloat16).
    """

    def run(batch: int, sizes: dict[str, int]) -> list[Any]:
        return run_eager(module, spec, spec.example_inputs(batch, sizes))

    try:
        a, b = run(EXAMPLE_BATCH, spec.export_axis_sizes()), run(EXAMPLE_BATCH + 1, spec.axis_sizes("max"))
    except Exception as e:
        raise ModelSpecError(
            f"the model does not run on inputs made from the spec: {type(e).__name__}: {str(e)[:300]}",
            hint="check the input names' order, per-sample shapes, dtypes and value ranges against forward()",
        ) from e
    if spec.outputs and len(spec.outputs) != len(a):
        raise ModelSpecError(
            f"the spec names {len(spec.outputs)} outputs ({[t.name for t in spec.outputs]}), the model returns {len(a)}",
            hint="list one output name per returned tensor (tuple and dict outputs are flattened in order)",
        )
    max_sizes = {v: k for k, v in spec.axis_sizes("max").items()}
    outs = []
    for i, (x, y) in enumerate(zip(a, b)):
        name = spec.outputs[i].name if i < len(spec.outputs) else f"OUTPUT__{i}"
        if not hasattr(x, "shape") or x.dim() == 0 or x.shape[0] != EXAMPLE_BATCH or y.shape[0] != EXAMPLE_BATCH + 1:
            raise ModelSpecError(
                f"output {name!r} has shape {tuple(getattr(x, 'shape', ()))} at batch {EXAMPLE_BATCH}: "
                "every output must keep the batch axis first",
                hint="Triton batches along axis 0 of every input and output (max_batch_size > 0)",
            )
        dims: list[int | str] = []
        for j, (dx, dy) in enumerate(zip(x.shape[1:], y.shape[1:])):
            dims.append(dx if dx == dy else max_sizes.get(dy, f"{name}_dim{j + 1}"))
        dtype = dtypes.from_torch(x.dtype).name
        dtypes.require_tensor_io(dtype, f"output {name!r}")
        outs.append(TensorSpec(name, dtype, tuple(dims)))
    return spec.with_outputs(tuple(outs))
