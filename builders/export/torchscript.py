"""PyTorch -> TorchScript (``model.pt``): ``torch.jit.script``, falling back to ``torch.jit.trace``.

Tensor names follow Triton's PyTorch backend (``pytorch_libtorch``; Triton docs, "PyTorch
(LibTorch) Backend", model configuration): an input is found either by the
``<name>__<index>`` convention (index = position in ``forward``) or by the name of its
``forward`` argument; outputs have no names in TorchScript, so they are found by the
``<name>__<index>`` convention. :func:`builders.backends.pytorch_libtorch.triton_names`
(where the convention lives) maps spec names onto names the backend accepts; the export
records that map so the generated native config matches the file.
"""

from __future__ import annotations

import io
import logging
import re
import time
import warnings
import zipfile
from pathlib import Path
from typing import Any

from builders.backends.pytorch_libtorch import triton_names
from builders.export.artifacts import ExportResult
from builders.export.chain import Starting, Verify, first_verified, tracer_warnings
from builders.export.precision import cast_weights, prepare_module, wrap_served
from builders.model.artifact_io import device_constants
from builders.model.forward_args import forward_names
from builders.model.spec import ModelSpec

log = logging.getLogger(__name__)


def export_torchscript(
    module: Any,
    spec: ModelSpec,
    out_dir: Path,
    precision: str = "fp32",
    verify: Verify | None = None,
    starting: Starting | None = None,
) -> ExportResult:
    """Export ``module`` to ``out_dir/model.pt``.

    Strategies, in order (:func:`builders.export.chain.first_verified`), each attempt
    recorded; a strategy whose export fails ``verify`` counts as failed and the next is tried:

    1. ``script``: ``torch.jit.script`` (keeps data-dependent control flow). When the
       served signature needs a wrapper (reduced precision casts, tuple/dict outputs
       flattened, ``forward()`` argument names unknown), the wrapper is traced around the
       *scripted* model, which stays scripted. Every precision's and strategy's ``model.pt``
       takes the model's own ``forward()`` argument names (the spec's where those are unknown:
       :func:`builders.export.precision.argument_names`), so one model serves one set of names.
    2. ``trace``: ``torch.jit.trace`` of the prepared module on the example inputs
       (batch :data:`builders.model.spec.EXAMPLE_BATCH`, dynamic axes at their export sizes).
       Tracer warnings (a tensor turned into a Python value: a branch or a size frozen at
       the example) are kept in ``tracer_warnings``; verification on several input draws
       and sizes then names them as the cause of a mismatch.

    Args:
        module: The eager ``nn.Module`` (eval mode) or a loaded ``ScriptModule``.
        spec: Its I/O signature, outputs filled in (``infer_outputs``).
        out_dir: Folder to write ``model.pt`` into (created).
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"`` (see :func:`builders.export.precision.cast_module`).
        verify: Verification of each export against eager PyTorch (raises
            ``VerificationError``); ``None`` accepts the first export.
        starting: Called with each strategy's name before it exports (``None``: nothing is called).

    Returns:
        The result; ``extra["triton_names"]`` maps spec names to the names the PyTorch
        backend sees (``{"inputs": {...}, "outputs": {...}}``).

    Raises:
        ExportError: Neither strategy exported (the message lists each strategy's error).
        VerificationError: An export was made but none verified.
    """
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.pt"
    examples = spec.export_inputs()
    example_args = tuple(torch.from_numpy(examples[t.name]) for t in spec.inputs)

    def save(strategy: str, make: Any) -> ExportResult:
        t0 = time.perf_counter()
        warned: list[str] = []
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit is deprecated upstream, still what Triton serves
            with tracer_warnings(warned):
                exported = make()
            save_archive(exported, path)
            loaded = torch.jit.load(str(path))
            extra: dict[str, Any] = {"triton_names": triton_names(spec, _forward_arg_names(loaded))}
            constants = device_constants(loaded)
            if constants:  # the trace froze its device: served on another one it fails (issue 11, item 2)
                extra["device_constants"] = constants
        return ExportResult("torchscript", path, precision, strategy, [], time.perf_counter() - t0, extra, warned)

    def script() -> Any:
        scripted = torch.jit.script(cast_weights(module, precision))
        named = forward_names(scripted) is not None  # else the wrapper names forward()'s arguments by the spec
        if precision == "fp32" and named and _flat(scripted(*example_args), len(spec.outputs)):
            return scripted
        # casts / flattening in a traced wrapper; the scripted model inside keeps its control flow, and the
        # wrapper's forward() its argument names (builders.export.precision.argument_names)
        wrapper = wrap_served(scripted, precision, [t.dtype for t in spec.outputs], inputs=[t.name for t in spec.inputs])
        return torch.jit.trace(wrapper, example_args, check_trace=False, strict=False)

    def trace() -> Any:
        return torch.jit.trace(prepare_module(module, precision, spec), example_args, check_trace=False, strict=False)

    return first_verified(
        "torchscript",
        [("script", lambda: save("script", script)), ("trace", lambda: save("trace", trace))],
        verify,
        starting=starting,
        hint="make forward() scriptable (type annotations, no unsupported Python) or traceable (tensor inputs and outputs only)",
    )


