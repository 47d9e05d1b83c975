"""Request inputs read from a file: ``.npz``/``.npy`` arrays or perf_analyzer's ``--input-data`` JSON.

The same file serves ``clients infer --input-data`` (:func:`load_input_file`: one request) and
``triton-perf sweep --input-data`` (:func:`load_samples`: every sample, which the sweep writes as
perf_analyzer's JSON). Values reach the config's dtypes by one rule for every format
(:func:`core.casts.convert`: JSON numbers, which have no dtype, and arrays of another dtype
alike; a value the cast would change, ``2.7`` for an int64 input, is refused). Arrays are checked against the build's verified
ranges (:func:`clients.shapes.check_sizes`) and their values against its spec
(:func:`clients.input_values.check_values`) as they are read; names, ranks, dims and dtypes against
the served config when they are sent (:func:`clients.inputs.validate_inputs`), or, for the sweep, as
they are read, before any server starts.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.spec import ModelSpec
from clients import shapes as shp
from clients.input_values import check_values
from clients.inputs import ModelSignature, TensorInfo, casts, validate_inputs
from core.casts import convert
from core.errors import ClientError
from core.names import file_problem, misnamed, read_text

log = logging.getLogger(__name__)


def load_input_file(
    path: Path,
    sig: ModelSignature,
    batch_size: int = 1,
    spec: ModelSpec | None = None,
    *,
    batch_given: bool = False,
    cast: bool = True,
    said: Callable[[str, str], None] | None = None,
) -> dict[str, np.ndarray]:
    """Read inputs from ``.npz`` (one array per input name, or ``input:<name>`` keys as in a
    build's ``reference.npz``), ``.npy`` (a model with exactly one input) or ``.json`` in
    perf_analyzer's ``--input-data`` form (the same file serves both tools). No pickles.
    Their dynamic dims are checked against the build's verified ranges
    (:func:`clients.shapes.check_sizes`) and their values against the build's spec
    (:func:`clients.input_values.check_values`: a domain break is refused; an integer value
    outside the verified range, below or above it, is sent with a warning) before anything is sent.

    Args:
        path: The file.
        sig: The served model's signature.
        batch_size: Samples per request taken from a ``.json`` file (cycling through its entries).
        spec: The build's spec under served names, or ``None``.
        batch_given: Whether the user gave ``batch_size`` (``-b``): a ``.npy``/``.npz`` file's
            rows are the batch, and a given batch size that differs is refused, not ignored.
        cast: Convert an array of another dtype by :func:`core.casts.convert`'s rule (a value it
            would change is refused); ``False`` refuses any other dtype (``--no-cast``). JSON
            numbers, which have no dtype, are always converted by that rule.
        said: Told each cast made, with the input's name and :func:`clients.inputs.cast_words`
            (``clients infer`` says it on the input's line); default: a logged warning naming the file.

    Returns:
        Input name -> array, in the config's dtypes (:func:`clients.inputs.validate_inputs`).

    Raises:
        ClientError: unreadable file, a pickled array, a ``.npy`` for a multi-input model, a
            batch size the model cannot take or that differs from the file's rows, a size
            outside its axis's verified range, a value that breaks its input's domain, or what
            :func:`clients.inputs.validate_inputs` refuses (a value no cast keeps); the message names the file.
    """
    shp.check_batch_size(sig.name, sig.max_batch_size, batch_size)
    arrays = _read(Path(path), sig, batch_size)
    if batch_given and sig.max_batch_size > 0 and Path(path).suffix != ".json":
        rows = sorted({int(np.shape(v)[0]) for v in arrays.values() if np.ndim(v)})
        if rows and rows != [batch_size]:
            raise ClientError(
                f"-b {batch_size} asks for {batch_size} rows per request, but {path} holds {', '.join(map(str, rows))} "
                "(the first axis of its arrays is the batch)",
                hint=f"drop -b to send the file's rows, or save {batch_size} rows per input",
            )
    notes = casts(sig, arrays)  # the file's own dtypes, said once the cast is made
    arrays = _validated(path, sig, arrays, cast)
    dims = {k: np.shape(v)[1:] if sig.max_batch_size > 0 else np.shape(v) for k, v in arrays.items()}
    shp.check_sizes(sig.name, [(t.name, t.dims) for t in sig.inputs], sig.max_batch_size, spec, dims, str(path))
    check_values(str(path), spec, {k: [v] for k, v in arrays.items()})
    for name, words in notes.items():
        (said or _logged(str(path)))(name, words)
    return arrays


def _logged(where: str) -> Callable[[str, str], None]:
    """A cast said as a logged warning: ``"f.npy: input 'x' is float64, cast to the served float32 ..."``."""
    return lambda name, words: log.warning("%s: input %r is %s", where, name, words)


def _validated(path: Path, sig: ModelSignature, arrays: dict[str, np.ndarray], cast: bool = True) -> dict[str, np.ndarray]:
    """:func:`clients.inputs.validate_inputs` of one request read from ``path``, a refusal naming the file."""
    try:
        return validate_inputs(sig, arrays, cast)
    except ClientError as e:
        raise ClientError(f"{path}: {e.message}", hint=e.hint) from None


#: The file kinds :func:`load_input_file` and :func:`load_samples` read, by suffix.
FILE_KINDS = (".npz", ".npy", ".json")


def load_samples(
    path: Path, sig: ModelSignature, spec: ModelSpec | None = None, where: str | None = None, *, values: bool = True
) -> list[dict[str, np.ndarray]]:
    """Every sample of an input file (one reader with :func:`load_input_file`), checked before
    anything is sent: names, ranks, dims and dtypes against the config
    (:func:`clients.inputs.validate_inputs`, its cast policy), dynamic dims against the build's
    verified ranges (:func:`clients.shapes.check_sizes`) and values against its spec
    (:func:`clients.input_values.check_values`). What perf_analyzer's ``--input-data`` takes, one
    entry per sample (perf_analyzer docs, "Input Data").

    Args:
        path: A ``.npz``, ``.npy`` or perf_analyzer ``.json`` file (:data:`FILE_KINDS`).
        sig: The model's signature (its config).
        spec: The build's spec under served names, or ``None``.
        where: The file in the value checks' and the casts' words (default: its path).
        values: Check the values and say the casts, once for the whole file (``False``: a file
            checked, and its warnings said, before).

    Returns:
        One dict per sample, input name -> array without the batch axis, in the config's dtypes:
        each row of a batching model's arrays (their first axis), each entry of a JSON file; a
        ``max_batch_size: 0`` model's arrays as they are.

    Raises:
        ClientError: what :func:`load_input_file` refuses, or an input the config does not take,
            lacks, or takes with another rank, dim or dtype; the message names the file.
    """
    path = Path(path)
    if path.suffix == ".json":
        requests = [_json_arrays(path, sig, [(i, e)]) for i, e in enumerate(_entries(path))]
    else:
        arrays = _read(path, sig, 1)
        rows = {int(np.shape(v)[0]) for v in arrays.values() if np.ndim(v)} if sig.max_batch_size > 0 else set()
        step = sig.max_batch_size  # requests of at most max_batch_size rows, each checked as clients infer checks one
        whole = [arrays] if len(rows) != 1 else []
        requests = whole or [{k: v[i : i + step] for k, v in arrays.items()} for i in range(0, max(rows), step)]
    samples: list[dict[str, np.ndarray]] = []
    found: dict[str, list[np.ndarray]] = {}
    notes: dict[str, str] = {}
    for request in requests:
        notes.update(casts(sig, request))
        checked = _validated(path, sig, request)
        dims = {k: np.shape(v)[1:] if sig.max_batch_size > 0 else np.shape(v) for k, v in checked.items()}
        shp.check_sizes(sig.name, [(t.name, t.dims) for t in sig.inputs], sig.max_batch_size, spec, dims, str(path))
        for k, v in checked.items():
            found.setdefault(k, []).append(v)
        n = len(next(iter(checked.values()))) if sig.max_batch_size > 0 and checked else 0
        samples += [{k: v[i] for k, v in checked.items()} for i in range(n)] if n else [checked]
    if not samples:
        raise ClientError(f"{path} holds no sample (its arrays have no rows)", hint="save at least one row per input")
    if values:
        check_values(where or str(path), spec, found)  # said once for the whole file
        for name, words in notes.items():  # and its casts, once (not once per request of max_batch_size rows)
            _logged(where or str(path))(name, words)
    return samples


def readable(path: Path) -> None:
    """Refuse an input file that is missing, a folder or unreadable, before its format is judged
    (:func:`core.names.file_problem`): a missing file was told to be "a .npy or .npz written by numpy".

    Raises:
        ClientError: the file cannot be opened; the message says why (not found, a folder, permission).
    """
    problem = file_problem(Path(path), "input file", "*" + Path(path).suffix if Path(path).suffix in FILE_KINDS else "*")
    if problem is not None:
        raise ClientError(problem[0], hint=problem[1])


def _read(path: Path, sig: ModelSignature, batch_size: int) -> dict[str, np.ndarray]:
    path = Path(path)
    readable(path)
    if path.suffix == ".json":
        return _load_perf_analyzer_json(path, sig, batch_size)
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ClientError(
            f"could not read inputs from {path}: {e}", hint="give a .npy or .npz written by numpy (no pickled objects)"
        ) from e
    if isinstance(loaded, np.ndarray):
        if len(sig.inputs) != 1:
            raise ClientError(
                f"{path} holds one array but {sig.name} takes {len(sig.inputs)} inputs ({', '.join(t.name for t in sig.inputs)})",
                hint="save them in one .npz with one key per input name",
            )
        return {sig.inputs[0].name: loaded}
    with loaded as z:
        arrays = {k: z[k] for k in z.files}
    if any(k.startswith("input:") for k in arrays):
        arrays = {k.split(":", 1)[1]: v for k, v in arrays.items() if k.startswith("input:")}
    return arrays


def _load_perf_analyzer_json(path: Path, sig: ModelSignature, batch_size: int) -> dict[str, np.ndarray]:
    """Inputs from perf_analyzer's input-data JSON (perf_analyzer docs, "Input Data"):
    ``{"data": [{NAME: {"content": [...] | {"b64": ...}, "shape": [...]} | [...]}, ...]}``, one entry
    per sample (no batch axis; ``b64``: little-endian bytes, perf_analyzer's form for FP16). A batching model gets ``batch_size`` entries, cycling through them.

    Raises:
        ClientError: not that form, or an entry that misses an input.
    """
    entries = _entries(path)
    n = batch_size if sig.max_batch_size > 0 else 1
    return _json_arrays(path, sig, [(i % len(entries), entries[i % len(entries)]) for i in range(n)])


def _json_arrays(path: Path, sig: ModelSignature, entries: list[tuple[int, dict]]) -> dict[str, np.ndarray]:
    """One request of ``entries`` (index, entry) of a JSON file: a batching model's samples stacked.

    Raises:
        ClientError: an entry that misses an input, content that does not fit its shape or
            dtype (:func:`_json_values`), or entries of different shapes.
    """
    known = {t.name: t for t in sig.inputs}
    out: dict[str, np.ndarray] = {}
    for name, t in known.items():
        samples = []
        for i, entry in entries:
            if name not in entry:  # a key near it that names no input: did you mean (T23-13)
                typo = "".join(f"; its key {k!r} names no input (did you mean {m!r}?)" for k, m in misnamed(entry, known).items())
                raise ClientError(f"{path}: entry {i} has no input {name!r}{typo}", hint=f"the model takes {', '.join(known)}")
            samples.append(_json_values(path, i, entry[name], t))
        try:
            out[name] = np.stack(samples) if sig.max_batch_size > 0 else samples[0]
        except ValueError:
            raise ClientError(
                f"{path}: the entries of input {name!r} have different shapes {sorted({x.shape for x in samples})}",
                hint="one request batches samples of one shape: give its entries one shape, or use -b 1",
            ) from None
    return out


def _json_values(path: Path, i: int, item: Any, t: TensorInfo) -> np.ndarray:
    """One input of entry ``i`` in ``t``'s dtype and shape: ``[...]``, ``{"b64": ...}`` or
    ``{"content": [...] | {"b64": ...}, "shape": [...]}`` (perf_analyzer docs, "Input Data"). Numbers
    are converted by :func:`core.casts.convert`'s rule (JSON has no dtypes: ``2.7`` for an int64
    input is refused, not truncated); ``b64`` is the dtype's little-endian bytes as they are.

    Raises:
        ClientError: a form, shape or value that does not fit ``t``.
    """
    form = f'give each entry of {t.name!r} as {{"content": [...], "shape": [...]}} (perf_analyzer\'s input-data form)'
    where = f"{path}: entry {i}"
    if isinstance(item, dict) and "content" not in item and "b64" not in item:
        raise ClientError(f'{where}: input {t.name!r} has neither "content" nor "b64" ({sorted(item)})', hint=form)
    content, shape = (item.get("content", item), item.get("shape")) if isinstance(item, dict) else (item, None)
    if shape is None and list(t.dims).count(-1) > 1:
        raise ClientError(
            f'{path}: input {t.name!r} has several dynamic dims {list(t.dims)}: its entries need a "shape"', hint=form
        )
    if shape is not None and not (
        isinstance(shape, list) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise ClientError(f'{where}: input {t.name!r} has "shape" {shape!r}, not a list of whole numbers >= 0', hint=form)
    want = shape if shape is not None else list(t.dims)
    try:
        if isinstance(content, dict) and "b64" in content:  # raw little-endian bytes (perf_analyzer's FP16 form)
            raw, size = base64.b64decode(content["b64"]), np.dtype(t.dtype).itemsize
            if len(raw) % size:
                raise ClientError(
                    f'{where}: input {t.name!r} has {len(raw)} bytes of "b64", not a whole number of {t.dtype} values '
                    f"({size} bytes each)",
                    hint=form,
                )
            values = np.frombuffer(raw, np.dtype(t.dtype).newbyteorder("<")).astype(t.dtype)
        else:
            given = np.asarray(content)  # a text among numbers makes every value a text: keep each as given
            given = np.asarray(content, dtype=object) if given.dtype.kind in "US" else given
            values = convert(given, t.name, t.dtype, t.triton_dtype, where)
    except (ValueError, TypeError, binascii.Error) as e:
        raise ClientError(f"{where}: input {t.name!r} is not {t.dtype} of shape {want} ({e})", hint=form) from None
    count = _count_problem(values.size, want)
    if count is not None:  # break test B9: numpy's "cannot reshape array of size 5 into shape (4,)"
        raise ClientError(
            f"{where}: input {t.name!r} has {values.size} values; shape {want} takes {count}",
            hint=f'give {t.name!r} {count} values in each entry (shape {want}, without the batch axis), or a "shape" they fill',
        )
    return values.reshape(want)


def _count_problem(given: int, shape: list[int]) -> str | None:
    """How many values ``shape`` takes when ``given`` do not fill it (one ``-1`` at most: a dynamic dim
    of any size), in words (``"4"``, ``"a multiple of 4"``), or ``None`` when they do."""
    fixed = int(np.prod([d for d in shape if d != -1]))
    if -1 not in shape:
        return None if given == fixed else str(fixed)
    if (fixed and given % fixed == 0) or (not fixed and not given):
        return None
    return f"a multiple of {fixed} (its fixed dims)"


def _entries(path: Path) -> list[dict]:
    """The ``data`` entries of a perf_analyzer input-data JSON file.

    Raises:
        ClientError: a file missing, unreadable or not UTF-8 text (:func:`core.names.read_text`), or not that form.
    """
    text = read_text(Path(path), "input file", "perf_analyzer input data (JSON)", ClientError, pattern="*.json")
    try:
        entries = json.loads(text)["data"]
        assert isinstance(entries, list) and entries and all(isinstance(e, dict) for e in entries)
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as e:
        raise ClientError(
            f"{path} is not perf_analyzer input data ({type(e).__name__}: {e})",
            hint='expected {"data": [{"NAME": {"content": [...], "shape": [...]}}, ...]}',
        ) from None
    return entries
