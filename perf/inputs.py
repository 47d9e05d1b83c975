"""Input flags for perf_analyzer derived from a model's signature.

perf_analyzer makes random data itself for fixed-shape floating inputs. It needs help for:
- dynamic dims (``-1`` in the config): ``--shape NAME:d1,d2`` with a concrete size (the
  ``opt`` size of the axis from the build's spec, else ``default_dim``);
- integer inputs with a valid range (token ids, masks): random data would be out of range,
  so a ``--input-data`` JSON file is written (perf_analyzer docs, "Input Data": one entry
  per step, per-sample ``content`` and ``shape``).
A user's own data file replaces all of this.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from builders.spec import ModelSpec
from core import dtypes
from core.errors import DataTypeError, PerfError


def input_args(
    config: dict[str, Any],
    spec: ModelSpec | None,
    workdir: Path,
    user_data: Path | None = None,
    default_dim: int = 16,
    steps: int = 8,
) -> list[str]:
    """perf_analyzer flags for ``config`` (the served model config as JSON).

    Args:
        config: Model config dict (``input`` list with ``name``, ``data_type``, ``dims``).
        spec: The build's spec (named axes, value ranges), or ``None`` when unknown.
        workdir: Where to write the generated ``input_data_<model>.json``.
        user_data: The user's ``--input-data`` file (JSON, a folder, or ``random``/``zero``).
        default_dim: Size used for a dynamic dim the spec does not name (default 16).
        steps: Distinct data entries generated per input.
    """
    if user_data is not None:
        return ["--input-data", str(user_data)]
    by_name = {t.name: t for t in spec.inputs} if spec else {}
    sizes = spec.axis_sizes("opt") if spec else {}
    unbatched = int(config.get("max_batch_size", 0)) == 0
    args: list[str] = []
    inputs: dict[str, tuple[list[int], str, tuple[int, int] | None]] = {}
    for inp in config.get("input", []):
        name = inp["name"]
        dims = [int(d) for d in inp.get("dims", [])]
        t = by_name.get(name)
        shape: list[int | str] = list(t.shape) if t else []
        if unbatched and len(dims) == len(shape) + 1:
            shape = [1, *shape]  # max_batch_size 0: the leading -1 is the batch axis; one sample per request
        concrete = []
        for i, d in enumerate(dims):
            axis = shape[i] if i < len(shape) else None
            if d >= 0:
                concrete.append(d)
            elif isinstance(axis, int):
                concrete.append(axis)
            else:
                concrete.append(sizes.get(axis, default_dim) if axis else default_dim)
        if any(d < 0 for d in dims):
            args += ["--shape", f"{name}:{','.join(map(str, concrete))}"]
        try:
            dt = dtypes.from_triton(inp.get("data_type", ""))
        except DataTypeError as e:
            raise PerfError(f"input {name!r}: {e.message}", hint=e.hint) from None
        dtype = str(dt.numpy)
        is_int = dt.is_integer
        inputs[name] = (concrete, dtype, (t.value_range if t and t.value_range else (0, 100)) if is_int else None)
    if any(rng is not None for _, _, rng in inputs.values()):
        # perf_analyzer wants data for every input once a data file is given: integer inputs
        # within their range, floating ones N(0, 1), booleans true
        gen = np.random.default_rng(0)
        data = []
        for _ in range(steps):
            entry = {}
            for name, (shape, dtype, rng) in inputs.items():
                if rng is not None:
                    values = gen.integers(rng[0], rng[1] + 1, size=shape).astype(dtype)
                elif dtype == "bool":
                    values = np.ones(shape, dtype=bool)
                else:
                    values = gen.standard_normal(shape).astype(dtype)
                entry[name] = {"content": values.ravel().tolist(), "shape": shape}
            data.append(entry)
        path = workdir / f"input_data_{config.get('name', 'model')}.json"
        path.write_text(json.dumps({"data": data}))
        args += ["--input-data", str(path)]
    return args
