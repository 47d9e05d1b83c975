"""GPU facts, from one detector: NVML (``nvidia-ml-py``), without importing torch.

Everything the toolkit knows about the local GPUs (whether there is one, names, driver,
memory, the indices ``CUDA_VISIBLE_DEVICES`` selects) comes from here. A value NVML cannot
report (``[N/A]`` memory on some devices) is ``None``, never 0.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
from typing import Any

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class GpuInfo:
    """One visible NVIDIA GPU.

    Attributes:
        index: NVML device index.
        name: Product name, e.g. ``"NVIDIA H200"``.
        driver: Driver version, e.g. ``"580.159.03"``.
        memory_bytes: Total device memory (bytes); ``None`` where NVML does not report it.
    """

    index: int
    name: str
    driver: str
    memory_bytes: int | None

    def to_json(self) -> dict[str, Any]:
        """``{"name", "driver", "memory_bytes"}`` (the index is not recorded)."""
        return {"name": self.name, "driver": self.driver, "memory_bytes": self.memory_bytes}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@functools.lru_cache(maxsize=1)
def detect() -> tuple[GpuInfo, ...]:
    """The GPUs NVML sees (cached); empty when there is no driver, no NVML or no GPU."""
    try:
        import pynvml
    except ImportError:  # nvidia-ml-py is a dependency; a broken install means "no GPU facts"
        log.debug("nvidia-ml-py is not installed: no GPU detection")
        return ()
    try:
        pynvml.nvmlInit()
    except Exception as e:  # NVMLError_LibraryNotFound / DriverNotLoaded: no GPU here
        log.debug("NVML not available: %s", e)
        return ()
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        out = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            try:
                mem: int | None = int(pynvml.nvmlDeviceGetMemoryInfo(h).total)
            except Exception:  # "[N/A]" memory (e.g. integrated or MIG parents): unknown, not 0
                mem = None
            out.append(GpuInfo(i, _text(pynvml.nvmlDeviceGetName(h)), driver, mem))
        return tuple(out)
    except Exception as e:
        log.debug("NVML query failed: %s", e)
        return ()
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def gpu_info() -> list[dict[str, Any]]:
    """``[{name, driver, memory_bytes}]`` of the visible NVIDIA GPUs (empty without one)."""
    return [g.to_json() for g in detect()]


def gpu_names() -> tuple[str, ...]:
    """Names of the visible NVIDIA GPUs (empty when none or no driver)."""
    return tuple(g.name for g in detect())


def gpu_available() -> bool:
    """Whether NVML sees at least one NVIDIA GPU on this host."""
    return bool(detect())


def visible_gpu_indices(count: int) -> list[int]:
    """NVML indices of the GPUs in ``CUDA_VISIBLE_DEVICES`` (all when unset or not numeric).

    NVML ignores that variable, so without this a multi-GPU host dilutes a mean.
    """
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is None or env.strip() == "":
        return list(range(count))
    try:
        ids = [int(x) for x in env.split(",") if x.strip()]
    except ValueError:  # GPU UUIDs: all
        return list(range(count))
    return [i for i in ids if 0 <= i < count]
