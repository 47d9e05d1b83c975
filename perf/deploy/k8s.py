"""Kubernetes manifests serving one model repository with NVIDIA's tritonserver image, built
with the ``kubernetes`` Python client's typed models (``V1Deployment``, ``V1Service``...) and
written as YAML; read back with the same client (:func:`read_manifests`).

What the manifests hold (:func:`manifests`):

- ``PersistentVolumeClaim`` ``<name>-models``: the volume the model repository lives on. The
  user fills it once with ``kubectl cp`` through the loader ``Pod`` ``<name>-loader`` (the
  same image, sleeping, the claim mounted read-write at ``/models``), then deletes the loader.
  Chosen over an initContainer that downloads the models because it needs no object store,
  registry or credentials: only ``kubectl`` (docs/KUBERNETES.md).
- ``Deployment`` ``<name>``: ``tritonserver --model-repository=/models
  --model-control-mode=none`` (every model of the repository loaded at start, the
  model-repository API's load/unload off), the claim mounted read-only at ``/models``; the
  container's resources from the variant's ``instance_group`` (:func:`resources`), and for a
  GPU request a toleration of the ``nvidia.com/gpu`` taint of GPU nodes; readiness
  on ``/v2/health/ready``, liveness on ``/v2/health/live``, and a startup probe on the latter
  so that a slow model load is not taken for a dead server (Triton docs, "Health" in
  ``docs/protocol/extension_health.md`` of the KServe protocol); the metrics port annotated for
  Prometheus (``prometheus.io/scrape``, ``/port``, ``/path``); ``OMP_WAIT_POLICY`` in its environment as the run's
  server had it (``environment.server``; not recorded: this environment's, PASSIVE unless it names one), as the run
  served and timed torch (:mod:`builders.serving.torch_env`: spinning OpenMP threads made TorchScript 6-30x slower).
- ``Service`` ``<name>``: the HTTP, gRPC and metrics ports (ClusterIP).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client as k8s
from tritonclient.grpc import model_config_pb2 as mc

from builders.serving.torch_env import torch_cpu_env
from clients.runtimes.base import TRITON_DEFAULT_PORTS
from core import wording
from core.errors import PerfError
from core.names import read_text

#: Where the repository is mounted in the server's container.
MODELS_PATH = "/models"
#: Health endpoints of Triton's HTTP API (KServe v2 protocol).
READY_PATH = "/v2/health/ready"
LIVE_PATH = "/v2/health/live"
#: Prometheus metrics endpoint on the metrics port.
METRICS_PATH = "/metrics"
#: The extended resource NVIDIA's device plugin advertises GPUs as.
GPU_RESOURCE = "nvidia.com/gpu"
#: Startup probe: a model load may take this long (period x failures = 10 min) before
#: the liveness probe takes over.
STARTUP_PERIOD_S = 10
STARTUP_FAILURES = 60
#: Longest name the manifests use (a Service name is a DNS-1035 label of at most 63
#: characters; ``-loader`` and ``-models`` are appended to it).
MAX_NAME = 56
#: Kind -> the client's model class, for reading manifests back.
MODEL_CLASSES = {
    "Deployment": "V1Deployment",
    "Service": "V1Service",
    "PersistentVolumeClaim": "V1PersistentVolumeClaim",
    "Pod": "V1Pod",
}
_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


@dataclasses.dataclass(frozen=True)
class Resources:
    """What the server's container asks for, and why, in words.

    Attributes:
        gpus: ``nvidia.com/gpu`` limit (whole GPUs), ``None`` for a model without KIND_GPU instances.
        cpu_cores: CPU request in cores (tenths), ``None`` for none.
        why: One sentence per number.
    """

    gpus: int | None
    cpu_cores: float | None
    why: tuple[str, ...]

    @property
    def cpu_quantity(self) -> str | None:
        """The CPU request as Kubernetes writes it: whole cores (``"2"``) or millicores (``"1600m"``)."""
        if not self.cpu_cores:
            return None
        if float(self.cpu_cores).is_integer():
            return str(int(self.cpu_cores))
        return f"{round(self.cpu_cores * 1000)}m"

    def requirements(self) -> k8s.V1ResourceRequirements:
        """The container's ``resources``: GPUs as a limit (Kubernetes takes extended resources
        from limits; the request equals it), CPU as a request without a limit (a CPU limit
        throttles the server under load and shows as tail latency)."""
        return k8s.V1ResourceRequirements(
            requests={"cpu": self.cpu_quantity} if self.cpu_cores else None,
            limits={GPU_RESOURCE: str(self.gpus)} if self.gpus else None,
        )


def resources(
    config: mc.ModelConfig, measured_cpu_cores: float | None = None, where: str = "", busy: str | None = None
) -> Resources:
    """Container resources from the model's ``instance_group`` (Triton docs, "Model
    Configuration: Instance Groups") and, for CPU, what the server used where it was measured.

    - ``KIND_GPU``: ``count`` instances on each GPU listed in ``gpus``, or on every GPU the
      server sees when none is listed. The pod needs GPUs ``0..max(gpus)`` visible
      (``max(gpus) + 1``), or one GPU when none is listed (instances then go on every GPU the
      pod gets: raise the limit to spread them).
    - ``KIND_CPU`` and ``KIND_AUTO`` (taken as CPU here: a pod without a GPU runs it there):
      the server CPU measured at the deployed level (``measured_cpu_cores``: the server's
      own processes, in cores), rounded up to a tenth of a core; when it was not measured, one
      core per instance, summed over groups (an instance runs one execution at a time).
    - ``KIND_MODEL``: the model picks its devices; nothing is requested for it.

    Args:
        config: The served ``config.pbtxt``.
        measured_cpu_cores: The CPU request from the measurement (already rounded), or ``None``.
        where: The measured level, in words (for the reason).
        busy: Why the measured CPU is not used although there is one (the host was busy), in words.

    Returns:
        GPUs (``None`` without KIND_GPU groups), CPU cores (``None`` without CPU groups), reasons.
    """
    gpus: int | None = None
    cores = 0
    why: list[str] = []
    for g in config.instance_group:
        count = g.count or 1  # Triton's default count is 1
        if g.kind == mc.ModelInstanceGroup.KIND_GPU:
            need = max(g.gpus) + 1 if g.gpus else 1
            gpus = max(gpus or 0, need)
            where = f"GPUs {list(g.gpus)}" if g.gpus else "every visible GPU"
            why.append(f"KIND_GPU x{count} on {where}: {GPU_RESOURCE} limit {need}")
        elif g.kind in (mc.ModelInstanceGroup.KIND_CPU, mc.ModelInstanceGroup.KIND_AUTO):
            cores += count
            why.append(f"{mc.ModelInstanceGroup.Kind.Name(g.kind)} x{count}")
        else:
            why.append(f"{mc.ModelInstanceGroup.Kind.Name(g.kind)}: the model chooses its devices, nothing requested")
    per_instance = ""  # the reason a measured CPU request replaces
    if not config.instance_group:
        cores = 1
        per_instance = "no instance_group: Triton's default is one instance (on a GPU where there is one); 1 CPU core requested"
        why.append(per_instance)
    if cores and measured_cpu_cores:
        why = [w for w in why if w != per_instance]
        why.append(
            f"{wording.count(measured_cpu_cores, 'CPU core')} requested: the server's own CPU measured at "
            f"{where or 'the deployed level'} "
            "(tritonserver and its backend processes), rounded up to a tenth of a core, not one core per instance"
        )
        return Resources(gpus, measured_cpu_cores, tuple(why))
    if cores:
        why.append(
            f"{wording.count(cores, 'CPU core')} requested, one per instance: "
            + (busy or "the server's CPU was not measured at the deployed level")
        )
    return Resources(gpus, cores or None, tuple(why))


def k8s_name(variant: str) -> str:
    """A Kubernetes name for a variant: ``triton-`` + the name in lower case with ``_`` as
    ``-``, other characters dropped; a name longer than :data:`MAX_NAME` is cut and ends in
    8 hex digits of its SHA-1, so that two long variant names stay apart."""
    base = "triton-" + re.sub(r"[^a-z0-9-]", "", variant.lower().replace("_", "-")).strip("-")
    if len(base) > MAX_NAME:
        base = base[: MAX_NAME - 9].rstrip("-") + "-" + hashlib.sha1(variant.encode()).hexdigest()[:8]
    return base


def check_name(name: str) -> str:
    """``name`` if it is a DNS-1035 label of at most :data:`MAX_NAME` characters (what a
    Service name must be, with room for ``-loader``).

    Raises:
        ValueError: it is not.
    """
    if len(name) > MAX_NAME or not _NAME_RE.match(name):
        raise ValueError(
            f"{name!r} is not a Kubernetes service name: lower-case letters, digits and '-', starting with a letter, "
            f"at most {MAX_NAME} characters"
        )
    return name


@dataclasses.dataclass(frozen=True)
class ServingPlan:
    """What the manifests are made of.

    Attributes:
        name: Kubernetes name of the Deployment and Service (:func:`k8s_name`).
        variant: The served model (its folder in the repository).
        image: The tritonserver image (``nvcr.io/nvidia/tritonserver:<yy.mm>-py3``).
        resources: From the variant's instance group.
        storage_bytes: Bytes of the repository the claim must hold.
        wait_policy: The ``OMP_WAIT_POLICY`` the run's server ran with; ``None``: not recorded (this environment's).
    """

    name: str
    variant: str
    image: str
    resources: Resources
    storage_bytes: int
    wait_policy: str | None = None

    @property
    def labels(self) -> dict[str, str]:
        """The labels every object of the deployment carries (Kubernetes' recommended
        ``app.kubernetes.io/name`` and ``app.kubernetes.io/instance``)."""
        return {"app.kubernetes.io/name": "tritonserver", "app.kubernetes.io/instance": self.name}

    @property
    def claim(self) -> str:
        """The PersistentVolumeClaim's name: ``<name>-models``."""
        return f"{self.name}-models"

    @property
    def loader(self) -> str:
        """The name of the Pod that copies the repository into the claim: ``<name>-loader``."""
        return f"{self.name}-loader"


