"""What a server really runs for one model, and how it differs from the variant it is filed under.

A measurement is only worth the name it is filed under when the server ran that variant. This
module reads back what the server runs (:func:`read_served`: the served config from Triton's
model-configuration endpoint, the threads per instance that config implies, the identity of
the artifact the toolkit uploaded or found, the other models loaded beside it) and compares
it field by field with the variant (:func:`variant_differences`: its local ``config.pbtxt`` and
its name, :func:`differences`, :func:`name_differences`): backend,
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

from clients.runtimes.identity import UPLOAD_PARAMETER, ArtifactIdentity

if TYPE_CHECKING:  # tritonclient is imported where it is used: a CLI's --help stays fast
    from tritonclient.grpc import model_config_pb2 as mc

_CONFIG = ConfigDict(extra="ignore")


@dataclass(config=_CONFIG)
class ServedSettings:
    """The settings a variant stands for, as one config states them (local or served).

    Attributes:
        backend: Triton's backend (``python``, ``onnxruntime``, ``pytorch``, ``tensorrt``); a
            ``platform`` is read as the backend it implies.
        max_batch_size: ``max_batch_size`` (0: no batch axis).
        instance_groups: ``"KIND_CPU x2"`` (``" on GPUs [0, 1]"`` added when listed), one per group.
        dynamic_batching: ``None`` when off, else ``"max_queue_delay 500 µs"`` plus the
            preferred batch sizes when set.
        parameters: ``parameters`` as text (the upload token left out).
        warmup: Names of the ``model_warmup`` samples.
        accelerators: Execution accelerators, ``"gpu:tensorrt(precision_mode=FP16, ...)"``.
    """

    backend: str
    max_batch_size: int
    instance_groups: list[str]
    dynamic_batching: str | None
    parameters: dict[str, str]
    warmup: list[str] = dataclasses.field(default_factory=list)
    accelerators: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, cfg: mc.ModelConfig) -> ServedSettings:
        """The settings ``cfg`` states (Triton's defaults filled in: a ``count`` of 0 is 1)."""
        from tritonclient.grpc import model_config_pb2 as mc

        from builders.backends import model_backend

        groups = []
        for g in cfg.instance_group:
            text = f"{mc.ModelInstanceGroup.Kind.Name(g.kind)} x{g.count or 1}"
            groups.append(text + (f" on GPUs {sorted(g.gpus)}" if g.gpus else ""))
        db = None
        if cfg.HasField("dynamic_batching"):
            d = cfg.dynamic_batching
            db = f"max_queue_delay {d.max_queue_delay_microseconds} µs"
            # Triton serves "no preferred size" as [max_batch_size] (seen on the bundled 2.51): the same batches
            if d.preferred_batch_size and sorted(d.preferred_batch_size) != [cfg.max_batch_size]:
                db += f", preferred sizes {sorted(d.preferred_batch_size)}"
        acc = cfg.optimization.execution_accelerators
        accelerators = [
            f"{where}:{a.name}({', '.join(f'{k}={v}' for k, v in sorted(a.parameters.items()))})"
            for where, group in (("gpu", acc.gpu_execution_accelerator), ("cpu", acc.cpu_execution_accelerator))
            for a in group
        ]
        return cls(
            backend=model_backend(cfg),
            max_batch_size=cfg.max_batch_size,
            instance_groups=groups,
            dynamic_batching=db,
            parameters={k: v.string_value for k, v in sorted(cfg.parameters.items()) if k != UPLOAD_PARAMETER},
            warmup=[w.name for w in cfg.model_warmup],
            accelerators=accelerators,
        )


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


def _groups_differ(want: list[str], have: list[str]) -> bool:
    """Whether served groups ``have`` differ from the asked ``want``: none asked means the
    server chose; ``KIND_AUTO`` is resolved by the server to CPU or GPU; GPUs not listed are
    the server's choice."""
    if not want:
        return False
    if len(want) != len(have):
        return True
    for w, h in zip(sorted(want), sorted(have)):
        wk, _, wrest = w.partition(" ")
        hk, _, hrest = h.partition(" ")
        if wk != hk and not (wk == "KIND_AUTO" and hk in ("KIND_CPU", "KIND_GPU")):
            return True
        if wrest.split(" on ")[0] != hrest.split(" on ")[0] or (" on " in wrest and wrest != hrest):
            return True
    return False


def differences(want: ServedSettings, have: ServedSettings, what: str = "variant", have_what: str = "served") -> list[str]:
    """How the served settings ``have`` differ from the asked ``want``, field by field, as
    ``"instance_group: variant [KIND_CPU x1], served [KIND_CPU x2]"``; empty when they agree.

    Triton's own choices are not differences: instance groups when none were asked
    (:func:`_groups_differ`).

    Args:
        want: The variant's settings (its local ``config.pbtxt``).
        have: What the server runs.
        what: How ``want`` is named in the text.
        have_what: How ``have`` is named in the text.
    """
    out = []

    def diff(field: str, a: object, b: object) -> None:
        out.append(f"{field}: {what} {a}, {have_what} {b}")

    if want.backend != have.backend:
        diff("backend", want.backend or "(none)", have.backend or "(none)")
    if want.max_batch_size != have.max_batch_size:
        diff("max_batch_size", want.max_batch_size, have.max_batch_size)
    if _groups_differ(want.instance_groups, have.instance_groups):
        diff("instance_group", want.instance_groups, have.instance_groups)
    if want.dynamic_batching != have.dynamic_batching:
        diff("dynamic_batching", want.dynamic_batching or "off", have.dynamic_batching or "off")
    for key in sorted(set(want.parameters) | set(have.parameters)):
        a, b = want.parameters.get(key), have.parameters.get(key)
        if a != b:
            diff(f"parameters[{key}]", "(none)" if a is None else repr(a), "(none)" if b is None else repr(b))
    if want.warmup != have.warmup:
        diff("model_warmup", want.warmup or "none", have.warmup or "none")
    if want.accelerators != have.accelerators:
        diff("execution_accelerators", want.accelerators or "none", have.accelerators or "none")
    return out


def name_differences(name: str, have: ServedSettings) -> list[str]:
    """How the served settings differ from what the variant's name says
    (:func:`core.naming.parse_variant_name`: instance kind and count, GPUs, max_batch_size,
    dynamic batching and its queue delay, preferred sizes); empty for a name that is not a
    variant name."""
    from core.naming import parse_variant_name

    p = parse_variant_name(name)
    if p is None:
        return []
    group = f"KIND_{p.kind.upper()} x{p.count}" + (f" on GPUs {sorted(p.gpus)}" if p.gpus else "")
    db = None
    if p.dynamic_batching:
        db = f"max_queue_delay {p.max_queue_delay_us} µs"
        if p.preferred_batch_sizes and sorted(p.preferred_batch_sizes) != [p.max_batch_size]:
            db += f", preferred sizes {sorted(p.preferred_batch_sizes)}"
    want = dataclasses.replace(have, max_batch_size=p.max_batch_size, instance_groups=[group], dynamic_batching=db)
    return differences(want, have, what="its name says")


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
        return n, f"the server host's {cpu_count} cores / {instances} instance(s) (the toolkit's model.py)"
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
