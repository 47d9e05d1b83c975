"""A model's outputs: flattening tuple/dict outputs with their keys, and naming/typing them
from the eager model.

An output's identity is its *key*: its path through the dicts (keys) and tuples/lists
(positions) that ``forward`` returns, e.g. ``("logits",)`` or ``(1, "feat")``. Exports
flatten outputs in key order (dicts in insertion order); names given by the user are tied
to keys (:func:`infer_outputs`), and the key is recorded with each output
(:attr:`builders.model.tensor.TensorSpec.key`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from builders.model.declared_outputs import check_declared, check_order
from builders.model.eager import Key, flatten_with_keys, run_keyed
from builders.model.spec import EXAMPLE_BATCH, ModelSpec
from builders.model.tensor import TensorSpec
from core import dtypes
from core.errors import ModelSpecError
from core.wording import count


def key_text(key: Key) -> str:
    """An output key as users write it: ``("logits",)`` -> ``"logits"``, ``(1, "feat")`` ->
    ``"1.feat"``, ``()`` -> ``""`` (a lone tensor)."""
    return ".".join(str(k) for k in key)


def flatten_outputs(out: Any) -> list[Any]:
    """Flatten a model's output (tensor, tuple/list, or dict in insertion order) to a list."""
    return [t for _k, t in flatten_with_keys(out)]


def _is_dict_key(key: Key) -> bool:
    return any(isinstance(k, str) for k in key)


def name_outputs(keys: list[Key], names: list[str]) -> list[str]:
    """The served name of each flattened output (in ``keys`` order).

    Without ``names``: an output reached through a dict is named by its key (``"logits"``,
    ``"1.feat"``); others ``OUTPUT__<i>`` (Triton PyTorch backend convention). With ``names``
    and a dict anywhere in the output, each name must be a key (the full dotted key, or its
    last dict key when that is unique): names are matched to keys, never assigned by position.
    A tuple or tensor output has no keys: names follow its order.

    Raises:
        ModelSpecError: a name matches no key (the message lists the keys), two names match
            one output, or the count differs from the model's.
    """
    if not names:
        return [key_text(k) if _is_dict_key(k) else f"OUTPUT__{i}" for i, k in enumerate(keys)]
    if not any(_is_dict_key(k) for k in keys):
        if len(names) != len(keys):
            raise ModelSpecError(
                f"the spec names {count(len(names), 'output')} ({names}), the model returns {len(keys)}",
                hint="list one output name per returned tensor (tuple outputs are flattened in order)",
                flag="--output",
            )
        return list(names)
    full = {key_text(k): i for i, k in enumerate(keys)}
    lasts: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        last = next((x for x in reversed(k) if isinstance(x, str)), None)
        if last is not None:
            lasts.setdefault(last, []).append(i)
    valid = sorted(full)
    by_index: dict[int, str] = {}
    unknown: list[str] = []
    for n in names:
        index = full.get(n, lasts[n][0] if len(lasts.get(n, [])) == 1 else None)
        if index is None:
            unknown.append(n)
        elif index in by_index:
            raise ModelSpecError(
                f"output names {by_index[index]!r} and {n!r} both name the model's output {key_text(keys[index])!r}",
                hint=f"name each output once; the model's output keys are {', '.join(map(str, valid))}",
                flag="--output",
            )
        else:
            by_index[index] = n
    if unknown:
        raise ModelSpecError(
            f"output names {', '.join(map(str, unknown))} match none of the model's output keys {', '.join(map(str, valid))}",
            hint="dict outputs are named by their keys: use those keys as --output names (any order), or omit --output",
            flag="--output",
        )
    if len(by_index) != len(keys):
        missing = [key_text(keys[i]) for i in range(len(keys)) if i not in by_index]
        raise ModelSpecError(
            f"the model's outputs {', '.join(missing)} have no name (names given: {', '.join(map(str, names))})",
            hint=f"name every output; the model's output keys are {', '.join(map(str, valid))}",
            flag="--output",
        )
    return [by_index[i] for i in range(len(keys))]