def storage_request(nbytes: int) -> str:
    """The claim's size: the repository's bytes rounded up to whole GiB, at least 1 GiB."""
    gib = 2**30
    return f"{max(1, -(-nbytes // gib))}Gi"


def _meta(plan: ServingPlan, name: str, **kw: Any) -> k8s.V1ObjectMeta:
    return k8s.V1ObjectMeta(name=name, labels=dict(plan.labels), **kw)


def _ports() -> list[k8s.V1ContainerPort]:
    p = TRITON_DEFAULT_PORTS
    return [
        k8s.V1ContainerPort(name="http", container_port=p.http),
        k8s.V1ContainerPort(name="grpc", container_port=p.grpc),
        k8s.V1ContainerPort(name="metrics", container_port=p.metrics),
    ]


def _probe(path: str, period_s: int, failures: int) -> k8s.V1Probe:
    return k8s.V1Probe(http_get=k8s.V1HTTPGetAction(path=path, port="http"), period_seconds=period_s, failure_threshold=failures)


def server_args() -> list[str]:
    """The tritonserver flags of the Deployment: the mounted repository, every model loaded
    at start and the load/unload API off (``--model-control-mode=none``), Triton's default ports."""
    p = TRITON_DEFAULT_PORTS
    return [
        f"--model-repository={MODELS_PATH}",
        "--model-control-mode=none",
        f"--http-port={p.http}",
        f"--grpc-port={p.grpc}",
        f"--metrics-port={p.metrics}",
    ]


