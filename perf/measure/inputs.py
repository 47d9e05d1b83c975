"""Input flags for perf_analyzer derived from a model's signature.

perf_analyzer makes random data itself for fixed-shape inputs. It needs help for:

- dynamic dims (``-1`` in ``config.pbtxt``): ``--shape NAME:d1,d2`` with a concrete size.
  The size comes from the user's ``--shape`` for that input, else from the build's spec
  (the ``opt`` size of the named axis). A dynamic dim neither gives is an error naming the
  input and the axis: a guessed size would measure another workload than the user's.
- integer inputs with a valid range (token ids, masks): random data would be out of range,
  so a ``--input-data`` JSON file is written (perf_analyzer docs, "Input Data": one entry
  per step, per-input ``content`` and ``shape``). Once a file is given perf_analyzer wants
  data for every input, written in the form its JSON reader takes for the type
  (:data:`B64_TYPES`).

A user's own data file replaces the generated one (``--shape`` flags are still passed).
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.spec import DEFAULT_INT_RANGE, ModelSpec
from core import dtypes
from core.errors import DataTypeError, PerfError

log = logging.getLogger(__name__)

#: Triton types perf_analyzer's JSON reader takes only as raw bytes, ``{"b64": ...}``
#: (little-endian, row-major): it parses numbers as int/uint/fp32/fp64/bool only
#: (perf_analyzer docs, "Input Data": "b64" content).
B64_TYPES = frozenset({"TYPE_FP16", "TYPE_BF16"})


def parse_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """``"NAME:d1,d2"`` (perf_analyzer's ``--shape`` form) -> ``(NAME, (d1, d2))``.

    Raises:
        PerfError: not ``NAME:dims`` with positive integer dims.
    """
    name, sep, dims = text.rpartition(":")
    try:
        shape = tuple(int(d) for d in dims.split(","))
    except ValueError:
        shape = ()
    if not sep or not name or not shape or min(shape) < 1:
        raise PerfError(
            f"--shape {text!r} is not NAME:dims", hint="e.g. --shape input_ids:128 (dims without the batch axis, >= 1)"
        )
    return name, shape


def resolve_shapes(
    config: dict[str, Any], spec: ModelSpec | None, shapes: Mapping[str, Sequence[int]] = {}
) -> dict[str, list[int]]:
    """The concrete shape of every input perf_analyzer sends (per request, without the batch
    axis of a batching model; with a leading 1 for a ``max_batch_size: 0`` model whose spec
    has a batch axis).

    Args:
        config: The served model config as JSON (``input`` with ``name``, ``dims``).
        spec: The build's spec (named axes and their ``opt`` sizes), or ``None`` for a
            repository without the toolkit's build manifest.
        shapes: The user's ``--shape`` values: input name -> dims (win over the spec).

    Raises:
        PerfError: a ``--shape`` names no input, has another rank than ``config.pbtxt``, or
            changes a fixed dim; a dynamic dim has neither a ``--shape`` nor a spec size (the
            message names the input and the axis).
    """
    inputs = config.get("input", [])
    names = [i["name"] for i in inputs]
    unknown = sorted(set(shapes) - set(names))
    if unknown:
        raise PerfError(
            f"--shape names {unknown}, which {config.get('name', 'the model')} does not take",
            hint=f"its inputs: {', '.join(names)}",
        )
    by_name = {t.name: t for t in spec.inputs} if spec else {}
    sizes = spec.axis_sizes("opt") if spec else {}
    unbatched = int(config.get("max_batch_size", 0)) == 0
    out: dict[str, list[int]] = {}
    for inp in inputs:
        name = inp["name"]
        dims = [int(d) for d in inp.get("dims", [])]
        if name in shapes:
            given = [int(d) for d in shapes[name]]
            if len(given) != len(dims) or any(d >= 0 and g != d for d, g in zip(dims, given)):
                raise PerfError(
                    f"--shape {name}:{','.join(map(str, given))} does not fit {name}'s dims {dims} in config.pbtxt",
                    hint="give every dim (without the batch axis of a batching model); -1 dims are free, the others fixed",
                )
            out[name] = given
            continue
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
            elif axis in sizes:
                concrete.append(sizes[axis])
            else:
                example = ",".join("N" if x < 0 else str(x) for x in dims)
                raise PerfError(
                    f"input {name!r} axis {i} is dynamic (-1 in config.pbtxt dims {dims}) and nothing gives its size"
                    + ("" if spec else " (the repository has no toolkit build manifest for this model)"),
                    hint=f"pass --shape {name}:{example} with N the size to measure (perf_analyzer's --shape)",
                )
        out[name] = concrete
    return out


def input_args(
    config: dict[str, Any],
    spec: ModelSpec | None,
    workdir: Path,
    user_data: Path | None = None,
    shapes: Mapping[str, Sequence[int]] = {},
    steps: int = 8,
) -> list[str]:
    """perf_analyzer flags for ``config`` (the served model config as JSON).

    Args:
        config: Model config dict (``input`` list with ``name``, ``data_type``, ``dims``).
        spec: The build's spec (named axes, value ranges), or ``None`` when unknown.
        workdir: Where to write the generated ``input_data_<model>.json``.
        user_data: The user's ``--input-data`` file (JSON, a folder, or ``random``/``zero``).
        shapes: The user's ``--shape`` values (input name -> dims without the batch axis).
        steps: Distinct data entries generated per input.

    Raises:
        PerfError: see :func:`resolve_shapes`; an input type perf_analyzer cannot be given.
    """
    if user_data is not None:  # its shapes are the file's (perf_analyzer); the user's --shape flags go along
        given = [a for n, dims in shapes.items() for a in ("--shape", f"{n}:{','.join(map(str, dims))}")]
        return [*given, "--input-data", str(user_data)]
    concrete = resolve_shapes(config, spec, shapes)
    args: list[str] = []
    for inp in config.get("input", []):
        if any(int(d) < 0 for d in inp.get("dims", [])) or inp["name"] in shapes:
            args += ["--shape", f"{inp['name']}:{','.join(map(str, concrete[inp['name']]))}"]
    by_name = {t.name: t for t in spec.inputs} if spec else {}
    types: dict[str, dtypes.DataType] = {}
    for inp in config.get("input", []):
        try:
            types[inp["name"]] = dtypes.from_triton(inp.get("data_type", ""))
        except DataTypeError as e:
            raise PerfError(f"input {inp['name']!r}: {e.message}", hint=e.hint) from None
    ints = [n for n, dt in types.items() if dt.is_integer]
    if not ints:
        return args  # perf_analyzer's own random data fits every other type
    for n in ints:
        t = by_name.get(n)
        if not (t and t.value_range):
            log.warning(
                "input %s: no value range in the build's spec; generated values are in %s (pass --input-data for your own)",
                n,
                list(DEFAULT_INT_RANGE),
            )
    gen = np.random.default_rng(0)
    data = []
    for _ in range(steps):
        entry = {}
        for name, dt in types.items():
            t = by_name.get(name)
            rng = (t.value_range if t and t.value_range else DEFAULT_INT_RANGE) if dt.is_integer else None
            entry[name] = tensor_entry(dt, concrete[name], gen, rng)
        data.append(entry)
    path = workdir / f"input_data_{config.get('name', 'model')}.json"
    path.write_text(json.dumps({"data": data}))
    return [*args, "--input-data", str(path)]


def tensor_entry(
    dt: dtypes.DataType, shape: list[int], gen: np.random.Generator, value_range: tuple[int, int] | None = None
) -> dict[str, Any]:
    """One input of one ``--input-data`` step: ``{"content": [...] | {"b64": ...}, "shape": shape}``.

    Integers are uniform in ``value_range`` (inclusive), floats N(0, 1), booleans true,
    strings (``TYPE_STRING``) short ASCII texts. Types in :data:`B64_TYPES` are written as
    base64 of their little-endian bytes (bfloat16: the upper half of each float32).
    """
    n = int(np.prod(shape)) if shape else 1
    if dt.is_integer:
        lo, hi = value_range or DEFAULT_INT_RANGE
        values: Any = gen.integers(lo, hi + 1, size=n).astype(dt.numpy)
    elif dt.kind == "bool":
        values = np.ones(n, dtype=bool)
    elif dt.kind == "bytes":
        return {"content": [f"text {i}" for i in range(n)], "shape": shape}
    else:
        values = gen.standard_normal(n).astype("<f4")
    if dt.triton in B64_TYPES:
        raw = values.astype("<f2").tobytes() if dt.triton == "TYPE_FP16" else (values.view("<u4") >> 16).astype("<u2").tobytes()
        return {"content": {"b64": base64.b64encode(raw).decode("ascii")}, "shape": shape}
    if dt.kind == "float":
        values = values.astype(dt.numpy)
    return {"content": values.tolist(), "shape": shape}


def describe_dynamic(config: dict[str, Any], spec: ModelSpec | None, shapes: Mapping[str, Sequence[int]] = {}) -> str | None:
    """How :func:`input_args` sizes the dynamic dims of ``config``'s inputs when no axis is
    swept, in words for the report: ``"seq=64 (the build's opt size of axis seq)"`` or
    ``"ids [12] (--shape)"``; ``None`` when no input has a dynamic dim or a size is missing
    (the sweep has refused to start then, :func:`resolve_shapes`)."""
    try:
        concrete = resolve_shapes(config, spec, shapes)
    except PerfError:
        return None
    by_name = {t.name: t for t in spec.inputs} if spec else {}
    sizes = spec.axis_sizes("opt") if spec else {}
    said: dict[str, str] = {}
    for inp in config.get("input", []):
        name, dims = inp["name"], [int(d) for d in inp.get("dims", [])]
        if not any(d < 0 for d in dims):
            continue
        if name in shapes:
            said[name] = f"{name} {concrete[name]} (--shape)"
            continue
        t = by_name.get(name)
        for axis in (a for a in (t.shape if t else ()) if isinstance(a, str) and a in sizes):
            said.setdefault(axis, f"{axis}={sizes[axis]} (the build's opt size of axis {axis})")
    return "; ".join(said.values()) or None
