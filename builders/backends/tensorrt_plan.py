"""``platform: "tensorrt_plan"``: serialised TensorRT engines on Triton's TensorRT backend.

Triton loads ``model.plan`` (Triton docs, "Model Repository: Model Files"); tensors are
matched by the engine's I/O tensor names. A plan is built for one TensorRT version and GPU
architecture, so it is served by the Triton container whose TensorRT built it. With dynamic
shapes, ``max_batch_size`` cannot exceed the largest batch of the engine's optimisation
profile (Triton docs, "Model Configuration: Maximum Batch Size"; the TensorRT backend refuses
to load otherwise).
"""

from __future__ import annotations

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import NativeBackend
from builders.model.artifact_signature import ArtifactIO
from builders.triton.rules import Problem


class TensorRTBackend(NativeBackend):
    """TensorRT plans on ``tensorrt_plan``."""

    format = "trt"

    def artifact_problems(self, cfg: mc.ModelConfig, io: ArtifactIO) -> list[Problem]:
        """``max_batch_size`` within the engine's profile maximum batch."""
        if io.max_batch_size is not None and cfg.max_batch_size > io.max_batch_size:
            return [
                Problem(
                    "",
                    "max_batch_size",
                    f"{cfg.max_batch_size} exceeds the TensorRT engine's profile maximum batch {io.max_batch_size}",
                    f"set max_batch_size <= {io.max_batch_size}, or rebuild the engine with a larger profile",
                )
            ]
        return []
