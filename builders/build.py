"""``builders build``: export, verify, and write the repository variants (the Python API)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builders.backends import DEFAULT_SERVING, servable
from builders.config.checks import device_constant_problems
from builders.config.variants import Skipped, VariantGrid
from builders.config.warmup import warmup_count
from builders.export.artifacts import ExportResult, file_sha256
from builders.export.chain import Verify, attempts_of
from builders.export.onnx import export_onnx
from builders.export.tensorrt import TIMING_CACHE_FILE, export_tensorrt, import_plan
from builders.export.torchscript import export_torchscript
from builders.graph.inspect import export_health
from builders.model.models import load_model
from builders.model.outputs import infer_outputs, require_batch_first
from builders.model.spec import ModelSpec
from builders.repository.manifest import MANIFEST, export_key, library_versions, read_manifest, reusable_export, weights_hash
from builders.repository.records import MANIFEST_KIND, IndexEntry, served_names
from builders.repository.view import DEFAULT_REPOSITORY, link_or_copy, update_index, write_variant
from builders.verify.input_draws import DRAWS, load_sample
from builders.verify.verdicts import describe, overall
from builders.verify.verification import VERIFICATION_POLICY, error_summary, save_reference, verify_export
from core import formats
from core.errors import ConfigError, ExportError, PartialBuildError, ToolkitError
from core.naming import check_name
from core.records import dropped_keys, write_record

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


@dataclasses.dataclass
class BuildOptions:
    """Everything ``builders build`` needs.

    Attributes:
        model: A built-in name (``mlp``, ``tiny``...), ``package.module:factory``, a ``.pt``
            / ``.pt2`` file, or an ``nn.Module`` object (with ``spec`` or ``example_inputs``).
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
        name: The model's name (build folder ``<build_dir>/<name>``, first part of every
            variant name); default: the built-in's name, the factory's function name, the
            model file's stem, or an ``nn.Module``'s class name in lower case.
        sample_path: The user's own inputs (``.npz``, one array per input name), verified
            beside the generated draws (:func:`builders.verify.input_draws.load_sample`).
        example_inputs: One batch of example inputs for a model given without a spec (an
            ``nn.Module`` in a notebook, say): a tensor, a tuple in ``forward()`` order or a
            dict by input name, each ``[batch, ...]``; every other axis is static
            (:meth:`builders.model.spec.ModelSpec.from_example`).
        plans: TensorRT plans built elsewhere, by precision (``--plan fp16=PATH``; the
            command ``--print-trtexec`` prints builds them): taken instead of building the
            ``trt`` export of that precision (:func:`builders.export.tensorrt.import_plan`),
            verified where TensorRT and a GPU are, else marked not verified here.
        warmup_count: Runs of each ``model_warmup`` sample of the warmup variants
            (``--warmup-count``); ``None``: :data:`builders.config.warmup.DEFAULT_WARMUP_COUNT`,
            recorded in the manifest as a default, not a measurement.
        warmup_count_reason: Why ``warmup_count`` (the measurement ``triton-perf coldstart``
            printed), kept in the manifest.
    """

    model: Any
    spec_path: Path | None = None
    formats: tuple[str, ...] = ("torchscript", "onnx")
    precisions: tuple[str, ...] = ("fp32",)
    grid: VariantGrid = dataclasses.field(default_factory=VariantGrid)
    serving: str = DEFAULT_SERVING
    repository: Path = DEFAULT_REPOSITORY
    build_dir: Path = Path("builds")
    opset: int = 18
    rtol: dict[str, float] = dataclasses.field(default_factory=dict)
    force: bool = False
    spec: ModelSpec | None = None
    workspace_bytes: int = 4 << 30
    timing_cache: Path | None = None
    external_data_threshold_bytes: int = int(1.8 * 2**30)
    name: str | None = None
    sample_path: Path | None = None
    example_inputs: Any = None
    plans: dict[str, Path] = dataclasses.field(default_factory=dict)
    warmup_count: int | None = None
    warmup_count_reason: str | None = None


@dataclasses.dataclass
class BuildResult:
    """What a build wrote: the manifest (as saved), its path, and the variant folders."""

    manifest: dict[str, Any]
    manifest_path: Path
    variant_dirs: list[Path]


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
    unless ``opts.force``. When an export or its verification fails, the manifest records
    the error and the build goes on with the other (format, precision) pairs; their variants
    are written, then :class:`~core.errors.PartialBuildError` lists the failed ones (its
    ``result`` is what was written). When the only export fails, its own error is raised.
    A build folder that holds a build of the same name from another source is refused
    unless ``opts.force`` (:class:`~core.errors.ConfigError`).

    Args:
        opts: What to build.
        progress: Called with one line per step (``"onnx fp32: exporting"``...); the CLI
            draws it. Library code never prints.

    Raises:
        ModelSpecError, ExportError, VerificationError, ConfigError, GpuRequiredError,
        PartialBuildError.
    """
    say = progress or (lambda _msg: None)
    say(f"loading model {opts.model if isinstance(opts.model, str) else type(opts.model).__name__}")
    spec_in = opts.spec if opts.spec is not None else ModelSpec.from_file(opts.spec_path) if opts.spec_path else None
    loaded = load_model(opts.model, spec_in, opts.example_inputs)
    name, module = opts.name or loaded.name, loaded.module
    check_name(name, "--name" if opts.name else "model name")
    spec = infer_outputs(module, loaded.spec)
    spec.require_outputs(opts.rtol, "--rtol")
    require_batch_first(spec, opts.grid.max_batch_sizes)
    out = opts.build_dir / name
    old = read_manifest(out)
    if old is not None and not _same_source(old.source, loaded.source) and not opts.force:
        raise ConfigError(
            f"{out} holds the build of model {name!r} from {old.source}; this build's model comes from {loaded.source}",
            hint=f"pass --name to build it under another name (e.g. --name {name}_{loaded.kind}), or --force to replace "
            f"the build of {old.source} (its variants in the repository are overwritten too)",
        )
    out.mkdir(parents=True, exist_ok=True)
    versions = library_versions()
    weights = weights_hash(module)
    max_mbs = max(opts.grid.max_batch_sizes)
    # the grid is planned before any export, so a GPU-only grid on a GPU-less host fails at once
    served_formats = tuple(f for f in dict.fromkeys(opts.formats) if servable(f, opts.serving))
    plan = opts.grid.plan(name, served_formats, opts.precisions, serving=opts.serving)
    for skip in plan.skipped:
        say(f"skipped {skip.what}: {skip.reason}")
    if served_formats and not plan.variants:
        raise ConfigError(
            "the variant grid is empty: every grid point was skipped ("
            + "; ".join(dict.fromkeys(f"{sk.what}: {sk.reason}" for sk in plan.skipped))
            + ")",
            hint="widen the grid, e.g. add --dynamic-batching off or a max_batch_size > 0 (see `builders variants`)",
        )
    warm = warmup_count(opts.warmup_count, opts.warmup_count_reason)  # refused before anything is exported
    manifest: dict[str, Any] = {
        "model": name,
        "source": loaded.source,
        "model_kind": loaded.kind,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "versions": versions,
        "weights_sha256_16": weights,
        "source_sha256_16": loaded.fingerprint,
        "spec": spec.to_json(),
        "max_batch_size": max_mbs,
        "rtol": dict(opts.rtol),
        "exports": [],
        "variants": [],
    }
    mpath = out / MANIFEST
    ref_batch = min(4, max(1, max_mbs))
    ref_inputs = spec.example_inputs(ref_batch, seed=1234)
    save_reference(out, module, spec, ref_inputs)

    sample = load_sample(opts.sample_path, spec) if opts.sample_path else None
    verification = {"policy": VERIFICATION_POLICY, "sample": file_sha256(opts.sample_path) if opts.sample_path else None}
    exported: dict[tuple[str, str], ExportResult] = {}
    failures: list[tuple[str, str, ToolkitError]] = []
    tasks = _tasks(opts.formats, opts.precisions, tuple(opts.plans))
    for fmt, precision in tasks:
        pdir = out if precision == "fp32" else out / precision
        devices = _devices(fmt, precision, plan.variants)
        key = export_key(
            fmt,
            precision,
            spec,
            weights + loaded.fingerprint,
            versions,
            max_mbs,
            rtol=opts.rtol,
            opset=opts.opset,
            external_data_threshold_bytes=opts.external_data_threshold_bytes,
            workspace_bytes=opts.workspace_bytes,
            verification={**verification, "devices": devices, **_imported(fmt, precision, opts)},
        )
        reused = reusable_export(old, key, pdir / formats.get(fmt).file) if not opts.force else None
        if reused is not None and reused.status is not None:  # an export verified before verdicts is verified again
            say(f"{fmt} {precision}: unchanged, reusing {pdir / formats.get(fmt).file}")
            result = ExportResult(
                fmt,
                pdir / formats.get(fmt).file,
                precision,
                reused.strategy,
                list(reused.attempts),
                reused.export_s,
                reused.extra,
                list(reused.tracer_warnings),
            )
            record = reused.model_copy(update={"reused": True}).model_dump(mode="json")
        else:
            verdicts: list[dict[str, Any]] = []

            def verify(
                r: ExportResult,
                devices: tuple[str, ...] = devices,
                fmt: str = fmt,
                precision: str = precision,
                verdicts: list[dict[str, Any]] = verdicts,
            ) -> None:
                # a device the trace froze another device into is not served (skipped below), so not verified
                devices = tuple(d for d in devices if not _device_refusal(r, d)) or ("cpu",)
                say(
                    f"{fmt} {precision}: exported via {r.strategy} in {r.export_s:.1f} s; verifying against eager PyTorch "
                    f"on {', '.join(devices)} ({len(DRAWS)} input draws per point)"
                )
                _show_tracer_warnings(say, f"{fmt} {precision}", r)
                verdicts[:] = verify_export(r, module, spec, max_mbs, opts.rtol, devices, sample)

            try:
                if fmt == "trt" and ("onnx", "fp32") not in exported and precision not in opts.plans:
                    raise ExportError(
                        "not built: TensorRT plans are built from the fp32 ONNX export, which failed (listed above)",
                        hint="fix the ONNX export first",
                    )
                say(f"{fmt} {precision}: exporting")
                result = _export(fmt, module, spec, pdir, precision, opts, exported, out, verify)
            except ToolkitError as e:
                manifest["exports"].append(
                    {
                        "format": fmt,
                        "precision": precision,
                        "failed": e.stage,
                        "error": str(e),
                        "attempts": [dataclasses.asdict(a) for a in attempts_of(e)],
                    }
                )
                _write_manifest(mpath, manifest)
                e.log_path = e.log_path or str(mpath)
                failures.append((fmt, precision, e))  # this export fails; the others go on (their variants are written)
                say(f"{fmt} {precision}: FAILED ({e.stage}): {e.message.splitlines()[0]}")
                continue
            points = [p for v in verdicts for p in v.pop("points")]
            record = {
                **result.to_json(),
                "reused": False,
                "verify_s": round(sum(v["verify_s"] for v in verdicts), 3),
                "verification": points,
                "errors": error_summary(points),
                "verified_on": verdicts[0]["verified_on"],
                "status": overall([v["status"] for v in verdicts]),
                "verdicts": verdicts,
            }
        record["key"] = key
        record["graph_health"] = record.get("graph_health") or export_health(fmt, result.path)
        manifest["exports"].append(record)
        exported[(fmt, precision)] = result
        say(f"{fmt} {precision}: {_verdict_line(record)}")
    if failures and not any(f in opts.formats for f, _ in exported):  # nothing asked for was built
        if len(failures) == 1:
            raise failures[0][2]
        raise PartialBuildError(
            f"every export failed: {_failure_lines(failures)}",
            failed=failures,
            log_path=str(mpath),
            hint="nothing was written to the repository; fix the first error above",
        )

    variant_dirs = []
    entries = []
    for fmt, precision in exported:
        if not servable(fmt, opts.serving):
            say("trt: the python backend cannot serve TensorRT plans; no variants written for it (use --serving native)")
            continue
        result = exported[(fmt, precision)]
        vspec = _served_spec(result, spec, opts.serving)
        for v in (v for v in plan.variants if (v.format, v.precision) == (fmt, precision)):
            refusal = _device_refusal(result, "cuda" if v.kind == "gpu" else "cpu")
            if refusal:
                plan.skipped.append(Skipped(v.name, refusal))
                say(f"skipped {v.name}: {refusal}")
                continue
            vdir = write_variant(opts.repository, v, result.path, vspec, opts.serving, warmup_count=warm.count)
            for data in result.extra.get("external_data", []):  # ONNX weights stored beside the graph
                link_or_copy(result.path.parent / data["file"], vdir / "1" / data["file"])
            variant_dirs.append(vdir)
            entries.append(IndexEntry.of(v, opts.serving, str(out.resolve())))
    skipped = [dataclasses.asdict(sk) for sk in plan.skipped]
    update_index(opts.repository, entries, skipped=plan.skipped)
    manifest["variants"] = [e.name for e in entries]
    manifest["skipped_variants"] = skipped
    manifest["repository"] = str(opts.repository.resolve())
    if any(v.warmup for v in plan.variants):
        manifest["warmup_count"] = warm.model_dump(mode="json")
    saved = _write_manifest(mpath, manifest)
    say(f"wrote {len(variant_dirs)} variant{'' if len(variant_dirs) == 1 else 's'} to {opts.repository}")
    built = BuildResult(saved, mpath, variant_dirs)
    if failures:
        raise PartialBuildError(
            f"{len(failures)} of {len(tasks)} exports failed: {_failure_lines(failures)}; the {len(variant_dirs)} variants "
            f"of the {len(exported)} that passed ({', '.join(f'{f} {p}' for f, p in exported)}) were written to {opts.repository}",
            result=built,
            failed=failures,
            log_path=str(mpath),
            hint="fix or drop the failed format/precision (e.g. another --precision), or use the variants written",
        )
    return built


