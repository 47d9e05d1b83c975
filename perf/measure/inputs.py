"""Input flags for perf_analyzer derived from a model's signature.

perf_analyzer makes random data itself for fixed-shape inputs. It needs help for:

- dynamic dims (``-1`` in ``config.pbtxt``): ``--shape NAME:d1,d2`` with a concrete size,
  by the one rule of :mod:`clients.shapes` (the user's ``--shape``, else the build's ``opt``
  size of the named axis, else an error naming the input and the axis: a guessed size would
  measure another workload than the user's), checked against the build's verified ranges.
- integer inputs with a valid range (token ids, masks): random data would be out of range,
  so a ``--input-data`` JSON file is written (perf_analyzer docs, "Input Data": one entry
  per step, per-input ``content`` and ``shape``). Once a file is given perf_analyzer wants
  data for every input, written in the form its JSON reader takes for the type
  (:data:`B64_TYPES`).

A user's own data replaces the generated one (``--shape`` flags are still passed): a file of the
kinds ``clients infer --input-data`` reads (:data:`clients.input_files.FILE_KINDS`), read by the same
reader (:func:`clients.input_files.load_samples`) and checked the same way before any server starts
(:func:`perf.measure.user_data.check_user_data`); every such file, a JSON one too, is written as perf_analyzer's JSON in the
run folder from the arrays that reader returned (:func:`write_user_data`), so perf_analyzer gets
what was checked: a user's JSON of FP16 numbers goes as ``b64`` (perf_analyzer takes no FP16
numbers), each entry with its ``shape`` (no ``--shape`` needed for a dynamic dim), integers exactly
as :func:`core.casts.convert` kept them. A folder of raw files, ``random`` and ``zero`` are
perf_analyzer's own forms and go as they are.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.domains import conform
from builders.model.range_source import default_words
from builders.model.spec import ModelSpec
from builders.model.tensor import BATCH_AXIS
from builders.model.value_ranges import ValueRange, draw_integers, per_position
from clients import shapes as shp
from clients.input_files import FILE_KINDS, load_samples
from clients.inputs import ModelSignature
from clients.request_ranges import request_range
from clients.request_shapes import per_sample_shape, request_shape
from core import dtypes
from core.errors import ClientError, DataTypeError, PerfError
from perf.measure.mixed import mixed_sizes, spec_at

log = logging.getLogger(__name__)

#: Triton types perf_analyzer's JSON reader takes only as raw bytes, ``{"b64": ...}``
#: (little-endian, row-major): it parses numbers as int/uint/fp32/fp64/bool only
#: (perf_analyzer docs, "Input Data": "b64" content).
B64_TYPES = frozenset({"TYPE_FP16", "TYPE_BF16"})


def config_inputs(config: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """``(name, dims)`` of each input of a served config (gRPC's ``as_json`` gives int64 dims as strings)."""
    return [(i["name"], [int(d) for d in i.get("dims", [])]) for i in config.get("input", [])]


def resolve_shapes(
    config: dict[str, Any], spec: ModelSpec | None, shapes: Mapping[str, Sequence[int]] = {}
) -> dict[str, list[int]]:
    """The concrete shape of every input perf_analyzer sends (per request, without the batch
    axis of a batching model; with a leading 1 for a ``max_batch_size: 0`` model whose spec
    has a batch axis), by :func:`clients.shapes.resolve`'s rule.

    Args:
        config: The served model config as JSON (``input`` with ``name``, ``dims``).
        spec: The build's spec under served names (named axes, ``opt`` sizes, verified
            ranges), or ``None`` for a repository without the toolkit's build manifest.
        shapes: The user's ``--shape`` values: input name -> dims (win over the spec).

    Raises:
        PerfError: what :func:`clients.shapes.resolve` refuses: a ``--shape`` that names no
            input, does not fit its config dims or leaves the build's verified range; a
            dynamic dim that nothing sizes (the message names the input and the axis).
    """
    return {name: list(r.dims) for name, r in _resolve(config, spec, shapes).items()}


def shape_words(
    config: dict[str, Any],
    spec: ModelSpec | None,
    shapes: Mapping[str, Sequence[int]] = {},
    axes: Collection[str] = (),
    batch_sizes: Sequence[int] = (1,),
) -> dict[str, str]:
    """Each input's shape in a request as :func:`resolve_shapes` sends it, in the words every output states
    shapes in (:func:`clients.request_shapes.request_shape`, trial 26, T26-3): ``"[4, 4, 128] (batch 4 × [4, 128]
    per sample)"`` at ``batch_sizes`` ``(4,)``; a dim on one of the swept ``axes`` is named by its axis,
    ``"[4, time]"``: its size is each level's, never the default one (trial 9, F22: "series [4, 128]" was printed
    for a sweep of time=16,512).

    Raises:
        PerfError: see :func:`resolve_shapes`.
    """
    words, config_dims = {}, dict(config_inputs(config))
    batching = int(config.get("max_batch_size", 0) or 0) > 0
    for name, r in _resolve(config, spec, shapes).items():
        dynamic, dims = iter(r.sizes), list[str]()
        for d, c in zip(r.dims, config_dims[name]):
            label = next(dynamic).label if c < 0 else ""  # r.sizes: one per dynamic dim, in order
            dims.append(label if label in axes and not r.given else str(d))
        words[name] = request_shape(dims, batch_sizes if batching else None)
    return words


def check_variant_shapes(
    variant: str, config: dict[str, Any], spec: ModelSpec | None, shapes: Mapping[str, Sequence[int]] = {}
) -> None:
    """:func:`resolve_shapes` for one variant before anything is sent: a refusal names the
    variant once (the sweep and ``triton-perf coldstart`` check every variant this way).

    Raises:
        PerfError: ``"<variant>: <why>"`` (:func:`resolve_shapes`'s refusals).
    """
    try:
        resolve_shapes(config, spec, shapes)
    except PerfError as e:
        said = e.message if e.message.startswith(f"{variant}:") else f"{variant}: {e.message}"
        raise PerfError(said, hint=e.hint, flag=e.flag) from None


def _resolve(config: dict[str, Any], spec: ModelSpec | None, shapes: Mapping[str, Sequence[int]]) -> dict[str, shp.ResolvedInput]:
    mbs = int(config.get("max_batch_size", 0) or 0)
    try:
        return shp.resolve(config.get("name", "the model"), config_inputs(config), mbs, spec, shapes)
    except ClientError as e:
        raise PerfError(e.message, hint=e.hint, flag=e.flag) from None


def input_args(
    config: dict[str, Any],
    spec: ModelSpec | None,
    workdir: Path,
    user_data: Path | None = None,
    shapes: Mapping[str, Sequence[int]] = {},
    steps: int = 8,
    mixed: Mapping[str, tuple[int, int]] = {},
) -> list[str]:
    """perf_analyzer flags for ``config`` (the served model config as JSON).

    Args:
        config: Model config dict (``input`` list with ``name``, ``data_type``, ``dims``).
        spec: The build's spec (named axes, value ranges), or ``None`` when unknown.
        workdir: Where to write the generated ``input_data_<model>.json``.
        user_data: The user's ``--input-data``: a file (:data:`clients.input_files.FILE_KINDS`, a
            ``.json`` too, written again as perf_analyzer's JSON in ``workdir`` from the arrays the
            reader returned, :func:`write_user_data`), a folder, or ``random``/``zero``.
        shapes: The user's ``--shape`` values (input name -> dims without the batch axis).
        steps: Distinct data entries generated per input.
        mixed: Axes of a mixed workload, axis -> ``(lo, hi)`` (``--shapes time=1000..16000``): each
            of :data:`perf.measure.mixed.MIXED_STEPS` entries is generated at its own drawn sizes
            (:func:`perf.measure.mixed.mixed_sizes`, multiples of an axis's step), sized, checked and valued as every other
            entry (its ``shape`` in the entry, no ``--shape`` flag).

    Raises:
        PerfError: see :func:`resolve_shapes`; an input type perf_analyzer cannot be given.
    """
    if user_data is not None:  # --shape goes along, for a folder or random/zero (beside a file: refused, preflight.check_mixed)
        try:
            mbs = int(config.get("max_batch_size", 0) or 0)
            shp.check_sizes(config.get("name", "the model"), config_inputs(config), mbs, spec, shapes)
        except ClientError as e:
            raise PerfError(e.message, hint=e.hint, flag=e.flag) from None
        if user_data.suffix in FILE_KINDS and not user_data.is_dir():  # perf_analyzer gets what was checked
            user_data = write_user_data(user_data, config, spec, workdir)
        given = [a for n, dims in shapes.items() for a in ("--shape", f"{n}:{','.join(map(str, dims))}")]
        return [*given, "--input-data", str(user_data)]
    sizes = mixed_sizes(mixed, multiple_of=spec.multiple_of if spec else None) if mixed else [{}]  # the build's steps
    concrete = resolve_shapes(config, spec, shapes)
    by_entry = [resolve_shapes(config, spec_at(spec, at), shapes) for at in sizes] if mixed else [concrete]
    args: list[str] = []
    for inp in config.get("input", []) if not mixed else ():  # a mix's entries carry their shapes
        if any(int(d) < 0 for d in inp.get("dims", [])) or inp["name"] in shapes:
            args += ["--shape", f"{inp['name']}:{','.join(map(str, concrete[inp['name']]))}"]
    by_name = {t.name: t for t in spec.inputs} if spec else {}
    types: dict[str, dtypes.DataType] = {}
    for inp in config.get("input", []):
        try:
            types[inp["name"]] = dtypes.from_triton(inp.get("data_type", ""))
        except DataTypeError as e:
            raise PerfError(f"input {inp['name']!r}: {e.message}", hint=e.hint) from None
    ints = [n for n, dt in types.items() if dt.is_integer and not (n in by_name and by_name[n].domain)]
    if not mixed and not ints and not any(t.domain for t in by_name.values()):
        return args  # perf_analyzer's own random data fits every other type
    ranges: list[dict[str, ValueRange]] = []
    for shapes_at in by_entry:  # each entry's ranges at its own axis sizes: a range bound that names an axis (lengths <= time)
        at_sizes = spec.sizes_of(shapes_at) if spec else {}
        try:  # clients infer's one rule (the build's recorded range, checked to fit the served type)
            decided = {n: request_range(n, types[n].numpy or "", types[n].triton, by_name.get(n), at_sizes) for n in ints}
        except ClientError as e:
            raise PerfError(e.message, hint=e.hint, flag=e.flag) from None
        ranges.append({n: at for n, (_, at) in decided.items()})
    for n, (r, _) in decided.items():  # the last entry's: the source is every entry's
        if r.default:  # a domain (a mask: 0s and 1s) says what values are sent
            log.warning(
                "input %s: no value range in the build's spec; generated values are in %s (%s; pass --input-data for your own)",
                n,
                list(r.range),
                default_words(types[n].numpy or "", r.range),
            )
    gen = np.random.default_rng(0)
    data = []
    for step in range(len(by_entry) if mixed else steps):
        entry = {}
        for name, dt in types.items():
            t = by_name.get(name)
            k = step % len(by_entry)
            rng = ranges[k].get(name)  # integers: per position too
            entry[name] = tensor_entry(dt, by_entry[k][name], gen, rng, t.domain if t else None)
        data.append(entry)
    path = workdir / f"input_data_{config.get('name', 'model')}.json"
    path.write_text(json.dumps({"data": data}))
    return [*args, "--input-data", str(path)]


#: What ``--input-data`` takes besides a file of :data:`clients.input_files.FILE_KINDS`: perf_analyzer's own forms.
OWN_FORMS = ("random", "zero")


def user_file(user_data: object) -> bool:
    """Whether ``--input-data`` is a file of the user's inputs, whose entries carry the sizes sent
    (:func:`write_user_data` gives each its ``shape``): not a folder of raw files nor one of
    :data:`OWN_FORMS`, sized by ``--shape`` or the build's opt sizes."""
    return user_data is not None and str(user_data) not in OWN_FORMS and not Path(str(user_data)).is_dir()


def write_user_data(user_data: Path, config: dict[str, Any], spec: ModelSpec | None, workdir: Path) -> Path:
    """The user's ``.npz``/``.npy``/``.json`` written as perf_analyzer's input-data JSON in ``workdir``
    (``input_data_<model>.json``): one entry per sample (:func:`clients.input_files.load_samples`),
    each input's content in the form perf_analyzer's JSON reader takes for its type (:func:`content`).

    Raises:
        PerfError: what :func:`perf.measure.user_data.check_user_data` refuses (checked before the sweep started).
    """
    sig = ModelSignature.from_config(config)
    try:
        samples = load_samples(user_data, sig, spec, values=False)  # its values were said before the sweep started
    except ClientError as e:
        raise PerfError(e.message, hint=e.hint, flag=e.flag) from None
    types = {t.name: dtypes.from_triton(t.triton_dtype) for t in sig.inputs}
    data = [{name: content(types[name], a) for name, a in sample.items()} for sample in samples]
    path = workdir / f"input_data_{config.get('name', 'model')}.json"
    path.write_text(json.dumps({"data": data}))
    log.info("--input-data %s: %d samples written as perf_analyzer's JSON %s", user_data, len(data), path)
    return path


def content(dt: dtypes.DataType, values: np.ndarray) -> dict[str, Any]:
    """One input of one ``--input-data`` step from its values: ``{"content": [...] | {"b64": ...},
    "shape": [...]}``, types in :data:`B64_TYPES` as base64 of their little-endian bytes
    (bfloat16: the upper half of each float32), strings as text."""
    shape = list(np.shape(values))
    flat = np.asarray(values).reshape(-1)
    if dt.kind == "bytes":
        return {"content": [v.decode() if isinstance(v, bytes) else str(v) for v in flat], "shape": shape}
    if dt.triton in B64_TYPES:
        f32 = flat.astype("<f4")
        raw = f32.astype("<f2").tobytes() if dt.triton == "TYPE_FP16" else (f32.view("<u4") >> 16).astype("<u2").tobytes()
        return {"content": {"b64": base64.b64encode(raw).decode("ascii")}, "shape": shape}
    return {"content": flat.astype(dt.numpy).tolist(), "shape": shape}


def tensor_entry(
    dt: dtypes.DataType,
    shape: list[int],
    gen: np.random.Generator,
    value_range: ValueRange | None = None,
    domain: str | None = None,
) -> dict[str, Any]:
    """One input of one ``--input-data`` step: ``{"content": [...] | {"b64": ...}, "shape": shape}``.

    Integers are uniform in ``value_range`` (inclusive; per position of the last axis where it
    gives one range each, :func:`builders.model.value_ranges.draw_integers`), floats N(0, 1), booleans true,
    strings (``TYPE_STRING``) short ASCII texts; an input with a ``domain`` respects it
    (:func:`builders.model.domains.conform`: a mask has a 1 in every row). Types in
    :data:`B64_TYPES` are written as base64 of their little-endian bytes (bfloat16: the upper
    half of each float32).
    """
    n = int(np.prod(shape)) if shape else 1
    if domain is not None and dt.kind != "bytes":  # one request's sample: its rows are the last axis
        values: Any = conform(domain, np.zeros((1, *shape), "<f4"), gen).reshape(-1)
        if dt.kind != "float" or dt.triton not in B64_TYPES:
            values = values.astype(dt.numpy)
    elif dt.is_integer:
        if value_range is None:
            raise ValueError(
                f"an integer input's range is decided by clients.request_ranges.request_range; none given for {dt.name}"
            )
        values = draw_integers(value_range, shape if per_position(value_range) else (n,), gen).reshape(-1).astype(dt.numpy)
    elif dt.kind == "bool":
        values = np.ones(n, dtype=bool)
    elif dt.kind == "bytes":
        return {"content": [f"text {i}" for i in range(n)], "shape": shape}
    else:
        values = gen.standard_normal(n).astype("<f4")
    return {**content(dt, np.asarray(values).reshape(shape)), "shape": shape}


def describe_dynamic(
    config: dict[str, Any], spec: ModelSpec | None, shapes: Mapping[str, Sequence[int]] = {}, user_data: Path | None = None
) -> str | None:
    """How :func:`input_args` sizes the dynamic dims of ``config``'s inputs when no axis is
    swept, in words for the report: ``"seq=64 (the build's opt size of axis seq)"`` or
    ``"ids [12] per sample (--shape)"``; a file of the user's inputs (:func:`user_file`): its entries' own
    shapes, what is sent; ``None`` when no input has a dynamic dim or a size is missing
    (the sweep has refused to start then, :func:`resolve_shapes`)."""
    if user_file(user_data) and any(d < 0 for _, dims in config_inputs(config) for d in dims):
        return f"each entry's own shape in --input-data {user_data} (what is sent)"
    try:
        resolved = _resolve(config, spec, shapes)
    except PerfError:
        return None
    said: dict[str, str] = {}
    batching = int(config.get("max_batch_size", 0) or 0) > 0
    for name, r in resolved.items():
        if r.given and r.sizes:  # the dims as every output states them, per sample (clients.request_shapes)
            said[name] = f"{name} {per_sample_shape(r.dims, batching)} (--shape)"
            continue
        for s in r.sizes:
            if s.label != BATCH_AXIS:  # a max_batch_size 0 model's one sample per request: no choice to report
                said.setdefault(s.label, s.describe())
    return "; ".join(said.values()) or None
