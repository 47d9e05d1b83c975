"""``platform: "onnxruntime_onnx"``: ONNX models on Triton's ONNX Runtime backend.

Triton loads ``model.onnx`` (Triton docs, "Model Repository: Model Files"); tensors are
matched by the graph's input and output names. On KIND_GPU instances onnxruntime can hand
subgraphs to TensorRT (ORT-TRT): ``optimization { execution_accelerators {
gpu_execution_accelerator { name: "tensorrt" parameters { precision_mode, max_workspace_size_bytes } } } }``
(Triton docs, "Optimization: ONNX with TensorRT Optimization (ORT-TRT)"); where it applies is
:func:`builders.triton.rules.ort_trt_accelerator`.
"""

from __future__ import annotations

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import NativeBackend

#: Default TensorRT workspace for the onnxruntime accelerator, bytes (1 GiB).
TRT_WORKSPACE_BYTES = 1 << 30
#: Where onnxruntime keeps the TensorRT engines it built (``trt_engine_cache_path``; inside the
#: server's container or host): a reload of the model, or its next instance, reads them
#: instead of building them again (onnxruntime_backend README, "ONNX Runtime with TensorRT
#: optimization": ``trt_engine_cache_enable``, ``trt_engine_cache_path``).
TRT_ENGINE_CACHE_PATH = "/tmp/triton_ort_trt_engines"


class OnnxRuntimeBackend(NativeBackend):
    """ONNX on ``onnxruntime_onnx``, with the ORT-TRT accelerator block when asked for."""

    format = "onnx"
    #: onnxruntime_backend README, "Model Config Options": ``intra_op_thread_count`` (0 or
    #: absent: onnxruntime's default, one thread per physical core).
    threads_parameter = "intra_op_thread_count"
    threads_doc = 'onnxruntime_backend README, "Model Config Options"'
    #: ``inter_op_thread_count`` 1: what the toolkit's python model sets beside its intra-op
    #: threads (``builders.serving.runners``; onnxruntime_backend README, "Model Config Options").
    threads_companions = {"inter_op_thread_count": "1"}  # noqa: RUF012 - read-only class table

    def configure(
        self, cfg: mc.ModelConfig, fmt: str, *, trt_accelerator: str | None = None, intra_op_threads: int | None = None
    ) -> None:
        """The native ONNX fields (threads as :meth:`NativeBackend.configure` writes them), plus
        onnxruntime's TensorRT accelerator block when ``trt_accelerator`` names its
        ``precision_mode`` (:func:`add_ort_trt_accelerator`)."""
        super().configure(cfg, fmt, intra_op_threads=intra_op_threads)
        if trt_accelerator:
            add_ort_trt_accelerator(cfg, trt_accelerator)


def add_ort_trt_accelerator(cfg: mc.ModelConfig, precision: str) -> None:
    """Add onnxruntime's TensorRT execution accelerator to ``cfg``, its engine cache on.

    The engines are built at the first request of each shape; the variant's ``model_warmup``
    (:data:`builders.triton.rules.ORT_TRT_WARMUP`) sends those requests at load, and the cache
    (:data:`TRT_ENGINE_CACHE_PATH`) keeps the engines for the next load.

    Args:
        cfg: The config.
        precision: The toolkit's precision name (``"fp32"``, ``"fp16"``); written as
            Triton's ``precision_mode`` (``"FP16"``), with a 1 GiB workspace.
    """
    acc = cfg.optimization.execution_accelerators.gpu_execution_accelerator.add(name="tensorrt")
    acc.parameters["precision_mode"] = precision.upper()
    acc.parameters["max_workspace_size_bytes"] = str(TRT_WORKSPACE_BYTES)
    acc.parameters["trt_engine_cache_enable"] = "1"
    acc.parameters["trt_engine_cache_path"] = TRT_ENGINE_CACHE_PATH