def infer_outputs(module: Any, spec: ModelSpec, note: Callable[[str], None] | None = None) -> ModelSpec:
    """Fill in output names, dtypes, per-sample shapes and batch axes by running the eager model.

    The model runs three times: batch 2 and batch 3 at the export sizes of the dynamic axes
    (only the batch changes, so an output axis that changes is one that follows the batch,
    whatever the other axes' sizes are), and batch 3 at their ``max`` sizes (a per-sample
    dim that changes there is dynamic); then once per dynamic axis with that axis alone moved
    off its export size (:func:`axis_probes`; one forward call per axis, none where it repeats a
    run above), so that a dim is named after an input axis only when it is that axis' size in
    every run — two axes of equal range (``H``/``W``) are told apart (recheck 16, R16-1) — and
    a dim that follows several axes or none is ``<output>_dim<N>``; then at their ``min``
    sizes, so that every size the build later runs (verification, reference, warmup, the
    exporters' examples) is one the model was seen to run at before anything is exported —
    a failure at ``min`` or ``max`` names that end (:func:`builders.model.eager.run_failure`); then with each axis
    alone, and all together, at a size off every multiple its min, opt and max lie on (:func:`off_probes`: 17 of
    16..64), so a dim named after an axis is that axis' size there too: one that is not (``8 * ceil(H / 8)``: H at
    16, 32, 64 but 24 at 17) is ``<output>_dim<N>`` and a note says so (:func:`unfollowed`; trial 30, F1). An output's batch
    axis is the one axis whose size is the batch size in both batch runs; it is recorded in
    :attr:`TensorSpec.batch_axis` (``None``: the output does not change with the batch;
    :func:`require_batch_first` refuses both where Triton batches).
    Names are tied to outputs by key (:func:`name_outputs`: dict outputs by their keys, in
    any order; unnamed tuple outputs ``OUTPUT__<i>``), and each output records its key.
    The outputs come in the model's flattened order, the order every export returns them.
    An output the spec declares (dtype and shape, not a bare name) is checked against the
    eager model's (:func:`builders.model.declared_outputs.check_declared`): a contradiction is
    refused, a less specific spec is noted, and the dynamic dims the user named keep their names;
    declared outputs named by position that fit the model only in another order are refused as
    listed out of order, with the order that fits (:func:`builders.model.declared_outputs.check_order`).

    Args:
        module: The eager model.
        spec: Its input spec; outputs may be empty, bare names or declared.
        note: Called with one line per note on a declared output (the build's progress).

    Returns:
        ``spec`` with one :class:`TensorSpec` per flattened output (tuple/dict in order).

    Raises:
        ModelSpecError: the model does not run on inputs made from the spec, the number of
            declared output names differs from the model's, an output changes with the batch
            in another way than one axis of the batch's size (rank, several axes, a multiple),
            an output dtype has no Triton type (e.g. bfloat16), or a declared output
            contradicts the model's.
    """

    def run(batch: int, sizes: dict[str, int]) -> list[tuple[Key, Any]]:
        return run_keyed(module, spec, spec.example_inputs(batch, sizes))

    b1, b2 = EXAMPLE_BATCH, EXAMPLE_BATCH + 1
    exp, hi, lo = spec.export_axis_sizes(), spec.axis_sizes("max"), spec.axis_sizes("min")
    # an axis whose export size is its max is not varied by the max run: vary it at its min, so a dim
    # is called fixed only when it kept its size while every axis changed
    other = {a: (lo[a] if exp[a] == hi[a] else hi[a]) for a in exp}
    points = [(b1, exp), (b2, exp), (b2, hi)] + ([(b2, other)] if other != hi else [])
    points += [(b2, sizes) for sizes in axis_probes(exp, lo, hi) if sizes not in (hi, other)]
    runs = [run(batch, sizes) for batch, sizes in points]  # the export sizes first: a failure at min/max says so
    # every axis at its min: verified, warmed up and sent, so it must run before export
    if lo not in [sizes for _b, sizes in points]:
        points.append((b1, lo))
        runs.append(run(b1, lo))
    regular = len(points)  # then each axis at a size off every multiple, alone and all together (trial 30, F1)
    for sizes in off_probes(exp, spec.off_axis_sizes()):
        if sizes not in [s for _b, s in points]:
            points.append((b2, sizes))
            runs.append(run(b2, sizes))
    keys = [k for k, _t in runs[0]]
    outputs = [[t for _k, t in r] for r in runs]
    names = name_outputs(keys, [t.name for t in spec.outputs])
    declared = {t.name: t for t in spec.outputs if t.declared}
    say = note or (lambda _line: None)
    outs: list[TensorSpec] = []
    found: list[TensorSpec] = []
    for i, name in enumerate(names):
        x = outputs[0][i]
        if not hasattr(x, "shape"):
            raise ModelSpecError(
                f"output {name!r} is a {type(x).__name__}, not a tensor",
                hint="return tensors (tuple/dict of tensors) from forward()",
            )
        axis = batch_axis(name, tuple(x.shape), tuple(outputs[1][i].shape), b1, b2)
        seen = [_drop(tuple(r[i].shape), axis) for r in outputs]
        dims = output_dims(name, seen, [sizes for _b, sizes in points])
        dtype = dtypes.from_torch(x.dtype).name
        dtypes.require_tensor_io(dtype, f"output {name!r}")
        found.append(TensorSpec(name, dtype, tuple(dims), key=keys[i], batch_axis=axis))
        for line in unfollowed(name, dims, seen, [sizes for _b, sizes in points], regular):
            say(line)
    if declared and not any(_is_dict_key(k) for k in keys):  # named by position: a spec in another order says so
        check_order(names, found, declared, spec)
    for i, out in enumerate(found):
        if out.name in declared:
            seen = [_drop(tuple(r[i].shape), out.batch_axis) for r in outputs]
            out, notes = check_declared(declared[out.name], out, spec, seen)
            for line in notes:
                say(line)
        outs.append(out)
    return spec.with_outputs(tuple(outs))


