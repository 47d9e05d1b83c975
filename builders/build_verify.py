"""Verification within the export step of ``builders build`` (:mod:`builders.build_exports`): where
an export is verified, the callback each exporter calls on a strategy's result, and what the build
records and says of it (moved from :mod:`builders.build_exports`).

The callback says what it runs (points × draws per device) and reports every case to the build's
counted progress with each case's size (:class:`core.progress.Counted`): verification runs its
points from batch 1 to the largest batch at the largest axis sizes, and the estimate of the rest
weighs the cases left by their size (trial 16, T16-17: several times too low on a busy host).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from builders.build_options import ExportStep, Progress
from builders.build_progress import LongStep, after_failed
from builders.config.checks import device_constant_problems
from builders.export.artifacts import ExportResult
from builders.export.chain import Verify
from builders.export.onnx_names import renamed_line
from builders.verify.compare import differing_words
from builders.verify.input_draws import DRAWS
from builders.verify.verdicts import describe, overall
from builders.verify.verification import error_summary, verification_points, verify_export
from core.progress import clock_text
from core.wording import count


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


def verifier(
    step: ExportStep, fmt: str, precision: str, devices: tuple[str, ...], verdicts: list[dict[str, Any]], long: LongStep
) -> Verify:
    """The callback an exporter calls on each strategy's result; it fills ``verdicts``.

    A device the trace froze another device into is not served (its variants are skipped),
    so it is not verified either. The export step shown going (``long``) ends when its result comes.
    """

    def verify(r: ExportResult) -> None:
        long.end()
        on = tuple(d for d in devices if not device_refusal(r, d)) or ("cpu",)
        points = len(verification_points(step.spec, step.max_batch_size))
        sample = " + your sample" if step.sample is not None else ""
        step.say(
            f"{fmt} {precision}: exported via {r.strategy} in {r.export_s:.1f} s{after_failed(r.attempts, r.export_s)}; verifying against eager PyTorch "
            f"on {', '.join(on)} ({count(points, 'point')} × {count(len(DRAWS), 'input draw')}{sample} = "
            f"{count(points * len(DRAWS) + (step.sample is not None), 'run')} per device{planned_cost(step)})"
        )
        renamed = renamed_line(r.extra.get("renamed_values", []))
        if renamed:
            step.say(f"{fmt} {precision}: {renamed}")
        _show_tracer_warnings(step.say, f"{fmt} {precision}", r)
        start = time.monotonic()
        verdicts[:] = verify_export(r, step.module, step.spec, step.max_batch_size, step.opts.rtol, on, step.sample, tick)
        step.verified.append((f"{fmt} {precision} via {r.strategy} on {', '.join(on)}", time.monotonic() - start))

    def tick(device: str, done: int, total: int, sizes: Sequence[float]) -> None:
        if step.counted is not None:
            step.counted(f"{fmt} {precision}: verifying on {device}", done, total, sizes)

    return verify


def planned_cost(step: ExportStep) -> str:
    """What a verification will cost, said before it starts (issue 26, trial 18, T18-3: 25 runs at batch 64
    × 3x256x256 took ~10 min a format, and nothing said so up front): the largest point's batch and axis
    sizes, the time this build's latest verification took for the same runs, and the flag that shrinks it.

    Returns:
        ``", the largest at batch 64 at height 256, width 256; the torchscript fp32 via script on cpu
        verification took 9:29 for the same runs; --max-batch-sizes 8 verifies and serves up to batch 8"``;
        a part is left out where it has nothing to say (no earlier verification, a max_batch_size of 8 or less).
    """
    batch, sizes = max(verification_points(step.spec, step.max_batch_size), key=lambda p: (p[0], sorted(p[1].values())))
    text = f", the largest at batch {batch}" + (" at " + ", ".join(f"{axis} {n}" for axis, n in sizes.items()) if sizes else "")
    if step.verified:
        what, seconds = step.verified[-1]
        text += f"; the {what} verification took {clock_text(seconds)} for the same runs"
    if step.max_batch_size > 8:
        smaller = max(1, step.max_batch_size // 8)
        text += f"; --max-batch-sizes {smaller} verifies and serves up to batch {smaller}"
    return text


def verified_record(result: ExportResult, verdicts: list[dict[str, Any]]) -> dict[str, Any]:
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


def _show_tracer_warnings(say: Progress, what: str, result: ExportResult) -> None:
    """Show an export's tracer warnings once (they are kept in the manifest)."""
    if result.tracer_warnings:
        say(
            f"{what}: torch.jit traced {result.strategy} with {count(len(result.tracer_warnings), 'warning')}, "
            f"recorded in the manifest; first: {result.tracer_warnings[0]}"
        )


def verdict_line(record: dict[str, Any]) -> str:
    """One progress line: the verdict, the strategy, where it was verified, the worst errors of
    the float outputs, and how many elements of an integer output differed, if any."""
    errors = record.get("errors") or {}
    floats = [o for o in errors.values() if o.get("differing") is None]
    worst = max((o["max_rel_err"] for o in floats), default=0.0)
    worst_abs = max((o["max_abs_err"] for o in floats), default=0.0)
    labels = "".join(
        "; " + differing_words(name, o["differing"], o["elements"], o["rtol"])
        for name, o in errors.items()
        if o.get("differing")  # an integer output with flipped elements: said in counts, not as a relative error
    )
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
        f"max abs err {worst_abs:.2e}, max rel err {worst:.2e}{labels})"
    )