#: A constant of a TorchScript class as ``torch.jit.save`` prints it in the archive's code text
#: (``  in_features : Final[int] = 4``): one line each, the class body's first lines after its
#: attributes (``python_print.cpp``, ``PythonPrintImpl::printClass``).
_CONSTANT_LINE = re.compile(r"^  \w+ : Final\[.*\] = .*$")


def save_archive(module: Any, path: Path) -> None:
    """Save a TorchScript module to ``path`` so that the same module gives the same bytes in every process.

    ``torch.jit.save`` alone does not: ``torch.jit.script`` collects a module's constants
    (``__constants__`` and ``Final`` attributes: a ``Conv1d``'s ``stride``, ``padding``, ...) in a
    Python ``set`` and prints them in its iteration order, which follows the per-process string
    hash seed (``PYTHONHASHSEED``); the archive's ``.data/serialization_id`` is a digest of the
    records, so it differs too. Two builds of one model then gave two ``model.pt`` of the same
    size and another SHA-256, and every run that measured the first refused the second as
    another model (trial 9, F32). Constants are found by name, never by position, so their
    order is inert: the code text is rewritten with each class's constants sorted by name, loaded
    back and saved by torch again (the code and ``serialization_id`` then follow from the sorted
    text). An archive whose constants are in that order already (a plain trace has none) is
    kept as ``torch.jit.save`` wrote it.

    Args:
        module: A ``torch.jit.ScriptModule`` (scripted, traced, or loaded).
        path: Where the archive goes (its name, ``model.pt``, is also the archive's top folder).
    """
    import torch

    module.save(str(path))
    canonical = _sorted_constants(path)
    if canonical is not None:
        torch.jit.load(io.BytesIO(canonical)).save(str(path))


def _sorted_constants(path: Path) -> bytes | None:
    """The archive at ``path`` with every class's constants in name order (a zip archive in
    memory), or ``None`` when they already are."""
    buf = io.BytesIO()
    changed = False
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(buf, "w") as out:
        for info in z.infolist():
            data = z.read(info.filename)
            if "/code/" in info.filename and info.filename.endswith(".py"):
                text = data.decode("utf-8")
                ordered = sort_constant_lines(text)
                changed |= ordered != text
                data = ordered.encode("utf-8")
            out.writestr(info.filename, data)
    return buf.getvalue() if changed else None


def sort_constant_lines(code: str) -> str:
    """``code`` (an archive's code text) with each run of consecutive constant lines in name order.

    A permutation of whole lines: the text keeps its length, so the offsets the archive's
    ``.debug_pkl`` records for the code after a run still point where they did.
    """
    lines = code.split("\n")
    out: list[str] = []
    run: list[str] = []
    for line in lines:
        if _CONSTANT_LINE.match(line):
            run.append(line)
            continue
        out += sorted(run)
        run = []
        out.append(line)
    out += sorted(run)
    return "\n".join(out)


def _flat(out: Any, n_outputs: int) -> bool:
    """Whether ``out`` is what the PyTorch backend serves directly: one tensor, or a flat
    tuple/list of ``n_outputs`` tensors."""
    import torch

    if isinstance(out, torch.Tensor):
        return n_outputs == 1
    return isinstance(out, (tuple, list)) and len(out) == n_outputs and all(isinstance(o, torch.Tensor) for o in out)


def _forward_arg_names(scripted: Any) -> list[str]:
    try:
        return [a.name for a in scripted.forward.schema.arguments[1:]]
    except (AttributeError, RuntimeError):
        return []