def axis_probes(exp: dict[str, int], lo: dict[str, int], hi: dict[str, int]) -> list[dict[str, int]]:
    """One set of sizes per dynamic axis: the export sizes with that axis alone moved to its
    max (its min where the export size is its max; none where its range is one size).

    Moving one axis at a time tells apart axes whose sizes are equal in every run that moves
    them all together (``H`` and ``W`` both 32..128): an output dim that follows one of them
    moves in that axis' run only.
    """
    probes = []
    for a in exp:
        moved = hi[a] if exp[a] != hi[a] else lo[a]
        if moved != exp[a]:
            probes.append({**exp, a: moved})
    return probes


def off_probes(exp: dict[str, int], off: dict[str, int]) -> list[dict[str, int]]:
    """The export sizes with each axis alone moved to its size off every multiple (``off``,
    :meth:`builders.model.spec.ModelSpec.off_axis_sizes`), then with every such axis moved together (the sizes the
    verification runs at, :func:`builders.verify.verification.verification_points`), so the model was seen to run
    there before anything is exported."""
    probes = [{**exp, a: n} for a, n in off.items()]
    together = {**exp, **off}
    return probes + ([together] if together not in probes else [])


def unfollowed(
    name: str, dims: list[int | str], seen: list[tuple[int, ...]], sizes: list[dict[str, int]], regular: int
) -> list[str]:
    """One line per dim of output ``name`` that is an input axis' size at the first ``regular`` runs (the min, opt and
    max) but not at the runs off every multiple after them (trial 30, F1: ``8 * ceil(H / 8)`` is H at 16, 32 and 64,
    24 at 17): it is recorded as not following the axis (``dims`` has ``<name>_dim<N>``, served as -1), and the
    build says so, with the sizes seen and the step that would make it follow."""
    lines = []
    for j, d in enumerate(dims):
        if not isinstance(d, str) or d in sizes[0] or regular >= len(seen):
            continue
        values = [s[j] for s in seen]
        for a in sizes[0]:
            if not all(v == run[a] for v, run in zip(values[:regular], sizes[:regular])):
                continue
            at = sorted({(run[a], v) for v, run in zip(values[regular:], sizes[regular:]) if v != run[a]})
            if not at:
                continue
            ran = ", ".join(str(n) for n in sorted({run[a] for run in sizes[:regular]}))
            off = ", ".join(f"{v} at {a} {n}" for n, v in at)
            lines.append(
                f"output {name!r} shape[{j}] is the size of input axis {a} at {a} {ran} but {off}: it does not follow "
                f"{a}, so it is recorded as {d!r} (dim -1 in config.pbtxt: a response's size is its own, not the request's "
                f"{a}); if the model takes only multiples of a number, declare it as {a}'s step "
                f"(--dynamic-axis {a}=MIN,OPT,MAX/STEP): the output then follows {a} at every size clients send"
            )
            break
    return lines