def claim(plan: ServingPlan) -> k8s.V1PersistentVolumeClaim:
    """The volume the user fills with the repository (ReadWriteOnce: one node mounts it, so
    the Deployment keeps one replica; a ReadOnlyMany class allows more)."""
    return k8s.V1PersistentVolumeClaim(
        api_version="v1",
        kind="PersistentVolumeClaim",
        metadata=_meta(plan, plan.claim),
        spec=k8s.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteOnce"],
            resources=k8s.V1VolumeResourceRequirements(requests={"storage": storage_request(plan.storage_bytes)}),
        ),
    )


def loader_pod(plan: ServingPlan) -> k8s.V1Pod:
    """A pod of the server's image that only sleeps, with the claim mounted read-write at
    ``/models``, for ``kubectl cp`` (which needs ``tar`` in the container: the image has it)."""
    return k8s.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=_meta(plan, plan.loader),
        spec=k8s.V1PodSpec(
            restart_policy="Never",
            containers=[
                k8s.V1Container(
                    name="loader",
                    image=plan.image,
                    command=["sleep", "infinity"],
                    volume_mounts=[k8s.V1VolumeMount(name="models", mount_path=MODELS_PATH)],
                )
            ],
            volumes=[
                k8s.V1Volume(
                    name="models", persistent_volume_claim=k8s.V1PersistentVolumeClaimVolumeSource(claim_name=plan.claim)
                )
            ],
        ),
    )


