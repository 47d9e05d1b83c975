"""The input draws verification runs at every batch size: several distributions, not one.

One random N(0, 1) draw is too tame to expose a wrong export: a trace that froze the branch
``x * 2 if x.mean() > 0 else -x`` agrees with eager PyTorch on every draw whose mean has the
traced sign. Verification therefore runs each point on every draw of :data:`DRAWS`, plus
the user's own sample when one is given (``builders build --sample FILE.npz``):

========== ============================== ================================= ================
draw       floating inputs                integer inputs (``value_range``)  bool inputs
========== ============================== ================================= ================
random     N(0, 1)                        uniform in the range              all True
positive   abs(N(0, 1))                   uniform in the upper half         all True
negative   -abs(N(0, 1))                  uniform in the lower half         all False
scaled     N(0, 1) x :data:`SCALE`        only the range's two ends         random
zeros      0                              0 (the low end if 0 is outside)   all False
========== ============================== ================================= ================

An integer input with one range per position of its last axis (a tabular input's columns,
:mod:`builders.model.value_ranges`) gets each column's draw within that column's own range; a
range bound that names a dynamic axis (``[1, "time"]``) is that axis's size at the point verified.

An input with a ``domain`` (:mod:`builders.model.domains`) gets, in every draw, values of that
domain only: a ``mask`` is a padding mask with at least one 1 per row (``random``: right
padding of random length, ``positive``: all 1s, ``negative``: a single 1 at the end,
``scaled``: left padding of random length, ``zeros``: a single 1 at the start), never a row
of zeros no request sends. What each draw gave each input is named in the manifest
(:func:`describe_draws`).

The ``random`` draw is :meth:`builders.model.spec.ModelSpec.example_inputs` (the reference data
and the served check use the same policy). A draw on which eager PyTorch itself gives NaN
or Inf (``zeros`` into a division, say) says nothing about the export and is skipped and
recorded as such, except ``random`` and ``sample``, where it fails the verification.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from builders.model.domains import describe_domain, domain_values
from builders.model.spec import ModelSpec
from builders.model.spec_flags import size_problem
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import per_position, range_axes, range_text, range_words
from core import dtypes
from core.errors import ModelSpecError
from core.names import file_problem, misnamed

#: Every generated draw, in the order verification runs them.
DRAWS: tuple[str, ...] = ("random", "positive", "negative", "scaled", "zeros")
#: The draw made of the user's own inputs.
SAMPLE = "sample"
#: Draws on which a non-finite eager output fails the verification instead of skipping the draw.
REQUIRED_DRAWS: tuple[str, ...] = ("random", SAMPLE)
#: Factor of the ``scaled`` draw of floating inputs.
SCALE = 10.0


def draw_inputs(spec: ModelSpec, batch: int, sizes: dict[str, int], draw: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs of shape ``[batch, *per_sample_shape]`` (named axes at ``sizes``) from one draw.

    Args:
        spec: The model's inputs.
        batch: Batch size (axis 0).
        sizes: Dynamic axis name -> size.
        draw: One of :data:`DRAWS`.
        seed: Seed of the random parts.

    Returns:
        Input name -> array, in the spec's dtypes.

    Raises:
        ValueError: unknown ``draw``.
    """
    if draw not in DRAWS:
        raise ValueError(f"unknown input draw {draw!r}; expected one of {DRAWS}")
    base = spec.example_inputs(batch, sizes, seed=seed)
    if draw == "random":
        return base
    rng = np.random.default_rng(seed + 7919)
    out: dict[str, np.ndarray] = {}
    for t in spec.inputs:
        a = base[t.name]
        kind = dtypes.from_name(t.dtype)
        if t.domain is not None:
            out[t.name] = domain_values(t.domain, t.dtype, a.shape, draw, rng)
        elif kind.is_floating:
            std = np.abs(a.astype(np.float32))
            out[t.name] = {
                "positive": std,
                "negative": -std,
                "scaled": a.astype(np.float32) * SCALE,
                "zeros": np.zeros_like(std),
            }[draw].astype(t.dtype)
        elif t.dtype == "bool":
            out[t.name] = {
                "positive": np.ones(a.shape, bool),
                "negative": np.zeros(a.shape, bool),
                "scaled": rng.integers(0, 2, size=a.shape).astype(bool),
                "zeros": np.zeros(a.shape, bool),
            }[draw]
        else:
            lo, hi = t.bounds(sizes)  # per position of the last axis, or one range (0-d); axis bounds at sizes
            mid = lo + (hi - lo) // 2
            if draw == "positive":
                v = rng.integers(mid, hi + 1, size=a.shape)
            elif draw == "negative":
                v = rng.integers(lo, mid + 1, size=a.shape)
            elif draw == "scaled":
                v = np.where(rng.integers(0, 2, size=a.shape).astype(bool), hi, lo)
            else:
                v = np.broadcast_to(np.where((lo <= 0) & (0 <= hi), 0, lo), a.shape)
            out[t.name] = v.astype(t.dtype)
    return out


