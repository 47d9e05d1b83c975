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

from builders.spec import NUMPY_DTYPES, ModelSpec


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
        default_dim: Size used for a dynamic dim the spec does not name.
        steps: Distinct data entries generated per input.
    """
    if user_data is not None:
        return ["--input-data", str(user_data)]
    by_name = {t.name: t for t in spec.inputs} if spec else {}
    sizes = spec.axis_sizes("opt") if spec else {}
    args: list[str] = []
    generated: dict[str, tuple[list[int], str, tuple[int, int]]] = {}
    for inp in config.get("input", []):
        name = inp["name"]
        dims = [int(d) for d in inp.get("dims", [])]
        t = by_name.get(name)
        concrete = []
        for i, d in enumerate(dims):
            if d >= 0:
                concrete.append(d)
            else:
                axis = t.shape[i] if t and i < len(t.shape) and isinstance(t.shape[i], str) else None
                concrete.append(sizes.get(axis, default_dim) if axis else default_dim)
        if any(d < 0 for d in dims):
            args += ["--shape", f"{name}:{','.join(map(str, concrete))}"]
        dtype = NUMPY_DTYPES.get(inp.get("data_type", ""), "float32")
        if dtype.startswith("int") or dtype.startswith("uint"):
            rng = t.value_range if t and t.value_range else (0, 100)
            generated[name] = (concrete, dtype, rng)
    if generated:
        rng = np.random.default_rng(0)
        data = []
        for _ in range(steps):
            entry = {}
            for name, (shape, dtype, (lo, hi)) in generated.items():
                entry[name] = {"content": rng.integers(lo, hi + 1, size=shape).astype(dtype).ravel().tolist(), "shape": shape}
            data.append(entry)
        path = workdir / f"input_data_{config.get('name', 'model')}.json"
        path.write_text(json.dumps({"data": data}))
        args += ["--input-data", str(path)]
    return args
