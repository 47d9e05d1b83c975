"""``builders build``: export, verify, and write the repository variants (the Python API).

:func:`build` runs named steps, in this order: load the model, infer its outputs, claim the
build folder, plan the variants (before any export, so a grid that cannot be served fails at
once), save the reference data, export each format (:mod:`builders.build_exports`: export,
verify, record), write the repository, write the manifest.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from builders.backends import servable
from builders.build_exports import ExportStep, Failure, device_refusal, export_each_format, export_tasks
from builders.build_options import BuildOptions, BuildResult, Progress
from builders.config.variants import GridPlan, Skipped
from builders.config.warmup import WarmupCount, warmup_count
from builders.export.artifacts import ExportResult
from builders.model.models import LoadedModel, load_model
from builders.model.outputs import infer_outputs, require_batch_first
from builders.model.spec import ModelSpec
from builders.repository.manifest import MANIFEST, library_versions, read_manifest, weights_hash, write_manifest
from builders.repository.records import BuildManifest, IndexEntry, served_names
from builders.repository.writer import link_or_copy, update_index, write_variant
from builders.verify.input_draws import load_sample
from builders.verify.verification import save_reference
from core.errors import ConfigError, PartialBuildError
from core.naming import check_name

__all__ = ["BuildOptions", "BuildResult", "Progress", "build"]


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

    Returns:
        The manifest as saved, its path and the variant folders written.

    Raises:
        ModelSpecError: the model, its spec or its outputs cannot be used (or the only export
            failed verification on a spec problem).
        ConfigError: the variant grid is empty, or the build folder holds another model's build.
        ExportError, VerificationError, GpuRequiredError: the only export failed (its own error).
        PartialBuildError: several exports failed and nothing asked for was built, or some
            failed and the others' variants were written (``result``).
    """
    say = progress or (lambda _msg: None)
    loaded = _load(opts, say)
    name = opts.name or loaded.name
    spec = _infer_outputs(opts, loaded)
    out = opts.build_dir / name
    old = _claim_build_folder(opts, out, name, loaded)
    versions = library_versions()
    weights = weights_hash(loaded.module)
    plan = _plan_variants(opts, name, say)
    warm = warmup_count(opts.warmup_count, opts.warmup_count_reason)  # refused before anything is exported
    manifest = _new_manifest(opts, name, loaded, spec, versions, weights)
    mpath = out / MANIFEST
    ref_batch = min(4, max(1, max(opts.grid.max_batch_sizes)))  # reference data at batch min(4, max_batch_size)
    save_reference(out, loaded.module, spec, spec.example_inputs(ref_batch, seed=1234))
    sample = load_sample(opts.sample_path, spec) if opts.sample_path else None
    step = ExportStep(
        opts, say, loaded.module, spec, weights + loaded.fingerprint, versions, out, old, plan, sample, manifest, mpath
    )
    tasks = export_tasks(opts.formats, opts.precisions, tuple(opts.plans))
    exported, failures = export_each_format(step, tasks)
    _refuse_empty_build(opts, exported, failures, mpath)
    variant_dirs, entries = _write_repository(opts, plan, exported, spec, out, warm.count, say)
    saved = _finish_manifest(opts, manifest, mpath, plan, entries, warm)
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


def _load(opts: BuildOptions, say: Progress) -> LoadedModel:
    """Load step: the model from ``opts.model`` with its input spec, and its name checked.

    The spec is ``opts.spec``, else read from ``opts.spec_path``, else what the model
    carries or ``opts.example_inputs`` gives (:func:`builders.model.models.load_model`).

    Raises:
        ModelSpecError: the model cannot be loaded, its spec is missing or malformed, or its
            name (``--name`` or the model's own) is not a valid model name.
    """
    say(f"loading model {opts.model if isinstance(opts.model, str) else type(opts.model).__name__}")
    spec_in = opts.spec if opts.spec is not None else ModelSpec.from_file(opts.spec_path) if opts.spec_path else None
    loaded = load_model(opts.model, spec_in, opts.example_inputs)
    check_name(opts.name or loaded.name, "--name" if opts.name else "model name")
    return loaded


def _infer_outputs(opts: BuildOptions, loaded: LoadedModel) -> ModelSpec:
    """Infer-outputs step: the spec with its outputs' dtypes, shapes, keys and batch axes
    found by running the eager model (:func:`builders.model.outputs.infer_outputs`).

    Raises:
        ModelSpecError: ``--rtol`` names a tensor that is not an output, or an output's batch
            axis is not first while the grid has a max_batch_size > 0.
    """
    spec = infer_outputs(loaded.module, loaded.spec)
    spec.require_outputs(opts.rtol, "--rtol")
    require_batch_first(spec, opts.grid.max_batch_sizes)
    return spec


def _claim_build_folder(opts: BuildOptions, out: Path, name: str, loaded: LoadedModel) -> BuildManifest | None:
    """Create the build folder ``out``; returns the manifest of the build it holds (``None``: none).

    Raises:
        ConfigError: ``out`` holds a build of the same name from another source, and
            ``opts.force`` is off.
    """
    old = read_manifest(out)
    if old is not None and not _same_source(old.source, loaded.source) and not opts.force:
        raise ConfigError(
            f"{out} holds the build of model {name!r} from {old.source}; this build's model comes from {loaded.source}",
            hint=f"pass --name to build it under another name (e.g. --name {name}_{loaded.kind}), or --force to replace "
            f"the build of {old.source} (its variants in the repository are overwritten too)",
        )
    out.mkdir(parents=True, exist_ok=True)
    return old


