"""GPU detection goes through NVML (a fake ``pynvml`` module stands in for the driver here;
the real one is exercised by the ``gpu``-marked tests on a GPU host)."""

from __future__ import annotations

import sys
import types

import pytest

from core import gpu


class _NvmlError(Exception):
    pass


def _fake_pynvml(devices: list[tuple[str, int | None]] | None, driver: str = "580.159.03") -> types.ModuleType:
    """``devices=None``: the driver is missing (nvmlInit raises)."""
    m = types.ModuleType("pynvml")

    def init() -> None:
        if devices is None:
            raise _NvmlError("NVML Shared Library Not Found")

    def memory(h: int):
        total = devices[h][1]
        if total is None:
            raise _NvmlError("Not Supported")  # what nvidia-smi shows as [N/A]
        return types.SimpleNamespace(total=total, used=0)

    m.nvmlInit = init
    m.nvmlShutdown = lambda: None
    m.nvmlSystemGetDriverVersion = lambda: driver
    m.nvmlDeviceGetCount = lambda: len(devices or [])
    m.nvmlDeviceGetHandleByIndex = lambda i: i
    m.nvmlDeviceGetName = lambda h: devices[h][0]
    m.nvmlDeviceGetMemoryInfo = memory
    return m


@pytest.fixture
def fake_nvml(monkeypatch: pytest.MonkeyPatch):
    def install(devices, driver: str = "580.159.03") -> None:
        monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(devices, driver))
        gpu.detect.cache_clear()

    yield install
    gpu.detect.cache_clear()


def test_two_gpus_with_driver_and_memory(fake_nvml):
    fake_nvml([("NVIDIA H200", 143771 * 2**20), ("NVIDIA H200", 143771 * 2**20)])
    assert gpu.gpu_names() == ("NVIDIA H200", "NVIDIA H200")
    assert gpu.gpu_info()[0] == {"name": "NVIDIA H200", "driver": "580.159.03", "memory_bytes": 143771 * 2**20}
    assert gpu.gpu_available()


def test_memory_nvml_cannot_report_is_null_not_zero(fake_nvml):
    fake_nvml([("NVIDIA GH200", None)])
    assert gpu.gpu_info() == [{"name": "NVIDIA GH200", "driver": "580.159.03", "memory_bytes": None}]


def test_no_driver_means_no_gpu(fake_nvml):
    fake_nvml(None)
    assert gpu.gpu_info() == [] and not gpu.gpu_available()


def test_visible_indices_follow_cuda_visible_devices(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,0,9")
    assert gpu.visible_gpu_indices(4) == [2, 0]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-uuid")
    assert gpu.visible_gpu_indices(2) == [0, 1]
