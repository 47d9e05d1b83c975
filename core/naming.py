"""Variant names: built and parsed in one place.

A variant's name says what it is and is its folder (= Triton model) name in the repository
(Triton docs, "Model Repository": the folder name is the model name)::

    <model>_<fmt>[-<precision>]_<kind><count>[g<ids>]_<db<delay_us>[p<sizes>]|nodb>_mbs<n>[_ortrt-<precision>][_warm-<data>]

e.g. ``mlp_onnx_cpu2_db500_mbs64`` or ``my_net_onnx_gpu1g0_db100p8-16_mbs64_ortrt-fp16_warm-zero``.
The model part may itself contain ``_``: :func:`parse_variant_name` reads the fixed fields from
the right, so every name :func:`variant_name` builds parses back to the same fields.
"""

from __future__ import annotations

import dataclasses
import re

from core import formats
from core.errors import ConfigError
from core.precision import PRECISION_NAMES, TRT_ACCELERATOR_PRECISIONS

#: Safe as a directory name on every platform Triton runs on, and as a Triton model name.
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: Model warmup data (Triton docs, "Model Configuration: Model Warmup"):
#: ``random`` -> ``random_data: true``, ``zero`` -> ``zero_data: true``.
WARMUPS = ("random", "zero")

_ALT = "|".join
_PATTERN = re.compile(
    rf"^(?P<model>.+)_(?P<fmt>{_ALT(f.token for f in formats.FORMATS)})(?:-(?P<precision>{_ALT(PRECISION_NAMES)}))?"
    r"_(?P<kind>cpu|gpu)(?P<count>\d+)(?:g(?P<gpus>\d+(?:-\d+)*))?"
    r"_(?:db(?P<delay>\d+)(?:p(?P<pref>\d+(?:-\d+)*))?|(?P<nodb>nodb))"
    r"_mbs(?P<mbs>\d+)"
    rf"(?:_ortrt-(?P<acc>{_ALT(TRT_ACCELERATOR_PRECISIONS)}))?"
    rf"(?:_warm-(?P<warm>{_ALT(WARMUPS)}))?$"
)


@dataclasses.dataclass(frozen=True)
class NameParts:
    """The fields a variant name encodes: ``builders.config.variants.Variant`` is this class with
    Triton's rules checked at construction (the one list of a variant's parameters)."""

    model: str
    format: str
    precision: str = "fp32"
    kind: str = "cpu"
    count: int = 1
    max_batch_size: int = 64
    dynamic_batching: bool = False
    max_queue_delay_us: int = 0
    preferred_batch_sizes: tuple[int, ...] = ()
    gpus: tuple[int, ...] = ()
    warmup: str | None = None
    trt_accelerator: str | None = None


def check_name(name: str, field: str = "name") -> None:
    """Raise :class:`ConfigError` unless ``name`` is safe as a directory and model name.

    Raises:
        ConfigError: ``name`` is empty, starts with ``.``/``-``/``_`` or has characters other
            than letters, digits, ``_``, ``-`` and ``.``.
    """
    if not NAME_RE.match(name or ""):
        raise ConfigError(
            f"{field}: {name!r} is not safe as a directory name",
            hint="use letters, digits, '_', '-' and '.', starting with a letter or digit",
        )


def variant_name(p: NameParts) -> str:
    """The name of the variant with fields ``p`` (see the module docstring)."""
    fmt = formats.get(p.format).token + ("" if p.precision == "fp32" else f"-{p.precision}")
    db = f"db{p.max_queue_delay_us}" if p.dynamic_batching else "nodb"
    if p.dynamic_batching and p.preferred_batch_sizes:
        db += "p" + "-".join(map(str, p.preferred_batch_sizes))
    gpus = ("g" + "-".join(map(str, p.gpus))) if p.gpus else ""
    name = f"{p.model}_{fmt}_{p.kind}{p.count}{gpus}_{db}_mbs{p.max_batch_size}"
    if p.trt_accelerator:
        name += f"_ortrt-{p.trt_accelerator}"
    if p.warmup:
        name += f"_warm-{p.warmup}"
    return name


