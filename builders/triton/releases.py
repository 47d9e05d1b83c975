"""What a Triton release serves: its server version, ONNX Runtime and TensorRT, and the ONNX
IR version and opset that ONNX Runtime reads.

The one table of the toolkit for "which versions does release ``yy.mm`` carry"; ``builders
validate --target-triton`` checks artifacts against it.

How it was checked: every value below was read from the source named next to it (each row's
``sources`` field, each limit's ``source``), using stored copies of these public files:

- ``SERVER_COMPAT``: ``docs/introduction/compatibility.md`` of
  https://github.com/triton-inference-server/server (table "ONNX Runtime Versions": Triton
  release -> ONNX Runtime; rows 24.04 to 26.08), published as
  https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/introduction/compatibility.html;
- ``RELNOTES``: ``docs/introduction/release_notes.md`` of the same repository as it stood for
  24.10 and for 25.01 (section "Contents of the Triton Inference Server container": the
  TensorRT and ONNX Runtime versions of the ``-py3`` image);
- ``BUILD_PY``: ``DEFAULT_TRITON_VERSION_MAP`` in ``build.py`` of the same repository while
  25.03 was developed (``"release_version": "2.56.0dev"`` with
  ``"triton_container_version": "25.03dev"``);
- ``ORT_COMPAT``: ONNX Runtime's ``docs/reference/compatibility.md``, table "ONNX opset
  support" (https://onnxruntime.ai/docs/reference/compatibility.html), as it stood with 1.20 as
  its newest row (microsoft/onnxruntime, gh-pages branch, commit 109c0baa9367a6818c00eb42d160ae3719ffb609:
  ``| 1.20 | **1.16.1** | 21 | 4 | 10 |``, ``| 1.19 | **1.16.1** | 21 | 4 | 10 |``,
  ``| 1.18 | **1.16** | 21 | 4 | 10 |``: ONNX Runtime, ONNX, opset, ML opset, IR version). With
  ``SERVER_COMPAT`` (24.09, 24.10, 24.11: ONNX Runtime 1.19.2; 24.12, 25.01, 25.02: 1.20.1), the
  default release (:data:`DEFAULT_RELEASE`, 24.10) has a confirmed ONNX check (trial 24, T24-14: it had none,
  so a bundle of an ONNX pick for the default image was never checked).

A value no source confirmed is ``None``: the check that needs it is not run and is listed as
such ("version not confirmed for this release"), never run against a guess. Where sources
disagreed, the published release table won: ``build.py`` on the development branch named ONNX
Runtime 1.20.1 for 25.03dev, the compatibility table names 1.21.0 for the 25.03 release.

A release that is not in the table is refused by name (the known ones are listed), never
guessed. Add a row, with a source for every value, when a new release is needed.
"""

from __future__ import annotations

import dataclasses
import re

from core.errors import ConfigError

SERVER_COMPAT = "triton-inference-server/server docs/introduction/compatibility.md, table 'ONNX Runtime Versions'"
RELNOTES = "triton-inference-server/server docs/introduction/release_notes.md for {}, container contents"
BUILD_PY = (
    "triton-inference-server/server build.py DEFAULT_TRITON_VERSION_MAP during 25.03 development "
    "(release_version 2.56.0dev, triton_container_version 25.03dev)"
)
ORT_COMPAT = "ONNX Runtime docs/reference/compatibility.md, table 'ONNX opset support', row {}"

#: Why a target check is listed as not run when the table has no confirmed value for it.
NOT_CONFIRMED = "version not confirmed for this release"


@dataclasses.dataclass(frozen=True)
class OnnxRuntimeLimits:
    """The newest ONNX an ONNX Runtime release reads.

    Attributes:
        max_opset: Highest default-domain (``ai.onnx``) opset it implements.
        max_ir_version: Highest ONNX IR version (``ModelProto.ir_version``) it loads.
        source: Where both numbers were read.
    """

    max_opset: int
    max_ir_version: int
    source: str


#: ONNX Runtime minor version -> what it reads. Only confirmed rows (module docstring, ``ORT_COMPAT``): 1.21 is
#: absent (no source was found), so a release carrying it (25.03) gets no opset/IR verdict.
ONNXRUNTIME_LIMITS: dict[str, OnnxRuntimeLimits] = {
    "1.18": OnnxRuntimeLimits(max_opset=21, max_ir_version=10, source=ORT_COMPAT.format("1.18")),
    "1.19": OnnxRuntimeLimits(max_opset=21, max_ir_version=10, source=ORT_COMPAT.format("1.19")),
    "1.20": OnnxRuntimeLimits(max_opset=21, max_ir_version=10, source=ORT_COMPAT.format("1.20")),
}


