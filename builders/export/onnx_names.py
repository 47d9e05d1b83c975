"""Names in an exported ONNX graph: the dynamo exporter's inner values that carry one of the
spec's input or output names are renamed (:func:`rename_inner_clashes`, what
:func:`builders.export.onnx.export_onnx` does to every dynamo export), and a clash left in a graph
anyway is explained (:func:`name_clash`) instead of onnx.checker's bare "not in SSA form"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: Suffix of an inner value renamed because it had an input's or output's name (``mean`` -> ``mean_inner``).
INNER_SUFFIX = "_inner"


def rename_inner_clashes(model: Any) -> list[dict[str, str]]:
    """Give a new name to every value inside ``model``'s graph that carries the name of one of the
    graph's inputs or outputs (the spec's names, which the served config and every client use).

    The dynamo exporter names a value after the operation that makes it (``h.mean(dim=2)`` is
    ``mean``, written by ``node_mean``) and then gives the graph's inputs and outputs the spec's
    names: an output called ``mean`` and that inner value were two values of one name, which is
    not valid ONNX (onnx.checker: not in SSA form; trial 9, F10). In the exporter's IR the values
    are distinct objects, so the inner one is renamed (``mean`` -> ``mean_inner``, or
    ``mean_inner_2``... when taken) and every node that reads it follows; the public names stay.

    Args:
        model: The exported ``onnx_ir.Model`` (``torch.onnx.export(..., dynamo=True).model``),
            edited in place.

    Returns:
        One ``{"name", "to", "node", "op"}`` per renamed value (``node``/``op`` empty for an
        initializer), in graph order; empty when no name clashed.
    """
    graph = model.graph
    public = [*graph.inputs, *graph.outputs]
    names = {v.name for v in public}
    nodes = list(graph.all_nodes())  # subgraphs' nodes too
    inner = [(v, n) for n in nodes for v in n.outputs if v.name in names and not any(v is p for p in public)]
    inner += [(v, None) for v in graph.initializers.values() if v.name in names and not any(v is p for p in public)]
    taken = names | {v.name for n in nodes for v in n.outputs} | set(graph.initializers)
    out = []
    for value, node in inner:
        old, new, k = value.name, f"{value.name}{INNER_SUFFIX}", 1
        while new in taken:
            k += 1
            new = f"{old}{INNER_SUFFIX}_{k}"
        taken.add(new)
        value.name = new
        out.append({"name": old, "to": new, "node": node.name if node else "", "op": node.op_type if node else ""})
    return out


def renamed_line(renamed: list[dict[str, str]]) -> str | None:
    """What the build says of :func:`rename_inner_clashes`' work (``extra["renamed_values"]``):
    ``"inner value 'mean' (node_mean, ReduceMean) renamed 'mean_inner': the graph's inputs and
    outputs keep the spec's names"``; ``None`` when nothing was renamed."""
    if not renamed:
        return None
    said = ", ".join(
        f"{r['name']!r} ({r['node']}, {r['op']}) renamed {r['to']!r}"
        if r["node"]
        else f"{r['name']!r} (a weight) renamed {r['to']!r}"
        for r in renamed
    )
    values = "inner value" if len(renamed) == 1 else "inner values"
    return f"{values} {said}: the graph's inputs and outputs keep the spec's names"


class NameClashError(ValueError):
    """An exported graph gives one of the spec's tensor names to a value inside it too (not SSA)."""


#: onnx.checker's message for a value name two nodes write.
_NOT_SSA = re.compile(r"'(?P<name>[^']+)' has been used as output names multiple times")


def name_clash(path: Path, error: str, in_names: list[str], out_names: list[str]) -> str | None:
    """Why an exported graph is not in SSA form, when the cause is one of the spec's names: the
    exporter named a value inside the graph after an operation (the dynamo exporter names the
    result of ``aten::embedding`` ``embedding``), and the spec gives an output (or input) the same
    name, so two nodes write it. ``None`` for any other checker error.

    Returns:
        ``"output name 'embedding' is also the name of a value inside the exported graph (written
        by node_embedding (Gather)) ...; rename the output in the spec (e.g. 'embedding_out') ..."``.
    """
    m = _NOT_SSA.search(error)
    if m is None or m.group("name") not in (*in_names, *out_names):
        return None
    name = m.group("name")
    kind = "output" if name in out_names else "input"
    try:
        graph = onnx_graph(path)
        writers = [f"{n.name} ({n.op_type})" for n in graph.node if name in n.output]
        inner = writers[:-1] if kind == "output" else writers  # an output's own writer comes last
    except Exception:  # noqa: BLE001 - the explanation stands without the node names
        inner = []
    written = f" (written by {', '.join(inner)})" if inner else ""
    return (
        f"{kind} name {name!r} is also the name the exporter gave a value inside the graph{written}, so two nodes "
        f"write it and the graph is not in SSA form (onnx.checker); rename the {kind} in the spec (e.g. "
        f"{name + '_out'!r}) for this exporter to write a valid graph"
    )


def onnx_graph(path: Path) -> Any:
    """The graph of ``path`` without its external weights (node names and outputs only)."""
    import onnx

    return onnx.load(str(path), load_external_data=False).graph