def parse_variant_name(name: str) -> NameParts | None:
    """The fields encoded in a variant name, or ``None`` when ``name`` is not one."""
    m = _PATTERN.match(name)
    if not m:
        return None
    g = m.groupdict()
    fmt = formats.from_token(g["fmt"])
    assert fmt is not None  # the pattern only admits known tokens
    return NameParts(
        model=g["model"],
        format=fmt.name,
        precision=g["precision"] or "fp32",
        kind=g["kind"],
        count=int(g["count"]),
        max_batch_size=int(g["mbs"]),
        dynamic_batching=g["nodb"] is None,
        max_queue_delay_us=int(g["delay"] or 0),
        preferred_batch_sizes=tuple(int(x) for x in g["pref"].split("-")) if g["pref"] else (),
        gpus=tuple(int(x) for x in g["gpus"].split("-")) if g["gpus"] else (),
        warmup=g["warm"],
        trt_accelerator=g["acc"],
    )


#: ``-h``'s metavar of every flag that takes variant names or patterns (:func:`variant_patterns`).
PATTERNS_METAVAR = "NAME|PATTERN[,...]"
#: What a variant pattern may hold besides :data:`NAME_RE`'s characters: shell wildcards (``fnmatch``).
_WILDCARDS = "*?[]!"


def variant_patterns(text: str) -> list[str]:
    """The variant names or shell patterns (``mlp_*``) of one value of a flag that takes them:
    a comma list, ``"mlp_onnx_*,tiny_ts_*"`` -> ``["mlp_onnx_*", "tiny_ts_*"]``, empty parts dropped.

    The one parser of every such flag (``triton-perf sweep/coldstart/baseline --variants``, ``clients check
    --variants``, the launcher's ``--load-model``, ``triton-perf colocate --model NAME=PATTERN,...``), so a
    comma list means the same everywhere (trial 12, F3: ``--load-model A,B`` was taken as one name).

    Raises:
        ValueError: a part holds a character no variant name or pattern has (a space, ``/``, ``=``), or
            ``text`` has no part (``","``): an empty list is not "every variant" (break test B14).
    """
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise ValueError(f"{text!r} names no variant: {_GIVE}")
    for part in parts:
        bad = sorted({c for c in part if not _allowed(c)})
        if bad:
            fixed = part.replace(" ", "_")  # its spaces as underscored() makes them; the rest is checked on matching
            mean = f" (did you mean {fixed!r}?)" if all(_allowed(c) for c in fixed) else ""
            raise ValueError(
                f"{part!r} is not a variant name or shell pattern (it holds {' '.join(repr(c) for c in bad)}){mean}: {_GIVE}"
            )
    return parts


#: What a flag that takes variant patterns is given, in its refusals: no example of one repository's models (s22z,
#: Z-6: a repository of ``twoin`` was told "names such as mlp_onnx_cpu2_nodb_mbs64", the demo's).
_GIVE = (
    "give variant names (MODEL_FORMAT_..., as `builders variants` prints them) or shell patterns such as 'MODEL_onnx_*', "
    "comma-separated"
)


def _allowed(c: str) -> bool:
    """Whether a variant name or pattern may hold character ``c``."""
    return c.isascii() and (c.isalnum() or c in "_.-" + _WILDCARDS)


def underscored(pattern: str) -> str:
    """``pattern`` with its separators ``-``, ``.`` and spaces made ``_``, a variant name's one separator: the first
    did-you-mean of a pattern that matches nothing (``'tinyvit-onnx*'``, ``'twoin onnx*'`` -> ``'twoin_onnx*'``;
    :func:`builders.repository.patterns.meant`), and of one that holds a space, refused before any repository is read
    (:func:`variant_patterns`; s22z, Z-6)."""
    return re.sub(r"[-. ]", "_", pattern)
