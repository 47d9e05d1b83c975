"""A mixed-size workload (``sweep --shapes time=1000..16000``): requests whose dynamic axis sizes
differ, as real clients of a sequence or audio model send them.

Triton's dynamic batcher merges only requests whose inputs have the same shape (Triton docs,
"Ragged Batching": "By default, the requests can be dynamically batched only if each input has
the same shape across the requests"; ``allow_ragged_batch`` lifts that for models written for
it). A workload of one size per level lets every request join a batch; a mix shows what batching
does for traffic of many sizes. The mix is written as perf_analyzer's ``--input-data`` JSON with
one entry per drawn size, each with its ``shape``: perf_analyzer sends the entries in turn
(perf_analyzer docs, "Input Data": one entry per step, per-input ``content`` and ``shape``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from builders.model.axis_steps import multiples
from builders.model.spec import ModelSpec
from perf.records.results import mixed_axes, parse_shape_text, shape_text

#: Entries (requests of distinct sizes) in a mixed workload's input file.
MIXED_STEPS = 16

#: The seed the sizes are drawn with: every run of one range sends the same mix.
MIXED_SEED = 0


def mixed_sizes(
    axes: Mapping[str, tuple[int, int]],
    steps: int = MIXED_STEPS,
    seed: int = MIXED_SEED,
    multiple_of: Mapping[str, int] | None = None,
) -> list[dict[str, int]]:
    """``steps`` sizes per mixed axis, drawn across its ``(lo, hi)`` range (inclusive) by a fixed
    seed: one draw in each of ``steps`` equal stretches of the range (so the mix spans it, its ends'
    stretches included), in a shuffled order; a range of fewer sizes than ``steps`` gives each of its
    sizes in turn. An axis with a step (``multiple_of``, the build's spec: :mod:`builders.model.axis_steps`)
    draws multiples of it only: the same draw over ``k`` of the sizes ``k * step`` within the range (trial 24,
    T24-7: a U-Net that takes multiples of 32 was sent 191x112). Returns one ``{axis: size}`` per entry.

    Example:
        ``mixed_sizes({"time": (1000, 16000)}, 4)`` -> four sizes, one in each quarter of 1000..16000;
        ``mixed_sizes({"H": (64, 256)}, 4, multiple_of={"H": 32})`` -> four of 64, 96, ..., 256.
    """
    gen = np.random.default_rng(seed)
    drawn: dict[str, list[int]] = {}
    for axis, (lo, hi) in axes.items():
        step = (multiple_of or {}).get(axis, 1)
        lo, hi = multiples(lo, hi, step)  # draw k; the size is k * step (step 1: the size itself)
        if hi - lo + 1 <= steps:
            sizes = [lo + i % (hi - lo + 1) for i in range(steps)]
        else:
            edges = np.linspace(lo, hi + 1, steps + 1)
            sizes = [int(gen.integers(int(a), max(int(a) + 1, int(b)))) for a, b in zip(edges[:-1], edges[1:])]
        drawn[axis] = [int(x) * step for x in gen.permutation(sizes)]
    return [{axis: drawn[axis][i] for axis in axes} for i in range(steps)]


def first_size(shape: str | None, multiple_of: Mapping[str, int] | None = None) -> str | None:
    """The sizes of the first request a workload sent at ``shape`` holds: a mixed range's first drawn entry
    (:func:`mixed_sizes`, the one perf_analyzer sends first; ``multiple_of``: the build's steps),
    ``"time=1000..16000"`` -> ``"time=5321"``; ``shape`` itself when it has no mixed axis."""
    axes = mixed_axes(shape)
    if not axes or shape is None:
        return shape
    return shape_text({**parse_shape_text(shape), **mixed_sizes(axes, multiple_of=multiple_of)[0]})


def spec_at(spec: ModelSpec | None, sizes: Mapping[str, int]) -> ModelSpec | None:
    """``spec`` with the ``opt`` size of each axis in ``sizes`` set to that size (what
    :func:`perf.measure.inputs.input_args` sends: the one sizing rule of :mod:`clients.shapes`);
    ``spec`` itself when ``sizes`` is empty or there is no spec."""
    if not sizes or spec is None:
        return spec
    axes = {a: (lo, sizes.get(a, opt), hi) for a, (lo, opt, hi) in spec.dynamic_axes.items()}
    return dataclasses.replace(spec, dynamic_axes=axes)
