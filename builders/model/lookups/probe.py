"""Which embedding tables a model looks up with which integer input: one run of the eager model,
every lookup seen.

A model indexes a table with an integer input through ``nn.Embedding`` / ``nn.EmbeddingBag`` (the
canonical recommender layer), or a functional ``F.embedding`` / ``F.embedding_bag`` (or
``torch.embedding``) on a weight of its own. :func:`probe` runs the model once under a
:class:`torch.overrides.TorchFunctionMode` that sees each of those calls (a module's forward calls
the functional one): the table (its module's name, else its parameter's), its rows, the indices'
range and the input (or position of its last axis) they are. An index outside ``0..rows-1`` is
clamped for the run to go on, so that one run finds every table indexed past its rows (trial 23,
T23-1: forward pre-hooks on ``nn.Embedding`` modules missed functional lookups, and an
``EmbeddingBag``'s own error text was not recognised).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from builders.model.spec import ModelSpec

#: What torch says of an index past a table (``nn.Embedding``: ``IndexError: index out of range in
#: self``; ``nn.EmbeddingBag``: ``Index 3 of input takes value 1000 which is not in the valid range
#: [0, 1000)`` or ``Expected i < index_size to be true``), in lower case, as a server relays it too.
TORCH_INDEX_ERRORS = ("index out of range", "which is not in the valid range", "expected i < index_size")


#: An integer input and, for one column of it, the position on its last axis (``None``: the whole input).
Source = tuple[str, int | None]


@dataclasses.dataclass
class Use:
    """One table's indexing in the probe run: ``kind`` ``name`` of ``rows`` rows got indices
    ``low..high`` from ``source``, ``None`` when they could not be traced to one input;
    ``candidates``: every source that held those indices (several: the run cannot tell which,
    :mod:`builders.model.lookups.attribution` runs more; none: not traced)."""

    name: str
    kind: str
    rows: int
    low: int
    high: int
    source: Source | None
    candidates: tuple[Source, ...] = ()

    @property
    def feeds(self) -> tuple[Source, ...]:
        """The sources the indices may come from: ``source``, else the candidates left (ambiguous)."""
        return (self.source,) if self.source is not None else self.candidates

    @property
    def past(self) -> bool:
        """Whether an index lies outside ``0..rows-1``."""
        return self.low < 0 or self.high >= self.rows

    def table(self) -> str:
        """``EmbeddingBag 'emb' of 1000 rows (num_embeddings=1000)``."""
        return f"{self.kind} {self.name!r} of {self.rows} rows (num_embeddings={self.rows})"


def looks_like_index_error(error: BaseException | str) -> bool:
    """Whether ``error`` is torch's out-of-range index error (:data:`TORCH_INDEX_ERRORS`; an
    ``IndexError``; the same text inside a RuntimeError of a scripted module)."""
    return isinstance(error, IndexError) or any(s in str(error).lower() for s in TORCH_INDEX_ERRORS)


def _lookups() -> dict[Any, tuple[int, int, str]]:
    """Each lookup function -> (position of its indices, position of its weight, kind word for a
    functional call)."""
    import torch
    import torch.nn.functional as F

    found: dict[Any, tuple[int, int, str]] = {
        F.embedding: (0, 1, "F.embedding table"),
        F.embedding_bag: (0, 1, "F.embedding_bag table"),
        torch.embedding: (1, 0, "torch.embedding table"),
        torch.embedding_bag: (1, 0, "torch.embedding_bag table"),
    }
    for op in ("embedding", "_embedding_bag", "embedding_bag"):
        packet = getattr(torch.ops.aten, op, None)
        if packet is not None:
            for overload in packet.overloads():
                found[getattr(packet, overload)] = (1, 0, f"aten.{op} table")
    return found


def _names(module: Any) -> dict[int, tuple[str, str | None]]:
    """``id`` of each weight -> (its table's name, its module's kind for an ``nn.Embedding`` /
    ``nn.EmbeddingBag``, else ``None``): a module's name, or the parameter's or buffer's."""
    import torch

    names: dict[int, tuple[str, str | None]] = {}
    for n, p in [*module.named_parameters(), *module.named_buffers()]:
        names.setdefault(id(p), (n, None))
    for n, m in module.named_modules():
        if isinstance(m, torch.nn.Embedding | torch.nn.EmbeddingBag):
            names[id(m.weight)] = (n, type(m).__name__)
    return names


def sources_of(indices: Any, tensors: dict[str, Any], ints: list[str]) -> tuple[Source, ...]:
    """Every integer input that ``indices`` equal in this run, whole or one position of its last
    axis (a tabular input's column): several when their values are the same here (trial 30, F2:
    the first was taken), none when the indices are computed from the inputs."""
    import torch

    found: list[Source] = []
    for n in ints:
        t = tensors[n]
        if indices is t or (indices.shape == t.shape and bool(torch.equal(indices, t.to(indices.dtype)))):
            found.append((n, None))
        elif (  # flattened (an exported program's embedding_bag takes the bag's ids as one row, with offsets)
            indices.dim() == 1
            and indices.numel() == t.numel() > 0
            and bool(torch.equal(indices, t.reshape(-1).to(indices.dtype)))
        ):
            found.append((n, None))
        elif t.dim() >= 1 and indices.shape == t.shape[:-1]:
            found += [(n, j) for j in range(t.shape[-1]) if bool(torch.equal(indices, t[..., j].to(indices.dtype)))]
    return tuple(found)


def probe(module: Any, spec: ModelSpec, tensors: dict[str, Any], ints: list[str]) -> list[Use] | None:
    """Run ``module`` once on ``tensors`` (name -> torch tensor, in ``spec``'s input order) and see
    every table lookup (module docstring), in call order; ``ints``: the integer inputs to trace
    the indices to (a lookup whose indices equal several of them here keeps them all as its
    candidates, its ``source`` ``None``: :func:`builders.model.lookups.attribution.attributed` tells them apart).

    Returns:
        The lookups (empty: the model looks up no table); ``None`` when it cannot be told: a
        scripted model (its calls are not seen) or a run that failed for another reason.
    """
    import torch
    from torch.overrides import TorchFunctionMode

    if isinstance(module, torch.jit.ScriptModule) or not hasattr(module, "named_modules"):
        return None
    lookups, names = _lookups(), _names(module)
    uses: list[Use] = []

    class Look(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
            kwargs = dict(kwargs or {})
            where = lookups.get(func)
            if where is None or len(args) <= max(where[:2]):
                return func(*args, **kwargs)
            i, w, kind = where
            idx, weight = args[i], args[w]
            if not isinstance(idx, torch.Tensor) or not isinstance(weight, torch.Tensor) or not idx.numel():
                return func(*args, **kwargs)
            rows = int(weight.shape[0])
            name, module_kind = names.get(id(weight), ("an unnamed weight", None))
            found = sources_of(idx, tensors, ints)
            source = found[0] if len(found) == 1 else None
            uses.append(Use(name, module_kind or kind, rows, int(idx.min()), int(idx.max()), source, found))
            if uses[-1].past:
                args = (*args[:i], idx.clamp(0, rows - 1), *args[i + 1 :])
            return func(*args, **kwargs)

    try:
        with torch.no_grad(), Look():
            module(*(tensors[t.name] for t in spec.inputs))
    except Exception:  # noqa: BLE001 - another failure: not known
        return None
    return uses
