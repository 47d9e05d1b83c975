"""``platform: "pytorch_libtorch"``: TorchScript modules on Triton's PyTorch (LibTorch) backend.

Triton loads ``model.pt`` (Triton docs, "Model Repository: Model Files"). A TorchScript
module has no tensor names Triton could read, so the backend matches the config's tensors
by convention (Triton docs, "PyTorch (LibTorch) Backend: Configuration"; pytorch_backend
README, "Naming convention"):

- an input is named ``<name>__<index>`` (``INPUT__0``: index = position in ``forward``) or
  by its ``forward`` argument name;
- an output is named ``<name>__<index>`` (``OUTPUT__1``: index = position in the returned
  tuple); outputs have no other names.

The backend splits a name at its **first** ``__`` and reads the rest as the index
(pytorch_backend ``src/libtorch.cc``: ``io_name.find("__")``, digits only;
:func:`builders.model.forward_args.convention_index` is that rule here). It picks **one**
convention for all inputs (for all outputs) of a config (``GetNamingConvention``): every input
a ``forward`` argument name (``FORWARD_ARGUMENT``), else every input ``<name>__<index>``
(``NAMED_INDEX``), else neither is read and the tensors are passed in the config's order
(``STRICT_CONFIG_ORDERING``; Triton docs, "Model Configuration: Special Conventions for PyTorch
Backend", rule 3). :func:`naming_convention` is that choice here.

:func:`triton_names` maps a spec's names onto names the backend accepts, keeping the spec's
name where it can (``probs`` -> ``probs__1``: a client still recognises it; the export records
that map) and one convention for all inputs; :meth:`PyTorchBackend.artifact_problems` checks a
config's names against a module, a mix of conventions included (:func:`mixed_naming_problem`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import NativeBackend
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.forward_args import SEPARATOR, convention_index
from builders.model.spec import ModelSpec
from builders.triton.rules import Problem

INPUT_PREFIX = "INPUT"
OUTPUT_PREFIX = "OUTPUT"
#: pytorch_backend's ``NamingConvention``: how config tensors are matched with the module's.
FORWARD_ARGUMENT, NAMED_INDEX, STRICT_CONFIG_ORDERING = "FORWARD_ARGUMENT", "NAMED_INDEX", "STRICT_CONFIG_ORDERING"


def indexed_name(name: str, index: int, fallback: str) -> str:
    """``<name>__<index>`` when the backend reads ``index`` back from it, else ``<fallback>__<index>``.

    The backend reads the index after the name's first ``__`` (module docstring), so a name
    that holds ``__`` or ends with ``_`` cannot carry it (``a__b__1`` would be read as index
    ``b__1``): such a name becomes ``INPUT__<index>`` / ``OUTPUT__<index>``.

    Args:
        name: The spec's tensor name (``"probs"``).
        index: Its position in ``forward``'s arguments or in the returned tuple.
        fallback: :data:`INPUT_PREFIX` or :data:`OUTPUT_PREFIX`.
    """
    candidate = f"{name}{SEPARATOR}{index}"
    return candidate if name and convention_index(candidate) == index else f"{fallback}{SEPARATOR}{index}"


def naming_convention(names: Sequence[str], forward_args: Sequence[str] | None) -> str:
    """How Triton's PyTorch backend matches a config's tensors ``names`` with the module's
    (pytorch_backend ``src/libtorch.cc``, ``GetNamingConvention``).

    Args:
        names: The config's input (or output) names, in the config's order.
        forward_args: Inputs: ``forward()``'s argument names; outputs: ``None`` (they have no names).

    Returns:
        :data:`FORWARD_ARGUMENT` when every input name is one of ``forward_args``; else
        :data:`NAMED_INDEX` when every name follows ``<name>__<index>``
        (:func:`builders.model.forward_args.convention_index`); else
        :data:`STRICT_CONFIG_ORDERING`: the names are not read, the tensors go by the config's order.
    """
    if forward_args is not None and all(n in forward_args for n in names):
        return FORWARD_ARGUMENT
    if all(convention_index(n) is not None for n in names):
        return NAMED_INDEX
    return STRICT_CONFIG_ORDERING


def mixed_naming_problem(kind: str, names: Sequence[str], forward_args: Sequence[str] | None) -> Problem | None:
    """The problem of config names that mix the backend's conventions, or ``None``.

    When not every input is named by its ``forward()`` argument nor every one ``<name>__<index>``
    (:func:`naming_convention` is :data:`STRICT_CONFIG_ORDERING`) while some names say a position
    (an argument's name, an index), the backend reads none of them: the config's order alone
    decides which argument (which returned tensor) each one is. Right only while that order is
    the one the names say, and a reordered config then passes tensors to other arguments silently.

    Args:
        kind: ``"input"`` or ``"output"``.
        names: The config's names of that kind, in its order.
        forward_args: Inputs: ``forward()``'s argument names; outputs: ``None``.

    Returns:
        One problem naming every tensor, what the backend does with each and what to do;
        ``None`` when the backend reads the names, or no name says a position. A mix in the
        order the names say is served right (a repository Triton serves correctly): it is a
        warning (:attr:`builders.triton.rules.Problem.warning`); one a name contradicts is an error.
    """
    if naming_convention(names, forward_args) != STRICT_CONFIG_ORDERING:
        return None
    args = list(forward_args or ())
    said = {n: args.index(n) if n in args else convention_index(n) for n in names}
    if all(p is None for p in said.values()):
        return None  # other names only: tensor_name_problems names each
    passed = ", ".join(
        f"{n} -> {'argument' if kind == 'input' else 'returned tensor'} {i}"
        + (f" ({args[i]})" if i < len(args) else "")
        + ("" if said[n] in (None, i) else f", its name says {said[n]}")
        for i, n in enumerate(names)
    )
    wrong = [n for i, n in enumerate(names) if said[n] not in (None, i)]
    by_arg = f"by its forward() argument ({', '.join(args)}) or every one " if kind == "input" and args else ""
    if wrong:
        effect = f"so {', '.join(wrong)} {'goes' if len(wrong) == 1 else 'go'} to another position than the name says"
        fix = f"decide which position each one is; then name every one {by_arg}<name>__<index> with that index"
    else:
        effect = "right only while the config keeps this order"
        prefix = INPUT_PREFIX if kind == "input" else OUTPUT_PREFIX
        indexed = [n if convention_index(n) == i else indexed_name(n, i, prefix) for i, n in enumerate(names)]
        fix = f"name every one {by_arg}<name>__<index> ({', '.join(indexed)})"
    what = "outputs" if kind == "output" else "inputs"
    where = "tuple the module returns" if kind == "output" else "forward() arguments"
    return Problem(
        "",
        f"{kind}[{', '.join(names)}].name",
        f"the {what} mix naming conventions ({', '.join(names)}): Triton's PyTorch backend then reads none of the names "
        f"and matches the {what} with the {where} by the config's order (STRICT_CONFIG_ORDERING): {passed}; {effect}",
        f"{fix}; `builders build --serving native` names them one way",
        warning=not wrong,  # in the names' order Triton serves it right: a warning, never a failure
    )


def triton_names(spec: ModelSpec, forward_args: Sequence[str]) -> dict[str, dict[str, str]]:
    """Names Triton's PyTorch backend accepts for each spec tensor, the spec's name kept in each.

    The inputs keep their names when every one is the ``forward`` argument at its position
    (the backend's ``FORWARD_ARGUMENT``); otherwise every input is ``<name>__<position>``
    (``NAMED_INDEX``): a name that follows it at its position is kept, any other becomes
    ``<name>__<position>`` (:func:`indexed_name`), a ``forward`` argument's name included: names
    of both kinds in one config make the backend read none of them (:func:`naming_convention`,
    :func:`mixed_naming_problem`). An output keeps its name when it follows ``<name>__<position>``;
    otherwise it becomes ``<name>__<position>`` (``logits`` -> ``logits__0``): outputs have no
    other names. A client that asks for the spec's name (``probs``) must ask for the served one
    (``probs__1``): the bundle and the build say which (:func:`builders.config.settings.tensor_name_differences`,
    :func:`builders.cli.summary.served_names_lines`).

    Args:
        spec: The I/O signature.
        forward_args: The exported module's ``forward`` argument names (without ``self``).

    Returns:
        ``{"inputs": {spec_name: served_name}, "outputs": {spec_name: served_name}}``.
    """

    def kept(name: str, i: int, prefix: str) -> str:
        return name if convention_index(name) == i else indexed_name(name, i, prefix)

    by_argument = [t.name for t in spec.inputs] == list(forward_args[: len(spec.inputs)])
    inputs = {t.name: t.name if by_argument else kept(t.name, i, INPUT_PREFIX) for i, t in enumerate(spec.inputs)}
    outputs = {t.name: kept(t.name, i, OUTPUT_PREFIX) for i, t in enumerate(spec.outputs)}
    return {"inputs": inputs, "outputs": outputs}


def tensor_name_problems(
    kind: str, declared: Iterable[mc.ModelInput | mc.ModelOutput], have: tuple[TensorIO, ...]
) -> list[Problem]:
    """Config tensor names the PyTorch backend cannot match with the module's tensors.

    The backend reads the names by one convention for all tensors of a kind
    (:func:`naming_convention`): a mix of conventions is one problem naming them all
    (:func:`mixed_naming_problem`); ``<name>__<index>`` names need an index the module has; a
    name that says no position is a problem of its own.

    Args:
        kind: ``"input"`` or ``"output"``.
        declared: The config's tensors of that kind.
        have: The module's tensors (inputs: ``forward`` argument names; outputs: count only).
    """
    names = [t.name for t in declared]
    args = [a.name for a in have] if kind == "input" else None
    mixed = mixed_naming_problem(kind, names, args)
    if mixed is not None:
        return [mixed]
    convention = naming_convention(names, args)
    if convention == FORWARD_ARGUMENT:
        return []
    out = []
    for name in names:
        idx = convention_index(name)
        if convention == NAMED_INDEX:
            if idx is not None and idx >= len(have):
                out.append(
                    Problem(
                        "",
                        f"{kind}[{name}].name",
                        f"index {idx} but the module has {len(have)} {kind}s",
                        f"use indices 0..{len(have) - 1}",
                    )
                )
        elif kind == "output":
            out.append(
                Problem(
                    "",
                    f"{kind}[{name}].name",
                    "PyTorch backend outputs must be named <name>__<index>",
                    f"rename it, e.g. {OUTPUT_PREFIX}{SEPARATOR}0",
                )
            )
        else:
            out.append(
                Problem(
                    "",
                    f"{kind}[{name}].name",
                    f"neither a forward() argument ({args}) nor <name>__<index>",
                    f"rename it to the argument's name or e.g. {INPUT_PREFIX}{SEPARATOR}0",
                )
            )
    return out


class PyTorchBackend(NativeBackend):
    """TorchScript on ``pytorch_libtorch``."""

    format = "torchscript"
    #: pytorch_backend README, "Parameters": ``INTRA_OP_THREAD_COUNT`` (absent: LibTorch's default).
    threads_parameter = "INTRA_OP_THREAD_COUNT"
    threads_doc = 'pytorch_backend README, "Parameters"'

    def artifact_problems(self, cfg: mc.ModelConfig, io: ArtifactIO) -> list[Problem]:
        """Names follow the backend's convention (TorchScript declares no dtypes or shapes)."""
        if not io.positional:
            return []
        out: list[Problem] = []
        for kind, declared, have in (("input", cfg.input, io.inputs), ("output", cfg.output, io.outputs)):
            if have is not None:
                out += tensor_name_problems(kind, declared, have)
        return out
