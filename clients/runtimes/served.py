"""What a server really runs for one model, and how it differs from the variant it is filed under.

A measurement is only worth the name it is filed under when the server ran that variant. This
module reads back what the server runs (:func:`read_served`: the served config from Triton's
model-configuration endpoint, the threads per instance that config implies, the identity of
the artifact the toolkit uploaded or found, the other models loaded beside it) and compares
it field by field with the variant (:func:`variant_differences`: its local ``config.pbtxt`` and
its name, :func:`builders.config.settings.differences` and ``name_differences``, re-exported
here): backend,
``max_batch_size``, instance groups, dynamic batching, ``parameters`` (threads among them),
``model_warmup`` and execution accelerators.

An upload carries a one-time token in the config's ``parameters``: the proof that the server
loaded the new files (:mod:`clients.runtimes.identity`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from builders.config.settings import ServedSettings, differences, name_differences
from clients.runtimes.identity import UPLOAD_PARAMETER, ArtifactIdentity
from core.wording import count

if TYPE_CHECKING:  # tritonclient is imported where it is used: a CLI's --help stays fast
    from tritonclient.grpc import model_config_pb2 as mc

_CONFIG = ConfigDict(extra="ignore")

__all__ = ["ServedSettings", "differences", "name_differences"]


@dataclass(config=_CONFIG)
class ServedModel:
    """What a server ran for one model at one moment: the stamp a measurement is filed with.

    Attributes:
        name: The model.
        read_at: When it was read (ISO time).
        settings: Its served config's settings (:class:`ServedSettings`).
        threads_per_instance: Intra-op threads one instance runs with (the backend's rule on the
            served config; :func:`instance_threads`); ``None`` when the backend keeps its
            library's default or the rule's input (the server host's cores) is not known here.
        threads_rule: Where that number comes from, in words.
        artifact: The files the toolkit uploaded or found for it; ``None`` when it loaded
            nothing (a model already served, ``--no-deploy``) or could not read them.
        upload_token: The upload token the served config carries (``None``: not uploaded by the toolkit).
        others_loaded: Other models loaded on the server at that moment.
        moment: When in the measurement it was read (``"after load"``, ``"after the last level"``).
    """

    name: str
    read_at: str
    settings: ServedSettings
    threads_per_instance: int | None = None
    threads_rule: str = ""
    artifact: ArtifactIdentity | None = None
    upload_token: str | None = None
    others_loaded: list[str] = dataclasses.field(default_factory=list)
    moment: str = "after load"


@dataclasses.dataclass(frozen=True)
class Delivery:
    """What a load request asked the server to load (returned by ``Runtime.load_model``).

    Attributes:
        artifact: The files sent or found; ``None`` when nothing was loaded or they are not readable here.
        token: The upload token the config carried (:func:`with_upload_token`), for an upload.
    """

    artifact: ArtifactIdentity | None = None
    token: str | None = None


@dataclasses.dataclass(frozen=True)
class Loaded:
    """A model loaded and checked (``TritonServer.load``).

    Attributes:
        served: What the server runs for it, read right after the load.
        request_s: How long the load request took, from sending it to its answer (s).
    """

    served: ServedModel
    request_s: float


def settings_of_json(config: Mapping[str, Any]) -> ServedSettings:
    """The settings of a config as JSON: what Triton serves at ``/v2/models/NAME/config`` or
    protobuf JSON of a ``config.pbtxt`` (unknown fields ignored)."""
    return ServedSettings.of(config_from_json(config))


def config_from_json(config: Mapping[str, Any]) -> mc.ModelConfig:
    """A served config (JSON) as a ``ModelConfig`` message (unknown fields ignored)."""
    from google.protobuf import json_format
    from tritonclient.grpc import model_config_pb2 as mc

    return json_format.ParseDict(dict(config), mc.ModelConfig(), ignore_unknown_fields=True)


def variant_differences(repository: str | Path | None, model: str, have: ServedSettings) -> list[str]:
    """How the served settings ``have`` differ from variant ``model``: from its local
    ``config.pbtxt`` in ``repository`` (when given and readable, :func:`differences`) and from
    what its name says (:func:`name_differences`), field by field, a field the config already
    names not repeated. The one comparison every load by the toolkit (the sweep, ``clients
    check`` on a server it starts or is given) refuses a variant on.

    Args:
        repository: The local repository holding the variant's folder; ``None``: its name only.
        model: The variant (model) name.
        have: What the server runs for it (:func:`read_served`, :func:`settings_of_json`).
    """
    from builders.config.pbtxt import read_config
    from core.errors import ConfigError

    out: list[str] = []
    if repository is not None:
        with contextlib.suppress(ConfigError, OSError):
            out += differences(ServedSettings.of(read_config(Path(repository) / model / "config.pbtxt")), have)
    named = {o.split(":")[0] for o in out}
    return out + [d for d in name_differences(model, have) if d.split(":")[0] not in named]


def instance_threads(cfg: mc.ModelConfig, cpu_count: int | None) -> tuple[int | None, str]:
    """Intra-op threads one instance of ``cfg`` runs with, and where that comes from in words.

    The backend's own rule (:meth:`builders.backends.base.BackendConfig.instance_threads`): its
    thread parameter when set; the toolkit's python ``model.py`` divides the server host's
    cores among the instances (``cpu_count``; ``None`` when that host is not this one: not known).

    Args:
        cfg: The served config.
        cpu_count: Cores of the server's host, ``None`` when not known here.
    """
    from builders.backends import for_config
    from builders.backends.python import PARAM_THREADS, PythonBackend

    backend = for_config(cfg)
    if backend is None:
        return None, f"not known: the {cfg.backend or cfg.platform or '?'} backend's own rule"
    if isinstance(backend, PythonBackend):
        if PARAM_THREADS in cfg.parameters and cfg.parameters[PARAM_THREADS].string_value.strip():
            return backend.instance_threads(cfg, cpu_count), f"the {PARAM_THREADS} parameter"
        if cpu_count is None:
            return None, "the server host's cores / instances (the toolkit's model.py); that host's cores are not known here"
        n = backend.instance_threads(cfg, cpu_count)
        instances = sum(g.count or 1 for g in cfg.instance_group) or 1
        return n, f"the server host's {count(cpu_count, 'core')} / {count(instances, 'instance')} (the toolkit's model.py)"
    threads = backend.instance_threads(cfg, cpu_count)
    if threads is not None:
        return threads, f"the {backend.threads_parameter} parameter"
    if backend.threads_parameter:
        return None, f"the {backend.backend} backend's library default (no {backend.threads_parameter} parameter)"
    return None, f"not applicable to the {backend.backend} backend"


def now_iso() -> str:
    """The local time as ISO 8601 with offset."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def read_served(
    client: Any, model: str, delivery: Delivery | None = None, cpu_count: int | None = None, others: list[str] | None = None
) -> ServedModel:
    """Read what the server behind ``client`` (tritonclient HTTP) runs for ``model``.

    Args:
        client: A tritonclient HTTP ``InferenceServerClient``.
        model: The model, loaded.
        delivery: What the toolkit asked it to load (``None``: nothing, the model was there).
        cpu_count: Cores of the server's host (``None``: not this host, not known).
        others: Other models loaded on the server now.

    Raises:
        Exception: whatever tritonclient raises (the model is not loaded, the server is gone).
    """
    config = client.get_model_config(model)
    cfg = config_from_json(config)
    threads, rule = instance_threads(cfg, cpu_count)
    token = cfg.parameters[UPLOAD_PARAMETER].string_value if UPLOAD_PARAMETER in cfg.parameters else None
    return ServedModel(
        name=model,
        read_at=now_iso(),
        settings=ServedSettings.of(cfg),
        threads_per_instance=threads,
        threads_rule=rule,
        artifact=delivery.artifact if delivery else None,
        upload_token=token,
        others_loaded=sorted(others or []),
    )


def changed_since(first: ServedModel, now: ServedModel) -> list[str]:
    """What changed on the server between two readings of one model (before the first level
    and after the last): its settings, or its upload token (another copy was loaded meanwhile)."""
    out = differences(first.settings, now.settings, what="before the first level")
    if first.upload_token != now.upload_token:
        out.append(f"upload token: before the first level {first.upload_token}, after the last {now.upload_token}")
    return out
