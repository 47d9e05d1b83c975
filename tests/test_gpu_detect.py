"""GPU detection parses nvidia-smi's CSV (a fake nvidia-smi on PATH stands in for the driver)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import gpu


@pytest.fixture
def fake_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def install(stdout: str, code: int = 0) -> None:
        script = tmp_path / "nvidia-smi"
        script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{stdout}EOF\nexit {code}\n")
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
        gpu._query.cache_clear()

    yield install
    gpu._query.cache_clear()


def test_two_gpus_with_driver_and_memory(fake_smi):
    fake_smi("NVIDIA H200, 580.159.03, 143771\nNVIDIA H200, 580.159.03, 143771\n")
    assert gpu.gpu_names() == ("NVIDIA H200", "NVIDIA H200")
    assert gpu.gpu_info()[0] == {"name": "NVIDIA H200", "driver": "580.159.03", "memory_bytes": 143771 * 2**20}
    assert gpu.gpu_available()


def test_a_failing_nvidia_smi_means_no_gpu(fake_smi):
    fake_smi("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", code=9)
    assert gpu.gpu_info() == [] and not gpu.gpu_available()
