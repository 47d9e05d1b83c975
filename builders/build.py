"""``builders build``: export, verify, and write the repository variants (the Python API)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import platform
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from core import dtypes, formats
from core import precision as precisions
from builders.artifacts import Attempt, ExportResult, file_sha256
from builders.config import DEFAULT_SERVING
from core.errors import ConfigError, ModelSpecError, ToolkitError, VerificationError
from builders.repository import link_or_copy, update_index, write_variant
from builders.spec import EXAMPLE_BATCH, ModelSpec, TensorSpec
from builders.variants import VariantGrid
from builders.verify import compare_outputs, passing_tolerance

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
REFERENCE = "reference.npz"
Progress = Callable[[str], None]


@dataclasses.dataclass
class BuildOptions:
    """Everything ``builders build`` needs.

    Attributes:
        model: A built-in name (``mlp``, ``tiny``...) or ``package.module:factory``.
        spec_path: JSON input spec (required for a user's factory; see :class:`ModelSpec`).
        formats: Export formats, subset of ``("torchscript", "onnx", "trt")``.
        precisions: ``fp32``/``fp16``/``bf16``; each is exported and verified separately.
        grid: The variant grid written for every (format, precision).
        serving: ``"python"`` (python-backend models, what the bundled CPU server serves) or
            ``"native"`` (pytorch_libtorch / onnxruntime_onnx / tensorrt_plan).
        repository: Model repository folder (default ``model_repository``).
        build_dir: Where artifacts, manifest and reference data go (``builds/<model>``).
        opset: ONNX opset.
        rtol: Per-output relative tolerance overrides (output name -> rtol); the default
            per precision is :attr:`core.precision.Precision.rtol` (fp32 1e-4, fp16/bf16 1e-2).
        force: Re-export even when an identical build exists.
        spec: An input spec given directly (e.g. from ``--input`` flags); wins over ``spec_path``.
        workspace_bytes: TensorRT builder workspace limit, bytes (default 4 GiB).
        timing_cache: TensorRT timing cache file (default ``<build_dir>/<model>/trt_timing.cache``).
        external_data_threshold_bytes: ONNX weights above this many bytes go to
            ``model.onnx.data`` (default 1.8 GiB, under the 2 GiB protobuf limit).
    """

    model: str
    spec_path: Path | None = None
    formats: tuple[str, ...] = ("torchscript", "onnx")
    precisions: tuple[str, ...] = ("fp32",)
    grid: VariantGrid = dataclasses.field(default_factory=VariantGrid)
    serving: str = DEFAULT_SERVING
    repository: Path = Path("model_repository")
    build_dir: Path = Path("builds")
    opset: int = 18
    rtol: dict[str, float] = dataclasses.field(default_factory=dict)
    force: bool = False
    spec: ModelSpec | None = None
    workspace_bytes: int = 4 << 30
    timing_cache: Path | None = None
    external_data_threshold_bytes: int = int(1.8 * 2**30)


@dataclasses.dataclass
class BuildResult:
    """What a build wrote: the manifest (as saved), its path, and the variant folders."""

    manifest: dict[str, Any]
    manifest_path: Path
    variant_dirs: list[Path]


def infer_outputs(module: Any, spec: ModelSpec) -> ModelSpec:
    """Fill in output names, dtypes and per-sample shapes by running the eager model.

    The model runs at two sizes (batch 2 at ``opt`` axes, batch 3 at ``max`` axes); a
    per-sample dim that changes between them is named after the input axis of that size.
    Outputs without names in the spec are named ``OUTPUT__<i>`` (Triton PyTorch backend
    convention). Declared output dtypes and shapes are replaced by the eager model's.

    Args:
        module: The eager model.
        spec: Its input spec; outputs may be empty or bare names.

    Returns:
        ``spec`` with one :class:`TensorSpec` per flattened output (tuple/dict in order).

    Raises:
        ModelSpecError: the model does not run on inputs made from the spec, the number of
            declared output names differs from the model's, an output has no batch axis
            first, or an output dtype has no Triton type (e.g. bfloat16).
    """
    import torch

    from builders.runners import flatten_outputs

    def run(batch: int, sizes: dict[str, int]) -> list[Any]:
        ex = spec.example_inputs(batch, sizes)
        with torch.no_grad():
            return flatten_outputs(module(*(torch.from_numpy(ex[t.name]) for t in spec.inputs)))

    try:
        a, b = run(EXAMPLE_BATCH, spec.export_axis_sizes()), run(EXAMPLE_BATCH + 1, spec.axis_sizes("max"))
    except Exception as e:
        raise ModelSpecError(
            f"the model does not run on inputs made from the spec: {type(e).__name__}: {str(e)[:300]}",
            hint="check the input names' order, per-sample shapes, dtypes and value ranges against forward()",
        ) from e
    if spec.outputs and len(spec.outputs) != len(a):
        raise ModelSpecError(
            f"the spec names {len(spec.outputs)} outputs ({[t.name for t in spec.outputs]}), the model returns {len(a)}",
            hint="list one output name per returned tensor (tuple and dict outputs are flattened in order)",
        )
    max_sizes = {v: k for k, v in spec.axis_sizes("max").items()}
    outs = []
    for i, (x, y) in enumerate(zip(a, b)):
        name = spec.outputs[i].name if i < len(spec.outputs) else f"OUTPUT__{i}"
        if not hasattr(x, "shape") or x.dim() == 0 or x.shape[0] != EXAMPLE_BATCH or y.shape[0] != EXAMPLE_BATCH + 1:
            raise ModelSpecError(
                f"output {name!r} has shape {tuple(getattr(x, 'shape', ()))} at batch {EXAMPLE_BATCH}: "
                "every output must keep the batch axis first",
                hint="Triton batches along axis 0 of every input and output (max_batch_size > 0)",
            )
        dims: list[int | str] = []
        for j, (dx, dy) in enumerate(zip(x.shape[1:], y.shape[1:])):
            dims.append(dx if dx == dy else max_sizes.get(dy, f"{name}_dim{j + 1}"))
        dtype = dtypes.from_torch(x.dtype).name
        dtypes.require_tensor_io(dtype, f"output {name!r}")
        outs.append(TensorSpec(name, dtype, tuple(dims)))
    return spec.with_outputs(tuple(outs))


def _verification_points(spec: ModelSpec, max_batch_size: int) -> list[tuple[int, dict[str, int]]]:
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
    import torch

    from builders.runners import flatten_outputs, load_runner

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
    base = precisions.get(result.precision).rtol
    tol = {t.name: rtol.get(t.name, base) for t in spec.outputs}
    what = f"{result.format} ({result.precision}, {result.strategy})"
    records = []
    for batch, sizes in _verification_points(spec, max_batch_size):
        inputs = spec.example_inputs(batch, sizes, seed=batch)
        with torch.no_grad():
            ref = flatten_outputs(module(*(torch.from_numpy(inputs[t.name]) for t in spec.inputs)))
        expected = {t.name: r.numpy() for t, r in zip(spec.outputs, ref)}
        try:
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


def _summary(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Worst max abs / max rel error per output over all verification points."""
    out: dict[str, dict[str, float]] = {}
    for rec in records:
        for o in rec["outputs"]:
            s = out.setdefault(o["name"], {"max_abs_err": 0.0, "max_rel_err": 0.0, "rtol": o["rtol"]})
            s["max_abs_err"] = max(s["max_abs_err"], o["max_abs_err"])
            s["max_rel_err"] = max(s["max_rel_err"], o["max_rel_err"])
    return out


def _weights_hash(module: Any) -> str:
    """sha256 (first 16 hex digits) of every parameter and buffer, by name, as raw bytes."""
    import torch

    h = hashlib.sha256()
    for k, v in module.state_dict().items():
        h.update(k.encode())
        if isinstance(v, torch.Tensor):
            t = v.detach().cpu().contiguous()
            h.update(str(t.dtype).encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()[:16]


def library_versions() -> dict[str, str | None]:
    """Installed versions of Python and the libraries an export depends on (None = absent)."""
    return _versions()


def _versions() -> dict[str, str | None]:
    from core.versions import package_versions

    return {"python": platform.python_version(),
            **package_versions(("torch", "onnx", "onnxruntime", "onnxscript", "tensorrt", "tritonclient"))}


def build(opts: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Export, verify and write the variant grid for one model.

    Writes ``<build_dir>/<model>/``: the artifacts (``model.pt``, ``model.onnx`` and
    ``model.onnx.data`` for large models, ``model.plan``; per precision other than fp32 in
    ``<precision>/``), ``reference.npz`` (inputs and eager outputs at batch
    ``min(4, max_batch_size)``, keys ``input:<name>`` / ``output:<name>``) and
    ``manifest.json`` (versions, I/O signature, per export: strategy and attempts, export
    time in s, size in bytes, sha256, verification records and worst errors per output);
    then one folder per variant in ``opts.repository`` and its index.

    An export whose inputs are unchanged (weights, model source or file, spec, format,
    precision, opset, tolerances, max batch size, library versions, GPU for TensorRT) and
    whose files still have the recorded hashes is reused with its recorded verification,
    unless ``opts.force``. When an export or its verification fails, the manifest is still
    written with the error, then the error is raised.

    Args:
        opts: What to build.
        progress: Called with one line per step (``"onnx fp32: exporting"``...); the CLI
            draws it. Library code never prints.

    Raises:
        ModelSpecError, ExportError, VerificationError, ConfigError, GpuRequiredError.
    """
    from builders.models import load_model

    say = progress or (lambda _msg: None)
    say(f"loading model {opts.model}")
    spec_in = opts.spec if opts.spec is not None else ModelSpec.from_file(opts.spec_path) if opts.spec_path else None
    loaded = load_model(opts.model, spec_in)
    name, module = loaded.name, loaded.module
    spec = infer_outputs(module, loaded.spec)
    out = opts.build_dir / name
    out.mkdir(parents=True, exist_ok=True)
    old = _read_manifest(out)
    versions = _versions()
    weights = _weights_hash(module)
    max_mbs = max(opts.grid.max_batch_sizes)
    # the grid is planned before any export, so a GPU-only grid on a GPU-less host fails at once
    served_formats = tuple(f for f in dict.fromkeys(opts.formats) if not (f == "trt" and opts.serving == "python"))
    plan = opts.grid.plan(name, served_formats, opts.precisions, serving=opts.serving)
    for skip in plan.skipped:
        say(f"skipped {skip.what}: {skip.reason}")
    if served_formats and not plan.variants:
        raise ConfigError(
            "the variant grid is empty: every grid point was skipped ("
            + "; ".join(dict.fromkeys(f"{sk.what}: {sk.reason}" for sk in plan.skipped)) + ")",
            hint="widen the grid, e.g. add --dynamic-batching off or a max_batch_size > 0 (see `builders variants`)",
        )
    manifest: dict[str, Any] = {
        "model": name,
        "source": opts.model,
        "model_kind": loaded.kind,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "versions": versions,
        "weights_sha256_16": weights,
        "source_sha256_16": loaded.fingerprint,
        "spec": spec.to_json(),
        "max_batch_size": max_mbs,
        "exports": [],
        "variants": [],
    }
    mpath = out / MANIFEST
    ref_batch = min(4, max(1, max_mbs))
    ref_inputs = spec.example_inputs(ref_batch, seed=1234)
    _save_reference(out / REFERENCE, module, spec, ref_inputs)

    exported: dict[tuple[str, str], ExportResult] = {}
    for fmt, precision in _tasks(opts.formats, opts.precisions):
        pdir = out if precision == "fp32" else out / precision
        key = _export_key(fmt, precision, opts, spec, weights + loaded.fingerprint, versions, max_mbs)
        reused = _reuse(old, key, pdir / formats.get(fmt).file) if not opts.force else None
        if reused is not None:
            say(f"{fmt} {precision}: unchanged, reusing {pdir / formats.get(fmt).file}")
            result = ExportResult(fmt, pdir / formats.get(fmt).file, precision, reused["strategy"],
                                  [Attempt(**a) for a in reused["attempts"]], reused["export_s"], reused.get("extra", {}))
            record = {**result.to_json(), "reused": True, "verify_s": reused.get("verify_s", 0.0),
                      "verification": reused["verification"], "errors": reused.get("errors", {})}
        else:
            try:
                say(f"{fmt} {precision}: exporting")
                result = _export(fmt, module, spec, pdir, precision, opts, exported, out)
                say(f"{fmt} {precision}: exported via {result.strategy} in {result.export_s:.1f} s; verifying against eager PyTorch")
                t0 = time.perf_counter()
                if fmt == "trt":
                    from builders.export_tensorrt import verify_plan

                    checks = verify_plan(result, module, spec, max_mbs, opts.rtol)
                else:
                    checks = verify_artifact(result, module, spec, max_mbs, opts.rtol)
            except ToolkitError as e:
                manifest["exports"].append({"format": fmt, "precision": precision, "failed": e.stage, "error": str(e)})
                mpath.write_text(json.dumps(manifest, indent=2) + "\n")
                raise
            record = {**result.to_json(), "reused": False, "verify_s": round(time.perf_counter() - t0, 3),
                      "verification": checks, "errors": _summary(checks)}
        record["key"] = key
        manifest["exports"].append(record)
        exported[(fmt, precision)] = result
        worst = max((o["max_rel_err"] for o in record["errors"].values()), default=0.0)
        worst_abs = max((o["max_abs_err"] for o in record["errors"].values()), default=0.0)
        say(f"{fmt} {precision}: ok (strategy {result.strategy}, max abs err {worst_abs:.2e}, max rel err {worst:.2e})")

    variant_dirs = []
    entries = []
    for fmt, precision in exported:
        if fmt == "trt" and opts.serving == "python":
            say("trt: the python backend cannot serve TensorRT plans; no variants written for it (use --serving native)")
            continue
        result = exported[(fmt, precision)]
        vspec = _served_spec(result, spec, opts.serving)
        for v in (v for v in plan.variants if (v.format, v.precision) == (fmt, precision)):
            vdir = write_variant(opts.repository, v, result.path, vspec, opts.serving)
            for data in result.extra.get("external_data", []):  # ONNX weights stored beside the graph
                link_or_copy(result.path.parent / data["file"], vdir / "1" / data["file"])
            variant_dirs.append(vdir)
            entries.append({**v.to_json(), "serving": opts.serving, "build": str(out.resolve())})
    skipped = [dataclasses.asdict(sk) for sk in plan.skipped]
    update_index(opts.repository, entries, skipped=skipped)
    manifest["variants"] = [e["name"] for e in entries]
    manifest["skipped_variants"] = skipped
    manifest["repository"] = str(opts.repository.resolve())
    mpath.write_text(json.dumps(manifest, indent=2) + "\n")
    say(f"wrote {len(variant_dirs)} variants to {opts.repository}")
    return BuildResult(manifest, mpath, variant_dirs)


def _served_spec(result: ExportResult, spec: ModelSpec, serving: str) -> ModelSpec:
    """The spec a variant's config is written from. Triton's PyTorch backend finds
    TorchScript tensors by the names the export recorded (``triton_names``); every other
    case serves the spec's own names."""
    names = result.extra.get("triton_names")
    if result.format != "torchscript" or serving != "native" or not names:
        return spec
    return dataclasses.replace(
        spec,
        inputs=tuple(dataclasses.replace(t, name=names["inputs"].get(t.name, t.name)) for t in spec.inputs),
        outputs=tuple(dataclasses.replace(t, name=names["outputs"].get(t.name, t.name)) for t in spec.outputs),
    )


def _tasks(formats: tuple[str, ...], precisions: tuple[str, ...]) -> list[tuple[str, str]]:
    """(format, precision) exports in build order. TensorRT plans of every precision are
    built from the fp32 ONNX export with the builder's precision flags (the usual TensorRT
    practice; ONNX has no bf16 for some operators), so that export comes first."""
    order = {"torchscript": 0, "onnx": 1, "trt": 2}
    tasks = [(f, p) for p in dict.fromkeys(precisions) for f in sorted(set(formats), key=order.__getitem__)]
    if "trt" in formats and ("onnx", "fp32") not in tasks:
        tasks.insert(next(i for i, t in enumerate(tasks) if t[0] == "trt"), ("onnx", "fp32"))
    return tasks


def _export(fmt: str, module: Any, spec: ModelSpec, pdir: Path, precision: str, opts: BuildOptions,
            done: dict[tuple[str, str], ExportResult], out: Path) -> ExportResult:
    mbs = max(opts.grid.max_batch_sizes)
    if fmt == "torchscript":
        from builders.export_torchscript import export_torchscript

        return export_torchscript(module, spec, pdir, precision)
    if fmt == "onnx":
        from builders.export_onnx import export_onnx

        return export_onnx(module, spec, pdir, precision, opts.opset, mbs, opts.external_data_threshold_bytes)
    from builders.export_tensorrt import TIMING_CACHE_FILE, export_tensorrt

    return export_tensorrt(done[("onnx", "fp32")].path, spec, pdir, precision, mbs,
                           opts.workspace_bytes, opts.timing_cache or out / TIMING_CACHE_FILE)


def _export_key(fmt: str, precision: str, opts: BuildOptions, spec: ModelSpec, model_hash: str, versions: dict, mbs: int) -> str:
    """Hash of everything an export and its verification depend on."""
    parts: list[Any] = [fmt, precision, spec.to_json(), model_hash, versions, mbs, sorted(opts.rtol.items())]
    if fmt in ("onnx", "trt"):
        parts += [opts.opset, opts.external_data_threshold_bytes]
    if fmt == "trt":
        from core.gpu import gpu_names

        parts += [opts.workspace_bytes, list(gpu_names())]
    blob = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _read_manifest(out: Path) -> dict[str, Any]:
    try:
        return json.loads((out / MANIFEST).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def _reuse(old: dict[str, Any], key: str, path: Path) -> dict[str, Any] | None:
    """The old export record with ``key`` when its file (and external data files) still
    have the recorded sha256; ``None`` otherwise."""
    for rec in old.get("exports", []):
        if rec.get("key") != key or "verification" not in rec:
            continue
        if not path.is_file() or file_sha256(path) != rec.get("sha256"):
            return None
        for data in rec.get("extra", {}).get("external_data", []):
            f = path.parent / data["file"]
            if not f.is_file() or file_sha256(f) != data["sha256"]:
                return None
        return rec
    return None


def _save_reference(path: Path, module: Any, spec: ModelSpec, inputs: dict[str, np.ndarray]) -> None:
    import torch

    from builders.runners import flatten_outputs

    with torch.no_grad():
        outs = flatten_outputs(module(*(torch.from_numpy(inputs[t.name]) for t in spec.inputs)))
    arrays = {f"input:{k}": v for k, v in inputs.items()}
    arrays.update({f"output:{t.name}": o.numpy() for t, o in zip(spec.outputs, outs)})
    np.savez(path, **arrays)


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