def deployment(plan: ServingPlan) -> k8s.V1Deployment:
    """One tritonserver replica serving the claim's repository (module docstring)."""
    served = {"OMP_WAIT_POLICY": plan.wait_policy} if plan.wait_policy else None  # as the run had torch (torch_env)
    container = k8s.V1Container(
        name="tritonserver",
        image=plan.image,
        command=["tritonserver"],
        args=server_args(),
        env=[k8s.V1EnvVar(name=k, value=v) for k, v in torch_cpu_env(served).items()],
        ports=_ports(),
        resources=plan.resources.requirements(),
        volume_mounts=[k8s.V1VolumeMount(name="models", mount_path=MODELS_PATH, read_only=True)],
        startup_probe=_probe(LIVE_PATH, STARTUP_PERIOD_S, STARTUP_FAILURES),
        liveness_probe=_probe(LIVE_PATH, 10, 3),
        readiness_probe=_probe(READY_PATH, 5, 3),
    )
    annotations = {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": str(TRITON_DEFAULT_PORTS.metrics),
        "prometheus.io/path": METRICS_PATH,
        "triton-toolkit/variant": plan.variant,
    }
    return k8s.V1Deployment(
        api_version="apps/v1",
        kind="Deployment",
        metadata=_meta(plan, plan.name, annotations={"triton-toolkit/variant": plan.variant}),
        spec=k8s.V1DeploymentSpec(
            replicas=1,
            selector=k8s.V1LabelSelector(match_labels=dict(plan.labels)),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(labels=dict(plan.labels), annotations=annotations),
                spec=k8s.V1PodSpec(
                    containers=[container],
                    tolerations=_gpu_tolerations(plan.resources),
                    volumes=[
                        k8s.V1Volume(
                            name="models",
                            persistent_volume_claim=k8s.V1PersistentVolumeClaimVolumeSource(
                                claim_name=plan.claim, read_only=True
                            ),
                        )
                    ],
                ),
            ),
        ),
    )


def _gpu_tolerations(res: Resources) -> list[k8s.V1Toleration] | None:
    """For a pod asking for GPUs: tolerate the ``nvidia.com/gpu`` taint that clusters (GKE, and
    many others by convention) put on GPU nodes so that only GPU pods land there."""
    if not res.gpus:
        return None
    return [k8s.V1Toleration(key=GPU_RESOURCE, operator="Exists", effect="NoSchedule")]


def service(plan: ServingPlan) -> k8s.V1Service:
    """ClusterIP service on the HTTP, gRPC and metrics ports of the Deployment's pods."""
    return k8s.V1Service(
        api_version="v1",
        kind="Service",
        metadata=_meta(plan, plan.name),
        spec=k8s.V1ServiceSpec(
            selector=dict(plan.labels),
            ports=[k8s.V1ServicePort(name=p.name, port=p.container_port, target_port=p.name) for p in _ports()],
        ),
    )


def to_yaml(objects: list[Any]) -> str:
    """The objects as one YAML stream (``---`` between documents), serialised by the client's
    own ``sanitize_for_serialization`` (camelCase keys, ``None`` fields left out)."""
    api = k8s.ApiClient()
    return yaml.safe_dump_all([api.sanitize_for_serialization(o) for o in objects], sort_keys=False)


def read_manifests(path: Path) -> list[Any]:
    """Read a YAML stream written by :func:`to_yaml` back into the client's typed models.

    Raises:
        PerfError: the file is missing, unreadable or not UTF-8 text (:func:`core.names.read_text`).
        ValueError: a document has no ``kind`` this module writes.
    """
    api = k8s.ApiClient()
    out = []
    for doc in yaml.safe_load_all(
        read_text(Path(path), "Kubernetes manifest", "YAML", PerfError, "give the YAML `triton-perf deploy` wrote", "*.yaml")
    ):
        if doc is None:
            continue
        cls = MODEL_CLASSES.get(doc.get("kind"))
        if cls is None:
            raise ValueError(f"{path}: kind {doc.get('kind')!r} is not one of {', '.join(MODEL_CLASSES)}")
        out.append(api.deserialize(json.dumps(doc), cls, "application/json"))
    return out