def describe_draws(spec: ModelSpec, sample: bool = False) -> dict[str, dict[str, str]]:
    """What each draw gives each input, in words: the manifest's ``draws``.

    Args:
        spec: The model's inputs.
        sample: Whether the user's own inputs were verified too (``--sample``).

    Returns:
        Draw name -> input name -> e.g. ``"integers uniform in [0, 999]"`` or ``"mask: all 1s"``.
    """
    out: dict[str, dict[str, str]] = {}
    for draw in DRAWS:
        out[draw] = {t.name: _describe(t, draw) for t in spec.inputs}
    if sample:
        out[SAMPLE] = {t.name: "the user's own values (--sample)" for t in spec.inputs}
    return out


def _describe(t: TensorSpec, draw: str) -> str:
    if t.domain is not None:
        return describe_domain(t.domain, draw)
    if dtypes.from_name(t.dtype).is_floating:
        return {"random": "N(0, 1)", "positive": "|N(0, 1)|", "negative": "-|N(0, 1)|", "scaled": f"N(0, 1) x {SCALE:g}"}.get(
            draw, "0"
        )
    if t.dtype == "bool":
        return {"random": "all True", "positive": "all True", "scaled": "True or False at random"}.get(draw, "all False")
    if per_position(t.value_range):
        return _describe_columns(t, draw)
    if range_axes(t.value_range):  # a bound is an axis's size: said by name, at every size verified
        low, high = t.value_range  # type: ignore[misc]
        half = f"({low} + {high}) / 2"
        return {
            "random": f"integers uniform in {range_words(t.value_range)}",  # type: ignore[arg-type]
            "positive": f"integers uniform in [{half}, {high}] (upper half)",
            "negative": f"integers uniform in [{low}, {half}] (lower half)",
            "scaled": f"{low} or {high} (the range's ends)",
        }.get(draw, str(0 if isinstance(low, int) and low <= 0 else low))  # an axis's size is >= 1
    lo, hi = (int(v) for v in t.bounds())
    mid = lo + (hi - lo) // 2
    return {
        "random": f"integers uniform in [{lo}, {hi}]",
        "positive": f"integers uniform in [{mid}, {hi}] (upper half)",
        "negative": f"integers uniform in [{lo}, {mid}] (lower half)",
        "scaled": f"{lo} or {hi} (the range's ends)",
    }.get(draw, str(0 if lo <= 0 <= hi else lo))


def _describe_columns(t: TensorSpec, draw: str) -> str:
    """:func:`_describe` of an input with one range per position of its last axis."""
    each = {
        "random": "uniform in its range",
        "positive": "uniform in the upper half of its range",
        "negative": "uniform in the lower half of its range",
        "scaled": "its range's two ends",
        "zeros": "0 (the low end where 0 is outside its range)",
    }[draw]
    return f"integers, each position of the last axis {each} ({range_text(t.value_range or ()).replace(',', ', ')})"


