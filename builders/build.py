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

from builders.artifacts import FORMAT_FILES, Attempt, ExportResult, file_sha256
from builders.errors import ModelSpecError, VerificationError
from builders.repository import update_index, write_variant
from builders.spec import ModelSpec, TensorSpec
from builders.variants import VariantGrid
from builders.verify import DEFAULT_RTOL, compare_outputs

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
        runtime: ``"bundled"`` (python backend on the bundled CPU server) or ``"native"``.
        repository: Model repository folder (default ``model_repository``).
        build_dir: Where artifacts, manifest and reference data go (``builds/<model>``).
        opset: ONNX opset.
        rtol: Per-output relative tolerance overrides (output name -> rtol).
        force: Re-export even when an identical build exists.
    """

    model: str
    spec_path: Path | None = None
    formats: tuple[str, ...] = ("torchscript", "onnx")
    precisions: tuple[str, ...] = ("fp32",)
    grid: VariantGrid = dataclasses.field(default_factory=VariantGrid)
    runtime: str = "bundled"
    repository: Path = Path("model_repository")
    build_dir: Path = Path("builds")
    opset: int = 18
    rtol: dict[str, float] = dataclasses.field(default_factory=dict)
    force: bool = False


@dataclasses.dataclass
class BuildResult:
    """What a build wrote: the manifest (as saved), its path, and the variant folders."""

    manifest: dict[str, Any]
    manifest_path: Path
    variant_dirs: list[Path]


def resolve_model(name: str, spec_path: Path | None) -> tuple[str, Any, ModelSpec]:
    """Return ``(model_name, module, spec)`` for a built-in or a user's factory.

    Raises:
        ModelSpecError: unknown built-in, factory that cannot be imported or called, or a
            user's model without a spec.
    """
    from builders.models import get_builtin

    if ":" not in name:
        b = get_builtin(name)
        spec = ModelSpec.from_file(spec_path) if spec_path else b.spec
        return b.name, b.factory(), spec
    import importlib

    mod_name, _, fn_name = name.partition(":")
    if spec_path is None:
        raise ModelSpecError(
            f"--model {name} needs an input spec",
            hint="pass --spec spec.json with inputs (names, per-sample shapes, dtypes) and dynamic axis ranges",
        )
    try:
        factory = getattr(importlib.import_module(mod_name), fn_name)
        module = factory()
    except Exception as e:
        raise ModelSpecError(f"could not create the model from {name!r}: {type(e).__name__}: {e}") from e
    return fn_name, module.eval(), ModelSpec.from_file(spec_path)


def infer_outputs(module: Any, spec: ModelSpec) -> ModelSpec:
    """Fill in output names, dtypes and per-sample shapes by running the eager model.

    The model runs at two sizes (batch 2 at ``opt`` axes, batch 3 at ``max`` axes); a
    per-sample dim that changes between them is named after the input axis of that size.
    Outputs without names in the spec are named ``OUTPUT__<i>`` (Triton PyTorch backend
    convention).
    """
    import torch

    from builders.runners import flatten_outputs

    def run(batch: int, sizes: dict[str, int]) -> list[Any]:
        ex = spec.example_inputs(batch, sizes)
        with torch.no_grad():
            return flatten_outputs(module(*(torch.from_numpy(ex[t.name]) for t in spec.inputs)))

    a, b = run(2, spec.axis_sizes("opt")), run(3, spec.axis_sizes("max"))
    max_sizes = {v: k for k, v in spec.axis_sizes("max").items()}
    outs = []
    for i, (x, y) in enumerate(zip(a, b)):
        name = spec.outputs[i].name if i < len(spec.outputs) else f"OUTPUT__{i}"
        dims: list[int | str] = []
        for j, (dx, dy) in enumerate(zip(x.shape[1:], y.shape[1:])):
            dims.append(dx if dx == dy else max_sizes.get(dy, f"{name}_dim{j + 1}"))
        dtype = str(x.dtype).replace("torch.", "")
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


def verify_artifact(result: ExportResult, module: Any, spec: ModelSpec, max_batch_size: int, rtol: dict[str, float]) -> list[dict[str, Any]]:
    """Run ``result`` and eager PyTorch at every verification point and compare.

    Returns:
        One record per point: ``{"batch", "axes", "outputs": [OutputComparison...]}``.

    Raises:
        VerificationError: any output breaks tolerance, shape, dtype or is NaN/Inf; the
            message names the format, point and output, and which tolerance would pass.
    """
    import torch

    from builders.runners import flatten_outputs, load_runner

    runner = load_runner(result.format, result.path, [t.name for t in spec.inputs], [t.name for t in spec.outputs])
    base = DEFAULT_RTOL[result.precision]
    tol = {t.name: rtol.get(t.name, base) for t in spec.outputs}
    records = []
    for batch, sizes in _verification_points(spec, max_batch_size):
        inputs = spec.example_inputs(batch, sizes, seed=batch)
        with torch.no_grad():
            ref = flatten_outputs(module(*(torch.from_numpy(inputs[t.name]) for t in spec.inputs)))
        expected = {t.name: r.numpy() for t, r in zip(spec.outputs, ref)}
        try:
            actual = runner(inputs)
        except Exception as e:
            raise VerificationError(
                f"{result.format} artifact failed to run at batch {batch}, axes {sizes}: {type(e).__name__}: {str(e)[:300]}",
                hint="the export probably froze a dynamic axis at the example size; check the input spec's dynamic axes",
            ) from e
        comps = compare_outputs(actual, expected, tol)
        records.append({"batch": batch, "axes": sizes, "outputs": [c.to_json() for c in comps]})
        for c in comps:
            if not c.passed:
                hint = None
                if c.problem and c.problem.startswith("shape"):
                    hint = "an output shape changed: a dynamic axis was probably frozen at the example size"
                elif c.problem and "tolerance" in c.problem:
                    hint = f"if this error is acceptable, pass --rtol {c.name}=<value>"
                raise VerificationError(
                    f"{result.format} ({result.precision}) output {c.name!r} at batch {batch}, axes {sizes}: {c.problem}",
                    hint=hint,
                )
    return records


def _weights_hash(module: Any) -> str:
    h = hashlib.sha256()
    for k, v in module.state_dict().items():
        h.update(k.encode())
        h.update(v.detach().cpu().contiguous().numpy().tobytes() if v.dtype.is_floating_point or not v.dtype.is_complex else b"")
    return h.hexdigest()[:16]


def _versions() -> dict[str, str | None]:
    import importlib.metadata as md

    out: dict[str, str | None] = {"python": platform.python_version()}
    for pkg in ("torch", "onnx", "onnxruntime", "onnxscript", "tensorrt", "tritonclient"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out


def build(opts: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Export, verify and write the variant grid for one model.

    Writes ``<build_dir>/<model>/``: the artifacts (``model.pt``, ``model.onnx``, per
    precision in ``<precision>/``), ``reference.npz`` (inputs and eager outputs at batch
    ``min(4, max_batch_size)``, keys ``input:<name>`` / ``output:<name>``) and
    ``manifest.json``; then one folder per variant in ``opts.repository`` and its index.
    An export whose inputs (weights, spec, format, precision, opset, versions) are unchanged
    is reused rather than redone, unless ``opts.force``.

    Raises:
        ModelSpecError, ExportError, VerificationError, ConfigError, GpuRequiredError.
    """
    say = progress or (lambda _msg: None)
    name, module, spec = resolve_model(opts.model, opts.spec_path)
    spec = infer_outputs(module, spec)
    out = opts.build_dir / name
    out.mkdir(parents=True, exist_ok=True)
    old = _read_manifest(out)
    versions = _versions()
    weights = _weights_hash(module)
    max_mbs = max(opts.grid.max_batch_sizes)
    manifest: dict[str, Any] = {
        "model": name,
        "source": opts.model,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "versions": versions,
        "weights_sha256_16": weights,
        "spec": spec.to_json(),
        "exports": [],
        "variants": [],
    }
    ref_batch = min(4, max(1, max_mbs))
    ref_inputs = spec.example_inputs(ref_batch, seed=1234)
    _save_reference(out / REFERENCE, module, spec, ref_inputs)

    exported: dict[tuple[str, str], ExportResult] = {}
    for precision in opts.precisions:
        pdir = out if precision == "fp32" else out / precision
        for fmt in _ordered(opts.formats):
            key = _export_key(fmt, precision, opts.opset, spec, weights, versions, max_mbs)
            reused = _reuse(old, key, pdir / FORMAT_FILES[fmt]) if not opts.force else None
            if reused is not None:
                say(f"{fmt} {precision}: unchanged, reusing {pdir / FORMAT_FILES[fmt]}")
                result = ExportResult(fmt, pdir / FORMAT_FILES[fmt], precision, reused["strategy"],
                                      [Attempt(**a) for a in reused["attempts"]], reused["export_s"], reused.get("extra", {}))
                record = {**result.to_json(), "reused": True}
                record["verification"] = reused["verification"]
            else:
                say(f"{fmt} {precision}: exporting")
                result = _export(fmt, module, spec, pdir, precision, opts, exported)
                say(f"{fmt} {precision}: verifying against eager PyTorch")
                if fmt == "trt":
                    from builders.export_tensorrt import verify_plan

                    checks = verify_plan(result, module, spec, max_mbs, opts.rtol)
                else:
                    checks = verify_artifact(result, module, spec, max_mbs, opts.rtol)
                record = {**result.to_json(), "reused": False, "verification": checks}
            record["key"] = key
            manifest["exports"].append(record)
            exported[(fmt, precision)] = result
            worst = max((o["max_rel_err"] for c in record["verification"] for o in c["outputs"]), default=0.0)
            say(f"{fmt} {precision}: ok (strategy {result.strategy}, max rel err {worst:.2e})")

    variant_dirs = []
    entries = []
    for fmt, precision in exported:
        if fmt == "trt" and opts.runtime == "bundled":
            say("trt: the bundled server has no tensorrt_plan backend; no variants written for it")
            continue
        for v in opts.grid.variants(name, (fmt,), (precision,)):
            variant_dirs.append(write_variant(opts.repository, v, exported[(fmt, precision)].path, spec, opts.runtime))
            entries.append({**v.to_json(), "runtime": opts.runtime, "build": str(out.resolve())})
    update_index(opts.repository, entries)
    manifest["variants"] = [e["name"] for e in entries]
    manifest["repository"] = str(opts.repository.resolve())
    mpath = out / MANIFEST
    mpath.write_text(json.dumps(manifest, indent=2) + "\n")
    say(f"wrote {len(variant_dirs)} variants to {opts.repository}")
    return BuildResult(manifest, mpath, variant_dirs)


