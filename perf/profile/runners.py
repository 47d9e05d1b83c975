"""What the in-process baseline runs: the served artifact through the python-backend
model's own runner, the build's eager model, and the build's reference inputs at a batch size.

- Artifacts (TorchScript, ONNX, TensorRT) run through :func:`builders.serving.runners.load_runner`, the
  runner the toolkit's python-backend ``model.py`` calls in the server: the in-process call is
  exactly the served computation, numpy in and numpy out, without the server around it.
- The eager model is loaded from the build's ``source`` (:func:`builders.model.models.load_model`)
  and refused when its weights differ from the build's (``weights_sha256_16``); it runs under
  ``torch.inference_mode()``. It is not timed beside a variant that serves an export kept from an earlier build of
  other weights (:func:`other_weights`): that is not its model.
- Inputs are the build's reference inputs (``reference.npz``, :meth:`RepositoryVariant.reference`)
  repeated along the batch axis to the batch size measured; at another input size (a client workload's,
  ``sweep --shapes``) they are drawn from the build's spec as the reference inputs were
  (:meth:`builders.model.spec.ModelSpec.example_inputs`, :func:`inputs_at`): no second input generator.

:func:`cannot_run` says why a key cannot run here (no CUDA, no TensorRT, a model that cannot
be reloaded): such points are recorded "not run on this host", never timed as 0.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from builders.repository.view import RepositoryVariant
from core.errors import ModelSpecError, ToolkitError
from perf.records.baseline import EAGER, BaselineKey
from perf.records.results import parse_shape_text, shape_text

log = logging.getLogger(__name__)

Call = Callable[[dict[str, np.ndarray]], Any]


class NotRunHere(Exception):
    """A key this host cannot run (the message says why): recorded "not run on this host"."""


#: Model kinds whose source the baseline can load again (an ``nn.Module`` object passed to
#: the Python API cannot: the build recorded only its class name).
RELOADABLE_KINDS = ("builtin", "factory", "torchscript", "exported_program")


def cannot_run(key: BaselineKey) -> str | None:
    """Why ``key`` cannot run on this host (``None``: it can)."""
    if key.format == "trt":
        from builders.serving.tensorrt_env import missing_requirements

        missing = missing_requirements()
        if missing:
            return "TensorRT plans run only on an NVIDIA GPU with TensorRT; this host lacks " + "; ".join(missing)
    if key.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            return f"the variant runs on {key.device}, and this host has no CUDA device visible to torch"
    return None


def batch_inputs(reference: dict[str, np.ndarray], batch: int) -> dict[str, np.ndarray]:
    """The reference inputs repeated along their batch axis (axis 0) to ``batch`` rows:
    shape ``[batch, *per_sample]`` per input, contiguous."""
    out = {}
    for name, a in reference.items():
        reps = -(-batch // a.shape[0])
        out[name] = np.ascontiguousarray(np.concatenate([a] * reps)[:batch])
    return out


def inputs_at(variant: RepositoryVariant, reference: dict[str, np.ndarray], shape: str | None) -> dict[str, np.ndarray]:
    """The inputs of one call at input sizes ``shape`` (every dynamic axis named, ``"seq=64"``; ``None``:
    the reference size): the build's ``reference`` inputs when they are at that size, else inputs drawn
    from the build's spec at it as the reference inputs were (:meth:`builders.model.spec.ModelSpec.example_inputs`:
    its value ranges and domains, one row; :func:`batch_inputs` repeats it).

    Raises:
        ModelSpecError: the variant has no build spec to draw inputs at another size from.
    """
    if shape is None or reference_size(variant) == shape:
        return reference
    spec = variant.spec
    if spec is None:
        raise ModelSpecError(
            f"{variant.name} has no build spec: no inputs at {shape}", hint="rebuild the variant with `builders build`"
        )
    return spec.example_inputs(1, {**spec.axis_sizes("opt"), **parse_shape_text(shape)})


def reference_size(variant: RepositoryVariant) -> str | None:
    """The input size of the build's reference inputs, every dynamic axis named (``"seq=32"``; ``None``
    without dynamic axes): what the traces and the precision study run at (:mod:`perf.profile.run`), and the
    in-process baseline's size for a level not swept (:func:`perf.profile.plan.plan_targets`).

    Raises:
        ToolkitError: the reference data cannot be read.
    """
    return shape_text(reference_axes(variant)) or None


def reference_axes(variant: RepositoryVariant) -> dict[str, int]:
    """The size of each named dynamic axis in the build's reference inputs (``{"seq": 32}``),
    read from the arrays (the axis ``i`` of an input's spec shape is array axis ``i + 1``)."""
    spec = variant.spec
    if spec is None or not spec.dynamic_axes:
        return {}
    inputs, _ = variant.reference()
    sizes: dict[str, int] = {}
    for t in spec.inputs:
        for i, d in enumerate(t.shape):
            if isinstance(d, str) and t.name in inputs:
                sizes.setdefault(d, int(inputs[t.name].shape[i + 1]))
    return sizes


def artifact_call(variant: RepositoryVariant, fmt: str, file: str, key: BaselineKey) -> Call:
    """The runner of ``variant``'s served artifact (``<folder>/1/<file>``), with the key's
    threads and device (:func:`builders.serving.runners.load_runner`)."""
    from builders.serving.runners import load_runner

    path = version_file(variant.folder, file)
    names_in = [b.name for b in variant.inputs]
    names_out = [b.name for b in variant.outputs]
    return load_runner(fmt, path, names_in, names_out, key.threads, key.device)


def version_file(folder: Path, file: str) -> Path:
    """``<folder>/<highest version>/<file>``."""
    versions = sorted((p for p in folder.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name))
    for v in reversed(versions):
        if (v / file).is_file():
            return v / file
    raise ModelSpecError(f"{folder} has no version folder holding {file}", hint="rebuild the variant with `builders build`")


def other_weights(variant: RepositoryVariant | None) -> str | None:
    """Why the build's eager model is not the model ``variant`` serves, or ``None``: its export was kept from an earlier
    build of other weights or source (the manifest's ``other_model``: this build's export of its format and precision
    failed, and a failed export replaces nothing; trial 24, T24-16), while the build's ``source`` loads this build's."""
    try:
        record, manifest = (variant.export, variant.manifest) if variant is not None else (None, None)
    except ToolkitError:
        return None
    if record is None or manifest is None or not record.other_model:
        return None
    then = ", ".join(f"{f} {v}" for f, v in record.other_model.items())
    now = ", ".join(f"{f} {getattr(manifest, f, None)}" for f in record.other_model)
    return (
        f"it serves the earlier build's {record.format} {record.precision} export, of another model ({then}) than its "
        f"build's source loads now ({now}), kept since this build's {record.format} {record.precision} export failed: "
        "its in-process row times that served file; the eager model of the source is not timed as its baseline (not "
        f"the same model); `builders build --format {record.format}` once it passes serves the source's model in it"
    )


def baseline_keys(key: BaselineKey, variant: RepositoryVariant | None, eager: bool) -> list[BaselineKey]:
    """What the in-process baseline times for ``variant`` (its artifact's ``key``): that key, and with ``eager`` the
    build's eager model under the same device and threads, unless the variant serves another model
    (:func:`other_weights`). One rule for the baseline, its estimate and ``triton-perf profile``."""
    eager = eager and other_weights(variant) is None
    return [key] + ([dataclasses.replace(key, format=EAGER, precision="fp32")] if eager else [])


def eager_module(variant: RepositoryVariant) -> Any:
    """The build's eager model of ``variant`` (``nn.Module``, eval mode), loaded from the
    manifest's ``source`` and checked to have the build's weights.

    Raises:
        NotRunHere: no build manifest, a model that cannot be loaded again (an ``nn.Module``
            object), or one whose weights now differ from the build's.
        Exception: whatever the user's factory raises.
    """
    manifest = variant.manifest
    if manifest is None or variant.spec is None:
        raise NotRunHere("the variant has no build manifest (the eager model's source is unknown)")
    if (manifest.model_kind or "builtin") not in RELOADABLE_KINDS:
        raise NotRunHere(f"the build's model was an nn.Module object ({manifest.source}): it cannot be loaded from the manifest")
    module = _load_eager(manifest.source, variant.spec)
    from builders.repository.manifest import weights_hash

    if manifest.weights_sha256_16 and weights_hash(module) != manifest.weights_sha256_16:
        raise NotRunHere(f"{manifest.source} now has other weights than the build's (its weights hash differs)")
    return module


def eager_call(variant: RepositoryVariant, device: str) -> Call:
    """The build's eager model (:func:`eager_module`) as a call on numpy inputs
    (``torch.inference_mode()``; outputs flattened and copied back to numpy, as the artifact
    runners return them).

    Raises:
        NotRunHere: see :func:`eager_module`.
        Exception: whatever the user's factory raises.
    """
    module = eager_module(variant)
    import torch

    from builders.model.outputs import flatten_outputs

    module = module.to(device)
    assert variant.spec is not None  # eager_module refused a variant without one
    inputs = [t.name for t in variant.spec.inputs]

    def run(arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
        with torch.inference_mode():
            out = module(*(torch.from_numpy(arrays[n]).to(device) for n in inputs))
            return [o.cpu().numpy() for o in flatten_outputs(out)]

    return run


def _load_eager(source: str, spec: Any) -> Any:
    """The eager module of ``source`` with the build's recorded ``spec``: a refusal of that spec (a model
    edited since the build) is found while working (exit 1), not a mistake in what was typed (trial 30, F8:
    the spec's refusals carry the build's flags)."""
    from builders.model.models import load_model

    try:
        return load_model(source, spec).module
    except ToolkitError as e:
        e.flag = None
        raise


@contextlib.contextmanager
def torch_threads_kept() -> Iterator[None]:
    """Restore torch's intra-op thread count afterwards (the runners set it process-wide)."""
    import torch

    before = torch.get_num_threads()
    try:
        yield
    finally:
        torch.set_num_threads(before)
