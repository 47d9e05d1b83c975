"""Triton's model-configuration rules, each written once.

A rule is a small function of plain values (``max_batch_size``, an instance kind, a backend
name...) that returns the :class:`Problem` s it finds: the ``ModelConfig`` field, what is
wrong (expected vs found) and what to do. Each caller turns a problem into its own form:

- :class:`builders.config.variants.Variant` raises a :class:`~core.errors.ConfigError` at construction
  (:func:`raise_problems`);
- :meth:`builders.config.variants.VariantGrid.plan` skips the grid point with the problem as reason
  (:meth:`Problem.reason`);
- :func:`builders.config.pbtxt.make_config` raises after building the config;
- ``builders validate`` (:func:`builders.config.checks.config_problems`) lists the problem
  with its file.

Sources: Triton docs "Model Configuration" (max batch size, instance groups), "Dynamic
Batcher", "Optimization" (ONNX with TensorRT optimization, ORT-TRT), and Triton core's
``src/model_config_utils.cc`` (``ValidateModelConfig``, ``ValidateInstanceGroup``).
Instance kinds are passed as Triton's names (``"KIND_CPU"``, ``"KIND_GPU"``, ``"KIND_AUTO"``).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from pathlib import Path

from core.errors import ConfigError

log = logging.getLogger(__name__)

#: Field of the TensorRT execution accelerator in ``ModelConfig``.
ACCELERATORS = "optimization.execution_accelerators.gpu_execution_accelerator"
#: ``precision_mode`` values onnxruntime's TensorRT accelerator accepts (Triton docs, "Optimization").
ORT_TRT_PRECISION_MODES = ("FP32", "FP16", "INT8")
#: The Triton backend that serves a variant with python serving (our generated ``model.py``).
PYTHON_BACKEND = "python"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One broken rule: where, what, and what to do.

    Attributes:
        file: The file or folder it concerns (empty while not yet known).
        field: The ``ModelConfig`` field (``"input[INPUT__0].dims"``) or repository item.
        problem: What is wrong, expected vs found.
        fix: What to do about it.
        warning: Triton serves it as meant, but only while something holds that nothing checks
            (a mix of PyTorch naming conventions in the right order): said, never a failure
            (:func:`raise_problems` logs it; ``builders validate`` lists it apart and exits 0).
    """

    file: str
    field: str
    problem: str
    fix: str = ""
    warning: bool = False

    def at(self, file: str | Path) -> Problem:
        """The same problem located in ``file``."""
        return dataclasses.replace(self, file=str(file))

    def reason(self) -> str:
        """One line for a skipped grid point or a log: ``field: problem (fix)``."""
        return f"{self.field}: {self.problem}" + (f" ({self.fix})" if self.fix else "")


def raise_problems(problems: Iterable[Problem], context: str = "") -> None:
    """Raise one :class:`ConfigError` naming every problem's field; return if there is none.

    Args:
        problems: What the rules found.
        context: What was checked (``"variant m_onnx_cpu1_nodb_mbs64"``), put first.

    Raises:
        ConfigError: at least one problem; one problem keeps its fix as the hint. Warnings
            (:attr:`Problem.warning`) raise nothing: each is logged.
    """
    found = []
    for p in problems:
        if p.warning:
            log.warning("%s%s", f"{context}: " if context else "", p.reason())
        else:
            found.append(p)
    if not found:
        return
    if len(found) == 1:
        p = found[0]
        raise ConfigError((f"{context}: " if context else "") + f"{p.field}: {p.problem}", hint=p.fix or None)
    head = f"{context} breaks Triton's rules:" if context else "Triton's rules are broken:"
    raise ConfigError(head + "\n" + "\n".join(f"  {p.reason()}" for p in found), hint="fix each as its line says")


def _bad(field: str, problem: str, fix: str = "") -> list[Problem]:
    return [Problem("", field, problem, fix)]


# --------------------------------------------------------------------------- batching


