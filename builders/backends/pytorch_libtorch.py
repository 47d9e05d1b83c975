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
(pytorch_backend ``src/libtorch.cc``: ``io_name.find("__")``, digits only).

:func:`triton_names` maps a spec's names onto names the backend accepts, keeping the spec's
name where it can (``probs`` -> ``probs__1``: a client still recognises it; the export records
that map); :meth:`PyTorchBackend.artifact_problems` checks a config's names against a module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.base import NativeBackend
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.forward_args import convention_index
from builders.model.spec import ModelSpec
from builders.triton.rules import Problem

INPUT_PREFIX = "INPUT"
OUTPUT_PREFIX = "OUTPUT"


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
    candidate = f"{name}__{index}"
    return candidate if name and candidate.index("__") == len(name) else f"{fallback}__{index}"


def triton_names(spec: ModelSpec, forward_args: Sequence[str]) -> dict[str, dict[str, str]]:
    """Names Triton's PyTorch backend accepts for each spec tensor, the spec's name kept in each.

    An input keeps its name when it follows ``<name>__<position>`` or equals the
    ``forward`` argument at its position; otherwise it becomes ``<name>__<position>``
    (:func:`indexed_name`). An output keeps its name when it follows ``<name>__<position>``;
    otherwise it becomes ``<name>__<position>`` (``logits`` -> ``logits__0``): outputs have no
    other names. A client that asks for the spec's name (``probs``) must ask for the served one
    (``probs__1``): the bundle and the build say which (:func:`builders.config.settings.tensor_name_differences`).

    Args:
        spec: The I/O signature.
        forward_args: The exported module's ``forward`` argument names (without ``self``).

    Returns:
        ``{"inputs": {spec_name: served_name}, "outputs": {spec_name: served_name}}``.
    """

    def follows(name: str, i: int) -> bool:
        return convention_index(name) == i

    inputs = {
        t.name: t.name
        if follows(t.name, i) or (i < len(forward_args) and forward_args[i] == t.name)
        else indexed_name(t.name, i, INPUT_PREFIX)
        for i, t in enumerate(spec.inputs)
    }
    outputs = {
        t.name: t.name if follows(t.name, i) else indexed_name(t.name, i, OUTPUT_PREFIX) for i, t in enumerate(spec.outputs)
    }
    return {"inputs": inputs, "outputs": outputs}


def tensor_name_problems(
    kind: str, declared: Iterable[mc.ModelInput | mc.ModelOutput], have: tuple[TensorIO, ...]
) -> list[Problem]:
    """Config tensor names the PyTorch backend cannot match with the module's tensors.

    Args:
        kind: ``"input"`` or ``"output"``.
        declared: The config's tensors of that kind.
        have: The module's tensors (inputs: ``forward`` argument names; outputs: count only).
    """
    out = []
    args = [a.name for a in have]
    for t in declared:
        idx = convention_index(t.name)
        if idx is not None:
            if idx >= len(have):
                out.append(
                    Problem(
                        "",
                        f"{kind}[{t.name}].name",
                        f"index {idx} but the module has {len(have)} {kind}s",
                        f"use indices 0..{len(have) - 1}",
                    )
                )
        elif kind == "output":
            out.append(
                Problem(
                    "",
                    f"{kind}[{t.name}].name",
                    "PyTorch backend outputs must be named <name>__<index>",
                    f"rename it, e.g. {OUTPUT_PREFIX}__0",
                )
            )
        elif t.name not in args:
            out.append(
                Problem(
                    "",
                    f"{kind}[{t.name}].name",
                    f"neither a forward() argument ({args}) nor <name>__<index>",
                    f"rename it to the argument's name or e.g. {INPUT_PREFIX}__0",
                )
            )
    return out


class PyTorchBackend(NativeBackend):
    """TorchScript on ``pytorch_libtorch``."""

    format = "torchscript"
    #: pytorch_backend README, "Parameters": ``INTRA_OP_THREAD_COUNT`` (absent: LibTorch's default).
    threads_parameter = "INTRA_OP_THREAD_COUNT"

    def artifact_problems(self, cfg: mc.ModelConfig, io: ArtifactIO) -> list[Problem]:
        """Names follow the backend's convention (TorchScript declares no dtypes or shapes)."""
        if not io.positional:
            return []
        out: list[Problem] = []
        for kind, declared, have in (("input", cfg.input, io.inputs), ("output", cfg.output, io.outputs)):
            if have is not None:
                out += tensor_name_problems(kind, declared, have)
        return out
