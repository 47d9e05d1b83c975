"""Graph health in words: each fact of :mod:`builders.repository.graph_records` with a short line on
what it usually means (chosen by the numbers), and one summary line per export for the
build summary. Plain facts, no score.
"""

from __future__ import annotations

import dataclasses

from builders.repository.graph_records import BatchShapeChain, OnnxHealth, TorchScriptHealth
from builders.repository.records import BuildManifest, ExportRecord
from core.wording import agree, count

#: How many operators / chains / dims a value lists before "...".
SHOWN = 6


@dataclasses.dataclass(frozen=True)
class Fact:
    """One row of ``builders inspect``: what, the value found, what it usually means."""

    name: str
    value: str
    meaning: str


def facts(health: OnnxHealth | TorchScriptHealth) -> list[Fact]:
    """The facts of one export, each with what it usually means."""
    return onnx_facts(health) if isinstance(health, OnnxHealth) else torchscript_facts(health)


def _ops(counts: dict[str, int]) -> str:
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{op} {n}" for op, n in items[:SHOWN])
    return shown + (f", ... ({len(items) - SHOWN} more types)" if len(items) > SHOWN else "")


def _node_change(nodes: int, nodes_after: int, before: dict[str, int], after: dict[str, int]) -> str:
    """What ONNX Runtime's optimisation did to the node count, by its direction (trial 14, T14-2: an
    fp16 graph went 31 -> 57 nodes, layout reorders added around each Conv, and was said "left the node
    count as it was"): fused or removed, added (the operator types that grew, most first), or unchanged."""
    delta = nodes - nodes_after
    if delta > 0:
        return f"ORT fused or removed {count(delta, 'node')}"
    if delta == 0:
        return "ORT left the node count as it was"
    grew = {op: n - before.get(op, 0) for op, n in after.items() if n > before.get(op, 0)}
    return f"ORT added {count(-delta, 'node')} (more of: {_ops(grew)}): each added node (a layout reorder, a cast) is one more pass over its tensor"


def chain_text(c: BatchShapeChain) -> str:
    """``"x: Shape -> Gather -> Concat -> Reshape (node_3)"``; ``"... (node_3, into GRU initial_h)"``
    when the graph says what the consumer's output is."""
    return f"{c.source}: {' -> '.join(c.path)} ({c.consumer}" + (f", into {c.feeds})" if c.feeds else ")")


#: What a chain into a ``Reshape`` usually is, and what avoids it.
RESHAPE_WORDS = (
    "the graph reads the batch size at run time to build a shape (typically `x.view(x.size(0), -1)` or "
    "`x.view(b, s, heads, -1)`): small shape operators on every call, and TensorRT must treat the shape as a "
    "run-time value; `x.flatten(1)` or `reshape(-1, ...)` usually avoids it"
)


def chain_meaning(chains: list[BatchShapeChain], left: int | None) -> str:
    """What the batch-size chains usually mean, by what each feeds (session 6: a model with
    ``nn.GRU`` was advised ``x.flatten(1)`` for the zero initial state nn.GRU makes when given no
    ``h0``, which no reshape can remove): a recurrent layer's initial state, a ``Reshape``
    (the flatten advice), or something the graph does not explain (no advice).

    Args:
        chains: The export's chains.
        left: How many ONNX Runtime's optimised graph still has (``None``: not measured).
    """
    if not chains:
        return "no shape is read from the batch axis at run time"
    rnn = [c for c in chains if c.feeds]
    reshape = [c for c in chains if not c.feeds and c.consumer_op == "Reshape"]
    other = [c for c in chains if not c.feeds and c.consumer_op != "Reshape"]
    parts = []
    if rnn:
        states = ", ".join(sorted({c.feeds for c in rnn if c.feeds}))
        parts.append(
            f"{len(rnn)} build{'s' if len(rnn) == 1 else ''} the zero initial state a recurrent layer (nn.GRU, nn.LSTM, "
            f"nn.RNN) makes when forward gets no h0 ({states}): its shape must follow the batch size, so no reshape "
            "removes it; a few shape operators per call, normal for an RNN (passing h0 as an input moves it to the client)"
        )
    if reshape:
        parts.append((f"{len(reshape)} into a Reshape: " if rnn or other else "") + RESHAPE_WORDS)
    if other:
        ops = ", ".join(sorted({c.consumer_op for c in other}))
        parts.append(
            f"{len(other)} into {ops}: a tensor sized by the batch at run time (e.g. `torch.zeros(x.size(0), ...)` or "
            "`expand`); the graph does not say which code made it, so no rewrite is suggested"
        )
    meaning = "; ".join(parts)
    if left == 0:
        meaning += "; ONNX Runtime rewrote them away here, other runtimes may not"
    return meaning


