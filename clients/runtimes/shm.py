"""Shared memory for the ``container`` runtime: docker's ``--shm-size``, read, checked and
computed from the repository.

Inside a container ``/dev/shm`` is a tmpfs of ``--shm-size`` (docker's default 64 MiB).
Triton's python backend passes every tensor between the server and each model instance's
stub through a shared-memory region in it: 1 MiB per instance to start
(``shm-default-byte-size``), grown in 1 MiB steps (``shm-growth-byte-size``) as tensors
need (python_backend README, "Managing Shared Memory"), in releases from 23.09 on; releases
before 23.09 start each instance at 64 MiB and grow it in 64 MiB steps (the same README as
it stood then: "Python backend, by default, allocates 64 MBs for each model instance"), so
the region per instance depends on the image's tag (:func:`region_bytes`; a tag that is not
``yy.mm``: 64 MiB, the larger). A region that cannot grow fails the model with "Failed to
increase the shared memory pool size ... use '--shm-size'".

The formula (:func:`shm_need_bytes`), over every python-backend model of the repository
(all of them may be loaded at once, as ``--model-control none`` does)::

    need    = sum over models, over instances of (region + max_batch x bytes of one sample's inputs and outputs)
    region  = 1 MiB from 23.09 on, 64 MiB before (:func:`region_bytes`)
    default = max(SHM_FLOOR_BYTES, SHM_HEADROOM x need), rounded up to a MiB

Instances are the ``instance_group`` counts (a ``KIND_GPU`` group with ``gpus`` listed:
count x GPUs; without a group: 1). A dynamic dim counts at the build spec's ``max`` size of
its axis, 1 where the repository has no spec for it (the need is then a lower bound: pass
``--shm-size`` for large dynamic inputs). Strings count :data:`STRING_ELEMENT_BYTES` each.
A tmpfs limit costs nothing until used, so the default errs high; a given value below the
need is refused.
"""

from __future__ import annotations

import logging
import math
import re
from pathlib import Path

from builders.config.pbtxt import mc, read_config
from builders.repository.view import Repository
from core import dtypes
from core.errors import DataTypeError, ServerError, ToolkitError
from core.wording import count

log = logging.getLogger(__name__)

MIB = 1 << 20
#: The python backend's shared-memory region per model instance at start (``shm-default-byte-size``),
#: from release 23.09 on; :data:`OLD_PY_REGION_BYTES` before.
PY_REGION_BYTES = 1 * MIB
OLD_PY_REGION_BYTES = 64 * MIB
#: The first release whose python backend starts regions at :data:`PY_REGION_BYTES`.
SMALL_REGIONS_SINCE = (23, 9)
_TAG = re.compile(r":(\d{2})\.(\d{2})(?:-|$)")
#: The computed default never goes below this: what the container runtime always passed
#: before it was computed (enough for the toolkit's demo and tests).
SHM_FLOOR_BYTES = 1 << 30
#: Multiplier of the need in the default (regions grow in steps and are not compacted).
SHM_HEADROOM = 2
#: Assumed size of one ``TYPE_STRING`` element (their length is not in the config).
STRING_ELEMENT_BYTES = 64
#: docker's size syntax (``docker run --shm-size``; go-units ``RAMInBytes``): a number,
#: optional space, optional unit b/k/m/g/t/p (powers of 1024), optional ``i`` and ``b``.
_SIZE = re.compile(r"^(\d+(?:\.\d+)?) ?([bkmgtp])?i?b?$", re.IGNORECASE)
_UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
#: Python-backend log text of a shared-memory region that could not be created or grown.
SHM_FAILURES = (
    "Failed to increase the shared memory pool size",
    "Unable to initialize shared memory",
    "Failed to initialize shared memory",
    "shared memory region size",
)


def parse_docker_size(text: str) -> int:
    """Bytes of a docker size such as ``1g``, ``512m``, ``1.5GiB``, ``67108864``.

    Raises:
        ServerError: not docker's size syntax, or not above 0 (the message shows the form).
    """
    m = _SIZE.match(str(text).strip())
    size = int(float(m.group(1)) * _UNITS[(m.group(2) or "b").lower()]) if m else 0
    if size <= 0:
        raise ServerError(
            f"--shm-size {text!r} is not a size docker takes",
            hint="a number with an optional unit b, k, m, g (powers of 1024), e.g. 512m or 2g",
            flag="--shm-size",
        )
    return size


def format_docker_size(size: int) -> str:
    """``size`` bytes as a docker size, rounded up to a MiB: ``1g``, ``1536m``."""
    mib = max(1, math.ceil(size / MIB))
    return f"{mib // 1024}g" if mib % 1024 == 0 else f"{mib}m"


def _element_bytes(triton_type: str) -> int:
    dt = dtypes.from_triton(triton_type)
    if dt.kind == "bytes":
        return STRING_ELEMENT_BYTES
    if dt.numpy is None:  # bfloat16
        return 2
    return int(dt.to_numpy().itemsize)


