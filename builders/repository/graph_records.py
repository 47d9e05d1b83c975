"""Typed records of an export's graph health (``builders inspect``, the build manifest).

Plain facts about an exported graph, no score: what :mod:`builders.graph.onnx_health` found in
an ONNX graph (operator counts before and after ONNX Runtime's own graph optimisation,
unfused Conv -> BatchNormalization (-> Relu) patterns, shape chains fed by the batch
dimension, dynamic dims, external data, opset and IR version) and what
:mod:`builders.graph.torchscript` found in a TorchScript module (frozen or not, graph node
count). :mod:`builders.graph.facts` says what each usually means.

A build records one per export in ``manifest.json`` (``exports[].graph_health``, optional:
manifests written before it load with ``null``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from core.records import Record


class ConvBatchNorm(Record):
    """A Conv whose only consumer is a BatchNormalization (optionally followed by a Relu):
    three passes over the activations where one fused Conv would do."""

    conv: str = Field(description="the Conv node's name (or its output tensor when the node has no name)")
    batch_norm: str = Field(description="the BatchNormalization node's name")
    relu: str | None = Field(None, description="the Relu node after the BatchNormalization, if any")


class BatchShapeChain(Record):
    """A shape computed at run time from the batch size: ``Shape`` of a tensor whose axis 0
    is the batch, the element of axis 0 taken (``Gather`` index 0, ``Slice`` 0:1 or
    ``Shape(start=0, end=1)``), flowing through shape arithmetic into a node that takes a
    shape (``Reshape``, ``Expand``...)."""

    source: str = Field(description="the tensor whose shape is read (a graph input, or a tensor with the batch dim)")
    path: list[str] = Field(description="operator types from the Shape to the consumer, e.g. [Shape, Gather, Concat, Reshape]")
    consumer: str = Field(description="the node that takes the shape (its name, or its first output)")
    consumer_op: str = Field(description="its operator type (Reshape, Expand, Tile, ...)")
    feeds: str | None = Field(
        None,
        description="what the tensor the consumer makes is, when the graph says: a recurrent layer's initial state "
        "(`GRU initial_h`, `LSTM initial_c`); null: the graph does not say",
    )


class DynamicDim(Record):
    """A dim of a graph input or output that is not a fixed number."""

    tensor: str
    io: Literal["input", "output"]
    axis: int = Field(description="0-based axis")
    name: str | None = Field(description="the symbolic name (dim_param); null: dynamic with no name")


class OptimizedGraph(Record):
    """The graph ONNX Runtime runs after its own graph optimisation, as ORT wrote it
    (``SessionOptions.optimized_model_filepath``); ORT-specific fused operators (FusedConv,
    com.microsoft.nchwc...) are counted as they are."""

    onnxruntime: str = Field(description="the onnxruntime version that optimised it")
    level: str = Field(description="the graph optimisation level (ORT_ENABLE_ALL, ...)")
    provider: str = Field(description="the execution provider it was optimised for")
    node_count: int
    op_counts: dict[str, int] = Field(description="operator ([domain.]op_type) -> nodes, subgraphs included")
    conv_bn_unfused: list[ConvBatchNorm] = Field([], description="Conv -> BatchNormalization pairs still separate")
    batch_shape_chains: list[BatchShapeChain] = []


class OnnxHealth(Record):
    """Graph facts of one ONNX file, parsed with ``onnx`` (nothing in it runs)."""

    format: Literal["onnx"] = "onnx"
    opset: int | None = Field(None, description="the default-domain (ai.onnx) opset the graph imports")
    ir_version: int | None = None
    producer: str | None = Field(None, description="producer_name and producer_version")
    node_count: int = Field(description="nodes, subgraphs (If/Loop bodies) and local functions included")
    op_counts: dict[str, int] = Field(description="operator ([domain.]op_type) -> nodes")
    conv_bn_unfused: list[ConvBatchNorm] = []
    batch_shape_chains: list[BatchShapeChain] = []
    dynamic_dims: list[DynamicDim] = []
    external_data_bytes: int = Field(0, description="bytes of weights kept outside the .onnx file")
    external_data_files: list[str] = Field([], description="the external data files the graph names")
    optimized: OptimizedGraph | None = Field(None, description="after ONNX Runtime's graph optimisation")
    not_optimized: str | None = Field(None, description="why there is no optimised graph (ORT failed or is absent)")


class TorchScriptHealth(Record):
    """Graph facts of one TorchScript module (loaded: the user named it, or asked for it)."""

    format: Literal["torchscript"] = "torchscript"
    frozen: bool = Field(description="no parameters left and no attribute read in forward (torch.jit.freeze)")
    parameters: int = Field(description="parameters the module still holds")
    attribute_reads: int = Field(description="prim::GetAttr nodes in forward's inlined graph")
    node_count: int = Field(description="nodes of forward's inlined graph (submodule calls inlined)")


#: The graph health of one export, by ``format``.
GraphHealth = Annotated[OnnxHealth | TorchScriptHealth, Field(discriminator="format")]
