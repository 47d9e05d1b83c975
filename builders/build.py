"""``builders build``: export, verify, and write the repository variants (the Python API).

:func:`build` runs named steps, in this order: load the model, infer its outputs, claim the
build folder, plan the variants (before any export, so a grid that cannot be served fails at
once), save the reference data, export each format (:mod:`builders.build_exports`: export,
verify, record), check every variant's config, move the exports in, write the repository,
write the manifest (merged with the earlier build's records of exports not redone).

Nothing in the build folder is replaced until the build goes on to write its variants: the
exports and reference data are staged (:class:`builders.repository.build_folder.Staging`), so
a build that fails as a whole leaves the artifacts, ``reference.npz``, ``manifest.json`` and
the repository as they were, and records what it tried in ``manifest.failed.json``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path
from typing import Any

from builders.backends import servable
from builders.build_exports import export_each_format, export_order, export_tasks
from builders.build_options import BuildOptions, BuildResult, Counted, ExportStep, Progress
from builders.build_preflight import refuse_missing_prerequisites
from builders.build_refusals import failure_lines, nothing_to_serve, refuse_empty_build
from builders.build_stop import BuildInterrupted, before_commit, stopped, while_loading, while_writing
from builders.build_variants import check_variants, write_repository
from builders.config.variants import GridPlan
from builders.config.warmup import WarmupCount, warmup_count
from builders.export.artifacts import ExportResult
from builders.model.lookups.range_ends import refuse_ranges_past_tables, refuse_sample_past_tables
from builders.model.lookups.shared_tables import merge_shared_positions
from builders.model.models import LoadedModel, load_model
from builders.model.outputs import infer_outputs, require_batch_first
from builders.model.spec import ModelSpec
from builders.repository.build_folder import (
    Staging,
    built_into,
    earlier_records,
    earlier_variants,
    other_model,
    remove_failed,
    same_source,
)
from builders.repository.build_lock import build_folder_lock
from builders.repository.manifest import MANIFEST, library_versions, read_manifest, weights_hash, write_manifest
from builders.repository.measured_runs import measured_words
from builders.repository.records import FAILED_MANIFEST_FILE, BuildManifest, IndexEntry
from builders.repository.replacing import build_runs, refuse_other_weights, refuse_removing, refuse_replacing, replacing_lines
from builders.repository.writer import drop_stale_variants, update_index
from builders.verify.compare import refuse_open_bounds
from builders.verify.input_draws import describe_draws, load_sample
from builders.verify.value_sources import InputRange, input_ranges, range_lines
from builders.verify.verification import save_reference
from core.errors import ConfigError, PartialBuildError, ToolkitError
from core.naming import check_name
from core.processes import held_stops, raise_recorded_stop, recorded_stops
from core.wording import count, of

__all__ = ["BuildOptions", "BuildResult", "Progress", "build"]

log = logging.getLogger(__name__)


def build(opts: BuildOptions, progress: Progress | None = None, counted: Counted | None = None) -> BuildResult:
    """Export, verify and write the variant grid for one model.

    Writes ``<build_dir>/<model>/``: the artifacts (``model.pt``, ``model.onnx`` and
    ``model.onnx.data`` for large models, ``model.plan``; per precision other than fp32 in
    ``<precision>/``), ``reference.npz`` (inputs and eager outputs at batch
    ``min(4, max_batch_size)``, keys ``input:<name>`` / ``output:<name>``) and
    ``manifest.json`` (versions, I/O signature, per export: strategy and attempts, export
    time in s, size in bytes, sha256, verification records and worst errors per output);
    then one folder per variant in ``opts.repository`` and its index.

    The manifest keeps the earlier build's records of exports this build did not redo (or
    redid and failed), marked ``kept``, when that build was of the same model, spec and
    settings and their files are unchanged
    (:func:`builders.repository.build_folder.earlier_records`); a build of one format after
    another keeps both; the earlier variants of an export it redid and did not rewrite are
    removed (:func:`builders.repository.writer.drop_stale_variants`). A build that fails as a
    whole (its only export failed, every export failed, or a variant's config breaks a rule)
    changes nothing in the build folder or the repository: what it tried is in
    ``manifest.failed.json``, which the error names.

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
        counted: Called with ``(what, done, total)`` within a long step of counted work (verification).

    Returns:
        The manifest as saved, its path and the variant folders written.

    Raises:
        ModelSpecError: the model, its spec or its outputs cannot be used (or the only export
            failed verification on a spec problem).
        GpuRequiredError, ConfigError: before anything is loaded or exported, an asked format, precision
            or instance kind lacks a prerequisite here (TensorRT, a GPU, ``--serving native`` for plans),
            all of them named in one message
            (:func:`builders.build_preflight.refuse_missing_prerequisites`).
        ConfigError: the variant grid is empty, or the build folder holds another model's build.
        BuildBusyError: another build of the model is at work in its build folder (the message names
            its pid); nothing was changed.
        ExportError, VerificationError, GpuRequiredError: the only export failed (its own error).
        PartialBuildError: several exports failed and nothing asked for was built, or some
            failed and the others' variants were written (``result``).
    """
    say = progress or (lambda _msg: None)
    refuse_missing_prerequisites(opts)  # before the model loads: nothing is exported for a format this host cannot build
    with recorded_stops():  # a stop torch swallows or wraps in an error still stops the build (trial 28, T28-11)
        try:
            loaded = _load(opts, say)
            spec = _infer_outputs(opts, loaded, say)
            raise_recorded_stop()
        except BaseException as err:  # the model's own run may make a ModelSpecError of a stop
            if stopped(err):
                raise while_loading(opts.repository) from None
            raise
        name = opts.name or loaded.name
        out = opts.build_dir / name
        with build_folder_lock(out, name):  # one build per build folder: they would share its staging folder
            return _build_held(opts, say, loaded, name, spec, out, counted)


def _build_held(
    opts: BuildOptions, say: Progress, loaded: LoadedModel, name: str, spec: ModelSpec, out: Path, counted: Counted | None
) -> BuildResult:
    """:func:`build`'s steps from claiming the build folder ``out`` on, its lock held."""
    old = _claim_build_folder(opts, out, name, loaded)
    versions = library_versions()
    weights = weights_hash(loaded.module)
    plan = _plan_variants(opts, name, say)
    if old is not None and not opts.replace:  # measured variants of other weights: refused before any export (T24-16)
        refuse_other_weights(opts.repository, out, old, weights)
    warm = warmup_count(opts.warmup_count, opts.warmup_count_reason)  # refused before anything is exported
    manifest = _new_manifest(opts, name, loaded, spec, versions, weights)
    mpath = out / MANIFEST
    tasks = export_tasks(opts.formats, opts.precisions, tuple(opts.plans))
    staging = Staging(out)
    exported: dict[tuple[str, str], ExportResult] = {}  # what passed (export_each_format's), when it returned
    try:
        raise_recorded_stop()  # one a library swallowed while the model loaded or ran
        ref_batch = min(4, max(1, max(opts.grid.max_batch_sizes)))  # reference data at batch min(4, max_batch_size)
        save_reference(staging.root, loaded.module, spec, spec.example_inputs(ref_batch, seed=1234))
        sample = load_sample(opts.sample_path, spec, max(opts.grid.max_batch_sizes)) if opts.sample_path else None
        refuse_sample_past_tables(loaded.module, spec, sample, opts.sample_path)  # as clients refuse it (trial 31, F15)
        manifest["draws"] = describe_draws(spec, sample is not None)
        step = ExportStep(
            opts, say, loaded.module, spec, weights + loaded.fingerprint, versions, out, old, plan, sample, manifest, staging,
            counted,
        )  # fmt: skip
        step.replaced += replacing_lines(opts.repository, plan.variants, opts.serving, out) if opts.replace else []
        exported, failures = export_each_format(step, tasks)
        try:
            refuse_empty_build(opts, exported, failures, out, say)
        except ToolkitError:  # what passed and replaces no recorded file stays (the ONNX a plan is built from)
            _keep_passed(staging, exported, old, out, say)
            raise
        writes = check_variants(opts, plan, exported, spec, warm.count, say)
        if not writes:  # every export passed, none can be served as asked
            _keep_passed(staging, exported, old, out, say)
            raise nothing_to_serve(opts, plan, exported)
        if not opts.replace:  # a measured variant is never removed (re-check 19, NEW-3) or written over unasked (T24-16)
            other = other_model(old, manifest, tasks, [(f, p) for f, p, _ in failures], out)
            earlier = Path(old.repository) if old and old.repository else None
            refuse_removing(opts.repository, out, exported.values(), [v.name for v, *_ in writes], other, earlier)
        raise_recorded_stop()  # the last look before anything is written
    except BaseException as err:
        staging.discard()  # the build folder, its manifest and the repository stay as they were
        if stopped(err):  # said, not a bare "aborted" (issue 26), nor as an error a library made of the stop (T28-11)
            raise before_commit(out, opts.repository, exported) from None
        raise
    variant_dirs: list[Path] = []
    entries: list[IndexEntry] = []
    stop: BuildInterrupted | None = None
    try:  # a stop while the exports move in, or while the manifest is written, is raised after (break-it F24's 2nd case)
        with held_stops():
            staging.commit(exported.values())
        for line in step.replaced:  # the exports replaced now (a build refused above replaced nothing: break-it F26)
            say(line)
        write_repository(opts, writes, out, warm.count, variant_dirs, entries, counted)
    except BaseException as err:  # a stop, or an error a library made of one (trial 28, T28-11)
        if not stopped(err):
            raise
        stop = while_writing(mpath, opts.repository, len(entries), len(writes))
    finally:  # the exports were moved in: the manifest describes them, with the variants written
        try:
            with held_stops(ending=stop is not None):
                failed = [(f, p) for f, p, _ in failures]
                saved = _finish_manifest(opts, manifest, mpath, plan, entries, warm, _Earlier(old, tasks, failed), say)
                written = [e.name for e in entries]  # variants of a redone export not rewritten serve the earlier file
                for line in drop_stale_variants(opts.repository, out, exported.values(), written, old, saved):
                    say(line)
                update_index(opts.repository, entries, skipped=plan.skipped)
                remove_failed(out)
            raise_recorded_stop()  # one a library swallowed while the variants were written
        except KeyboardInterrupt:  # one that came meanwhile, raised once all of it was written
            stop = while_writing(mpath, opts.repository, len(entries), len(writes))
    if stop is not None:
        raise stop from None
    say(f"wrote {count(len(variant_dirs), 'variant')} to {opts.repository}")
    ranges = {n: InputRange.model_validate(r) for n, r in saved.get("value_ranges", {}).items()}
    for line in range_lines(ranges, spec):  # the CLI's summary prints them; the Python API logs them (T23-14)
        log.info("%s", line)
    built = BuildResult(saved, mpath, variant_dirs)
    if failures:
        for _f, _p, e in failures:
            if e.log_path == str(out / FAILED_MANIFEST_FILE):
                e.log_path = str(mpath)  # the failures are in the manifest now
        raise PartialBuildError(
            f"{of(len(failures), len(tasks), 'export')} failed: {failure_lines(failures)}; the {count(len(variant_dirs), 'variant')} "
            f"of the {len(exported)} that passed ({', '.join(f'{f} {p}' for f, p in exported)}) were written to {opts.repository}",
            result=built,
            failed=failures,
            log_path=str(mpath),
            hint="fix or drop the failed format/precision (e.g. another --precision), or use the variants written",
        )
    return built


def _keep_passed(
    staging: Staging, exported: dict[tuple[str, str], ExportResult], old: BuildManifest | None, out: Path, say: Progress
) -> None:
    """A build that writes nothing keeps each export that passed and replaces no file the manifest records, said."""
    for path in staging.keep_new(exported.values(), old):
        say(f"{path.name} passed its verification and stays in {out} (it replaces no file the manifest records)")


def _load(opts: BuildOptions, say: Progress) -> LoadedModel:
    """Load step: the model from ``opts.model`` with its input spec, and its name checked.

    The spec is ``opts.spec``, else read from ``opts.spec_path``, else what the model
    carries or ``opts.example_inputs`` gives (:func:`builders.model.models.load_model`); from
    ``example_inputs``, the positions of an integer input that index the same tables share one range
    (:func:`builders.model.lookups.shared_tables.merge_shared_positions`).

    Raises:
        ModelSpecError: the model cannot be loaded, its spec is missing or malformed, or its
            name (``--name`` or the model's own) is not a valid model name.
    """
    say(f"loading model {opts.model if isinstance(opts.model, str) else type(opts.model).__name__}")
    spec_in = opts.spec if opts.spec is not None else ModelSpec.from_file(opts.spec_path) if opts.spec_path else None
    loaded = load_model(opts.model, spec_in, opts.example_inputs)
    check_name(opts.name or loaded.name, "--name" if opts.name else "model name")
    return dataclasses.replace(loaded, spec=merge_shared_positions(loaded.module, loaded.spec))  # trial 23, T23-14


def _infer_outputs(opts: BuildOptions, loaded: LoadedModel, say: Progress) -> ModelSpec:
    """Infer-outputs step: the spec with its outputs' dtypes, shapes, keys and batch axes
    found by running the eager model (:func:`builders.model.outputs.infer_outputs`; its notes said).

    Raises:
        ModelSpecError: an integer input's range indexes a table past its rows
            (:func:`builders.model.lookups.range_ends.refuse_ranges_past_tables`), as
            :func:`~builders.model.outputs.infer_outputs`, ``--rtol`` names a tensor
            that is not an output or gives an integer output a bound of 1 or more, or an output's batch
            axis is not first while max_batch_size > 0.
    """
    refuse_ranges_past_tables(loaded.module, loaded.spec)  # once, before any export (trial 23, T23-1)
    spec = infer_outputs(loaded.module, loaded.spec, say)
    spec.require_outputs(opts.rtol, "--rtol")
    refuse_open_bounds({t.name: t.dtype for t in spec.outputs}, opts.rtol)  # before any export: a bound that checks nothing
    require_batch_first(spec, opts.grid.max_batch_sizes)
    return spec


def _claim_build_folder(opts: BuildOptions, out: Path, name: str, loaded: LoadedModel) -> BuildManifest | None:
    """Create the build folder ``out``; returns the manifest of the build it holds (``None``: none).

    Raises:
        ConfigError: ``out`` holds a build of the same name from another source, and
            ``opts.force`` is off.
    """
    old = read_manifest(out)
    if old is not None and not same_source(old.source, loaded.source) and not opts.force:
        runs = build_runs(opts.repository, out)  # --force alone is refused then: its variants' runs are named (T24-16)
        raise ConfigError(
            f"{out} holds the build of model {name!r} from {old.source}; this build's model comes from {loaded.source}"
            + (f"; {measured_words(opts.repository, runs, 'its variants in ' + str(opts.repository))}" if runs else ""),
            hint=f"pass --name to build it under another name (e.g. --name {name}_{loaded.kind}), or --force to replace "
            f"the build of {old.source} (its variants in the repository are overwritten too{'; and --replace: runs measured them' if runs else ''})",
        )
    out.mkdir(parents=True, exist_ok=True)  # an earlier manifest.failed.json stays until this build's replaces it
    return old


def _plan_variants(opts: BuildOptions, name: str, say: Progress) -> GridPlan:
    """Plan-variants step: the variant grid for the formats this serving serves, planned before
    any export (a GPU-only grid on a GPU-less host fails at once); each skipped grid point said.

    Raises:
        ConfigError: every grid point was skipped, or, without ``opts.replace``, a variant would
            replace another of its name (:func:`~builders.repository.replacing.refuse_replacing`).
    """
    served_formats = tuple(f for f in dict.fromkeys(opts.formats) if servable(f, opts.serving))
    plan = opts.grid.plan(name, served_formats, opts.precisions, serving=opts.serving)
    for skip in plan.skipped:
        say(f"skipped {skip.what}: {skip.reason}")
    if served_formats and not plan.variants:
        why = "; ".join(dict.fromkeys(f"{sk.what}: {sk.reason}" for sk in plan.skipped))
        raise ConfigError(
            f"the variant grid is empty: every grid point was skipped ({why})",
            hint=f"{plan.empty_hint()} (see `builders variants`)",
        )
    if not opts.replace:  # a variant a sweep measured never changes under its name unasked (trial 16, T16-15)
        refuse_replacing(opts.repository, plan.variants, opts.serving, opts.build_dir / name)
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
        "input_binding": dict(loaded.input_binding),
        "value_ranges": {
            n: r.model_dump(mode="json") for n, r in input_ranges(spec, opts.spec_source(loaded.kind), loaded.module).items()
        },
        "max_batch_size": max(opts.grid.max_batch_sizes),
        "rtol": dict(opts.rtol),
        "exports": [],
        "variants": [],
    }


