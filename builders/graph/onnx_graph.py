"""The facts :mod:`builders.graph.onnx_health` counts in an ONNX graph, the same way in the exported graph and in
the one ONNX Runtime optimised: operators by type (:func:`op_counts`), Conv -> BatchNormalization (-> Relu) left
unfused (:func:`conv_batch_norms`), shapes computed from the batch size (:func:`batch_shape_chains`), and the dims
that are not fixed (:func:`dynamic_dims`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from builders.repository.graph_records import BatchShapeChain, ConvBatchNorm, DynamicDim

#: Operators that take a shape, and the input positions that hold it.
SHAPE_INPUTS: dict[str, frozenset[int]] = {
    "Reshape": frozenset({1}),
    "Expand": frozenset({1}),
    "Tile": frozenset({1}),
    "ConstantOfShape": frozenset({0}),
    "Range": frozenset({0, 1, 2}),
    "Slice": frozenset({1, 2, 3, 4}),
    "Resize": frozenset({2, 3}),
    "Pad": frozenset({1}),
    "Split": frozenset({1}),
    "OneHot": frozenset({1}),
    "TopK": frozenset({1}),
}
#: Operators a shape value flows through on its way to a consumer (shape arithmetic).
SHAPE_ARITHMETIC = frozenset(
    {
        *("Unsqueeze", "Squeeze", "Concat", "Cast", "Identity", "Reshape", "Slice", "Gather"),
        *("Mul", "Add", "Sub", "Div", "Mod", "Max", "Min", "Neg", "Abs", "Floor", "Ceil", "Where", "Sum"),
    }
)
#: Recurrent operators and their initial-state inputs (position -> name): ``nn.GRU``/``nn.LSTM``/
#: ``nn.RNN`` called without ``h0`` export a zero state of shape [layers, batch, hidden] built from
#: the batch size (ONNX operators GRU, LSTM, RNN: inputs 5 ``initial_h`` and, for LSTM, 6 ``initial_c``).
RNN_STATE_INPUTS: dict[str, dict[int, str]] = {
    "GRU": {5: "initial_h"},
    "RNN": {5: "initial_h"},
    "LSTM": {5: "initial_h", 6: "initial_c"},
}
#: Operators a tensor passes through unchanged in meaning on its way to what uses it.
PASS_THROUGH = frozenset({"Cast", "Identity", "Unsqueeze", "Squeeze", "Reshape", "Transpose", "Expand", "Slice", "Split"})
#: Convolutions, ONNX's and ONNX Runtime's own (``com.microsoft.FusedConv``, ``com.microsoft.nchwc.Conv``).
CONV_OPS = frozenset({"Conv", "FusedConv"})
#: Nodes that only move data between layouts (ONNX Runtime's NCHWc reorders), passed through
#: when looking for what a Conv feeds.
LAYOUT_ONLY = frozenset({"ReorderOutput", "ReorderInput", "Identity"})
#: The default ONNX operator domains (an operator outside them is counted as ``domain.op_type``).
DEFAULT_DOMAINS = ("", "ai.onnx")


def _op(node: Any) -> str:
    return node.op_type if node.domain in DEFAULT_DOMAINS else f"{node.domain}.{node.op_type}"


def _subgraphs(node: Any) -> Iterator[Any]:
    import onnx

    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def _all_nodes(graph: Any) -> Iterator[Any]:
    for node in graph.node:
        yield node
        for sub in _subgraphs(node):
            yield from _all_nodes(sub)


def op_counts(model: Any) -> Counter[str]:
    """Operator (``op_type``, ``domain.op_type`` outside the default domain) -> nodes, in the
    main graph, its subgraphs (If/Loop/Scan bodies) and the model's local functions."""
    counts = Counter(_op(n) for n in _all_nodes(model.graph))
    for f in model.functions:
        counts.update(_op(n) for n in f.node)
    return counts


def _consumers(graph: Any) -> dict[str, list[tuple[Any, int]]]:
    """Tensor name -> (node, input position) of every node of ``graph`` reading it."""
    users: dict[str, list[tuple[Any, int]]] = {}
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name:
                users.setdefault(name, []).append((node, i))
    return users