def onnx_facts(h: OnnxHealth) -> list[Fact]:
    """The facts of an ONNX export (see :func:`facts`)."""
    opt = h.optimized
    rows = [
        Fact(
            "opset / IR version",
            f"{h.opset} / {h.ir_version}" + (f" ({h.producer})" if h.producer else ""),
            "the ONNX Runtime that serves the graph must read this opset and IR version; "
            "`builders validate --target-triton` checks them against a Triton release",
        ),
        Fact(
            "operators (as exported)",
            f"{count(h.node_count, 'node')}: {_ops(h.op_counts)}",
            "what the exporter wrote; ONNX Runtime rewrites the graph when a session starts",
        ),
    ]
    if opt is not None:
        rows.append(
            Fact(
                f"operators after ONNX Runtime ({opt.level}, {opt.provider})",
                f"{count(opt.node_count, 'node')}: {_ops(opt.op_counts)} (onnxruntime {opt.onnxruntime})",
                _node_change(h.node_count, opt.node_count, h.op_counts, opt.op_counts)
                + ": this is what Triton's onnxruntime backend runs by default on a CPU instance "
                "(all optimisations; ORT-specific fused operators counted as they are); the CUDA and "
                "TensorRT providers fuse differently",
            )
        )
    else:
        rows.append(Fact("operators after ONNX Runtime", "not measured", h.not_optimized or "not asked for"))
    before, after = len(h.conv_bn_unfused), (len(opt.conv_bn_unfused) if opt else None)
    value = f"{before} as exported" + (f", {after} after ONNX Runtime" if after is not None else "")
    if before == 0:
        meaning = "no BatchNormalization follows a Conv: nothing to fold"
    elif after == 0:
        meaning = (
            "ONNX Runtime folds them into the Conv when the session starts, so ORT serving does not pay for them; "
            "a runtime that does not fold them runs each BatchNormalization as a separate pass over the activations"
        )
    elif after is None:
        meaning = "each BatchNormalization is a separate pass over the activations unless the runtime folds it into the Conv"
    else:
        meaning = (
            "ONNX Runtime left them separate: each BatchNormalization is an extra pass over the activations; "
            "export in eval mode (model.eval()) with constant folding so the exporter folds it"
        )
    rows.append(Fact("Conv -> BatchNormalization unfused", value, meaning))
    chains = h.batch_shape_chains
    left = len(opt.batch_shape_chains) if opt else None
    listed = "; ".join(chain_text(c) for c in chains[:SHOWN]) + (
        f"; ... ({len(chains) - SHOWN} more)" if len(chains) > SHOWN else ""
    )
    meaning = chain_meaning(chains, left)
    rows.append(
        Fact(
            "shapes computed from the batch size",
            "none"
            if not chains
            else f"{len(chains)}" + (f" ({left} after ONNX Runtime)" if left is not None else "") + f": {listed}",
            meaning,
        )
    )
    unnamed = [d for d in h.dynamic_dims if d.name is None]
    dims = ", ".join(f"{d.io} {d.tensor}[{d.axis}]={d.name or '?'}" for d in h.dynamic_dims[: SHOWN * 2])
    more = f", ... ({len(h.dynamic_dims) - SHOWN * 2} more)" if len(h.dynamic_dims) > SHOWN * 2 else ""
    if not h.dynamic_dims:
        meaning = "every input and output dim is fixed: the graph serves one shape (batch size included)"
    elif unnamed:
        meaning = (
            f"{count(len(unnamed), 'dynamic dim')} {agree(len(unnamed), 'has', 'have')} no name: a runtime cannot tell "
            f"which dims must agree and guesses; name {agree(len(unnamed), 'it', 'them')} at export "
            "(dynamic_axes / dynamic_shapes)"
        )
    else:
        meaning = "every dynamic dim has a name: Triton's -1 dims and TensorRT profiles see which dims agree"
    rows.append(Fact("dynamic dims", (dims + more) or "none", meaning))
    rows.append(
        Fact(
            "external data",
            f"{h.external_data_bytes} bytes in {', '.join(h.external_data_files)}" if h.external_data_files else "none",
            "the weights live in these files, which must sit beside the .onnx file in every version folder "
            "(`builders validate` checks it); needed above the 2 GiB protobuf limit"
            if h.external_data_files
            else "every weight is inside the .onnx file",
        )
    )
    return rows


