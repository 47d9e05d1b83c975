"""Which server measured what: :class:`MeasuringServer`, kept in ``results.json``
(``RunResult.servers``; each variant names its server in ``VariantResult.server``).

Filled in by :mod:`perf.sweep.servers` for every sweep: one record for a server the toolkit
started, one per ``--url`` for servers it did not start (``--runtime remote``).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import ConfigDict, field_validator
from pydantic.dataclasses import dataclass

#: How variants reach a server: loaded from the repository it was started on (a server the
#: toolkit started), uploaded through the model-repository API, loaded by name from the
#: server's own repository (``--remote-repository``), or already loaded there (``--no-deploy``).
DeployMode = Literal["started on the repository", "uploaded", "loaded by name", "already loaded"]


@dataclass(config=ConfigDict(extra="ignore"))
class MeasuringServer:
    """One tritonserver of a run and what it says about itself.

    Attributes:
        url: Its HTTP endpoint, ``host:port`` (the key variants name it by).
        grpc_url: Its gRPC endpoint, ``host:port``.
        metrics_url: Its metrics endpoint, ``host:port/metrics``.
        runtime: ``remote`` for a server the toolkit did not start, else the runtime that started it.
        version: Triton's version (server metadata); ``None`` when it did not say.
        host: Which machine it runs on as seen from here: ``"this host"`` (loopback or one of
            this machine's addresses) or its resolved address.
        gpu_uuids: The GPUs its metrics endpoint reports (``gpu_uuid`` labels); empty when it
            reports none (a CPU server, or GPU metrics off).
        cpu_memory_total_bytes: Total CPU memory its metrics report (``nv_cpu_memory_total_bytes``);
            ``None`` when not read. A 0 (the gauge before Triton's first poll, in runs saved before
            :func:`perf.sweep.servers.metrics_identity` waited for it) is read as ``None``.
        deploy: How variants reached it (:data:`DeployMode`).
        remote_repository: ``--remote-repository`` as the server sees it, when variants were loaded by name.
        shares_with: URLs of other servers of the run on the same host or GPU, measured in
            parallel with it (only with ``--allow-shared-host``): their numbers compete.
        models_found: Models loaded on it when the toolkit reached it (someone else's: never
            unloaded, reloaded or replaced without ``--replace-models``); they ran beside every
            variant measured there.
        left_differently: What differed from the model set it was found with when the toolkit
            was done (empty: left as found); ``None`` before the run ended or for a server the
            toolkit started.
        session: The session of the run it served (``RunResult.sessions``, 1 first); ``None``: not recorded.
    """

    url: str
    grpc_url: str
    metrics_url: str
    runtime: str
    version: str | None = None
    host: str | None = None
    gpu_uuids: list[str] = dataclasses.field(default_factory=list)
    cpu_memory_total_bytes: float | None = None
    deploy: DeployMode = "started on the repository"
    remote_repository: str | None = None
    shares_with: list[str] = dataclasses.field(default_factory=list)
    models_found: list[str] = dataclasses.field(default_factory=list)
    left_differently: list[str] | None = None
    session: int | None = None

    @field_validator("cpu_memory_total_bytes")
    @classmethod
    def _zero_is_not_read(cls, v: float | None) -> float | None:
        return v or None
