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
from pathlib import Path
from typing import Any

from builders.build_options import BuildOptions, Counted, Progress
from builders.config.checks import device_constant_problems
from builders.config.variants import GridPlan
from builders.export.artifacts import ExportResult, file_sha256
from builders.export.chain import Verify, attempts_of
from builders.export.onnx import export_onnx
from builders.export.onnx_names import renamed_line
from builders.export.tensorrt import TIMING_CACHE_FILE, export_tensorrt, import_plan
from builders.export.torchscript import export_torchscript
from builders.graph.inspect import export_health
from builders.model.spec import ModelSpec
from builders.repository.build_folder import Staging, write_failed
from builders.repository.manifest import export_key, reusable_export
from builders.repository.records import BuildManifest, ExportRecord
from builders.verify.input_draws import DRAWS
from builders.verify.verdicts import describe, overall
from builders.verify.verification import VERIFICATION_POLICY, error_summary, verification_points, verify_export
from core import formats
from core.errors import ExportError, ToolkitError
from core.wording import count

#: An export that failed: its format, its precision and the error.
Failure = tuple[str, str, ToolkitError]


@dataclasses.dataclass
class ExportStep:
    """What the export step of one build reads, and the manifest it adds to.

    Attributes:
        opts: What to build.
        say: The progress callback (one line per step).
        module: The eager model (``nn.Module``).
        spec: Its I/O signature, outputs inferred from the eager model.
        model_hash: The weights' hash followed by the model source's fingerprint: the part of
            every reuse key that says which model this is.
        versions: Library versions (part of every reuse key).
        out: The build folder, ``<build_dir>/<model>``.
        old: The manifest of the build found in ``out``; ``None`` when there is none.
        plan: The variant grid, planned before any export.
        sample: The user's own inputs by input name (``--sample``); ``None`` without them.
        manifest: The manifest being filled in; each export adds a record to its ``exports``.
        staging: Where fresh exports are written (moved into ``out`` when the build succeeds).
        counted: The counted progress of a long step (verification's points × draws); ``None``: none drawn.
    """

    opts: BuildOptions
    say: Progress
    module: Any
    spec: ModelSpec
    model_hash: str
    versions: dict[str, str | None]
    out: Path
    old: BuildManifest | None
    plan: GridPlan
    sample: dict[str, Any] | None
    manifest: dict[str, Any]
    staging: Staging
    counted: Counted | None = None

    @property
    def max_batch_size(self) -> int:
        """The largest max_batch_size of the grid: what every export is built and verified for."""
        return max(self.opts.grid.max_batch_sizes)


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
    """
    exported: dict[tuple[str, str], ExportResult] = {}
    failures: list[Failure] = []
    verification = {
        "policy": VERIFICATION_POLICY,
        "sample": file_sha256(step.opts.sample_path) if step.opts.sample_path else None,
    }
    for fmt, precision in tasks:
        pdir = step.out if precision == "fp32" else step.out / precision
        devices = verification_devices(fmt, precision, step.plan.variants)
        key = _reuse_key(step, fmt, precision, {**verification, "devices": devices, **_imported(fmt, precision, step.opts)})
        reused = reusable_export(step.old, key, pdir / formats.get(fmt).file) if not step.opts.force else None
        if reused is not None and reused.status is not None:  # an export verified before verdicts is verified again
            result, record = _reuse(step, fmt, precision, pdir, reused)
        else:
            verdicts: list[dict[str, Any]] = []
            try:
                verify = _verifier(step, fmt, precision, devices, verdicts)
                result = _export(step, fmt, precision, step.staging.folder(precision), exported, verify)
            except ToolkitError as e:
                failures.append(_record_failure(step, fmt, precision, e))
                continue
            record = _verified_record(result, verdicts)
            _say_replaced(step, fmt, precision, record)
        record["key"] = key
        record["graph_health"] = record.get("graph_health") or export_health(fmt, result.path)
        step.manifest["exports"].append(record)
        exported[(fmt, precision)] = result
        step.say(f"{fmt} {precision}: {_verdict_line(record)}")
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


def verification_devices(fmt: str, precision: str, variants: list[Any]) -> tuple[str, ...]:
    """Where an export is verified.

    Args:
        fmt: The export's format.
        precision: Its precision.
        variants: The planned variants (:attr:`builders.config.variants.GridPlan.variants`).

    Returns:
        ``("cuda",)`` for TensorRT; else the devices of the export's variants (KIND_CPU ->
        ``cpu``, KIND_GPU -> ``cuda``), ``("cpu",)`` when it has none (an ONNX built for plans).
    """
    if fmt == "trt":
        return ("cuda",)
    kinds = {v.kind for v in variants if (v.format, v.precision) == (fmt, precision)}
    return tuple(d for k, d in (("cpu", "cpu"), ("gpu", "cuda")) if k in kinds) or ("cpu",)


def device_refusal(result: ExportResult, device: str) -> str | None:
    """Why ``result`` cannot be served on ``device``, or ``None`` when it can.

    Its TorchScript graph may hold another device as a constant
    (:func:`builders.config.checks.device_constant_problems`).

    Args:
        result: The export.
        device: ``"cpu"`` or ``"cuda"`` (``"cuda:N"`` is read as ``cuda``).
    """
    kind = "KIND_GPU" if device.startswith("cuda") else "KIND_CPU"
    problems = device_constant_problems(kind, result.extra.get("device_constants", ()), "instance_group")
    return problems[0].reason() if problems else None


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
    return result, reused.model_copy(update={"reused": True, "kept": False}).model_dump(mode="json")


def _say_replaced(step: ExportStep, fmt: str, precision: str, record: dict[str, Any]) -> None:
    """One line when a fresh export replaces the earlier build's export of the same format and
    precision with other content: the variants serving it run another model from now on, and runs
    that measured the earlier one refuse them (:mod:`perf.records.measured_files`)."""
    old = next(
        (
            e
            for e in (step.old.exports if step.old else [])
            if isinstance(e, ExportRecord) and (e.format, e.precision) == (fmt, precision)
        ),
        None,
    )
    if old is not None and old.sha256 != record.get("sha256"):
        step.say(
            f"{fmt} {precision}: replaces the earlier export of another content ({old.file} sha256 {old.sha256[:12]} -> "
            f"{str(record.get('sha256'))[:12]}): its variants serve this one now, and runs that measured the earlier "
            "one no longer match them"
        )


def _verifier(step: ExportStep, fmt: str, precision: str, devices: tuple[str, ...], verdicts: list[dict[str, Any]]) -> Verify:
    """The callback an exporter calls on each strategy's result; it fills ``verdicts``.

    A device the trace froze another device into is not served (its variants are skipped),
    so it is not verified either.
    """

    def verify(r: ExportResult) -> None:
        on = tuple(d for d in devices if not device_refusal(r, d)) or ("cpu",)
        points = len(verification_points(step.spec, step.max_batch_size))
        sample = " + your sample" if step.sample is not None else ""
        step.say(
            f"{fmt} {precision}: exported via {r.strategy} in {r.export_s:.1f} s; verifying against eager PyTorch "
            f"on {', '.join(on)} ({count(points, 'point')} × {count(len(DRAWS), 'input draw')}{sample} = "
            f"{count(points * len(DRAWS) + (step.sample is not None), 'run')} per device)"
        )
        renamed = renamed_line(r.extra.get("renamed_values", []))
        if renamed:
            step.say(f"{fmt} {precision}: {renamed}")
        _show_tracer_warnings(step.say, f"{fmt} {precision}", r)
        verdicts[:] = verify_export(r, step.module, step.spec, step.max_batch_size, step.opts.rtol, on, step.sample, tick)

    def tick(device: str, done: int, total: int) -> None:
        if step.counted is not None:
            step.counted(f"{fmt} {precision}: verifying on {device}", done, total)

    return verify


def _export(
    step: ExportStep, fmt: str, precision: str, pdir: Path, done: dict[tuple[str, str], ExportResult], verify: Verify
) -> ExportResult:
    """Export one (format, precision), through its strategies until one verifies.

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
    if fmt == "torchscript":
        return export_torchscript(step.module, step.spec, pdir, precision, verify=verify)
    if fmt == "onnx":
        return export_onnx(
            step.module, step.spec, pdir, precision, opts.opset, mbs, opts.external_data_threshold_bytes, verify=verify
        )
    if precision in opts.plans:
        plan = import_plan(opts.plans[precision], step.spec, pdir, precision, mbs)
    else:
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


def _verified_record(result: ExportResult, verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """The manifest record of a fresh export: the export, its verification points, worst
    errors per output, where it was verified and its verdict."""
    points = [p for v in verdicts for p in v.pop("points")]
    return {
        **result.to_json(),
        "reused": False,
        "verify_s": round(sum(v["verify_s"] for v in verdicts), 3),
        "verification": points,
        "errors": error_summary(points),
        "verified_on": verdicts[0]["verified_on"],
        "status": overall([v["status"] for v in verdicts]),
        "verdicts": verdicts,
    }


def _imported(fmt: str, precision: str, opts: BuildOptions) -> dict[str, str]:
    """The reuse-key part of an imported plan: its file's hash (another plan is another export)."""
    path = opts.plans.get(precision) if fmt == "trt" else None
    return {"imported_plan_sha256": file_sha256(Path(path))} if path and Path(path).is_file() else {}


def _show_tracer_warnings(say: Progress, what: str, result: ExportResult) -> None:
    """Show an export's tracer warnings once (they are kept in the manifest)."""
    if result.tracer_warnings:
        say(
            f"{what}: torch.jit traced {result.strategy} with {count(len(result.tracer_warnings), 'warning')}, "
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
