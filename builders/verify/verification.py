"""Verifying an export against eager PyTorch: the points, the draws, the tolerances, the verdict.

The comparison maths (one output against its reference) is :mod:`builders.verify.compare`; the
input draws are :mod:`builders.verify.input_draws`; the words of a failure are
:mod:`builders.verify.explain`; what a verdict can say and which kernels run in which
precision is :mod:`builders.verify.verdicts`. This module runs the verification: every point
(:func:`verification_points`) on every draw, on every device the export's variants run on,
with the per-output tolerance (the ``--rtol`` override, else the precision's default from
:mod:`core.precision`, TF32-aware on CUDA). It also keeps the reference data that
``clients check`` compares served outputs with.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.export.artifacts import ExportResult
from builders.model.eager import point_sizes, run_eager
from builders.model.spec import EXAMPLE_BATCH, ModelSpec
from builders.serving.runners import load_runner
from builders.serving.tensorrt_env import gpu_facts, missing_requirements, require_tensorrt
from builders.verify import explain as errs
from builders.verify.compare import compare_outputs
from builders.verify.input_draws import DRAWS, REQUIRED_DRAWS, SAMPLE, draw_inputs
from builders.verify.verdicts import device_kind, kernel_precision, tf32_disabled_for, verified_on
from core import precision as precisions
from core.errors import GpuRequiredError, ModelSpecError, ToolkitError

#: Reference inputs and eager outputs, in the build folder.
REFERENCE = "reference.npz"
#: Version of the verification policy (points, draws, verdicts); part of every export's reuse
#: key, so an export verified under an older policy is verified again (3: integer outputs by the fraction differing;
#: 4: a point off every multiple of the axes' min, opt and max, trial 30 F1).
VERIFICATION_POLICY = 4
#: Verification's progress: called with ``(done, total, sizes)``: cases (one point, one draw each) done of
#: all, and each case's size (its inputs' elements), what a progress line's estimate of the rest weighs them by.
Tick = Callable[[int, int, Sequence[float]], None]


def output_tolerances(
    spec: ModelSpec, precision: str, rtol: dict[str, float], device: str = "cpu", tf32_disabled: bool = True
) -> dict[str, float]:
    """Relative tolerance per output: ``rtol[name]``, else ``precision``'s default on
    ``device`` (:meth:`core.precision.Precision.rtol_on`: fp32 1e-4, fp16/bf16 1e-2; fp32 on a
    CUDA device whose kernels may use TF32 gets :data:`core.precision.TF32_RTOL`).

    Raises:
        ConfigError: unknown precision.
    """
    base = precisions.get(precision).rtol_on(device, tf32_disabled)
    return {t.name: rtol.get(t.name, base) for t in spec.outputs}


@contextlib.contextmanager
def no_tf32() -> Iterator[None]:
    """Turn torch's TF32 switches off (cuBLAS matmul and cuDNN convolutions), restored on exit."""
    import torch

    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def verification_points(spec: ModelSpec, max_batch_size: int) -> list[tuple[int, dict[str, int]]]:
    """(batch, axis sizes) pairs: batch 1, middle, max at opt axes; plus min and max axes; plus batch 1 with every
    axis whose range holds one at a size off every multiple (:meth:`builders.model.spec.ModelSpec.off_axis_sizes`:
    17 of 16..64, where min, opt and max are all multiples of 16; trial 30, F1), the others at their export sizes."""
    mbs = max(1, max_batch_size)
    batches = sorted({1, max(1, mbs // 2), mbs})
    points = [(b, spec.axis_sizes("opt")) for b in batches]
    if spec.dynamic_axes:
        points += [(1, spec.axis_sizes("min")), (mbs, spec.axis_sizes("max"))]
    off = spec.off_axis_sizes()
    if off:
        points.append((1, {**spec.export_axis_sizes(), **off}))
    return points


def verify_artifact(
    result: ExportResult,
    module: Any,
    spec: ModelSpec,
    max_batch_size: int,
    rtol: dict[str, float],
    device: str = "cpu",
    sample: dict[str, np.ndarray] | None = None,
    tick: Tick | None = None,
) -> list[dict[str, Any]]:
    """Run ``result`` and eager PyTorch (fp32, CPU) on the same inputs and compare.

    Points: batch 1, ``max_batch_size // 2`` and ``max_batch_size`` at the ``opt`` size of
    every other dynamic axis, then batch 1 at their ``min`` and ``max_batch_size`` at their
    ``max``, then batch 1 off every multiple (:func:`verification_points`); at each point every draw of :data:`builders.verify.input_draws.DRAWS` (both signs,
    scaled, zeros), then the user's ``sample`` at its own shape. At each point every output
    of eager PyTorch must still have its batch axis (``TensorSpec.batch_axis``) of the
    point's batch size. Tolerance per output: ``rtol[name]``, else the precision's default
    on ``device`` (:func:`output_tolerances`).

    Args:
        result: The export to check (``tracer_warnings`` explain a mismatch).
        module: The eager model (the reference).
        spec: The I/O signature, outputs filled in.
        max_batch_size: Largest batch verified.
        rtol: Per-output relative tolerance overrides.
        device: Where the artifact runs (``"cpu"``, ``"cuda"``).
        sample: The user's own inputs (name -> ``[batch, ...]`` array), or ``None``.
        tick: Called with ``(done, total, sizes)`` cases (point × draw) before the first and after each;
            ``sizes``: each case's input elements (the larger points cost more: trial 16, T16-17).

    Returns:
        One record per point and draw: ``{"batch", "axes", "draw", "device", "outputs":
        [OutputComparison...]}``, with ``"skipped"`` (why) and no outputs for a draw on which
        eager PyTorch itself is not finite.

    Raises:
        VerificationError: the artifact fails to load or run, an eager output lost its batch
            axis, an output changed shape or dtype, is NaN/Inf, or breaks its tolerance. The
            message names the format, point, draw and output, and the cause where it is known
            (a trace that froze data-dependent control flow, a frozen dynamic axis).
    """
    try:
        runner = load_runner(
            result.format, result.path, [t.name for t in spec.inputs], [t.name for t in spec.outputs], device=device
        )
    except ToolkitError:
        raise
    except Exception as e:
        raise errs.load_error(result.format, result.precision, result.path, device, e) from e
    cuda = device.startswith("cuda")
    tol = output_tolerances(spec, result.precision, rtol, device, tf32_disabled_for(result.format))
    what = f"{result.format} ({result.precision}, {result.strategy}) on {'CUDA' if cuda else 'CPU'}"
    guard = no_tf32 if cuda and tf32_disabled_for(result.format) else contextlib.nullcontext
    cases = [
        (batch, sizes, draw, draw_inputs(spec, batch, sizes, draw, seed=batch))
        for batch, sizes in verification_points(spec, max_batch_size)
        for draw in DRAWS
    ]
    if sample is not None:
        cases.append((*point_sizes(spec, sample), SAMPLE, sample))
    records: list[dict[str, Any]] = []
    costs = [float(sum(np.asarray(v).size for v in case[3].values())) for case in cases]
    for batch, sizes, draw, inputs in cases:
        if tick is not None:
            tick(len(records), len(cases), costs)
        where = f"batch {batch}, axes {sizes}, draw {draw!r}"
        record: dict[str, Any] = {"batch": batch, "axes": sizes, "draw": draw, "device": device_kind(device)}
        ref = run_eager(module, spec, inputs)
        expected = {t.name: r.numpy() for t, r in zip(spec.outputs, ref)}
        if draw not in REQUIRED_DRAWS and not all(np.isfinite(v.astype(np.float64)).all() for v in expected.values()):
            records.append({**record, "outputs": [], "skipped": "eager PyTorch output not finite on this draw"})
            continue
        _check_batch_axes(spec, expected, batch, where)
        try:
            with guard():
                actual = runner(inputs)
        except Exception as e:
            raise errs.run_error(what, where, e, _frozen_axes(runner, spec, batch, sizes)) from e
        comps = compare_outputs(actual, expected, tol)
        records.append({**record, "outputs": [c.to_json() for c in comps]})
        # a float output's failure first: an integer output computed from it is then no near-tie
        for c in sorted(comps, key=lambda c: c.differing is not None):
            if not c.passed:
                frozen = _frozen_axes(runner, spec, batch, sizes) if (c.problem or "").startswith("shape") else []
                agreed = [o.name for o in comps if o.passed and o.differing is None]
                raise errs.comparison_error(what, where, c, frozen, result.format, result.tracer_warnings, agreed)
    if tick is not None:
        tick(len(records), len(cases), costs)
    return records


def verify_export(
    result: ExportResult,
    module: Any,
    spec: ModelSpec,
    max_batch_size: int,
    rtol: dict[str, float],
    devices: tuple[str, ...] = ("cpu",),
    sample: dict[str, np.ndarray] | None = None,
    tick: Callable[[str, int, int, Sequence[float]], None] | None = None,
) -> list[dict[str, Any]]:
    """Verify ``result`` on every device its variants run on; one verdict per device.

    A reduced-precision ONNX export asked for on the CPU is verified on onnxruntime's CUDA
    provider where this host has one (its CPU provider computes fp16/bf16 in fp32). The
    verdict is ``ok`` when the artifact agreed on every point and draw *and* the verifying
    kernels compute in the export's precision (:data:`builders.verify.verdicts.KERNEL_PRECISION`),
    ``not_verified_precision`` when they agreed but compute in another precision, and
    ``not_verified_device`` when the device is not on this host. TensorRT plans are checked
    by :func:`verify_plan`.

    Args:
        result: The export to check (``tracer_warnings`` explain a mismatch).
        module: The eager model (the reference).
        spec: The I/O signature, outputs filled in.
        max_batch_size: Largest batch verified.
        rtol: Per-output relative tolerance overrides.
        devices: ``"cpu"`` and/or ``"cuda"``: where the export's variants run (KIND_CPU / KIND_GPU).
        sample: The user's own inputs (name -> ``[batch, ...]`` array), or ``None``.
        tick: Called with ``(device, done, total, sizes)`` as the cases of each device are run (:data:`Tick`).

    Returns:
        ``[{"verified_on": verified_on(...), "status", "reason", "verify_s", "points",
        "errors"}]``, one per device, in ``devices`` order.

    Raises:
        VerificationError: on any device (see :func:`verify_artifact`).
        GpuRequiredError: a TensorRT plan cannot be checked here.
    """
    verdicts = []
    for device in dict.fromkeys(devices):
        if result.format == "onnx" and result.precision != "fp32" and device == "cpu" and _ort_cuda():
            device = "cuda"  # reduced-precision kernels are real on onnxruntime's CUDA provider, not on its CPU one
        on = verified_on(result.format, result.precision, device)
        missing = _missing_device(result.format, device)
        if missing:
            verdicts.append(
                {
                    "verified_on": on,
                    "status": "not_verified_device",
                    "reason": missing,
                    "verify_s": 0.0,
                    "points": [],
                    "errors": {},
                }
            )
            continue
        t0 = time.perf_counter()
        on_device = None if tick is None else (lambda done, total, sizes, d=device: tick(d, done, total, sizes))
        if result.format == "trt":
            points = verify_plan(result, module, spec, max_batch_size, rtol, sample, on_device)
        else:
            points = verify_artifact(result, module, spec, max_batch_size, rtol, device, sample, on_device)
        kernel = kernel_precision(result.format, result.precision, device)
        native = kernel.computes_in == result.precision
        verdicts.append(
            {
                "verified_on": on,
                "status": "ok" if native else "not_verified_precision",
                "reason": None if native else kernel.why,
                "verify_s": round(time.perf_counter() - t0, 3),
                "points": points,
                "errors": error_summary(points),
            }
        )
    return verdicts


def _missing_device(fmt: str, device: str) -> str | None:
    """Why ``fmt`` cannot run on ``device`` here, or ``None`` when it can. A TensorRT plan
    needs TensorRT and a GPU (a plan built here had them; an imported one may not)."""
    if fmt == "trt":
        missing = missing_requirements()
        return ("running a TensorRT plan needs " + " and ".join(missing)) if missing else None
    if not device.startswith("cuda"):
        return None
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "this host has no CUDA device (torch.cuda.is_available() is False)"
    if fmt == "onnx" and not _ort_cuda():
        return "onnxruntime here has no CUDAExecutionProvider (install onnxruntime-gpu)"
    return None


def _check_batch_axes(spec: ModelSpec, expected: dict[str, np.ndarray], batch: int, where: str) -> None:
    """Every eager output keeps its batch axis, of size ``batch``, at this point.

    Raises:
        VerificationError: an output has another rank or batch size (``squeeze()`` at batch 1...).
    """
    for t in spec.outputs:
        if t.batch_axis is None:
            continue
        shape = expected[t.name].shape
        if len(shape) != len(t.shape) + 1 or shape[t.batch_axis] != batch:
            raise errs.batch_axis_error(t.name, t.batch_axis, shape, batch, where)


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


def error_summary(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Worst max abs / max rel error per output over all verification points and draws; for an
    integer or bool output also ``differing`` and ``elements`` of the point with the largest
    fraction differing (:class:`builders.verify.compare.OutputComparison`)."""
    out: dict[str, dict[str, Any]] = {}
    for rec in records:
        for o in rec.get("outputs", []):
            s = out.setdefault(o["name"], {"max_abs_err": 0.0, "max_rel_err": 0.0, "rtol": o["rtol"]})
            s["max_abs_err"] = max(s["max_abs_err"], o["max_abs_err"])
            if o.get("differing") is not None and (o["max_rel_err"] >= s["max_rel_err"] or "differing" not in s):
                s["differing"], s["elements"] = o["differing"], o["elements"]  # the worst point's count, for the words
            s["max_rel_err"] = max(s["max_rel_err"], o["max_rel_err"])
    return out


def verify_plan(
    result: ExportResult,
    module: Any,
    spec: ModelSpec,
    max_batch_size: int,
    rtol: dict[str, float],
    sample: dict[str, np.ndarray] | None = None,
    tick: Tick | None = None,
) -> list[dict[str, Any]]:
    """Verify a plan against eager PyTorch (see :func:`verify_artifact`, ``tick`` too),
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
    return verify_artifact(result, module, spec, max_batch_size, rtol, device="cuda", sample=sample, tick=tick)


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