def _name(node: Any) -> str:
    return node.name or (node.output[0] if node.output else node.op_type)


def conv_batch_norms(graph: Any) -> list[ConvBatchNorm]:
    """Conv nodes whose output goes only to a BatchNormalization (and is no graph output),
    with the Relu that alone reads the BatchNormalization's output, if any. Subgraphs are
    searched too. In a graph ONNX Runtime optimised, a Conv may be ORT's own (``FusedConv``,
    ``com.microsoft.nchwc.Conv``) and reach the BatchNormalization through layout nodes
    (:data:`LAYOUT_ONLY`): still a pair left unfused."""
    out: list[ConvBatchNorm] = []
    users = _consumers(graph)
    outputs = {o.name for o in graph.output}
    for node in graph.node:
        for sub in _subgraphs(node):
            out += conv_batch_norms(sub)
        if node.op_type not in CONV_OPS or not node.output or node.output[0] in outputs:
            continue
        bn = _only_user(node.output[0], users, outputs)
        if bn is None or bn.op_type != "BatchNormalization":
            continue
        relu = _only_user(bn.output[0], users, outputs) if bn.output else None
        relu = relu if relu is not None and relu.op_type == "Relu" else None
        out.append(ConvBatchNorm(conv=_name(node), batch_norm=_name(bn), relu=_name(relu) if relu is not None else None))
    return out


def _only_user(tensor: str, users: dict[str, list[tuple[Any, int]]], outputs: set[str]) -> Any:
    """The one node reading ``tensor``, through :data:`LAYOUT_ONLY` nodes; ``None`` when
    several nodes (or a graph output) read it."""
    for _ in range(8):
        after = users.get(tensor, [])
        if len(after) != 1 or tensor in outputs:
            return None
        node = after[0][0]
        if node.op_type not in LAYOUT_ONLY or not node.output:
            return node
        tensor = node.output[0]
    return None


def _constants(graph: Any) -> dict[str, Any]:
    """Tensor name -> numpy value of the graph's small constants (inline initializers and
    Constant nodes); external-data initializers are left out (not loaded)."""
    import onnx
    from onnx import numpy_helper

    values: dict[str, Any] = {}
    for init in graph.initializer:
        if init.data_location != onnx.TensorProto.EXTERNAL:
            values[init.name] = numpy_helper.to_array(init)
    for node in graph.node:
        if node.op_type == "Constant" and node.output:
            for a in node.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    values[node.output[0]] = numpy_helper.to_array(a.t)
                elif a.name in ("value_int", "value_ints"):
                    values[node.output[0]] = onnx.helper.get_attribute_value(a)
    return values


def _is(values: dict[str, Any], name: str, expected: int) -> bool:
    """Whether tensor ``name`` is the constant ``expected`` (a scalar or a one-element list)."""
    import numpy as np

    if name not in values:
        return False
    v = np.asarray(values[name]).reshape(-1)
    return v.size == 1 and int(v[0]) == expected


def _batch_sources(graph: Any) -> set[str]:
    """Tensors whose axis 0 is the batch: the graph inputs (not initializers), and tensors
    whose declared axis 0 carries the symbolic name of a graph input's axis 0."""
    inits = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in inits]
    sources = {i.name for i in inputs}
    names = {d.dim_param for i in inputs for d in _dims(i)[:1] if d.dim_param}
    for vi in (*graph.value_info, *graph.output):
        dims = _dims(vi)
        if names and dims and dims[0].dim_param in names:
            sources.add(vi.name)
    return sources


def _dims(vi: Any) -> list[Any]:
    tt = vi.type.tensor_type
    return list(tt.shape.dim) if tt.HasField("shape") else []


