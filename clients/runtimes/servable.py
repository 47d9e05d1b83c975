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