def _ordered(formats: tuple[str, ...]) -> list[str]:
    """TensorRT is built from the ONNX export, so ONNX comes first."""
    order = {"torchscript": 0, "onnx": 1, "trt": 2}
    fmts = set(formats) | ({"onnx"} if "trt" in formats else set())
    return sorted(fmts, key=order.__getitem__)


def _export(fmt: str, module: Any, spec: ModelSpec, pdir: Path, precision: str, opts: BuildOptions,
            done: dict[tuple[str, str], ExportResult]) -> ExportResult:
    if fmt == "torchscript":
        from builders.export_torchscript import export_torchscript

        return export_torchscript(module, spec, pdir, precision)
    if fmt == "onnx":
        from builders.export_onnx import export_onnx

        return export_onnx(module, spec, pdir, precision, opts.opset, max(opts.grid.max_batch_sizes))
    from builders.export_tensorrt import export_tensorrt

    return export_tensorrt(done[("onnx", precision)].path, spec, pdir, precision, max(opts.grid.max_batch_sizes))


def _export_key(fmt: str, precision: str, opset: int, spec: ModelSpec, weights: str, versions: dict, mbs: int) -> str:
    blob = json.dumps([fmt, precision, opset, spec.to_json(), weights, versions, mbs], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _read_manifest(out: Path) -> dict[str, Any]:
    try:
        return json.loads((out / MANIFEST).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def _reuse(old: dict[str, Any], key: str, path: Path) -> dict[str, Any] | None:
    for rec in old.get("exports", []):
        if rec.get("key") == key and path.is_file() and file_sha256(path) == rec.get("sha256"):
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