def load_sample(path: Path, spec: ModelSpec, max_batch_size: int | None = None) -> dict[str, np.ndarray]:
    """The user's own inputs from an ``.npz`` file: one array per spec input, keyed by the
    input's name (or ``input:<name>``, the form of ``reference.npz``), shape ``[batch,
    *per_sample_shape]`` with the spec's fixed dims and dtype, each dynamic axis's size one the build verifies, and
    at most ``max_batch_size`` rows (the build's largest; 1 for 0), the rules ``clients`` check a file by.

    Raises:
        ModelSpecError: the file is missing, a folder or unreadable (said as such,
            :func:`core.names.file_problem`, never as a format to write), not an ``.npz``, an input
            is missing, or an array's dtype, rank or fixed dims differ from the spec (the message
            names the input).
    """
    problem = file_problem(Path(path), "--sample", "*.npz")
    if problem is not None:
        message, hint = problem
        raise ModelSpecError(message, hint=hint)
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k.removeprefix("input:"): z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise ModelSpecError(
            f"cannot read the input sample {path}: {e}", hint="write it with numpy.savez(path, **{input_name: array})"
        ) from e
    missing = [t.name for t in spec.inputs if t.name not in arrays]
    if missing:
        meant = misnamed(arrays, [t.name for t in spec.inputs])  # an array named near a missing input (T23-13)
        typo = "".join(f"; its {k!r} names no input (did you mean {m!r}?)" for k, m in meant.items())
        raise ModelSpecError(
            f"the input sample {path} has no array for inputs {', '.join(missing)} (it has {', '.join(sorted(arrays)) or 'none'}"
            f"{typo})",
            hint=("rename " + ", ".join(f"{k} to {m}" for k, m in meant.items()) + ": " if meant else "")
            + "save one array per model input, keyed by the input's name",
        )
    out: dict[str, np.ndarray] = {}
    batches = set()
    for t in spec.inputs:
        a = arrays[t.name]
        want = (None, *t.shape)
        if (
            a.dtype != np.dtype(t.dtype)
            or a.ndim != len(want)
            or any(isinstance(d, int) and d != n for d, n in zip(want[1:], a.shape[1:]))
        ):
            raise ModelSpecError(
                f"input sample {t.name!r} in {path} is {a.dtype}{list(a.shape)}; the spec says {t.dtype}[batch, "
                + ", ".join(str(d) for d in t.shape)
                + "]",
                hint="save the array with the spec's dtype and per-sample shape, batch axis first",
            )
        batches.add(a.shape[0])
        out[t.name] = a
    if len(batches) > 1:
        raise ModelSpecError(
            f"the input sample {path} mixes batch sizes {', '.join(map(str, sorted(batches)))}",
            hint="give every input the same first (batch) axis",
        )
    _require_verified_sizes(path, spec, out)
    rows, most = next(iter(batches), 1), max(1, max_batch_size if max_batch_size is not None else 1 << 30)
    if rows > most:  # clients refuse such a file for every variant of the build (trial 30, F22's kind)
        raise ModelSpecError(
            f"--sample {path} has {rows} rows per input, above the largest batch this build serves "
            f"({most}{', its max_batch_size 0 takes one sample per request' if not max_batch_size else ''}): clients "
            "refuse a file of this many rows, so the build does not verify one",
            hint=f"save at most {most} rows per input, or add a larger --max-batch-sizes value (e.g. --max-batch-sizes {rows})",
            flag="--sample",
        )
    return out


def _require_verified_sizes(path: Path, spec: ModelSpec, arrays: dict[str, np.ndarray]) -> None:
    """Refuse a sample whose dynamic-axis sizes lie outside the declared range or off its step, or give one axis two
    sizes: the rules every request and input file of ``clients`` meets (:func:`builders.model.spec_flags.size_problem`;
    trial 30, F22: a sample of H 72 > max 64, or 36 with step 8, was verified and reported "ok", and clients refuse
    the same file)."""
    bound: dict[str, tuple[int, str]] = {}
    for t in spec.inputs:
        for axis, size in zip(t.shape, arrays[t.name].shape[1:]):
            if not isinstance(axis, str) or axis not in spec.dynamic_axes:
                continue
            wrong = size_problem(axis, int(size), spec.dynamic_axes[axis], spec.step(axis), verb="verify")
            if wrong:
                raise ModelSpecError(
                    f"--sample {path}: input {t.name!r}{wrong[0]}: clients refuse a file of this size, so the build "
                    "does not verify one",
                    hint=f"{wrong[1]}; or save the sample at a size the build verifies",
                    flag="--sample",
                )
            first = bound.setdefault(axis, (int(size), t.name))
            if first[0] != int(size):
                raise ModelSpecError(
                    f"--sample {path}: inputs {first[1]!r} and {t.name!r} give axis {axis} two sizes ({first[0]} and {size})",
                    hint=f"inputs that share axis {axis} take one size: save them with the same",
                    flag="--sample",
                )