def _failure_lines(failures: list[tuple[str, str, ToolkitError]]) -> str:
    """``"onnx bf16 (export): <first line of the error>; ..."``."""
    return "; ".join(f"{f} {p} ({e.stage}): {e.message.splitlines()[0]}" for f, p, e in failures)


def _same_source(recorded: str, current: str) -> bool:
    """Whether a build folder's recorded ``source`` is the model being built now. A model file
    is recorded by its absolute path; a manifest written before that recorded the path as
    given, which is taken to be the same file when it resolves to it or has its name."""
    if recorded == current:
        return True
    cur = Path(current)
    if not cur.is_absolute():
        return False
    rec = Path(recorded)
    return rec.resolve() == cur or (not rec.is_absolute() and rec.name == cur.name)


def _write_manifest(path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Validate ``manifest`` as a :class:`builders.repository.records.BuildManifest` and write it
    (atomically, with its schema version); returns it as saved."""
    record = MANIFEST_KIND.parse(manifest, f"the manifest being written to {path}")
    saved = MANIFEST_KIND.dump(record)
    lost = dropped_keys(manifest, saved)
    if lost:  # a bug: a field written here but missing from BuildManifest would vanish from the file
        raise RuntimeError(f"build manifest fields {lost} are not in builders.repository.records.BuildManifest; add them there")
    write_record(path, MANIFEST_KIND, record)
    return saved


def _served_spec(result: ExportResult, spec: ModelSpec, serving: str) -> ModelSpec:
    """The spec a variant's config is written from: the spec's tensors under their served
    names (:func:`builders.repository.records.served_names`)."""
    return spec.renamed(served_names(result.format, serving, result.extra))


def _tasks(formats: tuple[str, ...], precisions: tuple[str, ...], plans: Any = ()) -> list[tuple[str, str]]:
    """(format, precision) exports in build order. TensorRT plans of every precision are
    built from the fp32 ONNX export with the builder's precision flags (the usual TensorRT
    practice; ONNX has no bf16 for some operators), so that export comes first. With plans
    built elsewhere (``plans``: their precisions), TensorRT is taken for those precisions
    only, and no ONNX is exported for it."""
    order = {"torchscript": 0, "onnx": 1, "trt": 2}
    tasks = [
        (f, p)
        for p in dict.fromkeys(precisions)
        for f in sorted(set(formats), key=order.__getitem__)
        if not (f == "trt" and plans and p not in plans)
    ]
    if any(f == "trt" and p not in plans for f, p in tasks) and ("onnx", "fp32") not in tasks:
        tasks.insert(next(i for i, t in enumerate(tasks) if t[0] == "trt"), ("onnx", "fp32"))
    return tasks


def _export(
    fmt: str,
    module: Any,
    spec: ModelSpec,
    pdir: Path,
    precision: str,
    opts: BuildOptions,
    done: dict[tuple[str, str], ExportResult],
    out: Path,
    verify: Verify,
) -> ExportResult:
    """Export one (format, precision), through its strategies until one verifies."""
    mbs = max(opts.grid.max_batch_sizes)
    if fmt == "torchscript":
        return export_torchscript(module, spec, pdir, precision, verify=verify)
    if fmt == "onnx":
        return export_onnx(module, spec, pdir, precision, opts.opset, mbs, opts.external_data_threshold_bytes, verify=verify)
    if precision in opts.plans:
        plan = import_plan(opts.plans[precision], spec, pdir, precision, mbs)
    else:
        plan = export_tensorrt(
            done[("onnx", "fp32")].path,
            spec,
            pdir,
            precision,
            mbs,
            opts.workspace_bytes,
            opts.timing_cache or out / TIMING_CACHE_FILE,
        )
    verify(plan)
    return plan


def _imported(fmt: str, precision: str, opts: BuildOptions) -> dict[str, str]:
    """The reuse-key part of an imported plan: its file's hash (another plan is another export)."""
    path = opts.plans.get(precision) if fmt == "trt" else None
    return {"imported_plan_sha256": file_sha256(Path(path))} if path and Path(path).is_file() else {}