def _plan_variants(opts: BuildOptions, name: str, say: Progress) -> GridPlan:
    """Plan-variants step: the variant grid for the formats this serving serves.

    Planned before any export, so a GPU-only grid on a GPU-less host fails at once. Every
    skipped grid point is shown with its reason.

    Raises:
        ConfigError: every grid point was skipped.
    """
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
    return plan


def _new_manifest(
    opts: BuildOptions, name: str, loaded: LoadedModel, spec: ModelSpec, versions: dict[str, str | None], weights: str
) -> dict[str, Any]:
    """The manifest before any export: the model, its source, library versions, hashes and spec."""
    return {
        "model": name,
        "source": loaded.source,
        "model_kind": loaded.kind,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "versions": versions,
        "weights_sha256_16": weights,
        "source_sha256_16": loaded.fingerprint,
        "spec": spec.to_json(),
        "max_batch_size": max(opts.grid.max_batch_sizes),
        "rtol": dict(opts.rtol),
        "exports": [],
        "variants": [],
    }


def _refuse_empty_build(
    opts: BuildOptions, exported: dict[tuple[str, str], ExportResult], failures: list[Failure], mpath: Path
) -> None:
    """Stop when nothing asked for was built (an ONNX export made only for TensorRT does not count).

    Raises:
        ToolkitError: the only export's own error, when one failed.
        PartialBuildError: every one of several exports failed.
    """
    if not failures or any(f in opts.formats for f, _ in exported):
        return
    if len(failures) == 1:
        raise failures[0][2]
    raise PartialBuildError(
        f"every export failed: {_failure_lines(failures)}",
        failed=failures,
        log_path=str(mpath),
        hint="nothing was written to the repository; fix the first error above",
    )


def _write_repository(
    opts: BuildOptions,
    plan: GridPlan,
    exported: dict[tuple[str, str], ExportResult],
    spec: ModelSpec,
    out: Path,
    warmup: int,
    say: Progress,
) -> tuple[list[Path], list[IndexEntry]]:
    """Write-repository step: one folder per planned variant of each passed export, and the index.

    A variant whose device the export cannot be served on (a device constant frozen into
    its TorchScript graph) is skipped and added to ``plan.skipped``; a TensorRT export gets no
    python-backend variant. ONNX external data files are linked beside the graph.

    Args:
        opts: What was built (repository, serving).
        plan: The planned variants; refused ones are appended to its ``skipped``.
        exported: The exports that passed, by ``(format, precision)``.
        spec: The model's I/O signature (renamed per variant to its served names).
        out: The build folder (recorded in each index entry).
        warmup: Runs of each ``model_warmup`` sample.
        say: The progress callback.

    Returns:
        The variant folders written and their index entries.
    """
    variant_dirs, entries = [], []
    for fmt, precision in exported:
        if not servable(fmt, opts.serving):
            say("trt: the python backend cannot serve TensorRT plans; no variants written for it (use --serving native)")
            continue
        result = exported[(fmt, precision)]
        vspec = spec.renamed(served_names(result.format, opts.serving, result.extra))  # the served tensor names
        for v in (v for v in plan.variants if (v.format, v.precision) == (fmt, precision)):
            refusal = device_refusal(result, "cuda" if v.kind == "gpu" else "cpu")
            if refusal:
                plan.skipped.append(Skipped(v.name, refusal))
                say(f"skipped {v.name}: {refusal}")
                continue
            vdir = write_variant(opts.repository, v, result.path, vspec, opts.serving, warmup_count=warmup)
            for data in result.extra.get("external_data", []):  # ONNX weights stored beside the graph
                link_or_copy(result.path.parent / data["file"], vdir / "1" / data["file"])
            variant_dirs.append(vdir)
            entries.append(IndexEntry.of(v, opts.serving, str(out.resolve())))
    update_index(opts.repository, entries, skipped=plan.skipped)
    return variant_dirs, entries


def _finish_manifest(
    opts: BuildOptions, manifest: dict[str, Any], mpath: Path, plan: GridPlan, entries: list[IndexEntry], warm: WarmupCount
) -> dict[str, Any]:
    """Write-manifest step: the variants written and skipped, the repository, the warmup
    count (when a variant has warmup), then the file; returns the manifest as saved."""
    manifest["variants"] = [e.name for e in entries]
    manifest["skipped_variants"] = [dataclasses.asdict(sk) for sk in plan.skipped]
    manifest["repository"] = str(opts.repository.resolve())
    if any(v.warmup for v in plan.variants):
        manifest["warmup_count"] = warm.model_dump(mode="json")
    return write_manifest(mpath, manifest)


def _failure_lines(failures: list[Failure]) -> str:
    """``"onnx bf16 (export): <first line of the error>; ..."``."""
    return "; ".join(f"{f} {p} ({e.stage}): {e.message.splitlines()[0]}" for f, p, e in failures)


def _same_source(recorded: str, current: str) -> bool:
    """Whether a build folder's recorded ``source`` is the model being built now.

    A model file is recorded by its absolute path; a manifest written before that recorded
    the path as given, which is taken to be the same file when it resolves to it or has its
    name.
    """
    if recorded == current:
        return True
    cur = Path(current)
    if not cur.is_absolute():
        return False
    rec = Path(recorded)
    return rec.resolve() == cur or (not rec.is_absolute() and rec.name == cur.name)
