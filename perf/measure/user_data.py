"""The user's own ``--input-data``, checked for each variant before any server starts, as ``clients infer
--input-data`` checks a file (:func:`check_user_data`), and named in a failed level's error, in ``clients infer``'s
words when the server refused its values (:func:`refused_words`). :mod:`perf.measure.inputs` sends it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.spec import ModelSpec
from clients import shapes as shp
from clients.input_files import FILE_KINDS, load_samples
from clients.input_values import check_values, verified_range
from clients.inputs import ModelSignature
from clients.request_refusals import PAST_TABLE, past_table_line
from core.errors import ClientError, PerfError
from core.names import file_problem
from perf.measure.inputs import OWN_FORMS, config_inputs

log = logging.getLogger(__name__)


def check_user_data(
    variant: str, config: dict[str, Any], spec: ModelSpec | None, user_data: Path, shapes: Mapping[str, Sequence[int]] = {}
) -> None:
    """Check the user's ``--input-data`` for one variant before any server starts, as ``clients
    infer --input-data`` checks a file (:func:`clients.input_files.load_samples`, the same reader):
    names, ranks, dims and dtypes against ``config``, dynamic dims against the build's verified
    ranges, values by :func:`clients.input_values.check_values`'s rule (a domain break refused, an
    integer value outside the verified range sent with a warning). ``zero`` is all zeros;
    ``random`` is perf_analyzer's own values, which no range bounds (said for each integer input the
    build verified on a range). A folder of raw files is perf_analyzer's to read, not checked here.

    Args:
        variant: The variant, named in the message.
        config: Its ``config.pbtxt`` as JSON.
        spec: The build's spec under served names, or ``None``.
        user_data: The ``--input-data`` value.
        shapes: The user's ``--shape`` values (checked as :func:`perf.measure.inputs.input_args` checks them).

    Raises:
        PerfError: a missing file (said as such, :func:`core.names.file_problem`), a file of another kind, or
            one the reader refuses; the message names the file
            and the variant. No run folder has been written then.
    """
    what = f"{variant}'s --input-data {user_data}"
    if str(user_data) == "random":
        for t in spec.inputs if spec is not None else ():
            if (verified := verified_range(t)) is not None:
                log.warning(
                    "%s: perf_analyzer sends its own random values for %r, not drawn from the build's verified range "
                    "%s (%s): nothing checked the answers to values outside it -> pass a JSON file of values within it, "
                    "or leave --input-data out (generated within it)",
                    what,
                    t.name,
                    verified.text,
                    verified.source,
                )
        return
    if str(user_data) == "zero":
        zeros = (
            {t.name: [np.zeros((1, *(1 for _ in t.shape)), t.dtype)] for t in spec.inputs if t.dtype != "bytes"} if spec else {}
        )
        check_values(what, spec, zeros, error=PerfError)
        return
    if not user_data.exists():  # not found is said as such, never as advice about the file's kind (trial 12, F10)
        message, hint = file_problem(user_data, "--input-data") or ("", "")
        raise PerfError(message, hint=hint, flag="--input-data")
    if user_data.is_dir():
        return
    kinds = ", ".join(FILE_KINDS)
    if user_data.suffix not in FILE_KINDS:
        raise PerfError(
            f"--input-data {user_data}: not a kind of file the sweep reads ({kinds}, as clients infer reads them)",
            hint=f'give a {kinds} file (perf_analyzer\'s JSON: {{"data": [{{"NAME": {{"content": [...], "shape": [...]}}}}]}}), '
            f"a folder of raw files, or {' or '.join(OWN_FORMS)}",
            flag="--input-data",
        )
    try:
        load_samples(user_data, ModelSignature.from_config(config), spec, what)
        mbs = int(config.get("max_batch_size", 0) or 0)
        shp.check_sizes(config.get("name", variant), config_inputs(config), mbs, spec, shapes)
    except ClientError as e:
        said = e.message if str(user_data) in e.message else f"--input-data {user_data}: {e.message}"
        raise PerfError(said if variant in said else f"{variant}: {said}", hint=e.hint) from None


def refused_words(error: str, user_data: Path | None, spec: ModelSpec | None) -> str:
    """A failed level's ``error`` naming the user's ``--input-data`` it sent, if any (trial 11, F21: "cb::Error
    : 3" named neither the file nor what was wrong); when the server's words say an integer input
    indexed past a table (:func:`clients.request_refusals.past_table_line`), that in the words ``clients
    infer`` uses, the server's own line (not a TorchScript traceback: trial 23, T23-12) and the
    build's verified range of each integer input (:func:`clients.input_values.verified_range`)."""
    sent = f" (inputs: --input-data {user_data})" if user_data is not None else ""
    line = past_table_line(error)
    if line is None:
        return f"{error}{sent}"
    ranges = [f"{t.name!r} {v.text} ({v.source})" for t in (spec.inputs if spec else ()) if (v := verified_range(t))]
    verified = f"; the build verified {', '.join(ranges)}" if ranges else ""
    return f"the server refused the requests{sent}: {PAST_TABLE} (the server: {line}){verified}"
