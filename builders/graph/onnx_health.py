"""Graph health of an ONNX export: plain facts about the graph a runtime will run.

:func:`onnx_health`: the file is parsed with ``onnx`` (protobuf; nothing in it runs,
external data is named and sized, not loaded), then given to ONNX Runtime, which writes the
graph it will run after its own graph optimisation (``SessionOptions.optimized_model_filepath``,
at :data:`ORT_LEVEL` on :data:`ORT_PROVIDER`: what Triton's onnxruntime backend does by
default on a CPU instance, "By default all optimizations are enabled", onnxruntime_backend
README, "Other Optimization Options"). Both graphs are counted the same way: operators by
type, Conv -> BatchNormalization (-> Relu) left unfused, shapes computed from the batch
size (:func:`builders.graph.onnx_graph.batch_shape_chains`).

TorchScript's facts are :mod:`builders.graph.torchscript`. The records are :mod:`builders.repository.graph_records`; what each fact usually means is
:mod:`builders.graph.facts`.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

from builders.graph.onnx_graph import DEFAULT_DOMAINS, batch_shape_chains, conv_batch_norms, dynamic_dims, op_counts
from builders.model.artifact_io import unreadable
from builders.repository.graph_records import OnnxHealth, OptimizedGraph

log = logging.getLogger(__name__)

#: The graph optimisation level ONNX Runtime is asked for: Triton's onnxruntime backend default.
ORT_LEVEL = "ORT_ENABLE_ALL"
#: The execution provider the optimised graph is made for (the one every host has).
ORT_PROVIDER = "CPUExecutionProvider"


def onnx_health(path: str | Path, *, optimize: bool = True) -> OnnxHealth:
    """The graph facts of an ONNX file, before and (``optimize``) after ONNX Runtime's
    graph optimisation.

    Args:
        path: The ``.onnx`` file; its external data files are looked up beside it.
        optimize: Also let ONNX Runtime optimise it (:data:`ORT_LEVEL`, :data:`ORT_PROVIDER`)
            and count the graph it writes. When ORT cannot (no onnxruntime, an operator it
            lacks), ``not_optimized`` says why.

    Raises:
        ConfigError: the file is not a readable ONNX model.
    """
    import onnx

    path = Path(path)
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # DecodeError, OSError...
        raise unreadable(path, "a readable ONNX model", e) from e
    counts = op_counts(model)
    files, size = _external_data(model, path.parent)
    producer = " ".join(x for x in (model.producer_name, model.producer_version) if x) or None
    health = OnnxHealth(
        opset=next((o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS), None),
        ir_version=model.ir_version or None,
        producer=producer,
        node_count=sum(counts.values()),
        op_counts=dict(counts.most_common()),
        conv_bn_unfused=conv_batch_norms(model.graph),
        batch_shape_chains=batch_shape_chains(model.graph),
        dynamic_dims=dynamic_dims(model.graph),
        external_data_bytes=size,
        external_data_files=files,
    )
    if not optimize:
        return health
    try:
        health.optimized = optimized_graph(path)
    except Exception as e:  # ORT refuses the graph (missing kernel, bf16 on CPU...): a fact, not a failure
        health.not_optimized = f"ONNX Runtime could not optimise it: {type(e).__name__}: {str(e).strip()[:300]}"
    return health


def optimized_graph(path: Path, level: str = ORT_LEVEL, provider: str = ORT_PROVIDER) -> OptimizedGraph:
    """Let ONNX Runtime optimise ``path`` and count the graph it writes.

    ORT writes the optimised graph itself (``optimized_model_filepath``), weights of 1 KiB
    and more in an external file of a temporary folder, which is removed afterwards.

    Raises:
        ImportError: onnxruntime is not installed.
        Exception: whatever ONNX Runtime raises for a graph it cannot load.
    """
    import onnx
    import onnxruntime as ort

    with tempfile.TemporaryDirectory(prefix="graph-health-") as tmp:
        out = Path(tmp) / "optimized.onnx"
        so = ort.SessionOptions()
        so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
        so.optimized_model_filepath = str(out)
        so.add_session_config_entry("session.optimized_model_external_initializers_file_name", "optimized.onnx.data")
        so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        so.intra_op_num_threads = 1
        so.log_severity_level = 3  # ORT warns that an ENABLE_ALL graph is hardware-specific: it is only counted here
        ort.InferenceSession(str(path), so, providers=[provider])
        model = onnx.load(str(out), load_external_data=False)
    counts = op_counts(model)
    return OptimizedGraph(
        onnxruntime=ort.__version__,
        level=level,
        provider=provider,
        node_count=sum(counts.values()),
        op_counts=dict(counts.most_common()),
        conv_bn_unfused=conv_batch_norms(model.graph),
        batch_shape_chains=batch_shape_chains(model.graph),
    )


def _external_data(model: Any, folder: Path) -> tuple[list[str], int]:
    """The external data files the initializers name, and their bytes: each file's size on
    disk where it is there, else the lengths the initializers record."""
    import onnx

    files: dict[str, int] = {}
    for init in model.graph.initializer:
        if init.data_location != onnx.TensorProto.EXTERNAL:
            continue
        entry = {e.key: e.value for e in init.external_data}
        loc = entry.get("location")
        if loc:
            files[loc] = files.get(loc, 0) + int(entry.get("length") or 0)
    size = sum((folder / f).stat().st_size if (folder / f).is_file() else n for f, n in files.items())
    return list(files), size
