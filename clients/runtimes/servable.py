"""Whether a runtime's server can load a repository's models, asked before the server is asked:
:func:`check_servable` for one model (every load runs it), :func:`models_at_start` for the models a
server loads as it starts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import ServerError


def models_at_start(model_control: str, load_models: Sequence[str], repository: Path) -> list[str]:
    """The models a server loads at start: ``load_models`` in explicit model control, every
    model folder of ``repository`` in modes ``none`` and ``poll``; sorted."""
    if model_control == "explicit":
        return sorted(load_models)
    return sorted(p.parent.name for p in Path(repository).glob("*/config.pbtxt"))


def check_servable(runtime: Any, reason: str, repository: Path, model: str) -> None:
    """Refuse, before asking the server, a model whose backend this runtime's server lacks
    (a ``--serving native`` variant on the bundled server, which has the python backend
    only), naming the runtimes that serve it. Models without a readable config are left
    to the server.

    Args:
        runtime: The :class:`clients.runtimes.base.Runtime` serving it (its ``backends``).
        reason: Why that runtime (``"asked for"``, or what ``auto`` found).
        repository: The model repository.
        model: The model name.

    Raises:
        ServerError: the model's ``config.pbtxt`` names a backend the runtime does not have,
            or it is a TensorRT plan built with another TensorRT than the server's release
            has (:func:`clients.runtimes.plans.plan_problem`).
    """
    from clients.runtimes.plans import plan_problem

    wrong_plan = plan_problem(Path(repository), model, runtime.serving_release())
    if wrong_plan:
        raise ServerError(wrong_plan, hint="nothing was sent to the server")
    have = runtime.backends
    path = Path(repository) / model / "config.pbtxt"
    if have is None or not path.is_file():
        return
    from builders.backends import model_backend
    from builders.config.pbtxt import read_config
    from core.errors import ConfigError

    try:
        cfg = read_config(path)
    except ConfigError:
        return  # the server says what is wrong with it
    backend = model_backend(cfg)
    if not backend or backend in have:
        return
    how = f"platform {cfg.platform}" if cfg.platform else f"backend {cfg.backend}"
    why = "" if reason == "asked for" else f" (chosen by --runtime auto: {reason})"
    raise ServerError(
        f"model {model!r} needs Triton's {backend!r} backend ({how} in its config.pbtxt, a --serving native build); "
        f"the {runtime.name} runtime{why} has only the {', '.join(have)} backend",
        hint="serve it with --runtime local (a tritonserver on PATH or $TRITONSERVER, e.g. inside NVIDIA's "
        "nvcr.io/nvidia/tritonserver image) or --runtime container (that image through Docker); or rebuild with "
        "`builders build --serving python` for the bundled CPU server",
    )


def refuse_unservable(
    runtime: Any,
    reason: str,
    repository: Path,
    names: Sequence[str],
    *,
    every: str | None = None,
    nothing: str = "nothing was started",
) -> dict[str, str]:
    """The one rule of every command that starts a server for named models (the sweep, colocate,
    ``clients check``, ``triton-perf coldstart``, the launcher's ``--load-model``), run before the
    server starts: each of ``names`` the runtime's server cannot load (:func:`check_servable`: a
    ``--serving native`` variant on the bundled server) is found; when it can load none of them, or
    the command needs ``every`` one, the command is refused naming each with why, so no server is
    started to fail each load (trial 15, T15-9: ``clients check`` did, where the sweep refused).

    Args:
        runtime: The :class:`clients.runtimes.base.Runtime` that would serve them.
        reason: Why that runtime (``"asked for"``, or what ``auto`` found).
        repository: The model repository.
        names: The models the command would load.
        every: Set when the command needs every one of ``names`` (a co-location search, models a
            server loads as it starts): what to leave them out of (``"the --model patterns"``).
        nothing: What the refusal left undone, ending the message (``"nothing was started"``).

    Returns:
        The models its server cannot load, each with why (the caller fails them unloaded; each
        load refuses them again).

    Raises:
        ServerError: it can load none of ``names`` (or not all where ``every`` is set); the hint
            is each reason's own (the runtimes that serve them, a rebuild).
    """
    unservable: dict[str, str] = {}
    hints: dict[str, None] = {}
    for name in names:
        try:
            check_servable(runtime, reason, Path(repository), name)
        except ServerError as e:
            unservable[name] = e.message
            hints[e.hint or ""] = None
    if unservable and (every or len(unservable) == len(names)):
        what = (
            ", ".join(unservable)
            if len(unservable) < len(names)
            else "the only variant"
            if len(names) == 1
            else f"any of the {len(names)} variants"
        )
        hint = "; ".join(h for h in hints if h) + (f"; or leave them out of {every}" if every else "")
        raise ServerError(
            f"the {runtime.name} runtime's server cannot load {what}: {'; '.join(unservable.values())}: {nothing}",
            hint=hint.strip("; ") or None,
        )
    return unservable


def refuse_at_start(runtime: Any, reason: str, model_control: str, load_models: Sequence[str], repository: Path) -> None:
    """The models a server loads as it starts (:func:`models_at_start`) by :func:`refuse_unservable`'s
    rule, each needed: Triton stops at start when one of them fails to load (``--exit-on-error``,
    its default), so one the server cannot load refuses the start, naming every such one.

    Raises:
        ServerError: a model loaded at start that the runtime's server cannot load.
    """
    every = (
        "the --load-model patterns"
        if model_control == "explicit"
        else f"the repository (--model-control {model_control} loads each of its models; explicit loads those named)"
    )
    refuse_unservable(runtime, reason, repository, models_at_start(model_control, load_models, repository), every=every)