@dataclasses.dataclass(frozen=True)
class _Earlier:
    """For the manifest: the earlier build's (``None``: none), the exports this build attempted and those that failed."""

    old: BuildManifest | None
    redone: list[tuple[str, str]]
    failed: list[tuple[str, str]]


def _finish_manifest(
    opts: BuildOptions,
    manifest: dict[str, Any],
    mpath: Path,
    plan: GridPlan,
    entries: list[IndexEntry],
    warm: WarmupCount,
    earlier: _Earlier,
    say: Progress,
) -> dict[str, Any]:
    """Write-manifest step: the earlier build's records of exports not redone (kept when their
    files are unchanged), the variants written (and the earlier ones of kept exports still in
    the repository) and skipped, the repository, the warmup count (when a variant has
    warmup), then the file; returns the manifest as saved."""
    kept, lines = earlier_records(earlier.old, manifest, earlier.redone, earlier.failed, mpath.parent)
    for line in lines:
        say(line)
    manifest["exports"] = sorted([*manifest["exports"], *kept], key=export_order)
    written = [e.name for e in entries]
    manifest["kept_variants"] = earlier_variants(earlier.old, kept, written, opts.repository)
    manifest["variants"] = written + manifest["kept_variants"]  # BuildManifest.made_variants: those written
    manifest["skipped_variants"] = [dataclasses.asdict(sk) for sk in plan.skipped]
    manifest["repository"] = str(opts.repository.resolve())
    manifest |= built_into(earlier.old, opts.repository, mpath)  # every one, for `builders remove` (s23r, M2)
    if any(v.warmup for v in plan.variants):
        manifest["warmup_count"] = warm.model_dump(mode="json")
    return write_manifest(mpath, manifest)