def max_batch_size(mbs: int) -> list[Problem]:
    """``max_batch_size`` is >= 0: 0 = the model does not batch (dims are full shapes), > 0 =
    the largest batch Triton forms (Triton docs, "Model Configuration: Maximum Batch Size")."""
    if mbs < 0:
        return _bad("max_batch_size", f"must be >= 0, got {mbs}", "0 = no batching; > 0 = the largest batch")
    return []


def dynamic_batching(mbs: int, enabled: bool) -> list[Problem]:
    """Dynamic batching needs ``max_batch_size > 0``: a model with ``max_batch_size: 0`` does
    not batch, so there is nothing for the batcher to form (Triton docs, "Dynamic Batcher";
    core ``ValidateModelConfig``)."""
    if enabled and mbs == 0:
        return _bad(
            "dynamic_batching",
            "is set but max_batch_size is 0: the model does not batch",
            "remove dynamic_batching, or set max_batch_size > 0 and leave the batch axis out of dims",
        )
    return []


def preferred_batch_sizes(mbs: int, sizes: Iterable[int], enabled: bool = True) -> list[Problem]:
    """Each ``dynamic_batching.preferred_batch_size`` is within ``1..max_batch_size``, and
    preferred sizes exist only inside ``dynamic_batching`` (Triton docs, "Dynamic Batcher:
    Preferred Batch Sizes"; core ``ValidateModelConfig``)."""
    sizes = list(sizes)
    field = "dynamic_batching.preferred_batch_size"
    if sizes and not enabled:
        return _bad(field, f"{sizes} given while dynamic batching is off", "turn dynamic batching on or drop the sizes")
    wrong = [p for p in sizes if not 1 <= p <= max(mbs, 0)]
    if wrong:
        return _bad(field, f"{wrong} are not within 1..max_batch_size ({mbs})", "use sizes <= max_batch_size")
    return []


def max_queue_delay(us: int) -> list[Problem]:
    """``dynamic_batching.max_queue_delay_microseconds`` is >= 0 µs (a ``uint64`` in
    ``ModelConfig``; Triton docs, "Dynamic Batcher: Delayed Batching")."""
    if us < 0:
        return _bad("dynamic_batching.max_queue_delay_microseconds", f"must be >= 0, got {us}", "use 0 or a delay in µs")
    return []


# --------------------------------------------------------------------------- instance groups


def instance_count(count: int, where: str = "instance_group") -> list[Problem]:
    """``instance_group.count`` is >= 1 (an unset count, 0 in protobuf, means 1; Triton docs,
    "Model Configuration: Instance Groups"; core ``ValidateInstanceGroup``).

    Args:
        count: The count as given (pass 1 for an unset protobuf field).
        where: The group's field (``"instance_group[0]"``).
    """
    if count < 1:
        return _bad(f"{where}.count", f"must be >= 1, got {count}", "set count: 1 or more")
    return []


def instance_gpus(kind: str, gpus: Iterable[int], where: str = "instance_group") -> list[Problem]:
    """``instance_group.gpus`` lists GPU ids >= 0 and applies to KIND_GPU groups only; a
    KIND_CPU group with ``gpus`` is refused (Triton docs, "Model Configuration: Instance
    Groups"; core ``ValidateInstanceGroup``).

    Args:
        kind: ``"KIND_CPU"``, ``"KIND_GPU"``, ``"KIND_AUTO"`` or ``"KIND_MODEL"``.
        gpus: The group's GPU ids.
        where: The group's field.
    """
    gpus = list(gpus)
    out: list[Problem] = []
    if gpus and kind == "KIND_CPU":
        out += _bad(
            f"{where}.gpus",
            f"{gpus} given for a KIND_CPU group",
            "GPU ids apply to KIND_GPU instances only: remove gpus or use KIND_GPU",
        )
    if any(g < 0 for g in gpus):
        out += _bad(f"{where}.gpus", f"GPU ids must be >= 0, got {gpus}", "use the ids nvidia-smi shows")
    return out