def _devices(fmt: str, precision: str, variants: list[Any]) -> tuple[str, ...]:
    """Where an export is verified: ``cuda`` for TensorRT; else the devices of its variants
    (KIND_CPU -> ``cpu``, KIND_GPU -> ``cuda``), ``cpu`` when it has none (an ONNX built for plans)."""
    if fmt == "trt":
        return ("cuda",)
    kinds = {v.kind for v in variants if (v.format, v.precision) == (fmt, precision)}
    return tuple(d for k, d in (("cpu", "cpu"), ("gpu", "cuda")) if k in kinds) or ("cpu",)


def _device_refusal(result: ExportResult, device: str) -> str | None:
    """Why ``result`` cannot be served on ``device`` (``"cpu"``/``"cuda"``): its TorchScript
    graph holds another device as a constant (:func:`builders.config.checks.device_constant_problems`)."""
    kind = "KIND_GPU" if device.startswith("cuda") else "KIND_CPU"
    problems = device_constant_problems(kind, result.extra.get("device_constants", ()), "instance_group")
    return problems[0].reason() if problems else None


def _show_tracer_warnings(say: Progress, what: str, result: ExportResult) -> None:
    """Show an export's tracer warnings once (they are kept in the manifest)."""
    if result.tracer_warnings:
        say(
            f"{what}: torch.jit traced {result.strategy} with {len(result.tracer_warnings)} warning(s), "
            f"recorded in the manifest; first: {result.tracer_warnings[0]}"
        )


def _verdict_line(record: dict[str, Any]) -> str:
    """One progress line: the verdict, the strategy, where it was verified, the worst errors."""
    errors = record.get("errors") or {}
    worst = max((o["max_rel_err"] for o in errors.values()), default=0.0)
    worst_abs = max((o["max_abs_err"] for o in errors.values()), default=0.0)
    on = ", ".join(f"{v['verified_on']['runner']} on {v['verified_on']['device']}" for v in record.get("verdicts", []))
    status = describe(
        record["status"],
        record["precision"],
        next((v["verified_on"]["device"] for v in record.get("verdicts", []) if v["status"] == record["status"]), "cpu"),
    )
    if not errors:  # nothing ran it (e.g. a plan on a host without TensorRT): no error to show
        return f"{status} (strategy {record['strategy']}; nothing here could run it)"
    return (
        f"{status} (strategy {record['strategy']}, verified by {on or 'nothing'}, "
        f"max abs err {worst_abs:.2e}, max rel err {worst:.2e})"
    )