@dataclasses.dataclass(frozen=True)
class TritonRelease:
    """One Triton release (the ``nvcr.io/nvidia/tritonserver:<container>-py3`` image).

    Attributes:
        container: Container tag ``yy.mm`` (``"24.10"``).
        server: ``tritonserver --version`` of that release (``"2.56.0"``); ``None``: not confirmed.
        onnxruntime: ONNX Runtime version of its onnxruntime backend; ``None``: not confirmed.
        tensorrt: TensorRT version of its tensorrt backend (major.minor.patch.build);
            ``None``: not confirmed.
        sources: Field name -> where its value was read; every field that is not ``None``
            has one.
    """

    container: str
    server: str | None
    onnxruntime: str | None
    tensorrt: str | None
    sources: dict[str, str] = dataclasses.field(default_factory=dict, compare=False, hash=False)

    @property
    def onnxruntime_limits(self) -> OnnxRuntimeLimits | None:
        """What this release's ONNX Runtime reads (:data:`ONNXRUNTIME_LIMITS`); ``None`` when
        the ONNX Runtime version or its limits are not confirmed."""
        if self.onnxruntime is None:
            return None
        return ONNXRUNTIME_LIMITS.get(".".join(self.onnxruntime.split(".")[:2]))

    def describe(self) -> str:
        """``"Triton 24.10 (server not confirmed, ONNX Runtime 1.19.2, TensorRT 10.5.0.18)"``."""

        def v(x: str | None) -> str:
            return x if x is not None else "not confirmed"

        return (
            f"Triton {self.container} (server {v(self.server)}, ONNX Runtime {v(self.onnxruntime)}, TensorRT {v(self.tensorrt)})"
        )


def _row(
    container: str, *, onnxruntime: str, server: tuple[str, str] | None = None, tensorrt: tuple[str, str] | None = None
) -> TritonRelease:
    """A row whose ONNX Runtime comes from :data:`SERVER_COMPAT`; ``server``/``tensorrt`` are
    ``(value, source)`` where confirmed."""
    sources = {"onnxruntime": SERVER_COMPAT}
    if server:
        sources["server"] = server[1]
    if tensorrt:
        sources["tensorrt"] = tensorrt[1]
    return TritonRelease(container, server[0] if server else None, onnxruntime, tensorrt[0] if tensorrt else None, sources)


#: Container tag -> release. Server versions and TensorRT versions are filled only where a
#: source was found (see the module docstring).
RELEASES: dict[str, TritonRelease] = {
    r.container: r
    for r in (
        _row("24.05", onnxruntime="1.18.0"),
        _row("24.06", onnxruntime="1.18.0"),
        _row("24.07", onnxruntime="1.18.1"),
        _row("24.08", onnxruntime="1.18.1"),
        _row("24.09", onnxruntime="1.19.2"),
        _row("24.10", onnxruntime="1.19.2", tensorrt=("10.5.0.18", RELNOTES.format("24.10"))),
        _row("24.11", onnxruntime="1.19.2"),
        _row("24.12", onnxruntime="1.20.1"),
        _row("25.01", onnxruntime="1.20.1", tensorrt=("10.8.0.43", RELNOTES.format("25.01"))),
        _row("25.02", onnxruntime="1.20.1"),
        _row("25.03", onnxruntime="1.21.0", server=("2.56.0", BUILD_PY)),
    )
}

#: The release the toolkit targets unless told otherwise: the container runtime's image tag
#: (``clients.runtimes.options.DEFAULT_TAG``), the image a deployment bundle runs and the TensorRT image
#: ``--print-trtexec`` names. Every target check is confirmed for it (tests/builders/triton/test_default_release.py):
#: a bundle for the default image is never left unchecked.
DEFAULT_RELEASE = "24.10"

_TAG = re.compile(r"^(?:nvcr\.io/nvidia/tritonserver:)?(\d{2}\.\d{2})(?:-py3.*)?$")


def coverage() -> str:
    """Which releases each target check has confirmed versions for, from :data:`RELEASES`: the one
    text a hint or help names them by (trial 11, F6: validate's advice gave 24.10 as its example,
    whose ONNX check was then not run): ``"the ONNX opset/IR check for 24.05, 24.06, ..., 25.02;
    the TensorRT plan check for 24.10, 25.01"``."""
    onnx = [r.container for r in RELEASES.values() if r.onnxruntime_limits is not None]
    plans = [r.container for r in RELEASES.values() if r.tensorrt is not None]
    return f"the ONNX opset/IR check for {', '.join(onnx) or 'none'}; the TensorRT plan check for {', '.join(plans) or 'none'}"


def release(target: str) -> TritonRelease:
    """The release named by a container tag (``24.10``, ``24.10-py3``,
    ``nvcr.io/nvidia/tritonserver:24.10-py3``) or a server version (``2.56.0``; only where the
    table has a confirmed server version).

    Raises:
        ConfigError: not a release in :data:`RELEASES` (the message lists them).
    """
    text = target.strip()
    m = _TAG.match(text)
    if m and m.group(1) in RELEASES:
        return RELEASES[m.group(1)]
    for r in RELEASES.values():
        if r.server is not None and text == r.server:
            return r
    known = ", ".join(f"{r.container} ({r.server})" if r.server else r.container for r in RELEASES.values())
    raise ConfigError(
        f"--target-triton {target!r} is not a Triton release this toolkit knows",
        hint=f"give a container tag or server version of one of: {known}; "
        "newer releases need a row in builders/triton/releases.py",
        flag="--target-triton",
    )


def same_tensorrt(built_with: str, serving: str) -> bool:
    """Whether a plan built with TensorRT ``built_with`` loads on TensorRT ``serving``: plans
    are not portable across TensorRT versions (TensorRT docs, "Version Compatibility": an
    engine runs only on the version that built it unless built version-compatible), so the
    major.minor.patch must agree."""
    return built_with.split(".")[:3] == serving.split(".")[:3]