def kind_gpu_needs_gpu(kind: str, server_gpu: bool | None, where: str = "instance_group") -> list[Problem]:
    """KIND_GPU instances load only where the server has a GPU (Triton docs, "Model
    Configuration: Instance Groups"; the model fails to load otherwise).

    Args:
        kind: The group's kind.
        server_gpu: Whether the server has a GPU; ``None`` = unknown, not checked.
        where: The group's field.
    """
    if kind == "KIND_GPU" and server_gpu is False:
        return _bad(
            f"{where}.kind",
            "KIND_GPU but the server has no GPU",
            "use KIND_CPU, or pass --server-gpu if the repository is served on a GPU machine",
        )
    return []


# --------------------------------------------------------------------------- accelerators


def ort_trt_accelerator(backend: str, gpu_instances: bool, where: str = ACCELERATORS) -> list[Problem]:
    """The TensorRT execution accelerator (ORT-TRT) is an option of ONNX Runtime on GPU
    instances: backend ``onnxruntime`` (platform ``onnxruntime_onnx``) and a KIND_GPU (or
    KIND_AUTO) instance group. The python backend runs onnxruntime itself and ignores the
    block (Triton docs, "Optimization: ONNX with TensorRT Optimization (ORT-TRT)").

    Args:
        backend: The Triton backend serving the model (``"onnxruntime"``, ``"python"``...).
        gpu_instances: Whether the model has instances that can run on a GPU.
        where: The accelerator's field (``"...gpu_execution_accelerator[0]"``).
    """
    out: list[Problem] = []
    if backend == PYTHON_BACKEND:
        out += _bad(
            f"{where}.name",
            "the python backend does not use onnxruntime's TensorRT accelerator",
            "use --serving native for ORT-TRT variants (platform onnxruntime_onnx)",
        )
    elif backend != "onnxruntime":
        out += _bad(
            f"{where}.name",
            f"the TensorRT accelerator is an ONNX Runtime option; this model's backend is {backend or 'unknown'!r}",
            "remove the optimization block, or use ONNX (platform onnxruntime_onnx)",
        )
    if not gpu_instances:
        out += _bad(
            where, "a GPU execution accelerator on KIND_CPU instances has no effect", "use KIND_GPU instances or remove it"
        )
    return out


#: The ``model_warmup`` every ORT-TRT variant gets (``zero`` data at each batch size and shape
#: it will see, :func:`builders.config.warmup.add_warmup`): onnxruntime builds a TensorRT
#: engine at the first request of each shape, which takes seconds to minutes, so without
#: warmup the first requests of a sweep or of production traffic time out (Triton docs,
#: "Model Configuration: Model Warmup"; onnxruntime's TensorRT execution provider docs, "TensorRT EP Caches").
ORT_TRT_WARMUP = "zero"


def ort_trt_precision_mode(mode: str | None, where: str = ACCELERATORS) -> list[Problem]:
    """The accelerator's ``precision_mode`` parameter is FP32, FP16 or INT8 when given
    (Triton docs, "Optimization: ONNX with TensorRT Optimization (ORT-TRT)")."""
    if mode is not None and mode not in ORT_TRT_PRECISION_MODES:
        return _bad(
            f"{where}.parameters[precision_mode]", f"{mode!r} is not {', '.join(ORT_TRT_PRECISION_MODES)}", "use FP16 or FP32"
        )
    return []


# --------------------------------------------------------------------------- warmup


def warmup_batch_size(batch_size: int, mbs: int, where: str = "model_warmup") -> list[Problem]:
    """A ``model_warmup`` sample's ``batch_size`` is within ``1..max(1, max_batch_size)``
    (Triton docs, "Model Configuration: Model Warmup")."""
    if not 1 <= batch_size <= max(1, mbs):
        return _bad(
            f"{where}.batch_size",
            f"{batch_size} is not within 1..{max(1, mbs)}",
            "use 1 for a non-batching model, at most max_batch_size otherwise",
        )
    return []
