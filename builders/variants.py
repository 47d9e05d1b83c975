"""The variant grid: format x instance group x dynamic batching x max_batch_size."""

from __future__ import annotations

import dataclasses
import itertools
import re
from typing import Any

from builders.artifacts import FORMAT_TOKENS
from builders.errors import ConfigError

_NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclasses.dataclass(frozen=True)
class Variant:
    """One ``config.pbtxt`` for one exported artifact.

    Attributes:
        model: Model name (``"mlp"``).
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"``.
        kind: Instance kind, ``"cpu"`` (KIND_CPU) or ``"gpu"`` (KIND_GPU).
        count: Instances per device (``instance_group.count``).
        max_batch_size: Triton ``max_batch_size`` (0 = the model does not batch).
        dynamic_batching: Whether ``dynamic_batching`` is on.
        max_queue_delay_us: ``dynamic_batching.max_queue_delay_microseconds`` (µs).
        preferred_batch_sizes: ``dynamic_batching.preferred_batch_size`` (may be empty).
        gpus: GPU ids for KIND_GPU (``instance_group.gpus``); empty = all GPUs.
    """

    model: str
    format: str
    precision: str = "fp32"
    kind: str = "cpu"
    count: int = 1
    max_batch_size: int = 64
    dynamic_batching: bool = False
    max_queue_delay_us: int = 0
    preferred_batch_sizes: tuple[int, ...] = ()
    gpus: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not _NAME_OK.match(self.model):
            raise ConfigError(
                f"model name {self.model!r} is not safe as a directory name",
                hint="use letters, digits, '_', '-' and '.', starting with a letter or digit",
            )
        if self.kind not in ("cpu", "gpu"):
            raise ConfigError(f"instance kind {self.kind!r} is not 'cpu' or 'gpu'")
        if self.count < 1:
            raise ConfigError(f"instance_group.count must be >= 1, got {self.count}")
        if self.max_batch_size < 0:
            raise ConfigError(f"max_batch_size must be >= 0, got {self.max_batch_size}")
        if self.dynamic_batching and self.max_batch_size == 0:
            raise ConfigError(
                "dynamic_batching needs max_batch_size > 0 (Triton docs, 'Dynamic Batcher')",
                hint="drop dynamic batching for max_batch_size 0 variants, or raise max_batch_size",
            )
        bad = [p for p in self.preferred_batch_sizes if not 1 <= p <= self.max_batch_size]
        if bad:
            raise ConfigError(
                f"dynamic_batching.preferred_batch_size {bad} must be within 1..max_batch_size ({self.max_batch_size})"
            )
        if self.max_queue_delay_us < 0:
            raise ConfigError(f"max_queue_delay_microseconds must be >= 0, got {self.max_queue_delay_us}")

    @property
    def name(self) -> str:
        """Directory/model name that says what the variant is, e.g. ``mlp_onnx_cpu2_db500_mbs64``."""
        fmt = FORMAT_TOKENS[self.format] + ("" if self.precision == "fp32" else f"-{self.precision}")
        db = f"db{self.max_queue_delay_us}" if self.dynamic_batching else "nodb"
        if self.dynamic_batching and self.preferred_batch_sizes:
            db += "p" + "-".join(map(str, self.preferred_batch_sizes))
        gpus = ("g" + "-".join(map(str, self.gpus))) if self.gpus else ""
        return f"{self.model}_{fmt}_{self.kind}{self.count}{gpus}_{db}_mbs{self.max_batch_size}"

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["name"] = self.name
        d["preferred_batch_sizes"] = list(self.preferred_batch_sizes)
        d["gpus"] = list(self.gpus)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Variant":
        fields = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in fields}
        kw["preferred_batch_sizes"] = tuple(kw.get("preferred_batch_sizes", ()))
        kw["gpus"] = tuple(kw.get("gpus", ()))
        return cls(**kw)


@dataclasses.dataclass(frozen=True)
class VariantGrid:
    """The axes of the grid; :meth:`variants` takes their product.

    Attributes:
        kinds: Instance kinds (``"cpu"``, ``"gpu"``).
        counts: Instance counts per device (default ``(1, 2)``).
        queue_delays_us: Dynamic batching settings: ``None`` = off, an int = on with that
            ``max_queue_delay_microseconds`` (default ``(None, 500)``).
        preferred_batch_sizes: Preferred batch sizes used by every batching variant
            (default none: the batcher forms the largest batch it can).
        max_batch_sizes: ``max_batch_size`` values (default ``(64,)``).
        gpus: GPU ids for KIND_GPU variants (default: all).
    """

    kinds: tuple[str, ...] = ("cpu",)
    counts: tuple[int, ...] = (1, 2)
    queue_delays_us: tuple[int | None, ...] = (None, 500)
    preferred_batch_sizes: tuple[int, ...] = ()
    max_batch_sizes: tuple[int, ...] = (64,)
    gpus: tuple[int, ...] = ()

    def variants(self, model: str, formats: tuple[str, ...], precisions: tuple[str, ...] = ("fp32",)) -> list[Variant]:
        """Every variant of the grid, in a stable order.

        Variants with ``max_batch_size == 0`` are produced without dynamic batching only
        (Triton rejects ``dynamic_batching`` without batching support); preferred sizes above
        a variant's ``max_batch_size`` are dropped for that variant.
        """
        out: list[Variant] = []
        for fmt, prec, kind, count, mbs, delay in itertools.product(
            formats, precisions, self.kinds, self.counts, self.max_batch_sizes, self.queue_delays_us
        ):
            if mbs == 0 and delay is not None:
                continue
            pref = tuple(p for p in self.preferred_batch_sizes if p <= mbs) if delay is not None else ()
            out.append(
                Variant(
                    model, fmt, prec, kind, count, mbs,
                    dynamic_batching=delay is not None,
                    max_queue_delay_us=delay or 0,
                    preferred_batch_sizes=pref,
                    gpus=self.gpus if kind == "gpu" else (),
                )
            )
        names = [v.name for v in out]
        assert len(set(names)) == len(names), "variant names must be unique"
        return out
