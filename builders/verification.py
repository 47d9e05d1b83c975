"""Verifying an export against eager PyTorch: the reference data, the tolerances, the run.

The comparison maths (one output against its reference) is :mod:`builders.verify`; this
module decides what to compare: the verification points, the per-output tolerance (the
``--rtol`` override, else the precision's default from :mod:`core.precision`), and it
explains a failure (frozen dynamic axes, the tolerance that would pass). It also keeps the
reference data that ``clients check`` compares served outputs with.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from builders.artifacts import ExportResult
from builders.outputs import run_eager
from builders.runners import load_runner
from builders.spec import EXAMPLE_BATCH, ModelSpec
from builders.tensorrt_env import gpu_facts, require_tensorrt
from builders.verify import compare_outputs, passing_tolerance
from core import formats
from core import precision as precisions
from core.errors import GpuRequiredError, ModelSpecError, ToolkitError, VerificationError

#: Reference inputs and eager outputs, in the build folder.
REFERENCE = "reference.npz"


def output_tolerances(spec: ModelSpec, precision: str, rtol: dict[str, float], device: str = "cpu",
                      tf32_disabled: bool = True) -> dict[str, float]:
    """Relative tolerance per output: ``rtol[name]``, else ``precision``'s default on
    ``device`` (:meth:`core.precision.Precision.rtol_on`: fp32 1e-4, fp16/bf16 1e-2; fp32 on a
    CUDA device whose kernels may use TF32 gets :data:`core.precision.TF32_RTOL`).

    Raises:
        ConfigError: unknown precision.
    """
    base = precisions.get(precision).rtol_on(device, tf32_disabled)
    return {t.name: rtol.get(t.name, base) for t in spec.outputs}


def tf32_disabled_for(fmt: str) -> bool:
    """Whether verification of ``fmt`` on a CUDA device runs with TF32 off.

    TorchScript runs under :func:`no_tf32` (torch's ``allow_tf32`` switches); ONNX Runtime's
    CUDA provider and TensorRT choose their own kernels (TensorRT enables TF32 by default),
    so their fp32 tolerance is widened instead (:mod:`core.precision`).
    """
    return fmt == "torchscript"


@contextlib.contextmanager
def no_tf32() -> Iterator[None]:
    """torch's TF32 switches off (cuBLAS matmul and cuDNN convolutions), restored on exit."""
    import torch

    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def verified_on(fmt: str, precision: str, device: str) -> dict[str, Any]:
    """What verified an export, for the manifest: device, the runtime that ran the artifact
    (``core.formats`` runner, with the ONNX Runtime execution provider), and the TF32 policy.

    Returns:
        ``{"device": "cpu"|"cuda", "runner": str, "tf32": "n/a"|"disabled"|"allowed (fp32 rtol widened to 1e-3)"}``.
    """
    runner = formats.get(fmt).runner
    if fmt == "onnx":
        runner += " CUDAExecutionProvider" if device.startswith("cuda") else " CPUExecutionProvider"
    tf32 = "n/a"
    if device.startswith("cuda") and precision == "fp32":
        tf32 = "disabled" if tf32_disabled_for(fmt) else f"allowed (fp32 rtol widened to {precisions.TF32_RTOL:g})"
    return {"device": "cuda" if device.startswith("cuda") else "cpu", "runner": runner, "tf32": tf32}


def verification_points(spec: ModelSpec, max_batch_size: int) -> list[tuple[int, dict[str, int]]]:
    """(batch, axis sizes) pairs: batch 1, middle, max at opt axes; plus min and max axes."""
    mbs = max(1, max_batch_size)
    batches = sorted({1, max(1, mbs // 2), mbs})
    points = [(b, spec.axis_sizes("opt")) for b in batches]
    if spec.dynamic_axes:
        points += [(1, spec.axis_sizes("min")), (mbs, spec.axis_sizes("max"))]
    return points


def verify_artifact(
    result: ExportResult, module: Any, spec: ModelSpec, max_batch_size: int, rtol: dict[str, float], device: str = "cpu"
) -> list[dict[str, Any]]:
    """Run ``result`` and eager PyTorch (fp32, CPU) on the same inputs and compare.

    Points: batch 1, ``max_batch_size // 2`` and ``max_batch_size`` at the ``opt`` size of
    every other dynamic axis, then batch 1 at their ``min`` and ``max_batch_size`` at their
    ``max``. Tolerance per output: ``rtol[name]``, else the precision's default
    (:attr:`core.precision.Precision.rtol`).

    Args:
        result: The export to check.
        module: The eager model (the reference).
        spec: The I/O signature, outputs filled in.
        max_batch_size: Largest batch verified.
        rtol: Per-output relative tolerance overrides.
        device: Where the artifact runs (``"cpu"``, ``"cuda"``).

    Returns:
        One record per point: ``{"batch", "axes", "outputs": [OutputComparison...]}``.

    Raises:
        VerificationError: the artifact fails to run, an output changed shape or dtype, is
            NaN/Inf, or breaks its tolerance. The message names the format, point and output;
            a frozen dynamic axis is named as such, and a tolerance breach says which
            tolerance would have passed.
    """
    if result.format == "onnx" and result.precision != "fp32" and device == "cpu" and _ort_cuda():
        device = "cuda"  # reduced-precision kernels are complete on onnxruntime's CUDA provider, not on its CPU one
    try:
        runner = load_runner(result.format, result.path, [t.name for t in spec.inputs], [t.name for t in spec.outputs], device=device)
    except ToolkitError:
        raise
    except Exception as e:
        raise VerificationError(
            f"{result.format} ({result.precision}) artifact {result.path} cannot be loaded for verification on {device}: "
            f"{type(e).__name__}: {str(e).strip()[:300]}",
            hint="onnxruntime's CPU provider lacks many bf16 (and some fp16) kernels: verify this precision on a GPU "
            "host with onnxruntime-gpu, or export it as TorchScript / TensorRT" if result.precision != "fp32"
            else "the exported file is not loadable: re-export with --force, or try another --opset",
        ) from e
    cuda = device.startswith("cuda")
    tol = output_tolerances(spec, result.precision, rtol, device, tf32_disabled_for(result.format))
    what = f"{result.format} ({result.precision}, {result.strategy}) on {'CUDA' if cuda else 'CPU'}"
    guard = no_tf32 if cuda and tf32_disabled_for(result.format) else contextlib.nullcontext
    records = []
    for batch, sizes in verification_points(spec, max_batch_size):
        inputs = spec.example_inputs(batch, sizes, seed=batch)
        ref = run_eager(module, spec, inputs)
        expected = {t.name: r.numpy() for t, r in zip(spec.outputs, ref)}
        try:
            with guard():
                actual = runner(inputs)
        except Exception as e:
            frozen = _frozen_axes(runner, spec, batch, sizes)
            raise VerificationError(
                f"{what} artifact failed to run at batch {batch}, axes {sizes}: {type(e).__name__}: {str(e).strip()[:300]}"
                + (f"\n  the export lost dynamic axis {frozen}: it runs at the example size but not at this one" if frozen else ""),
                hint="the export froze a dynamic axis at the example size: avoid turning tensor sizes into Python "
                "numbers in forward() (int(x.shape[0]), x.size(0) in a Python expression), or make forward() scriptable"
                if frozen else "check the input spec's dynamic axes and value ranges",
            ) from e
        comps = compare_outputs(actual, expected, tol)
        records.append({"batch": batch, "axes": sizes, "outputs": [c.to_json() for c in comps]})
        for c in comps:
            if c.passed:
                continue
            problem = c.problem or "failed"
            hint = None
            if problem.startswith("shape"):
                frozen = _frozen_axes(runner, spec, batch, sizes)
                if frozen:
                    problem += f"; the export lost dynamic axis {frozen} (frozen at the example size)"
                hint = "a dynamic axis was frozen at the example size: avoid Python ints from tensor sizes in forward()"
            elif "tolerance" in problem:
                hint = f"if this error is acceptable, pass --rtol {c.name}={passing_tolerance(c.max_rel_err):g}"
            elif "eager PyTorch" in problem:
                hint = "fix the model or the input spec (value ranges) so that eager PyTorch gives finite outputs"
            elif "NaN" in problem:
                hint = "the export overflows or diverges: try fp32, or another exporter/opset"
            elif problem.startswith("dtype"):
                hint = "the exporter changed a dtype: cast the output explicitly in forward(), or try another exporter"
            raise VerificationError(
                f"{what} output {c.name!r} at batch {batch}, axes {sizes}: {problem} "
                f"(max abs err {c.max_abs_err:.3g}, max rel err {c.max_rel_err:.3g})",
                hint=hint,
            )
    return records


def _ort_cuda() -> bool:
    try:
        import onnxruntime as ort
        import torch

        return "CUDAExecutionProvider" in ort.get_available_providers() and torch.cuda.is_available()
    except ImportError:
        return False


def _frozen_axes(runner: Any, spec: ModelSpec, batch: int, sizes: dict[str, int]) -> list[str]:
    """When the artifact runs correctly shaped at the export example size but not at
    (``batch``, ``sizes``), the axes that differ from the example are frozen."""
    ex_sizes = spec.export_axis_sizes()
    try:
        out = runner(spec.export_inputs())
    except Exception:
        return []
    if any(o.shape[:1] != (EXAMPLE_BATCH,) for o in out.values()):
        return []
    axes = ["batch"] if batch != EXAMPLE_BATCH else []
    return axes + [a for a, v in sizes.items() if v != ex_sizes.get(a)]


def error_summary(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Worst max abs / max rel error per output over all verification points."""
    out: dict[str, dict[str, float]] = {}
    for rec in records:
        for o in rec["outputs"]:
            s = out.setdefault(o["name"], {"max_abs_err": 0.0, "max_rel_err": 0.0, "rtol": o["rtol"]})
            s["max_abs_err"] = max(s["max_abs_err"], o["max_abs_err"])
            s["max_rel_err"] = max(s["max_rel_err"], o["max_rel_err"])
    return out


def verify_plan(result: ExportResult, module: Any, spec: ModelSpec, max_batch_size: int, rtol: dict[str, float]) -> list[dict[str, Any]]:
    """Verify a plan against eager PyTorch (see :func:`verify_artifact`),
    after checking that this GPU and TensorRT are the ones it was built for.

    Raises:
        GpuRequiredError: no GPU / TensorRT here, or a different one than the plan's.
        VerificationError: as for every artifact.
    """
    require_tensorrt("verifying a TensorRT plan")
    here = gpu_facts()
    for key in ("tensorrt_version", "compute_capability"):
        built = result.extra.get(key)
        if built is not None and built != here[key]:
            raise GpuRequiredError(
                f"{result.path} was built for {key} {built}, this machine has {here[key]}",
                hint="a plan only runs with the TensorRT version and GPU it was built for; rebuild it here (--force)",
            )
    return verify_artifact(result, module, spec, max_batch_size, rtol, device="cuda")


def save_reference(build_dir: Path, module: Any, spec: ModelSpec, inputs: dict[str, np.ndarray]) -> Path:
    """Write ``build_dir/reference.npz``: ``inputs`` and the eager model's outputs on them
    (keys ``input:<name>`` / ``output:<name>``; read back with :func:`load_reference`).

    Returns:
        The file written.
    """
    path = build_dir / REFERENCE
    outs = run_eager(module, spec, inputs)
    arrays = {f"input:{k}": v for k, v in inputs.items()}
    arrays.update({f"output:{t.name}": o.numpy() for t, o in zip(spec.outputs, outs)})
    np.savez(path, **arrays)
    return path


def load_reference(build_dir: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Read ``reference.npz`` (no pickle) -> ``(inputs, expected_outputs)``.

    Raises:
        ModelSpecError: the file is missing.
    """
    path = build_dir / REFERENCE
    if not path.is_file():
        raise ModelSpecError(f"no reference data at {path}", hint="run `builders build` for this model first")
    with np.load(path, allow_pickle=False) as z:
        inputs = {k.split(":", 1)[1]: z[k] for k in z.files if k.startswith("input:")}
        outputs = {k.split(":", 1)[1]: z[k] for k in z.files if k.startswith("output:")}
    return inputs, outputs
