"""The export step of ``builders build``: each (format, precision) exported, verified and recorded.

Exports run in the order of :func:`export_tasks`. An export whose reuse key
(:func:`builders.repository.manifest.export_key`) and files are unchanged is taken back with
its recorded verification; any other is exported through its strategies, each verified
against the eager model (:func:`builders.verify.verification.verify_export`) until one
passes. Fresh exports are written to the build folder's staging folder
(:class:`builders.repository.build_folder.Staging`), moved in only when the build writes its
manifest. A failed export is recorded in the manifest and the others go on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from builders.build_options import BuildOptions, ExportStep
from builders.build_progress import LongStep, failed_attempt, previous_took
from builders.build_verify import verdict_line, verification_devices, verified_record, verifier
from builders.export.artifacts import Attempt, ExportResult, file_sha256
from builders.export.chain import Verify, attempts_of
from builders.export.content import content_sha256
from builders.export.onnx import export_onnx
from builders.export.tensorrt import TIMING_CACHE_FILE, export_tensorrt, import_plan
from builders.export.torchscript import export_torchscript
from builders.graph.inspect import export_health
from builders.repository.build_folder import write_failed
from builders.repository.manifest import export_key, reusable_export
from builders.repository.measured_runs import measured_words, where_runs
from builders.repository.records import ExportRecord
from builders.repository.replacing import at_risk
from builders.repository.run_stamps import runs_of_content
from builders.verify.verification import VERIFICATION_POLICY
from core import formats
from core.errors import ExportError, ToolkitError
from core.processes import raise_recorded_stop
from core.wording import agree, count, some_of

#: An export that failed: its format, its precision and the error.
Failure = tuple[str, str, ToolkitError]


def export_each_format(
    step: ExportStep, tasks: list[tuple[str, str]]
) -> tuple[dict[tuple[str, str], ExportResult], list[Failure]]:
    """Export and verify every (format, precision) of ``tasks``, in order.

    Each export is recorded in ``step.manifest["exports"]`` (with its reuse key and graph
    health), or, when it fails, its error (what the build tried is then written aside, to
    ``manifest.failed.json``: ``manifest.json`` is written only by a build that goes on to
    write its variants); the others go on. A TensorRT plan whose fp32 ONNX export failed is
    not built. Fresh exports are written to ``step.staging``.

    Args:
        step: The build's inputs and manifest.
        tasks: ``(format, precision)`` pairs, from :func:`export_tasks`.

    Returns:
        The exports that passed by ``(format, precision)``, and the failed ones in build order.

    Raises:
        KeyboardInterrupt: a stop came (:func:`core.processes.raise_recorded_stop`: also one a
            library swallowed or wrapped in an error): never recorded as an export's failure.
    """
    exported: dict[tuple[str, str], ExportResult] = {}
    failures: list[Failure] = []
    verification = {
        "policy": VERIFICATION_POLICY,
        "sample": file_sha256(step.opts.sample_path) if step.opts.sample_path else None,
    }
    for fmt, precision in tasks:
        raise_recorded_stop()  # one a library swallowed in the export before (trial 28, T28-11)
        pdir = step.out if precision == "fp32" else step.out / precision
        devices = verification_devices(fmt, precision, step.plan.variants)
        key = _reuse_key(step, fmt, precision, {**verification, "devices": devices, **_imported(fmt, precision, step.opts)})
        reused = reusable_export(step.old, key, pdir / formats.get(fmt).file) if not step.opts.force else None
        if reused is not None and reused.status is not None:  # an export verified before verdicts is verified again
            result, record = _reuse(step, fmt, precision, pdir, reused)
            step.replaced += _still_other(step, fmt, precision, record) if step.opts.replace else []
        else:
            _say_at_risk(step, fmt, precision)
            verdicts: list[dict[str, Any]] = []
            long = LongStep(step.counted)
            try:
                verify = verifier(step, fmt, precision, devices, verdicts, long)
                result = _export(step, fmt, precision, step.staging.folder(precision), exported, verify, long)
            except ToolkitError as e:
                long.end()
                raise_recorded_stop()  # an error a library made of a stop is no failure of the export (T28-11)
                failures.append(_record_failure(step, fmt, precision, e))
                continue
            record = verified_record(result, verdicts)
            _say_replaced(step, fmt, precision, record)
        record["key"] = key
        record["graph_health"] = record.get("graph_health") or export_health(fmt, result.path)
        step.manifest["exports"].append(record)
        exported[(fmt, precision)] = result
        step.say(f"{fmt} {precision}: {verdict_line(record)}")
    return exported, failures


def export_tasks(formats: tuple[str, ...], precisions: tuple[str, ...], plans: Any = ()) -> list[tuple[str, str]]:
    """The (format, precision) exports of a build, in build order.

    TensorRT plans of every precision are built from the fp32 ONNX export with the builder's
    precision flags (the usual TensorRT practice; ONNX has no bf16 for some operators), so
    that export comes first. With plans built elsewhere (``plans``: their precisions),
    TensorRT is taken for those precisions only, and no ONNX is exported for it.

    Args:
        formats: The formats asked (``torchscript``, ``onnx``, ``trt``).
        precisions: The precisions asked (``fp32``, ``fp16``, ``bf16``).
        plans: The precisions of TensorRT plans built elsewhere (``--plan``).

    Returns:
        ``(format, precision)`` pairs: per precision, TorchScript, ONNX, then TensorRT.
    """
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


def export_order(record: dict[str, Any]) -> tuple[int, int]:
    """Manifest order of an export record: by precision, then TorchScript, ONNX, TensorRT
    (the build order, :func:`export_tasks`)."""
    precision = {"fp32": 0, "fp16": 1, "bf16": 2}.get(record["precision"], 3)
    return precision, {"torchscript": 0, "onnx": 1, "trt": 2}.get(record["format"], 3)


def _reuse_key(step: ExportStep, fmt: str, precision: str, verification: dict[str, Any]) -> str:
    """The reuse key of one export (:func:`builders.repository.manifest.export_key`)."""
    opts = step.opts
    return export_key(
        fmt,
        precision,
        step.spec,
        step.model_hash,
        step.versions,
        step.max_batch_size,
        rtol=opts.rtol,
        opset=opts.opset,
        external_data_threshold_bytes=opts.external_data_threshold_bytes,
        workspace_bytes=opts.workspace_bytes,
        verification=verification,
    )


def _reuse(step: ExportStep, fmt: str, precision: str, pdir: Path, reused: ExportRecord) -> tuple[ExportResult, dict[str, Any]]:
    """An unchanged export taken back: its result and its record, marked ``reused``."""
    path = pdir / formats.get(fmt).file
    step.say(f"{fmt} {precision}: unchanged, reusing {path}")
    result = ExportResult(
        fmt,
        path,
        precision,
        reused.strategy,
        list(reused.attempts),
        reused.export_s,
        reused.extra,
        list(reused.tracer_warnings),
    )
    # a record made before content digests gains one (the file is the one it records: reusable_export checked its sha256)
    content = {"content_sha256": content_sha256(path, reused.sha256)} if reused.content_sha256 is None else {}
    return result, reused.model_copy(update={"reused": True, "kept": False, **content}).model_dump(mode="json")


def _say_at_risk(step: ExportStep, fmt: str, precision: str) -> None:
    """Before an export is made again: one line naming the measured variants of the earlier build that this build's
    grid does not write (:func:`builders.repository.replacing.at_risk`), since the build is refused after its exports
    should the new file differ from the one they serve; nothing with ``--replace`` or without an earlier build."""
    if step.opts.replace or step.old is None:
        return
    risk = at_risk(step.opts.repository, step.out, fmt, precision, [v.name for v in step.plan.variants])
    if not risk:
        return
    runs = sorted({r for ids in risk.values() for r in ids})
    step.say(
        f"{fmt} {precision}: this export is made again, and {count(len(risk), 'variant')} of the earlier grid that runs "
        f"measured ({some_of(list(risk), 3)}; runs {some_of(runs, 3)}) {'is' if len(risk) == 1 else 'are'} not in this "
        "build's grid: should the new file differ from the one they serve, the build is refused after its exports, "
        "nothing written (Ctrl-C now stops it, nothing written; --replace removes them; --name OTHER builds beside them, in its own build folder)"
    )


def _say_replaced(step: ExportStep, fmt: str, precision: str, record: dict[str, Any]) -> None:
    """One line when a fresh export is of the same content as the earlier build's export of the same format and
    precision (a ``--force`` rebuild), or replaces it with other content: the variants serving it run another model from now on, and runs
    that measured the earlier one refuse them (:mod:`perf.records.measured_files`); kept in
    ``step.replaced``, said when the build commits its exports (never before a refusal: break-it F26)."""
    old = next(
        (
            e
            for e in (step.old.exports if step.old else [])
            if isinstance(e, ExportRecord) and (e.format, e.precision) == (fmt, precision)
        ),
        None,
    )
    if old is not None and old.same_content(record.get("sha256"), record.get("content_sha256")):  # --force, same files
        step.replaced += (
            _still_other(step, fmt, precision, record)
            or [  # trial 24, T24-11: "made now" alone
                f"{fmt} {precision}: made again with the same content as the earlier export ({old.file} sha256 "
                f"{old.sha256[:12]}): its variants serve the same model, and runs that measured them still match them"
            ]
        )
    elif old is not None:
        new = str(record.get("sha256"))
        match, differ, replaced = runs_of_content(
            step.opts.repository, step.out, fmt, precision, new, record.get("content_sha256")
        )
        where = where_runs(step.opts.repository)  # the folders looked in, absolute (break-it F25)
        said = [
            f"the {agree(len(differ), 'run', 'runs')} {', '.join(differ)} in {where} measured other content and no longer "
            f"{agree(len(differ), 'matches', 'match')} them (no --resume of {agree(len(differ), 'it', 'them')} measures these "
            "files: one that would is refused; a new run measures them)"
            if differ
            else "",
            f"the {agree(len(match), 'run', 'runs')} {', '.join(match)} in {where} measured this content and "
            f"{agree(len(match), 'matches', 'match')} them again"
            if match
            else "",
        ]
        runs = "; ".join(w for w in said if w) or measured_words(step.opts.repository, [], "them")
        step.replaced.append(  # said once the build commits it (builders.build): a refused build replaces nothing
            f"{fmt} {precision}: replaces the earlier export of another content ({old.file} sha256 {old.sha256[:12]} -> "
            f"{new[:12]}): its variants serve this one now; {runs}"
        )
        step.replaced += [  # each measured variant by name (trial 30, F6; README: "a `replaced ...` line then names each")
            f"replaced {Path(step.opts.repository) / name} (its {fmt} {precision} export, of another content now: "
            f"{old.sha256[:12]} -> {new[:12]}): the {agree(len(ids), 'run', 'runs')} {', '.join(ids)} measured the earlier "
            "one (their export-deployment and --resume refuse it and print the build that restores it)"
            for name, ids in replaced.items()
        ]


def _still_other(step: ExportStep, fmt: str, precision: str, record: dict[str, Any]) -> list[str]:
    """The line for an export of the same content as the earlier build's (taken back, or made again) when runs
    measured other content in its variants: the build (the restore command a refusal printed, say) gave them
    nothing of what they measured, because the model files it read are the same as the earlier build's (trial 31,
    F12: it said nothing, and the refusal printed the same command again); ``[]`` when no run did."""
    sha = str(record.get("sha256"))
    differ = runs_of_content(step.opts.repository, step.out, fmt, precision, sha, record.get("content_sha256")).differ
    if not differ:
        return []
    m = step.manifest
    return [
        f"{fmt} {precision}: the same content as the earlier export ({record.get('file')} sha256 {sha[:12]}), built "
        f"from the same model files (weights_sha256_16 {m.get('weights_sha256_16')}, source_sha256_16 "
        f"{m.get('source_sha256_16')}): still not what the {agree(len(differ), 'run', 'runs')} {', '.join(differ)} in "
        f"{where_runs(step.opts.repository)} measured; put back the weights (model source) "
        f"{agree(len(differ), 'it', 'they')} measured and build again to restore {agree(len(differ), 'it', 'them')}"
    ]


def _export(
    step: ExportStep,
    fmt: str,
    precision: str,
    pdir: Path,
    done: dict[tuple[str, str], ExportResult],
    verify: Verify,
    long: LongStep,
) -> ExportResult:
    """Export one (format, precision), through its strategies until one verifies; each strategy's
    export and a TensorRT build are shown going (``long``) with what they do and how long the same
    work took before (:func:`builders.build_progress.previous_took`).

    Raises:
        ExportError: TensorRT without the fp32 ONNX export it is built from; or what the
            exporter raises (every strategy failed).
        VerificationError, GpuRequiredError: as raised by the exporter or ``verify``.
    """
    opts = step.opts
    if fmt == "trt" and ("onnx", "fp32") not in done and precision not in opts.plans:
        raise ExportError(
            "not built: TensorRT plans are built from the fp32 ONNX export, which failed (listed above)",
            hint="fix the ONNX export first",
        )
    step.say(f"{fmt} {precision}: exporting")
    mbs = step.max_batch_size

    def starting(strategy: str, before: Sequence[Attempt]) -> None:
        if before:  # the one before failed: said now, not only below the final table (trial 22, F-silent-dynamo)
            long.end()
            step.say(f"{fmt} {precision}: {failed_attempt(before[-1], strategy)}")
        long.start(f"{fmt} {precision}: exporting via {strategy}{previous_took(fmt, precision, strategy, done, step.old)}")

    if fmt == "torchscript":
        return export_torchscript(step.module, step.spec, pdir, precision, verify=verify, starting=starting)
    if fmt == "onnx":
        return export_onnx(
            step.module, step.spec, pdir, precision, opts.opset, mbs, opts.external_data_threshold_bytes, verify, starting
        )
    if precision in opts.plans:
        plan = import_plan(opts.plans[precision], step.spec, pdir, precision, mbs)
    else:
        long.start(f"trt {precision}: building the TensorRT plan{previous_took(fmt, precision, None, done, step.old)}")
        plan = export_tensorrt(
            done[("onnx", "fp32")].path,
            step.spec,
            pdir,
            precision,
            mbs,
            opts.workspace_bytes,
            opts.timing_cache or step.out / TIMING_CACHE_FILE,
            onnx_kept_in=step.out,  # the staging folder is gone by the time the user runs the way out
        )
    verify(plan)
    return plan


def _record_failure(step: ExportStep, fmt: str, precision: str, e: ToolkitError) -> Failure:
    """Record a failed export in the manifest and write it aside (``manifest.failed.json``);
    the error points at that file."""
    step.manifest["exports"].append(
        {
            "format": fmt,
            "precision": precision,
            "failed": e.stage,
            "error": str(e),
            "attempts": [dataclasses.asdict(a) for a in attempts_of(e)],
        }
    )
    failed = write_failed(step.out, step.manifest)
    e.log_path = e.log_path or str(failed)
    step.say(f"{fmt} {precision}: FAILED ({e.stage}): {e.message.splitlines()[0]}")
    return fmt, precision, e


def _imported(fmt: str, precision: str, opts: BuildOptions) -> dict[str, str]:
    """The reuse-key part of an imported plan: its file's hash (another plan is another export)."""
    path = opts.plans.get(precision) if fmt == "trt" else None
    return {"imported_plan_sha256": file_sha256(Path(path))} if path and Path(path).is_file() else {}
