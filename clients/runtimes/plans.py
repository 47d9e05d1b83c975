"""A TensorRT plan loads only on the TensorRT that built it: checked against the serving
release before a container is started or a server is asked to load it.

The plan's TensorRT version is the one its build recorded (the build manifest, through the
repository index); the serving release's is in :mod:`builders.triton.releases`, found from the
container image's tag (``nvcr.io/nvidia/tritonserver:24.10-py3``) or a server's version. The
comparison is :func:`builders.repository.release_checks.check_tensorrt_version`, the one
``builders validate --target-triton`` runs: the launcher, ``clients check`` and the sweep run
it before anything starts (:func:`plan_problems`), and every load runs it again
(:meth:`clients.server.TritonServer.check_servable`). Where the release or the recorded
version is not known, nothing is refused and the log says the check did not run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from core.errors import ServerError, ToolkitError

log = logging.getLogger(__name__)


def plan_problem(repository: Path, model: str, serving: str | None) -> str | None:
    """Why the TensorRT plan of ``model`` will not load on ``serving``, or ``None`` (not a plan,
    the versions agree, or the check cannot run: logged).

    Args:
        repository: The model repository.
        model: The model folder.
        serving: The serving release: a container image or tag, or a server version; ``None``: not known.
    """
    from builders.backends import model_backend, model_filename
    from builders.config.pbtxt import read_config
    from builders.repository.release_checks import check_tensorrt_version
    from builders.triton.releases import release

    folder = Path(repository) / model
    try:
        cfg = read_config(folder / "config.pbtxt")
    except ToolkitError:
        return None  # the server says what is wrong with it
    if model_backend(cfg) != "tensorrt":
        return None
    if serving is None:
        log.info("%s: the serving release is not known here: its plan's TensorRT version is not checked", model)
        return None
    try:
        target = release(serving)
    except ToolkitError:
        log.info(
            "%s: %s is not a release in builders/triton/releases.py: its plan's TensorRT version is not checked", model, serving
        )
        return None
    versions = sorted((d for d in folder.iterdir() if d.is_dir() and d.name.isdigit()), key=lambda d: int(d.name))
    if not versions:
        return None
    problems: list = []
    skipped: list = []
    check_tensorrt_version(folder, versions[-1] / (model_filename(cfg) or "model.plan"), target, problems, skipped)
    for s in skipped:
        log.info("%s: TensorRT version not checked: %s", model, s.problem)
    if not problems:
        return None
    p = problems[0]
    return f"{model}: {p.problem}; {p.fix}"


def plan_problems(repository: Path, models: Iterable[str], serving: str | None) -> dict[str, str]:
    """:func:`plan_problem` of each of ``models`` that has one: model -> why."""
    out = {}
    for m in models:
        why = plan_problem(repository, m, serving)
        if why:
            out[m] = why
    return out


def refuse_plans(repository: Path, models: Sequence[str], serving: str | None) -> dict[str, str]:
    """Check the TensorRT plans among ``models`` before a server is started (:func:`plan_problems`).

    Returns:
        The models refused, with why (logged; each is refused again when loaded).

    Raises:
        ServerError: every one of ``models`` is refused: nothing is started for nothing.
    """
    bad = plan_problems(repository, models, serving)
    if bad and len(bad) == len(models):
        raise ServerError(
            "; ".join(bad.values()) + " (checked before starting the server: nothing was started)",
            hint="rebuild the plans inside the serving release's image, or serve them with the release that built them (--tag)",
        )
    for why in bad.values():
        log.warning("%s", why)
    return bad
