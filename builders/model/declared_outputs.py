"""A spec's declared output checked against what the eager model returns.

A spec may give an output as a bare name (dtype and shape then come from the model) or with
its dtype and shape: the contract a user writes client code against. The build serves what
the model returns, so a declared output that contradicts it is refused, naming the output, the
spec's and the model's value and what to write instead; where the spec is only less specific
(a dim it calls dynamic that the model returns fixed) the model's value is kept and a note
says so. A dynamic dim the user named keeps the user's name through the build record, so
``builders spec --build`` gives it back (trial 12, F14 and F22), except a dim that is the size of
an input's dynamic axis: it takes that axis's name, which ties its size to the request's (what
clients and the sweep read), and a note says so.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Sequence

from builders.model.spec import ModelSpec
from builders.model.tensor import Dim, TensorSpec
from core.errors import ModelSpecError


def check_declared(
    declared: TensorSpec, found: TensorSpec, spec: ModelSpec, seen: Sequence[tuple[int, ...]]
) -> tuple[TensorSpec, list[str]]:
    """``found`` (the eager model's output) as recorded, given the spec's ``declared`` one.

    Rules per dim: a fixed size in the spec must be the model's fixed size; a name in the spec
    for a dim the model returns fixed is a note (the fixed size is recorded); a name that is a
    dynamic input axis must be a dim of that axis' size; any other name is kept in place of the
    name the build would make up (``<output>_dim<N>``). A dim the model returns at an input
    axis' size keeps that axis' name (a note says so when the spec named it otherwise).

    Args:
        declared: The spec's output (``declared`` True).
        found: The output as :func:`builders.model.outputs.infer_outputs` found it.
        spec: The input spec (its dynamic axes).
        seen: The output's per-sample shapes in the probe runs (for the messages).

    Returns:
        The output to record, and notes (one line each).

    Raises:
        ModelSpecError: the dtype, the rank or a fixed dim differs, or a dim named after an
            input axis is not of its size; the message names the output, the spec's and the
            model's value, and the hint what to write in the spec.
    """
    name = found.name
    bare = f'or give the output as a bare name ("{name}") to take its dtype and shape from the model'
    if declared.dtype != found.dtype:
        raise ModelSpecError(
            f"spec output {name!r} says dtype {declared.dtype}, the model returns {found.dtype} (what Triton would serve)",
            hint=f'write "dtype": "{found.dtype}" for it in the spec, or cast it in forward() if {declared.dtype} is meant, {bare}',
        )
    sizes = [sorted({s[j] for s in seen}) for j in range(len(found.shape))]
    model = f"the model returns per-sample shape {_shape_words(found.shape, sizes)}"
    if len(declared.shape) != len(found.shape):
        raise ModelSpecError(
            f"spec output {name!r} has shape {list(declared.shape)} ({len(declared.shape)} per-sample dims), {model}",
            hint=f'write "shape": {json.dumps(list(found.shape))} for it in the spec (no batch axis), {bare}',
        )
    dims: list[Dim] = []
    notes: list[str] = []
    for j, (d, f) in enumerate(zip(declared.shape, found.shape)):
        if d == f or (isinstance(d, str) and isinstance(f, str) and f not in spec.dynamic_axes and d not in spec.dynamic_axes):
            dims.append(d)  # the same, or the user's name for a dim the build would have named itself
            continue
        if isinstance(d, str) and isinstance(f, int):
            notes.append(
                f"spec output {name!r} calls shape[{j}] dynamic ({d!r}); the model returns {f} at every size the build "
                f"ran: recorded and served as {f}"
            )
            dims.append(f)
            continue
        if isinstance(d, str) and d not in spec.dynamic_axes:  # the model's dim is an input axis' size
            notes.append(  # break test B4: said as a bare "recorded as", while the README promised the name kept
                f"spec output {name!r} names shape[{j}] {d!r}, but it is the size of input axis {f!r} at every size "
                f"the build ran: recorded as {f!r} (manifest, builders spec --build), so its size follows the request's "
                f"{f}; name it {f!r} in the spec to keep the two alike"
            )
            dims.append(f)
            continue
        fixed = isinstance(d, int)
        said = f"fixes shape[{j}] at {d}" if fixed else f"names shape[{j}] after input axis {d!r}"
        # every dim the probes contradict is replaced, not only this one: a hint of [1, "W", "W"] for [1, "W", "H"]
        # would propose another wrong contract (recheck 16, R16-1)
        want = [dd if _fits(dd, ff, spec) else ff for dd, ff in zip(declared.shape, found.shape)]
        raise ModelSpecError(
            f"spec output {name!r} {said}; {model}",
            hint=f'write "shape": {json.dumps(want)} for it in the spec (a dim that varies takes any name), {bare}',
        )
    return dataclasses.replace(found, shape=tuple(dims)), notes


#: Above this many outputs the orders of the spec's names are not searched for one that fits.
MAX_REORDERED = 6


def check_order(names: Sequence[str], found: Sequence[TensorSpec], declared: dict[str, TensorSpec], spec: ModelSpec) -> None:
    """Refuse a spec whose outputs, named by position, are listed in another order than the model
    returns them (trial 18, T18-11: a swapped pair was reported as one output's dtype mismatch,
    with advice to change that dtype).

    Called before :func:`check_declared` on outputs named by position (a tuple output): when a
    declared output contradicts the model's output at its own position (dtype, rank or a fixed
    dim) and another order of the spec's names fits every declared output, the spec's order is
    the mistake, and the error says so and gives the order that fits.

    Args:
        names: The spec's output names, in its order (the model's output at position i is named ``names[i]``).
        found: The model's outputs, in the order forward() returns them.
        declared: The spec's declared outputs (dtype and shape given) by name.
        spec: The input spec (its dynamic axes).

    Raises:
        ModelSpecError: the spec's declared outputs fit the model only in another order.
    """
    fits = [[name not in declared or _agrees(declared[name], f, spec) for f in found] for name in names]
    if all(fits[i][i] for i in range(len(names))) or len(names) > MAX_REORDERED:
        return
    order = next((p for p in itertools.permutations(range(len(names))) if all(fits[p[j]][j] for j in range(len(names)))), None)
    if order is None:
        return  # no order fits: the per-output check names what differs
    listed = ", ".join(f"{n!r} ({_words(declared[n]) if n in declared else 'bare name'})" for n in names)
    returned = ", ".join(_words(f) for f in found)
    want = [names[i] for i in order]
    raise ModelSpecError(
        f"the spec's outputs look listed out of order: it lists {listed}; forward() returns ({returned}) in that order, "
        "and a tuple output is named by position",
        hint=f"list the spec's outputs in the order forward() returns them: {json.dumps(want)} "
        "(or return a dict keyed by the output names, matched by name)",
    )


def _agrees(d: TensorSpec, f: TensorSpec, spec: ModelSpec) -> bool:
    """Whether declared output ``d`` fits model output ``f``: its dtype, its rank, and every dim
    (:func:`_fits`, a named dim of a fixed size included)."""
    return (
        d.dtype == f.dtype
        and len(d.shape) == len(f.shape)
        and all(_fits(dd, ff, spec) or (isinstance(dd, str) and isinstance(ff, int)) for dd, ff in zip(d.shape, f.shape))
    )


def _words(t: TensorSpec) -> str:
    """``int64 [height, width]``."""
    return f"{t.dtype} [{', '.join(map(str, t.shape))}]"


def _fits(d: Dim, f: Dim, spec: ModelSpec) -> bool:
    """Whether the spec's dim ``d`` may stay in a shape the model returns as ``f``: the same, or
    a name that is no input axis for a dim that is fixed or no input axis' size either."""
    return d == f or (isinstance(d, str) and d not in spec.dynamic_axes and (isinstance(f, int) or f not in spec.dynamic_axes))


def _shape_words(shape: tuple[Dim, ...], sizes: list[list[int]]) -> str:
    """``[98, 32]``, or ``[dynamic, 32] (shape[0] was 5, 49, 99 as the dynamic axes changed)`` when a dim varies."""
    varying = [(j, s) for j, s in enumerate(sizes) if len(s) > 1]
    text = json.dumps([d if isinstance(d, int) else "dynamic" for d in shape]).replace('"', "")
    return text + "".join(f" (shape[{j}] was {', '.join(map(str, s))} as the dynamic axes changed)" for j, s in varying)
