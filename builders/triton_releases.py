"""What a Triton release serves: its server version, ONNX Runtime and TensorRT, and the ONNX
IR version and opset that ONNX Runtime reads.

The one table of the toolkit for "which versions does release ``yy.mm`` carry"; ``builders
validate --target-triton`` checks artifacts against it. Sources (checked 2026-12):

- container tag -> server version and TensorRT version: Triton's release notes, table
  "NVIDIA Triton Inference Server Container Versions" of each release page
  (https://docs.nvidia.com/deeplearning/triton-inference-server/release-notes/rel-<yy-mm>.html),
  and the Deep Learning Frameworks Support Matrix
  (https://docs.nvidia.com/deeplearning/frameworks/support-matrix/index.html);
- container tag -> ONNX Runtime version: ``TRITON_VERSION_MAP`` / ``DEFAULT_TRITON_VERSION_MAP``
  (``ort_version``) in ``build.py`` of https://github.com/triton-inference-server/server at
  the release's ``r<yy.mm>`` branch (e.g. 2.56.0 / 25.03: ONNX Runtime 1.20.1);
- ONNX Runtime version -> highest ONNX opset and IR version it reads: ONNX Runtime's
  "Compatibility" page, version matrix (https://onnxruntime.ai/docs/reference/compatibility.html).

A release that is not in the table is refused by name (the known ones are listed), never
guessed. Add a row with its sources when a new release is needed.
"""

from __future__ import annotations

import dataclasses
import re

from core.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class OnnxRuntimeLimits:
    """The newest ONNX an ONNX Runtime release reads.

    Attributes:
        max_opset: Highest default-domain (``ai.onnx``) opset it implements.
        max_ir_version: Highest ONNX IR version (``ModelProto.ir_version``) it loads.
    """

    max_opset: int
    max_ir_version: int


#: ONNX Runtime minor version -> what it reads (ONNX Runtime "Compatibility" page).
ONNXRUNTIME_LIMITS: dict[str, OnnxRuntimeLimits] = {
    "1.18": OnnxRuntimeLimits(max_opset=21, max_ir_version=10),
    "1.19": OnnxRuntimeLimits(max_opset=21, max_ir_version=10),
    "1.20": OnnxRuntimeLimits(max_opset=21, max_ir_version=10),
}


@dataclasses.dataclass(frozen=True)
class TritonRelease:
    """One Triton release (the ``nvcr.io/nvidia/tritonserver:<container>-py3`` image).

    Attributes:
        container: Container tag ``yy.mm`` (``"24.10"``).
        server: ``tritonserver --version`` of that release (``"2.51.0"``).
        onnxruntime: ONNX Runtime version of its onnxruntime backend.
        tensorrt: TensorRT version of its tensorrt backend (major.minor.patch.build).
    """

    container: str
    server: str
    onnxruntime: str
    tensorrt: str

    @property
    def onnxruntime_limits(self) -> OnnxRuntimeLimits:
        """What this release's ONNX Runtime reads (:data:`ONNXRUNTIME_LIMITS`)."""
        return ONNXRUNTIME_LIMITS[".".join(self.onnxruntime.split(".")[:2])]

    def describe(self) -> str:
        """``"Triton 24.10 (server 2.51.0, ONNX Runtime 1.19.2, TensorRT 10.5.0.18)"``."""
        return (f"Triton {self.container} (server {self.server}, ONNX Runtime {self.onnxruntime}, "
                f"TensorRT {self.tensorrt})")


#: Container tag -> release (sources in the module docstring).
RELEASES: dict[str, TritonRelease] = {r.container: r for r in (
    TritonRelease("24.05", "2.46.0", "1.18.0", "10.0.1.6"),
    TritonRelease("24.06", "2.47.0", "1.18.0", "10.1.0.27"),
    TritonRelease("24.07", "2.48.0", "1.18.1", "10.2.0.19"),
    TritonRelease("24.08", "2.49.0", "1.18.1", "10.3.0.26"),
    TritonRelease("24.09", "2.50.0", "1.19.2", "10.4.0.26"),
    TritonRelease("24.10", "2.51.0", "1.19.2", "10.5.0.18"),
    TritonRelease("24.11", "2.52.0", "1.20.0", "10.6.0.26"),
    TritonRelease("24.12", "2.53.0", "1.20.1", "10.7.0.23"),
    TritonRelease("25.01", "2.54.0", "1.20.1", "10.8.0.43"),
    TritonRelease("25.02", "2.55.0", "1.20.1", "10.8.0.43"),
    TritonRelease("25.03", "2.56.0", "1.20.1", "10.9.0.34"),
)}

_TAG = re.compile(r"^(?:nvcr\.io/nvidia/tritonserver:)?(\d{2}\.\d{2})(?:-py3.*)?$")


def release(target: str) -> TritonRelease:
    """The release named by a container tag (``24.10``, ``24.10-py3``,
    ``nvcr.io/nvidia/tritonserver:24.10-py3``) or a server version (``2.51.0``).

    Raises:
        ConfigError: not a release in :data:`RELEASES` (the message lists them).
    """
    text = target.strip()
    m = _TAG.match(text)
    if m and m.group(1) in RELEASES:
        return RELEASES[m.group(1)]
    for r in RELEASES.values():
        if text == r.server:
            return r
    known = ", ".join(f"{r.container} ({r.server})" for r in RELEASES.values())
    raise ConfigError(
        f"--target-triton {target!r} is not a Triton release this toolkit knows",
        hint=f"give a container tag or server version of one of: {known}; "
             "newer releases need a row in builders/triton_releases.py",
    )


def same_tensorrt(built_with: str, serving: str) -> bool:
    """Whether a plan built with TensorRT ``built_with`` loads on TensorRT ``serving``: plans
    are not portable across TensorRT versions (TensorRT docs, "Version Compatibility": an
    engine runs only on the version that built it unless built version-compatible), so the
    major.minor.patch must agree."""
    return built_with.split(".")[:3] == serving.split(".")[:3]