def region_bytes(image: str | None) -> tuple[int, str]:
    """The python backend's shared-memory region per instance at start in ``image``
    (``nvcr.io/nvidia/tritonserver:<yy.mm>-py3``), and why, in words (module docstring).

    Args:
        image: The container image; ``None``: a current release (1 MiB).
    """
    if image is None:
        return PY_REGION_BYTES, "1 MiB per instance"
    m = _TAG.search(image)
    if m is None:
        return OLD_PY_REGION_BYTES, f"64 MiB per instance (the release of {image} is not known: the larger region)"
    tag = (int(m.group(1)), int(m.group(2)))
    if tag < SMALL_REGIONS_SINCE:
        return OLD_PY_REGION_BYTES, f"64 MiB per instance (release {m.group(1)}.{m.group(2)}, before 23.09)"
    return PY_REGION_BYTES, f"1 MiB per instance (release {m.group(1)}.{m.group(2)})"


def shm_need_bytes(repository: Path, image: str | None = None) -> tuple[int, list[str]]:
    """What the repository's python-backend models need in ``/dev/shm`` at once (the
    module's formula), and one line per model saying how its share was counted.

    Models whose ``config.pbtxt`` cannot be read are left out (``builders validate`` names them).

    Args:
        repository: The model repository.
        image: The container image, whose release sets the region per instance (:func:`region_bytes`).
    """
    region, _ = region_bytes(image)
    repository = Path(repository)
    repo = Repository(repository)
    total, lines = 0, []
    for cfg_path in sorted(repository.glob("*/config.pbtxt")):
        try:
            cfg = read_config(cfg_path)
        except ToolkitError:
            continue
        if cfg.backend != "python":
            continue
        sizes: dict[str, int] = {}
        shapes: dict[str, tuple] = {}
        try:
            spec = repo.variant(cfg_path.parent.name).served_spec
        except ToolkitError:
            spec = None
        if spec is not None:
            sizes = spec.axis_sizes("max")
            shapes = {t.name: t.shape for t in (*spec.inputs, *spec.outputs)}
        sample = 0
        for t in (*cfg.input, *cfg.output):
            named = shapes.get(t.name, ())
            dims = [
                d if d >= 0 else (sizes.get(named[i], 1) if i < len(named) and isinstance(named[i], str) else 1)
                for i, d in enumerate(t.dims)
            ]
            try:
                sample += math.prod(dims) * _element_bytes(mc.DataType.Name(t.data_type))
            except DataTypeError:
                continue
        instances = sum(max(1, g.count) * (max(1, len(g.gpus)) if g.kind == g.KIND_GPU else 1) for g in cfg.instance_group) or 1
        batch = max(1, cfg.max_batch_size)
        share = instances * (region + batch * sample)
        total += share
        lines.append(
            f"{cfg.name or cfg_path.parent.name}: {count(instances, 'instance')} x ({region // MIB} MiB + {batch} x {sample} B) "
            f"= {format_docker_size(share)}"
        )
    return total, lines


def default_shm_size(repository: Path, image: str | None = None) -> str:
    """The container's ``--shm-size`` when none is given: ``max(SHM_FLOOR_BYTES,
    SHM_HEADROOM x need)`` (module docstring) for ``image``'s release."""
    need, _ = shm_need_bytes(repository, image)
    return format_docker_size(max(SHM_FLOOR_BYTES, SHM_HEADROOM * need))


def check_shm_size(given: str, repository: Path, image: str | None = None) -> None:
    """Refuse a ``--shm-size`` docker would not take, or below the repository's need in ``image``.

    Raises:
        ServerError: names the value, the need and how it was counted, and what to pass.
    """
    size = parse_docker_size(given)
    need, lines = shm_need_bytes(repository, image)
    if size < need:
        raise ServerError(
            f"--shm-size {given} is below what the python-backend models of {repository} need in /dev/shm: "
            f"{format_docker_size(need)}, regions of {region_bytes(image)[1]} "
            f"({'; '.join(lines[:5])}{'; ...' if len(lines) > 5 else ''})",
            hint=f"pass --shm-size {default_shm_size(repository, image)} (the default computed for this repository and "
            "image), or leave it out",
            flag="--shm-size",
        )


def shm_failure_hint(text: str, shm_size: str) -> str | None:
    """The fix for a python-backend model that failed for shared memory in a container
    (``text``: Triton's error or the server log), else ``None``."""
    if not any(s in text for s in SHM_FAILURES):
        return None
    bigger = format_docker_size(2 * parse_docker_size(shm_size)) if _SIZE.match(shm_size.strip()) else "2g"
    return (
        f"the python backend ran out of shared memory: the container's /dev/shm is --shm-size {shm_size}; "
        f"pass a larger --shm-size (e.g. {bigger}), or fewer instances / a smaller max_batch_size"
    )
