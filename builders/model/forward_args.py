"""Which spec input reaches which ``forward()`` argument, checked before anything is exported.

Every path passes the spec's inputs to the model **by position, in the spec's order**: the
export examples and the check against eager PyTorch (``module(*inputs)``,
:func:`builders.model.outputs.infer_outputs`), the python-backend model that serves them
(:mod:`builders.serving.runners`), and Triton's PyTorch backend (``INPUT__<index>`` or the
``forward`` argument name at that position, :func:`builders.backends.pytorch_libtorch.triton_names`).
A spec whose names are ``forward()``'s in another order would therefore wire each input to
another argument, and with inputs of one dtype and shape nothing else would notice: the
export, the check against eager PyTorch (fed the same way) and the served check all pass.

:func:`input_binding` is the one rule (called by :func:`builders.model.models.load_model`):

- a spec input named like a ``forward()`` argument at another position (the same names in
  another order): refused, naming both orders; nothing is reordered for the user;
- a ``<name>__<index>`` input (Triton's convention) whose index is not its position: refused;
- a spec input whose name is not a ``forward()`` argument but close to one that no input names
  (:func:`core.names.close_names`, case ignored): refused as a likely typo ("did you mean");
- names that are simply other names (``INPUT__0``, a deliberate rename): built, and the binding
  (spec input -> ``forward()`` argument, by position) is returned for the manifest and the
  build's summary (:func:`binding_line`), unless one input goes to a ``forward()`` of one argument;
- ``forward(*args)`` or names that are not known (TorchScript's ``argument_1`` and
  ``torch.export``'s ``args_0``, names generated for ``*args``): no check, nothing said.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from typing import Any

from core.errors import ModelSpecError
from core.names import close_names

#: What separates ``<name>`` from ``<index>`` in Triton's PyTorch backend's ``<name>__<index>``.
SEPARATOR = "__"
#: Argument names made up for ``forward(*args)``: by ``torch.jit.trace`` (``argument_1``) and by
#: ``torch.export`` (``args_0``); they say nothing of what the model expects.
GENERATED = re.compile(r"^(argument_\d+|args_\d+)$")


def convention_index(name: str) -> int | None:
    """The index Triton's PyTorch backend reads from a ``<name>__<index>`` name, or ``None``.

    The one rule for these names (the export's names, ``builders validate``, the config checks):
    the backend splits a name at its **first** ``__`` and reads the rest as the index when every
    character of it is a digit, else the name does not follow the convention (pytorch_backend
    ``src/libtorch.cc``, ``GetNamingConvention``: ``io_name.find("__")``, ``std::isdigit`` on each
    character of the rest, then ``std::atoi``; Triton docs, "Model Configuration: Special
    Conventions for PyTorch Backend": ``<name>__<index>``, ``INPUT__0`` is ``forward``'s argument
    at position 0). So ``"OUTPUT__1"`` -> 1 and ``"__1"`` -> 1, but ``"a__b__3"`` -> ``None`` (the
    rest is ``"b__3"``) and ``"x___1"`` -> ``None`` (the rest is ``"_1"``); an empty rest
    (``"x__"``) passes the backend's digit test and reads as 0.
    """
    _, sep, rest = name.partition(SEPARATOR)
    if not sep or not all("0" <= c <= "9" for c in rest):  # std::isdigit: ASCII digits only
        return None
    return int(rest) if rest else 0


def forward_names(module: Any) -> tuple[str, ...] | None:
    """``module.forward``'s positional argument names without ``self``, in order.

    A TorchScript module's names come from its ``forward`` schema (what ``torch.jit.load``
    read from the archive); any other module's (an ``nn.Module``, ``torch.export``'s
    ``ExportedProgram.module()``) from :func:`inspect.signature`.

    Returns:
        The names; ``None`` when they are unknown: ``forward(*args)``, no signature, or names
        generated for ``*args`` (:data:`GENERATED`).
    """
    schema = getattr(getattr(module, "forward", None), "schema", None)
    if schema is not None:
        names = [a.name for a in schema.arguments[1:] if not a.kwarg_only]  # [0] is self
    else:
        try:
            params = list(inspect.signature(module.forward).parameters.values())
        except (AttributeError, TypeError, ValueError):
            return None
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            return None
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not names or any(GENERATED.match(n) for n in names):
        return None
    return tuple(names)


def input_binding(inputs: Sequence[str], forward: Sequence[str] | None, where: str) -> dict[str, str]:
    """Check the spec's input names against ``forward()``'s (the rule in this module's docstring).

    Args:
        inputs: The spec's input names, in the spec's order (the order they are passed in).
        forward: ``forward()``'s argument names (:func:`forward_names`); ``None``: unknown.
        where: The model, for messages (``seqnet.py:make``, a file, a class name).

    Returns:
        Spec input -> the ``forward()`` argument it is passed as, for every input that has one,
        when any of their names differ; empty when they all match, ``forward()``'s names are
        unknown, or one input goes to a ``forward()`` of one argument.

    Raises:
        ModelSpecError: an input named like another position's argument (the spec's order is not
            ``forward()``'s), a ``<name>__<index>`` input not at its index, or a likely typo of an
            argument name.
    """
    if not forward:
        return {}
    shown = f"forward({', '.join(forward)}) of {where}"
    if len(inputs) > len(forward):  # torch's TypeError later, from deep inside the first export
        raise ModelSpecError(
            f"the spec has {len(inputs)} inputs ({', '.join(inputs)}) and {shown} takes {len(forward)}: "
            "inputs are passed to forward() by position, one per argument",
            hint=f"give one --input per forward() argument, in its order ({', '.join(forward)}), or one spec file "
            '"inputs" entry each',
            flag="--input",
        )
    position = {n.casefold(): j for j, n in enumerate(forward)}
    for i, name in enumerate(inputs):
        idx = convention_index(name)
        if idx is not None and idx != i and name.casefold() not in position:
            order = sorted(inputs, key=lambda n: (convention_index(n) is None, convention_index(n) or 0))
            raise ModelSpecError(
                f"spec input {name!r} is input {i} of the spec ({', '.join(inputs)}) but its name says position {idx} "
                f"(Triton's <name>__<index> convention); inputs are passed to {shown} by position",
                hint=f'list --input in index order ({", ".join(order)}), or put the spec file\'s "inputs" in that order',
                flag="--input",
            )
    for i, name in enumerate(inputs):
        j = position.get(name.casefold())
        if j is not None and j != i:
            raise _reordered(inputs, forward, shown, name, i)
    named = {n.casefold() for n in inputs}
    free = [n for n in forward if n.casefold() not in named]
    for i, name in enumerate(inputs):
        if name.casefold() in position or convention_index(name) is not None:
            continue
        close = close_names(name, free, n=1)
        if close:
            passed = f"; it would be passed as {forward[i]!r}" if i < len(forward) and forward[i] != close[0] else ""
            raise ModelSpecError(
                f"spec input {name!r} is not an argument of {shown} (did you mean {close[0]!r}?){passed}",
                hint=f"rename the input {name!r} to {close[0]!r} in --input or the spec file (ModelSpec.inputs in "
                "Python); inputs are passed to forward() by position, in the spec's order",
                flag="--input",
            )
    if len(inputs) == len(forward) == 1:  # one input, one argument: nothing can be wired otherwise
        return {}
    pairs = dict(zip(inputs, forward))
    return pairs if any(a != b for a, b in pairs.items()) else {}


def _reordered(inputs: Sequence[str], forward: Sequence[str], shown: str, name: str, i: int) -> ModelSpecError:
    """The error of a spec input named like ``forward()``'s argument at another position."""
    position = {n.casefold(): j for j, n in enumerate(forward)}
    order = sorted(inputs, key=lambda n: position.get(n.casefold(), len(forward)))
    passed = (
        f"{name!r} would be passed as {forward[i]!r}"
        if i < len(forward)
        else f"{name!r} is the spec's input {i} but forward()'s argument {position[name.casefold()]}"
    )
    return ModelSpecError(
        f"the spec lists its inputs as ({', '.join(inputs)}), in another order than {shown}: inputs are passed "
        f"to forward() by position, so {passed}",
        hint=f'list --input in forward() order ({", ".join(order)}), or put the spec file\'s "inputs" (ModelSpec.inputs '
        "in Python) in that order; the toolkit does not reorder them for you",
        flag="--input",
    )


def binding_line(binding: dict[str, str], renamed: bool = False) -> str:
    """The build summary's line for a spec whose names are not ``forward()``'s (:func:`input_binding`):
    ``"inputs passed to forward() by position: INPUT__0 -> x, INPUT__1 -> y (...)"``; ``renamed``:
    the server serves other names than the spec's (the summary's next line says which)."""
    pairs = ", ".join(f"{a} -> {b}" for a, b in binding.items())
    sent = "clients send the served names below" if renamed else "clients send the spec's names"
    return f"inputs passed to forward() by position, under the spec's names: {pairs} ({sent}; the spec's order is forward()'s)"
