"""Precision study: speed and error of fp32 / fp16 / bf16 eager PyTorch against fp32 eager.

For each device of this host (the CPU; CUDA devices torch sees) and each precision asked,
the model is cast the way the exports are (:func:`builders.export.precision.prepare_module`:
floating weights and inputs in the precision, outputs cast back to their spec dtypes) and:

- run on the same inputs as the fp32 reference (eager PyTorch on the CPU, fp32): max abs and
  max relative error (:func:`builders.verify.compare.compare_outputs`), within the precision's default
  tolerance or not (:mod:`core.precision`);
- timed with ``torch.utils.benchmark`` (median and IQR of one call over blocks, with the
  thread count given), every precision of one device *interleaved* in rounds
  (:func:`perf.profile.timing.time_interleaved`: each round times fp32, fp16, bf16 once, in a
  shuffled order), with the host's load sampled over the rounds and flagged by the sweep's
  busy-host rule. The speed-up against fp32 is paired round by round
  (:func:`perf.analysis.stats.paired.paired`): its median over rounds, min–max and a verdict —
  ``faster``, ``slower`` or ``not distinguishable at this noise`` — so that a speed-up is never
  the ratio of two numbers measured minutes apart under different loads; ratios spanning more than
  a factor of 10 are ``not measured fairly at this load`` (no speed-up given). The row's median and
  IQR are over the same per-round times.

On a GPU, TF32 is off while it runs (:func:`builders.verify.verification.no_tf32`): fp32 is fp32, as
verification runs it (:mod:`core.precision`).

A row is ``not run on this host`` (``reason`` says why; never numbers of 0) when the device
is absent, when the kernels there do not compute in that precision
(:data:`builders.verify.verdicts.KERNEL_PRECISION`, torch's kernels), or when torch has no kernel
of that dtype for one of the model's operators on that device.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from builders.export.precision import prepare_module
from builders.verify.compare import compare_outputs
from builders.verify.verdicts import kernel_precision
from builders.verify.verification import no_tf32
from core import precision as precisions
from perf.analysis.stats.paired import paired
from perf.markdown import fmt
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT, HostSampler
from perf.profile.timing import ROUNDS, OutOfTime, Timing, TimingSettings, fit_rounds, time_interleaved, timing_s
from perf.records.profile import CUT, NOT_DISTINGUISHABLE, UNFAIR, PrecisionRow, too_wide

log = logging.getLogger(__name__)

RUNTIME = "eager PyTorch"
METHOD = "weights and floating inputs cast, outputs cast back (builders.export.precision.prepare_module)"
#: The format whose row of KERNEL_PRECISION says what torch's kernels compute in.
TORCH_KERNELS = "torchscript"
#: torch's words for two tensors of different floating dtypes meeting in one operator (a conv's input and bias, a
#: matmul's two sides, an op's expected scalar type).
DTYPE_MISMATCH = re.compile(
    r"should be the same|must have the same dtype|to have the same dtype|expected scalar type|"
    r"expected both inputs to have same dtype|dtype mismatch|Expected .*dtype .* but got",
    re.IGNORECASE,
)
#: Timed run per row over all rounds (s).
MIN_RUN_TIME_S = 0.5
#: The most one row's timing may take (s; :attr:`perf.profile.timing.TimingSettings.max_target_s`): its own
#: first call (the error check's) predicts its rounds, and a slow one is timed in fewer (trial 14, T14-9: an
#: eager fp16 MobileNet on a 2-core CPU, seconds a call, took 373 s for 3 rows at the fewest calls of 8 rounds).
#: 10 s a row keeps a CPU's three rows near half a minute; a fast model's rows take their ``min_run_time_s``.
ROW_MAX_S = 10.0


def host_devices() -> list[str]:
    """``["cpu"]`` plus ``"cuda"`` when torch sees a CUDA device."""
    import torch

    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def precision_study(
    module: Any,
    spec: Any,
    precision_names: Sequence[str] = precisions.PRECISION_NAMES,
    *,
    batch_size: int = 1,
    threads: int | None = None,
    devices: Sequence[str] = ("cpu", "cuda"),
    min_run_time_s: float = MIN_RUN_TIME_S,
    inputs: dict[str, np.ndarray] | None = None,
    rounds: int = ROUNDS,
    host_busy_threshold_pct: float = HOST_BUSY_THRESHOLD_PCT,
    deadline: float | None = None,
    say: Callable[[str], None] | None = None,
) -> list[PrecisionRow]:
    """One row per (device, precision); the rows of one device timed interleaved in rounds.

    Args:
        module: The eager ``nn.Module`` (not modified).
        spec: Its :class:`builders.model.spec.ModelSpec`, outputs filled in.
        precision_names: Precisions to study (``core.precision`` names); fp32 is always run
            too, as the speed reference, when a reduced precision is asked.
        batch_size: Samples per call.
        threads: ``torch`` intra-op threads for the timing (``None``: torch's default).
        devices: Devices to report; those this host lacks are ``not run on this host``.
        min_run_time_s: Timed run per row over all rounds (s), half in blocks, half in single calls.
        inputs: Input name -> array ``[batch_size, ...]`` (default: the spec's example inputs).
        rounds: Rounds the precisions of one device are interleaved in (each round times each
            once, in a shuffled order): the speed-up is paired round by round
            (:func:`perf.analysis.stats.paired.paired`).
        host_busy_threshold_pct: Other processes' CPU (% of one core) above which the rows are
            flagged host busy (:func:`perf.measure.host.is_host_busy`).
        deadline: ``time.monotonic()`` of a time budget: no device's rows start timing when their first
            round would end after it (:func:`perf.profile.timing.time_interleaved`); they are then
            ``cut for time`` with the reason. ``None``: none.
        say: Called with one line per device as its timing starts: each row's first call and the rounds
            and seconds they predict (``None``: silent).

    Returns:
        Rows, devices in the given order, precisions in :data:`core.precision.PRECISIONS` order.

    Raises:
        ConfigError: an unknown precision name.
    """
    import torch

    wanted = study_precisions(precision_names)
    inputs = spec.example_inputs(batch_size) if inputs is None else inputs
    with torch.inference_mode():
        reference = _outputs(prepare_module(module, "fp32", spec), inputs, "cpu", spec)
    here = host_devices()
    settings = TimingSettings(min_run_time_s=min_run_time_s / 2, rounds=rounds, max_target_s=ROW_MAX_S)
    rows: list[PrecisionRow] = []
    for device in devices:
        with no_tf32():  # fp32 on a GPU is fp32, not TF32, as verification runs it (core.precision)
            made = [_row(module, spec, name, device, inputs, reference, here, batch_size, threads) for name in wanted]
            timed = [(row, call, first) for row, call, first in made if call is not None]
            if timed:
                if say is not None:
                    say(plan_words(device, [(r.precision, first) for r, _, first in timed], settings))
                try:
                    with HostSampler([os.getpid()]) as hosts:
                        timings = time_interleaved([c for _, c, _ in timed], [threads] * len(timed), settings, deadline=deadline)
                except OutOfTime as e:  # no round it cannot finish starts (trial 14, T14-9)
                    for row, *_ in timed:
                        row.status, row.reason = CUT, f"the time budget: {e}"
                    timed = []
                else:
                    load = hosts.load(timings[0].span, host_busy_threshold_pct)
                    for (row, *_), t in zip(timed, timings):
                        _fill(row, t, batch_size)
                        load.fill(row)
        _speedups([row for row, *_ in made])
        rows += [row for row, *_ in made]
    return rows


def plan_words(device: str, firsts: Sequence[tuple[str, float]], settings: TimingSettings) -> str:
    """The line said as a device's rows start timing: ``"precision study on cpu: first calls fp32 0.41 s,
    fp16 2.9 s; timed together in 1 of 8 rounds (10 s a row at most), an estimated 24 s"``: the rounds and
    seconds :func:`perf.profile.timing.fit_rounds` and :func:`~perf.profile.timing.timing_s` predict from them."""
    calls = [c for _, c in firsts]
    rounds = fit_rounds(calls, settings)
    held = f" ({settings.max_target_s:g} s a row at most)" if rounds < settings.rounds and settings.max_target_s else ""
    return (
        f"precision study on {device}: first calls {', '.join(f'{p} {_secs(c)}' for p, c in firsts)}; "
        f"timed together in {rounds} of {settings.rounds} rounds{held}, an estimated {_estimate(timing_s(calls, settings))}"
    )


def _estimate(seconds: float) -> str:
    """An estimate as the plan line says it: whole seconds, or the first call's form where that is 0 (trial 27, T27-9:
    "timed together in 8 of 8 rounds, an estimated 0 s")."""
    return f"{seconds:.0f} s" if seconds >= 0.5 else _secs(seconds)  # never "0 s"


def _secs(seconds: float) -> str:
    """A first call's time as the tables print times: ``"350.0 ms"``, ``"1.50 s"`` (was ``:.2g``: "1.5e+02 s")."""
    return f"{fmt(seconds * 1e3, 1)} ms" if seconds < 1 else f"{fmt(seconds, 2)} s"


def study_precisions(names: Sequence[str]) -> list[str]:
    """The precisions a study of ``names`` times, in :data:`core.precision.PRECISIONS` order: fp32 too (the
    speed reference) when a reduced one is asked.

    Raises:
        ConfigError: an unknown precision name.
    """
    wanted = [p.name for p in precisions.PRECISIONS if p.name in {precisions.get(n).name for n in names}]
    return ["fp32", *wanted] if wanted and "fp32" not in wanted else wanted


def _fill(row: PrecisionRow, t: Timing, batch_size: int) -> None:
    """The row's times: median and IQR over its rounds' median blocks, the numbers the speed-up pairs
    (trial 7: a median of every block, 63.1 ms, beside a paired ratio from the rounds, 112x apart)."""
    row.rounds_ms = [round(x * 1e3, 6) for x in t.round_median_s]
    per_round = np.asarray(t.round_median_s or [t.median_s])
    median = float(np.median(per_round))
    row.latency_median_ms = round(median * 1e3, 6)
    row.latency_iqr_ms = round(float(np.subtract(*np.percentile(per_round, [75, 25]))) * 1e3, 6)
    row.throughput_samples_per_s = round(batch_size / median, 3)


def _speedups(rows: Sequence[PrecisionRow]) -> None:
    """Each reduced precision against fp32 of the same device, paired round by round."""
    fp32 = next((r for r in rows if r.precision == "fp32" and r.rounds_ms), None)
    for r in rows:
        if fp32 is None or r is fp32 or not r.rounds_ms or len(r.rounds_ms) != len(fp32.rounds_ms):
            continue
        pr = paired(fp32.rounds_ms, r.rounds_ms)  # fp32's time over this one's: > 1 = faster
        if pr is not None:
            r.speedup_vs_fp32, r.speedup_low, r.speedup_high = round(pr.median, 3), round(pr.low, 3), round(pr.high, 3)
            r.speedup_p_value, r.speedup_p_tier = round(pr.decided_p, 6), pr.tier
            r.speedup_verdict = {"higher": "faster", "lower": "slower"}.get(pr.verdict, NOT_DISTINGUISHABLE)
            if too_wide(pr.low, pr.high):  # no speed-up at all: the rounds did not share one load
                r.speedup_verdict = UNFAIR


def _row(
    module: Any,
    spec: Any,
    name: str,
    device: str,
    inputs: dict[str, np.ndarray],
    reference: dict[str, np.ndarray],
    here: Sequence[str],
    batch_size: int,
    threads: int | None,
) -> tuple[PrecisionRow, Callable[[], None] | None, float]:
    """The row of ``name`` on ``device`` with its errors filled in, the call to time (``None``: not run,
    the row says why) and its first call's time (s; the error check's, which predicts the timing's)."""
    import torch

    fact = kernel_precision(TORCH_KERNELS, name, device)
    row = PrecisionRow(
        runtime=RUNTIME,
        device=device,
        precision=name,
        method=METHOD,
        computes_in=fact.computes_in,
        batch_size=batch_size,
        threads=threads,
        rtol=precisions.get(name).rtol,
    )
    if device not in here:
        return _not_run(row, f"no {device.upper()} device on this host"), None, 0.0
    if fact.computes_in != name:
        return _not_run(row, f"{fact.why} (computes in {fact.computes_in})"), None, 0.0
    try:
        with torch.inference_mode():
            cast = prepare_module(module, name, spec).to(device)
            began = time.perf_counter()
            outputs = _outputs(cast, inputs, device, spec)
            first = time.perf_counter() - began
    except (RuntimeError, NotImplementedError) as e:
        if "not implemented for" in str(e):  # torch has no kernel of this dtype on this device
            return _not_run(row, f"torch has no {name} kernel for an operator on {device}: {str(e).splitlines()[0]}"), None, 0.0
        row.status, row.reason = "failed", failure_words(name, e)
        return row, None, 0.0
    cmp = compare_outputs(outputs, reference, row.rtol or precisions.get(name).rtol)
    row.max_abs_err = max(c.max_abs_err for c in cmp)
    row.max_rel_err = max(c.max_rel_err for c in cmp)
    row.within_rtol = all(c.passed for c in cmp)
    args = _tensors(inputs, device, spec)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

    def call() -> None:
        with torch.inference_mode():
            cast(*args)
        sync()

    return row, call, first


def failure_words(precision: str, error: BaseException) -> str:
    """Why a cast model's first call failed, as its row says it: torch's first line, and for a dtype mismatch what
    it means and what to do (trial 27, T27-9: a uint8 image model normalising inside forward() said only
    "RuntimeError: Input type (float) and bias type (c10::Half) should be the same")."""
    said = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    if not DTYPE_MISMATCH.search(str(error)):
        return said
    return (
        f"forward() makes float32 tensors itself (an integer input's `.float()`, a `torch.tensor`/`torch.zeros` of the "
        f"default dtype) that meet the weights cast to {precision}: the study casts the weights and floating inputs as "
        "the exports do (integer inputs stay as they are), so this model cannot run cast; to study it, convert inside "
        f"forward() to the weights' dtype (`x.to(self.<layer>.weight.dtype)`) — torch said: {said}"
    )


def _not_run(row: PrecisionRow, reason: str) -> PrecisionRow:
    row.status, row.reason, row.computes_in = "not run on this host", reason, row.computes_in
    row.max_abs_err = row.max_rel_err = row.within_rtol = None
    return row


def _tensors(inputs: dict[str, np.ndarray], device: str, spec: Any) -> list[Any]:
    import torch

    return [torch.from_numpy(np.ascontiguousarray(inputs[t.name])).to(device) for t in spec.inputs]


def _outputs(cast: Any, inputs: dict[str, np.ndarray], device: str, spec: Any) -> dict[str, np.ndarray]:
    out = cast(*_tensors(inputs, device, spec))
    out = out if isinstance(out, tuple) else (out,)
    return {t.name: o.float().cpu().numpy() if o.is_floating_point() else o.cpu().numpy() for t, o in zip(spec.outputs, out)}