def output_dims(name: str, seen: list[tuple[int, ...]], sizes: list[dict[str, int]]) -> list[int | str]:
    """An output's per-sample dims from its shapes ``seen`` in runs at the axis ``sizes``.

    A dim of one size in every run is that size; a dim that is one input axis' size in every
    run (and no other axis' in all of them) takes that axis' name; any other dim (a product
    of axes, a size no axis has) is ``<name>_dim<N>``.
    """
    dims: list[int | str] = []
    for j in range(len(seen[0])):
        values = [s[j] for s in seen]
        if len(set(values)) == 1:
            dims.append(values[0])
            continue
        axes = [a for a in sizes[0] if all(v == run[a] for v, run in zip(values, sizes))]
        dims.append(axes[0] if len(axes) == 1 else f"{name}_dim{j + 1}")
    return dims


def batch_axis(name: str, shape1: tuple[int, ...], shape2: tuple[int, ...], batch1: int, batch2: int) -> int | None:
    """The axis of an output that follows the batch, from its shapes at two batch sizes
    (all other input sizes equal): the one axis of size ``batch1`` then ``batch2``; ``None``
    when no axis changes.

    Raises:
        ModelSpecError: the rank changes, several axes change, or one changes but not to the
            batch size (a flattened ``[batch * 4]``); the message names the output and axes.
    """
    changed = [k for k, (m, n) in enumerate(zip(shape1, shape2)) if m != n]
    if len(shape1) == len(shape2) and not changed:
        return None
    if len(shape1) == len(shape2) and len(changed) == 1 and (shape1[changed[0]], shape2[changed[0]]) == (batch1, batch2):
        return changed[0]
    raise ModelSpecError(
        f"output {name!r} has shape {list(shape1)} at batch {batch1} and {list(shape2)} at batch {batch2}: "
        + (
            "its rank changes with the batch"
            if len(shape1) != len(shape2)
            else f"axes {changed} change with the batch, not as one axis of the batch's size"
        ),
        hint="return every output with one axis of the batch's size (Triton splits outputs along it per request); "
        "samples of a batch must not mix",
    )


def require_batch_first(spec: ModelSpec, max_batch_sizes: tuple[int, ...]) -> None:
    """Refuse outputs whose batch axis is not first when a ``max_batch_size`` > 0 is asked for.

    With ``max_batch_size > 0`` Triton batches requests along axis 0 of every input and
    output and splits the outputs back per request along axis 0 (Triton docs, "Model
    Configuration: Maximum Batch Size"). With ``max_batch_size: 0`` the model gets and
    returns whole tensors, so any batch position (or none) is served as it is.

    Raises:
        ModelSpecError: naming the output, the position of its batch axis and its shape.
    """
    batching = sorted(m for m in max_batch_sizes if m > 0)
    if not batching:
        return
    for t in spec.outputs:
        if t.batch_axis == 0:
            continue
        where = (
            f"its batch axis is axis {t.batch_axis} of shape {list(t.full_shape())}"
            if t.batch_axis is not None
            else f"it has no batch axis (shape {list(t.shape)} at every batch size)"
        )
        raise ModelSpecError(
            f"output {t.name!r}: {where}, but with max_batch_size {batching} Triton splits every output per request along axis 0",
            hint="build with --max-batch-sizes 0 (the model then gets and returns whole tensors), or return the output "
            "with the batch axis first (e.g. drop the transpose in forward())",
        )


def _drop(shape: tuple[int, ...], axis: int | None) -> tuple[int, ...]:
    return shape if axis is None else shape[:axis] + shape[axis + 1 :]