def _attr(node: Any, name: str, default: Any = None) -> Any:
    import onnx

    return next((onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def batch_shape_chains(graph: Any) -> list[BatchShapeChain]:
    """Shapes computed at run time from the batch size, in the main graph.

    A chain starts at a ``Shape`` of a batch source (:func:`_batch_sources`) whose axis-0
    element is taken (``Shape(start=0, end=1)``, or ``Gather`` index 0 / ``Slice`` 0:1 of
    the whole shape), flows through :data:`SHAPE_ARITHMETIC` and ends where it enters a
    shape input of a :data:`SHAPE_INPUTS` operator (``Reshape`` input 1, ``Expand`` input 1...).
    One chain per (Shape, consumer); a consumer reached by two paths counts once.
    """
    users = _consumers(graph)
    values = _constants(graph)
    sources = _batch_sources(graph)
    chains: list[BatchShapeChain] = []
    for node in graph.node:
        if node.op_type != "Shape" or not node.input or node.input[0] not in sources:
            continue
        start, end = _attr(node, "start", 0), _attr(node, "end")
        if start != 0:
            continue
        starts: list[tuple[str, list[str]]] = []  # (tensor holding the batch size, path so far)
        if end == 1:
            starts.append((node.output[0], ["Shape"]))
        elif end is None:
            for user, pos in users.get(node.output[0], []):
                if pos != 0 or not user.output:
                    continue
                if user.op_type == "Gather" and _attr(user, "axis", 0) == 0 and _is(values, user.input[1], 0):
                    starts.append((user.output[0], ["Shape", "Gather"]))
                elif (
                    user.op_type == "Slice"
                    and len(user.input) >= 3
                    and _is(values, user.input[1], 0)
                    and _is(values, user.input[2], 1)
                ):
                    starts.append((user.output[0], ["Shape", "Slice"]))
        seen: set[str] = set()
        for tensor, path in starts:
            chains += _follow(tensor, path, node.input[0], users, seen)
    return chains


def _follow(
    tensor: str, path: list[str], source: str, users: dict[str, list[tuple[Any, int]]], seen: set[str], depth: int = 0
) -> list[BatchShapeChain]:
    """The consumers a batch-size value reaches from ``tensor`` (depth-first, at most 32 steps)."""
    found: list[BatchShapeChain] = []
    if depth > 32:
        return found
    for user, pos in users.get(tensor, []):
        key = _name(user)
        if pos in SHAPE_INPUTS.get(user.op_type, ()):
            if key not in seen:
                seen.add(key)
                found.append(
                    BatchShapeChain(
                        source=source,
                        path=[*path, user.op_type],
                        consumer=key,
                        consumer_op=user.op_type,
                        feeds=_feeds(user, users),
                    )
                )
        elif user.op_type in SHAPE_ARITHMETIC and user.domain in DEFAULT_DOMAINS:
            for out in user.output:
                found += _follow(out, [*path, user.op_type], source, users, seen, depth + 1)
    return found


def _feeds(node: Any, users: dict[str, list[tuple[Any, int]]], depth: int = 0) -> str | None:
    """What ``node``'s output is, when the graph says (:data:`RNN_STATE_INPUTS`): a recurrent
    operator's initial state, reached through :data:`PASS_THROUGH` operators; else ``None``."""
    if depth > 8:
        return None
    for out in node.output:
        for user, pos in users.get(out, []):
            state = RNN_STATE_INPUTS.get(user.op_type, {}).get(pos) if user.domain in DEFAULT_DOMAINS else None
            if state is not None:
                return f"{user.op_type} {state}"
            if user.op_type in PASS_THROUGH and (found := _feeds(user, users, depth + 1)) is not None:
                return found
    return None


def dynamic_dims(graph: Any) -> list[DynamicDim]:
    """Every dim of a graph input (not an initializer) or output that is not a fixed number,
    with its symbolic name (``None``: no name, the runtime cannot tell which dims agree)."""
    inits = {i.name for i in graph.initializer}
    out = []
    for io, tensors in (("input", [i for i in graph.input if i.name not in inits]), ("output", list(graph.output))):
        for t in tensors:
            for axis, d in enumerate(_dims(t)):
                if d.HasField("dim_value") and d.dim_value > 0:
                    continue
                out.append(DynamicDim(tensor=t.name, io=io, axis=axis, name=d.dim_param or None))
    return out