def torchscript_facts(h: TorchScriptHealth) -> list[Fact]:
    """The facts of a TorchScript export (see :func:`facts`)."""
    return [
        Fact(
            "frozen",
            ("yes" if h.frozen else "no")
            + f" ({count(h.parameters, 'parameter')}, {count(h.attribute_reads, 'attribute read')} in forward)",
            "weights are constants inside the graph: the module cannot be trained or have its weights swapped"
            if h.frozen
            else "weights stay module attributes read on every call; torch.jit.freeze inlines them as constants, "
            "which lets TorchScript's optimiser fold Conv+BatchNorm and drop the reads",
        ),
        Fact(
            "graph nodes",
            str(h.node_count),
            "nodes of forward with submodules inlined: what the TorchScript interpreter walks per call; "
            "many small nodes are per-request overhead at small batches",
        ),
    ]


def summary_line(health: OnnxHealth | TorchScriptHealth) -> str:
    """One line of the build summary for one export's graph health."""
    if isinstance(health, TorchScriptHealth):
        return f"{'frozen' if health.frozen else 'not frozen'} ({count(health.parameters, 'parameter')}), {count(health.node_count, 'graph node')}"
    opt = health.optimized
    parts = [
        f"opset {health.opset}, IR {health.ir_version}",
        f"{count(health.node_count, 'node')}"
        + (f" -> {opt.node_count} after ONNX Runtime ({opt.level})" if opt else " (ONNX Runtime optimisation not measured)"),
        f"Conv+BN unfused {len(health.conv_bn_unfused)}" + (f" -> {len(opt.conv_bn_unfused)}" if opt else ""),
        f"batch-size shape chains {len(health.batch_shape_chains)}" + (f" -> {len(opt.batch_shape_chains)}" if opt else ""),
        "dynamic dims " + (", ".join(sorted({d.name or "?" for d in health.dynamic_dims})) or "none"),
        f"external data {health.external_data_bytes} bytes" if health.external_data_files else "no external data",
    ]
    return "; ".join(parts)


def build_summary_lines(manifest: BuildManifest) -> list[str]:
    """One line per export of a build manifest that recorded graph health
    (``"graph health, onnx fp32: ..."``), and where the meanings are; empty when none did."""
    lines = [
        f"graph health, {e.format} {e.precision}: {summary_line(e.graph_health)}"
        for e in manifest.exports
        if isinstance(e, ExportRecord) and e.graph_health is not None
    ]
    if lines:
        lines.append("(`builders inspect <build folder>` says what each of these usually means)")
    return lines
