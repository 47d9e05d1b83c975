"""The variant grid: format x instance group x dynamic batching x max_batch_size x warmup.

A :class:`Variant` is one ``config.pbtxt`` for one exported artifact; its :attr:`Variant.name`
says what it is and is the model's folder name in the repository. :class:`VariantGrid` holds
the axes given on the command line; :meth:`VariantGrid.plan` takes their product, enforces
Triton's rules that can be decided before anything is exported, and returns the variants
together with the ones it *skipped* and why (for example KIND_GPU where the server has no GPU).
The rules themselves live in :mod:`builders.triton.rules`; a :class:`Variant` raises the
problems they find, the planner turns them into skip reasons.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from typing import Any

from builders import backends
from builders.config.grid_skips import UNBATCHED, merged_skips
from builders.config.queue_delays import parse_queue_delays as parse_queue_delays  # its home before
from builders.triton import rules
from builders.triton.rules import Problem, raise_problems
from core import formats
from core.errors import ConfigError, GpuRequiredError
from core.flag_words import flag_words
from core.formats import get as get_format
from core.gpu import detect as detect_gpus
from core.gpu import gpu_available
from core.naming import WARMUPS, NameParts, check_name, parse_variant_name, variant_name
from core.precision import PRECISION_NAMES, TRT_ACCELERATOR_PRECISIONS

log = logging.getLogger(__name__)

#: Instance kinds accepted on the command line; ``auto`` becomes ``gpu`` where the server
#: has a GPU, else ``cpu``.
KINDS = ("cpu", "gpu", "auto")


@dataclasses.dataclass(frozen=True)
class Variant(NameParts):
    """One ``config.pbtxt`` for one exported artifact.

    Every field maps to one Triton ``ModelConfig`` field (Triton docs, "Model Configuration"
    and "Dynamic Batcher"); combinations that break a rule of :mod:`builders.triton.rules`
    raise at construction (:meth:`problems`).

    Attributes:
        model: Model name (``"mlp"``); the variant's name starts with it.
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"`` (of the exported artifact).
        kind: Instance kind, ``"cpu"`` (KIND_CPU) or ``"gpu"`` (KIND_GPU).
        count: Instances per device (``instance_group.count``), >= 1. Default 1.
        max_batch_size: Triton ``max_batch_size``; 0 = the model does not batch and its
            dims are full shapes. Default 64.
        dynamic_batching: Whether ``dynamic_batching`` is on (needs ``max_batch_size > 0``).
        max_queue_delay_us: ``dynamic_batching.max_queue_delay_microseconds`` (µs), >= 0.
        preferred_batch_sizes: ``dynamic_batching.preferred_batch_size``, each within
            ``1..max_batch_size`` (may be empty).
        gpus: GPU ids for KIND_GPU (``instance_group.gpus``); empty = all GPUs.
        warmup: ``None`` (no ``model_warmup``), ``"random"`` or ``"zero"``.
        trt_accelerator: ``None`` or the ``precision_mode`` (``"fp32"``/``"fp16"``) of
            onnxruntime's TensorRT execution accelerator; ONNX on KIND_GPU only.

    Raises:
        ConfigError: a field breaks a Triton rule; the message names the config field.
    """

    # the fields are core.naming.NameParts' (the name encodes every one of them)

    def __post_init__(self) -> None:
        check_name(self.model, "model name")
        formats.get(self.format)  # raises ConfigError naming the known formats
        for field, value, allowed, flag in (
            ("precision", self.precision, PRECISION_NAMES, "--precision"),
            ("instance_group.kind", self.kind, ("cpu", "gpu"), "--instance-kind"),
            ("model_warmup", self.warmup, (None, *WARMUPS), "--warmup"),
            (f"{rules.ACCELERATORS}: precision", self.trt_accelerator, (None, *TRT_ACCELERATOR_PRECISIONS), "--trt-accelerator"),
        ):
            if value not in allowed:
                named = ", ".join(str(a) for a in allowed if a is not None)
                raise ConfigError(f"{field} {value!r} is not one of {named}", hint=f"pass {flag} with one of {named}")
        raise_problems(self.problems())

    def problems(self, backend: str | None = None, server_gpu: bool | None = None) -> list[Problem]:
        """Every Triton rule (:mod:`builders.triton.rules`) the variant's fields break.

        Args:
            backend: The Triton backend that will serve it; default: the format's native
                backend (``core.formats``).
            server_gpu: Whether the server has a GPU; ``None`` = unknown, not checked.
        """
        kind = f"KIND_{self.kind.upper()}"
        out = [
            *rules.max_batch_size(self.max_batch_size),
            *rules.dynamic_batching(self.max_batch_size, self.dynamic_batching),
            *rules.preferred_batch_sizes(self.max_batch_size, self.preferred_batch_sizes, self.dynamic_batching),
            *rules.max_queue_delay(self.max_queue_delay_us),
            *rules.instance_count(self.count),
            *rules.instance_gpus(kind, self.gpus),
            *rules.kind_gpu_needs_gpu(kind, server_gpu),
        ]
        if self.trt_accelerator is not None:
            out += rules.ort_trt_accelerator(backend or formats.get(self.format).backend, self.kind == "gpu")
        return out

    @property
    def name(self) -> str:
        """Directory/model name that says what the variant is.

        Built by :func:`core.naming.variant_name` (the one home of the naming rule), e.g.
        ``mlp_onnx_cpu2_db500_mbs64`` or ``mlp_onnx_gpu1g0_db100p8-16_mbs64_ortrt-fp16_warm-zero``.
        """
        return variant_name(self)

    @classmethod
    def from_name(cls, name: str) -> Variant | None:
        """The variant a name describes (:func:`core.naming.parse_variant_name`), or ``None``
        when ``name`` is not a variant name."""
        parts = parse_variant_name(name)
        return cls(**dataclasses.asdict(parts)) if parts else None

    def to_json(self) -> dict[str, Any]:
        """Every field plus ``name``, JSON-ready (the index file's entry)."""
        d = dataclasses.asdict(self)
        d["name"] = self.name
        d["preferred_batch_sizes"] = list(self.preferred_batch_sizes)
        d["gpus"] = list(self.gpus)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Variant:
        """Inverse of :meth:`to_json`; unknown keys (``name``, ``serving``...) are ignored."""
        fields = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in fields}
        kw["preferred_batch_sizes"] = tuple(kw.get("preferred_batch_sizes", ()))
        kw["gpus"] = tuple(kw.get("gpus", ()))
        return cls(**kw)


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A grid point that was not produced, and why (shown to the user, never silent)."""

    what: str
    reason: str


@dataclasses.dataclass
class GridPlan:
    """What :meth:`VariantGrid.plan` returns: the variants, and the points it skipped."""

    variants: list[Variant]
    skipped: list[Skipped]

    def empty_hint(self) -> str:
        """What widens the grid when every point was skipped, by what skipped them (s19: an accelerator-only grid on
        KIND_CPU was told to add --dynamic-batching off)."""
        ways = []
        if any(s.what.startswith("TensorRT accelerator") for s in self.skipped):
            ways.append("add off to --trt-accelerator (e.g. --trt-accelerator off,fp16), or KIND_GPU instances on a GPU server")
        if not ways or any(s.what == UNBATCHED for s in self.skipped):
            ways.append("add --dynamic-batching off or a max_batch_size > 0")
        return "widen the grid: " + "; or ".join(ways)


@dataclasses.dataclass(frozen=True)
class VariantGrid:
    """The axes of the grid; :meth:`plan` / :meth:`variants` take their product.

    Attributes:
        kinds: Instance kinds: ``"cpu"``, ``"gpu"``, ``"auto"`` (gpu where the server has a
            GPU, else cpu). Default ``("cpu",)``.
        counts: Instance counts per device (default ``(1, 2)``).
        queue_delays_us: Dynamic batching settings: ``None`` = off, an int = on with that
            ``max_queue_delay_microseconds`` (µs). Default ``(None, 500)``.
        preferred_batch_sizes: Preferred batch sizes used by every batching variant
            (default none: the batcher forms the largest batch it can). Sizes above a
            variant's ``max_batch_size`` are dropped for that variant (and logged).
        max_batch_sizes: ``max_batch_size`` values (default ``(64,)``); 0 = no batching.
        gpus: GPU ids for KIND_GPU variants (default: all).
        warmups: ``None`` (no warmup), ``"random"``, ``"zero"``. Default ``(None,)``.
        trt_accelerators: ``None`` or precisions of onnxruntime's TensorRT accelerator,
            applied to ONNX KIND_GPU variants only. Default ``(None,)``.
        server_gpu: Whether the server that will load the repository has a GPU; ``None``
            asks this host (``nvidia-smi``) when a GPU kind is in the grid.
    """

    kinds: tuple[str, ...] = ("cpu",)
    counts: tuple[int, ...] = (1, 2)
    queue_delays_us: tuple[int | None, ...] = (None, 500)
    preferred_batch_sizes: tuple[int, ...] = ()
    max_batch_sizes: tuple[int, ...] = (64,)
    gpus: tuple[int, ...] = ()
    warmups: tuple[str | None, ...] = (None,)
    trt_accelerators: tuple[str | None, ...] = (None,)
    server_gpu: bool | None = None

    def __post_init__(self) -> None:
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown:
            raise ConfigError(
                f"--instance-kind {','.join(unknown)}: not one of {', '.join(KINDS)} (instance_group.kind)",
                hint=f"pass --instance-kind {'|'.join(KINDS)}",
                flag="--instance-kind",
            )
        for field, values in (
            ("instance kinds", self.kinds),
            ("instance counts", self.counts),
            ("max_batch_size values", self.max_batch_sizes),
            ("dynamic batching settings", self.queue_delays_us),
        ):
            if not values:
                raise ConfigError(f"the grid needs at least one of its {field}", hint="give its flag a value, or leave it out")
        # a preferred size no max_batch_size of the grid allows is an error, not a skip
        top = max(self.max_batch_sizes)
        if any(d is not None for d in self.queue_delays_us):
            raise_problems(rules.preferred_batch_sizes(top, self.preferred_batch_sizes))
        elif self.preferred_batch_sizes:  # a flag that would match no variant is an error, not ignored
            raise ConfigError(
                f"{flag_words(VariantGrid, 'preferred_batch_sizes', self.preferred_batch_sizes)} apply to dynamic batching, "
                "but the grid has none (--dynamic-batching off)",
                hint="add a queue delay, e.g. --dynamic-batching off,500, or drop --preferred-batch-sizes",
                flag="--preferred-batch-sizes",
            )
        if self.gpus and not {"gpu", "auto"} & set(self.kinds):
            raise ConfigError(
                f"{flag_words(VariantGrid, 'gpus', self.gpus)} apply to KIND_GPU instance groups, but the grid has only "
                f"{', '.join(self.kinds)} instances",
                hint="add --instance-kind gpu (or auto), or drop --gpus",
                flag="--gpus",
            )

        accelerators = [a for a in self.trt_accelerators if a is not None]
        if accelerators and not {"gpu", "auto"} & set(self.kinds):
            rule = rules.ort_trt_accelerator("onnxruntime", False)[0]  # the rule validate and the planner apply
            raise ConfigError(
                f"--trt-accelerator {','.join(accelerators)} applies to ONNX on KIND_GPU instance groups, but the grid "
                f"has only {', '.join(self.kinds)} instances ({rule.field}: {rule.problem})",
                hint="add --instance-kind gpu (or auto), or drop --trt-accelerator",
                flag="--trt-accelerator",
            )

    def _server_gpu(self, server_gpu: bool | None) -> bool:
        if server_gpu is not None:
            return server_gpu
        if self.server_gpu is not None:
            return self.server_gpu
        if not ({"gpu", "auto"} & set(self.kinds)):
            return False
        return gpu_available()

    def _unused_gpus(self, made: list[Variant], skipped: list[Skipped]) -> list[Skipped]:
        """``--gpus`` as a skip where no variant takes them because ``auto`` made KIND_CPU ones (never dropped without
        a word; an ``instance kind gpu`` skip already says the GPU ids went with those variants)."""
        if not self.gpus or any(v.kind == "gpu" for v in made) or any(s.what == "instance kind gpu" for s in skipped):
            return []
        why = "GPU ids apply to KIND_GPU instances, and --instance-kind auto made KIND_CPU ones (the server has no GPU)"
        return [Skipped(flag_words(VariantGrid, "gpus", self.gpus), f"instance_group.gpus: {why}")]

    def plan(
        self,
        model: str,
        formats: tuple[str, ...],
        precisions: tuple[str, ...] = ("fp32",),
        *,
        serving: str | None = None,
        server_gpu: bool | None = None,
    ) -> GridPlan:
        """Every variant of the grid in a stable order, and what was skipped and why.

        Rules applied (:mod:`builders.triton.rules`; Triton docs, "Model Configuration",
        "Dynamic Batcher", "Optimization"): ``max_batch_size == 0`` variants get no dynamic batching; preferred sizes above a
        variant's ``max_batch_size`` are dropped for it; KIND_GPU variants are skipped when
        the server has no GPU; the TensorRT accelerator applies to ONNX on KIND_GPU only and
        not with python-backend serving (the python backend runs onnxruntime itself).

        Args:
            model: Model name, the first part of every variant name.
            formats: Export formats (``"torchscript"``, ``"onnx"``, ``"trt"``).
            precisions: Export precisions.
            serving: ``"python"``, ``"native"`` or ``None`` (not known: no serving rule).
            server_gpu: Overrides :attr:`server_gpu`.

        Raises:
            GpuRequiredError: only ``gpu`` kinds were asked for and the server has no GPU.
            ConfigError: a grid point breaks a Triton rule that cannot be skipped.
        """
        has_gpu = self._server_gpu(server_gpu)
        detected = server_gpu is None and self.server_gpu is None
        if not has_gpu and self.kinds and all(k == "gpu" for k in self.kinds):
            raise GpuRequiredError(
                "instance_group.kind: only KIND_GPU variants were asked for, but the server has no GPU"
                + (" (nvidia-smi finds none on this host)" if detected else ""),
                hint="add --instance-kind cpu or auto, or pass --server-gpu if the repository is served on another machine",
            )
        if detected and has_gpu and self.gpus:  # the server is this host: its GPU ids are known
            present = [g.index for g in detect_gpus()]
            absent = [g for g in self.gpus if g not in present]
            if absent:
                raise ConfigError(
                    f"{flag_words(VariantGrid, 'gpus', absent)}: no such GPU on this host (its GPUs: "
                    f"{', '.join(map(str, present)) or 'none'})",
                    hint="use ids from nvidia-smi -L, or pass --server-gpu when the repository is served elsewhere",
                    flag="--gpus",
                )
        skipped: list[Skipped] = []
        kinds: list[str] = []
        for k in self.kinds:
            kind = ("gpu" if has_gpu else "cpu") if k == "auto" else k
            no_gpu = rules.kind_gpu_needs_gpu(f"KIND_{kind.upper()}", has_gpu)
            if no_gpu:
                skipped.append(Skipped("instance kind gpu", no_gpu[0].reason()))
                continue
            if kind not in kinds:
                kinds.append(kind)
        out: list[Variant] = []
        unused_acc: dict[str, str] = {}  # an accelerator no grid point takes, and why (said as a skip)
        for fmt, prec, kind, count, mbs, delay, warm, acc in itertools.product(
            formats,
            precisions,
            kinds,
            self.counts,
            self.max_batch_sizes,
            self.queue_delays_us,
            self.warmups,
            self.trt_accelerators,
        ):
            no_batching = rules.dynamic_batching(mbs, delay is not None)
            if no_batching:
                skipped.append(Skipped(UNBATCHED, f"{no_batching[0].field}: {no_batching[0].problem}"))
                continue
            if acc is not None:
                off_axis = rules.ort_trt_accelerator(get_format(fmt).backend, kind == "gpu")
                if off_axis:  # the accelerator axis only multiplies ONNX KIND_GPU variants
                    unused_acc.setdefault(acc, off_axis[-1].reason())
                    continue
                served = rules.ort_trt_accelerator(backends.for_serving(serving, fmt).backend, True) if serving else []
                if served:
                    skipped.append(Skipped(f"TensorRT accelerator {acc}", served[0].reason()))
                    continue
            if acc is not None and warm is None:
                warm = rules.ORT_TRT_WARMUP  # engines are built at load, not on the first requests
            pref: tuple[int, ...] = ()
            if delay is not None:
                pref = tuple(p for p in self.preferred_batch_sizes if not rules.preferred_batch_sizes(mbs, (p,)))
                dropped = [p for p in self.preferred_batch_sizes if p not in pref]
                if dropped:
                    log.info("preferred batch sizes %s dropped for max_batch_size %d", dropped, mbs)
            out.append(
                Variant(
                    model,
                    fmt,
                    prec,
                    kind,
                    count,
                    mbs,
                    dynamic_batching=delay is not None,
                    max_queue_delay_us=delay or 0,
                    preferred_batch_sizes=pref,
                    gpus=self.gpus if kind == "gpu" else (),
                    warmup=warm,
                    trt_accelerator=acc,
                )
            )
        seen: set[str] = set()  # an ORT-TRT variant once, whether the warmup axis said off or zero
        out = [v for v in out if v.trt_accelerator is None or not (v.name in seen or seen.add(v.name))]  # type: ignore[func-returns-value]
        names = [v.name for v in out]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ConfigError(
                f"the grid produces the same variant name twice: {sorted(dup)}", hint="remove repeated values from the flags"
            )
        skipped += self._unused_gpus(out, skipped)
        for acc, why in unused_acc.items():  # an accelerator value no variant got: said, never silently dropped
            what = f"TensorRT accelerator {acc}"
            if not any(v.trt_accelerator == acc for v in out) and not any(sk.what == what for sk in skipped):
                skipped.append(Skipped(what, why))
        return GridPlan(out, [Skipped(w, r) for w, r in merged_skips(skipped, out)])  # once per kind, counted where per point

    def variants(
        self,
        model: str,
        formats: tuple[str, ...],
        precisions: tuple[str, ...] = ("fp32",),
        *,
        serving: str | None = None,
        server_gpu: bool | None = None,
    ) -> list[Variant]:
        """The variants of :meth:`plan`; skipped grid points are logged as warnings.

        Raises:
            GpuRequiredError, ConfigError: as :meth:`plan`.
        """
        p = self.plan(model, formats, precisions, serving=serving, server_gpu=server_gpu)
        for s in p.skipped:
            log.warning("skipped %s: %s", s.what, s.reason)
        return p.variants
