"""``triton-perf baseline --trace`` and ``--precision``: traces and the precision study of the
variants the baseline measures, stored with the run.

- ``--trace``: one batch per (model, format, device) the baseline plans (the eager model
  too), run the way the baseline runs it (:mod:`perf.profile.runners`: the served
  artifact through the python model's runner, with one served instance's threads), traced by
  :mod:`perf.profile.trace` into ``traces/`` of the run folder (or ``--out``);
- ``--precision``: :func:`perf.profile.precision_study.precision_study` of each model's eager
  module on the build's reference inputs, with the same threads and the baseline's
  ``--min-run-time`` per row.

Both run at the build's reference inputs, whose size (:func:`perf.profile.runners.reference_size`) each
record keeps beside its batch (the report says both: a sweep's levels may have sent other sizes), at
the largest batch the run's dynamic batcher formed at any input size for any variant of that format
(the study: of that model; :func:`perf.profile.plan.formed_batches`), else 1. For a run the record is stored as
``results.json``'s ``profile`` (``triton-perf report`` shows it); for a repository it is written to
``profile.json`` beside ``baseline.json``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from core.errors import PerfError, ToolkitError
from core.processes import raise_recorded_stop, recorded_stops
from core.records import RecordKind, load_record, write_record
from perf.measure.host import HostSampler
from perf.profile.baseline import busy_threshold
from perf.profile.checks import TRACES_DOING, refuse_unusable, run_repository
from perf.profile.plan import BaselineOptions, formed_batches, plan_targets
from perf.profile.precision_study import precision_study
from perf.profile.replacing import keep_replaced_profile, refuse_replacing, set_aside, traces_set_aside
from perf.profile.runners import (
    NotRunHere,
    artifact_call,
    baseline_keys,
    batch_inputs,
    cannot_run,
    eager_call,
    eager_module,
    reference_size,
    version_file,
)
from perf.profile.stopped import ProfileInterrupted, stopped_study, stopped_trace
from perf.profile.trace import trace_onnx, trace_torch
from perf.records import results
from perf.records.baseline import EAGER, BaselineKey
from perf.records.profile import CUT, STOPPED, PrecisionRow, ProfileRecord, TraceRecord
from perf.records.run_lock import holding_run

log = logging.getLogger(__name__)

#: The folder traces are written to, inside the run folder (or ``--out``).
TRACES_DIR = "traces"
#: The standalone file for a repository's profile (a run keeps it in results.json).
PROFILE_FILE = "profile.json"
PROFILE_KIND: RecordKind[ProfileRecord] = RecordKind(
    "profile file", ProfileRecord, 1, hint="write it again with `triton-perf baseline --trace/--precision`"
)


@recorded_stops()  # a stop a library swallows while a trace or a precision row runs still stops it
def profile_variants(
    opts: BaselineOptions,
    out_dir: Path,
    *,
    trace: bool = False,
    precisions: Sequence[str] = (),
    say: Callable[[str], None] | None = None,
) -> ProfileRecord:
    """Trace one batch per format and/or run the precision study of ``opts``' variants.

    Args:
        opts: The baseline's options (repository, run, variants, eager).
        out_dir: The run folder (or the repository baseline's ``--out``); traces go to
            ``out_dir/traces/`` and are recorded relative to ``out_dir``.
        trace: Write the traces.
        precisions: Precisions of the study (empty: no study).
        say: Called with a line as each trace is written and as each model's precision rows start timing
            (``None``: silent). ``opts.deadline`` (a time budget) bounds both: no trace starts after it,
            no precision round starts that would end after it (those left are ``cut for time``).

    Returns:
        The record (not saved: :func:`save_profile`).

    Raises:
        RepositoryError: unknown variants.
        ProfileInterrupted: Ctrl-C, with the record of what was measured before it (each trace, each
            model's study whole) and the rest marked ``interrupted (Ctrl-C)``.
    """
    planned, _notes = plan_targets(opts)
    record, stop = ProfileRecord(), None
    traced: set[tuple[str, str, str]] = set()
    studied: set[str] = set()
    largest = _largest_formed(opts, [t for t, *_ in planned])
    for target, rv, _fmt, file in planned:
        shape = _reference_size(rv)
        key = target.key
        keys = baseline_keys(key, rv, opts.eager)
        for k in keys if trace else []:
            if (k.model, k.format, k.device) in traced:
                continue
            traced.add((k.model, k.format, k.device))
            at = (largest[(k.model, k.format, k.device)], shape)
            was = stop
            if stop is None:
                try:
                    done = _timed_trace(k, rv, file, at, out_dir, opts, say)
                    raise_recorded_stop()  # one torch or onnxruntime made a "failed" trace of (trial 28, T28-11's kind)
                    record.traces.append(done)
                    continue
                except KeyboardInterrupt as e:  # what was measured is kept, the rest marked (issue 26)
                    stop = e
            record.traces.append(stopped_trace(k, at, in_flight=was is None))
        if precisions and key.model not in studied:
            studied.add(key.model)
            batch, was, rows = largest[(key.model, "", "")], stop, None
            if stop is None:
                try:
                    rows = _study(rv, key, batch, precisions, opts, say)
                    raise_recorded_stop()  # nor "failed" precision rows
                except KeyboardInterrupt as e:
                    stop = e
            rows = rows if rows is not None else stopped_study(precisions, batch, in_flight=was is None)
            record.precision += [dataclasses.replace(r, shape=shape) for r in rows]
    if stop is not None:
        raise ProfileInterrupted(record) from None
    return record


def _largest_formed(opts: BaselineOptions, targets: Sequence[Any]) -> dict[tuple[str, str, str], int]:
    """The largest batch the run's dynamic batcher formed (:func:`perf.profile.plan.formed_batches`, else 1)
    over every variant of each traced ``(model, format, device)`` (the eager model's: over all its formats) and of
    each studied model (``(model, "", "")``): the trace of a format was taken at the batch its first variant formed,
    a no-batching one's 1 in the demo (trial 14, T14-13: traced at batch 1 beside levels that formed 9)."""
    out: dict[tuple[str, str, str], int] = {}
    for target in targets:
        b, k = max(formed_batches(opts.run, target.variant), default=1), target.key
        for group in ((k.model, k.format, k.device), (k.model, EAGER, k.device), (k.model, "", "")):
            out[group] = max(out.get(group, 1), b)
    return out


def profile_target(
    target: Path,
    opts: BaselineOptions,
    out_dir: Path | None,
    *,
    trace: bool = False,
    precisions: Sequence[str] = (),
    repository: Path | None = None,
    say: Callable[[str], None] | None = None,
    replace: bool = False,
) -> tuple[ProfileRecord, Path]:
    """``triton-perf baseline TARGET --trace/--precision``: :func:`profile_variants` of a run folder
    (its repository, or ``repository``, its variants and formed batches; stored in its ``results.json``)
    or of a repository (written to ``out_dir/profile.json``); returns the record and the file.

    The part not asked for this time (the traces without ``trace``, the study without
    ``precisions``) is kept from the run's earlier record; the part asked for that the run has
    measured is refused unless ``replace`` (then kept in the record's ``replaced_traces`` /
    ``replaced_precision``, the files in ``traces/replaced-N/``: :mod:`perf.profile.replacing`);
    nothing is stored when nothing was traced or studied (:func:`refuse_nothing_profiled`).

    Raises:
        PerfError: a run whose variants are not in the repository (:func:`perf.records.measured_files.refuse_missing`)
            or changed, that has traces or a study asked for again without ``replace``, a repository
            without ``out_dir``, nothing traced or studied.
        RepositoryError: unknown variants.
    """
    if (target / results.RESULTS_FILE).is_file():  # from its read to its save: no other's measurements lost
        with holding_run(target, "this profile"):
            return _profile_target(target, opts, out_dir, trace, precisions, repository, say, replace)
    return _profile_target(target, opts, out_dir, trace, precisions, repository, say, replace)


def _profile_target(
    target: Path,
    opts: BaselineOptions,
    out_dir: Path | None,
    trace: bool,
    precisions: Sequence[str],
    repository: Path | None,
    say: Callable[[str], None] | None,
    replace: bool,
) -> tuple[ProfileRecord, Path]:
    """:func:`profile_target`, a run folder held."""
    earlier = None
    if (target / results.RESULTS_FILE).is_file():
        run = results.load(target)
        if not replace:
            refuse_replacing(run, baseline=False, trace=trace, precision=bool(precisions))
        repo = run_repository(run, repository)
        refuse_unusable(run, opts.variants, repo, TRACES_DOING)
        opts, out_dir, earlier = dataclasses.replace(opts, repository=repo, run=run), target, run.profile
    if out_dir is None:
        raise PerfError("no folder for the traces", hint="pass --out", flag="--out")
    in_file = (
        load_record(out_dir / PROFILE_FILE, PROFILE_KIND) if earlier is None and (out_dir / PROFILE_FILE).is_file() else None
    )
    stop: ProfileInterrupted | None = None
    with traces_set_aside(earlier or in_file, out_dir, trace) as moved:  # the earlier trace files, out of the new ones' way
        try:
            record = profile_variants(opts, out_dir, trace=trace, precisions=precisions, say=say)
        except ProfileInterrupted as e:  # what was measured before it is stored; nothing measured: nothing stored
            record, stop = e.record, e
        rows: list[TraceRecord | PrecisionRow] = [*record.traces, *record.precision]
        for r in rows:  # the report says what measures a cut one
            r.reason = (
                f"{r.reason}; {measures_again(target, trace, precisions, out_dir, r.status == CUT)}"
                if r.status in (CUT, *STOPPED)
                else r.reason
            )
        if stop is not None and not any(r.status == "measured" for r in rows):
            raise stop
        record = refuse_nothing_profiled(record)
    if in_file is not None and moved:  # a repository's earlier profile.json, kept by save_profile, names where they went
        for t in in_file.traces:
            t.file = moved.get(t.file or "", t.file)
        write_record(out_dir / PROFILE_FILE, PROFILE_KIND, in_file)
    if earlier is not None:  # what this call was not asked for stays as the run had it; what it replaced, beside
        keep_replaced_profile(earlier, record, moved, trace=trace, precision=bool(precisions))
    stored = save_profile(record, out_dir)
    if stop is not None:
        stop.stored = stored
        raise stop
    return record, stored


def measures_again(target: Path, trace: bool, precisions: Sequence[str], out: Path | None = None, budget: bool = True) -> str:
    """What measures a trace or precision row a time budget cut: ``"`triton-perf baseline RUN --profile-only
    --trace --precision fp32,fp16 --replace` measures it without a time budget"`` (``--replace``: the
    rows measured now are kept beside the new, :mod:`perf.profile.replacing`); of a repository, with the
    ``--out`` its profile.json is in (``out``: without it the command writes a new folder of its own); ``budget``
    off: a row a Ctrl-C left, said without the time budget's words."""
    into = f" --out {out}" if out is not None and Path(out) != Path(target) else ""
    again = f"triton-perf baseline {target}{into} --profile-only" + (" --trace" if trace else "")
    again += f" --precision {','.join(precisions)}" if precisions else ""
    return f"`{again} --replace` measures it" + (" without a time budget" if budget else "")


def refuse_nothing_profiled(record: ProfileRecord) -> ProfileRecord:
    """``record`` when a trace or a precision row of it was measured.

    Raises:
        PerfError: none was (every variant left out, failed or not runnable here): the reasons named,
            nothing stored.
    """
    rows: list[TraceRecord | PrecisionRow] = [*record.traces, *record.precision]
    if any(r.status == "measured" for r in rows):
        return record
    reasons = list(dict.fromkeys(f"{r.status}: {r.reason}" for r in rows))
    raise PerfError(
        f"no trace or precision row was measured ({'; '.join(reasons) or 'no variant the toolkit runs in-process'}); "
        "nothing was stored",
        hint="fix what the reasons name, or choose variants this host can run with --variants",
    )


def save_profile(record: ProfileRecord, out_dir: Path) -> Path:
    """Store ``record``: in ``out_dir/results.json`` (``profile``) when it is a run folder,
    else as ``out_dir/profile.json`` (an earlier one kept as ``profile.previous-N.json``); returns the file."""
    if (out_dir / results.RESULTS_FILE).is_file():
        run = results.load(out_dir)
        run.profile = record
        results.save(run, out_dir)
        return out_dir / results.RESULTS_FILE
    set_aside(out_dir / PROFILE_FILE)
    return write_record(out_dir / PROFILE_FILE, PROFILE_KIND, record)


def _reference_size(rv: Any) -> str | None:
    """:func:`perf.profile.runners.reference_size` of ``rv``; ``None`` when its reference data cannot be read
    (each trace and study row then says so when it fails to load them)."""
    try:
        return reference_size(rv)
    except ToolkitError:
        return None


def _timed_trace(
    key: BaselineKey,
    rv: Any,
    file: str,
    at: tuple[int, str | None],
    out_dir: Path,
    opts: BaselineOptions,
    say: Callable[[str], None] | None,
) -> TraceRecord:
    """:func:`_trace`, or ``cut for time`` when ``opts.deadline`` has passed; said as it ends."""
    what = f"trace of `{key.model}` {key.format} {key.device} b={at[0]}"
    if opts.deadline is not None and time.monotonic() >= opts.deadline:
        rec = TraceRecord(format=key.format, profiler="", device=key.device, batch_size=at[0], shape=at[1], threads=key.threads)
        rec.status, rec.reason = CUT, "the time budget ran out before it"
    else:
        began = time.monotonic()
        rec = _trace(key, rv, file, at, out_dir, busy_threshold(opts))
        what += f" ({time.monotonic() - began:.1f} s)"
    if say is not None:
        say(f"{what}: {rec.status}" + (f": {rec.reason}" if rec.reason else ""))
    return rec


def _trace(key: BaselineKey, rv: Any, file: str, at: tuple[int, str | None], out_dir: Path, threshold_pct: float) -> TraceRecord:
    """One batch of ``key`` traced at ``at`` (batch size, input size), with other processes' load while it ran
    (:mod:`perf.records.load`), or the record of why not."""
    profiler = "onnxruntime" if key.format == "onnx" else "torch.profiler"
    batch, shape = at
    rec = TraceRecord(format=key.format, profiler=profiler, device=key.device, batch_size=batch, shape=shape, threads=key.threads)
    reason = cannot_run(key)
    if reason is not None:
        rec.status, rec.reason = "not run on this host", reason
        return rec
    out = out_dir / TRACES_DIR / f"{key.model}_{key.format}_{key.precision}_{key.device}_b{batch}.json"
    try:
        inputs = batch_inputs(rv.reference()[0], batch)
        with HostSampler([os.getpid()]) as sampler:
            if key.format == "onnx":
                done = trace_onnx(
                    version_file(rv.folder, file), inputs, out, batch_size=batch, threads=key.threads, device=key.device
                )
            else:
                call = eager_call(rv, key.device) if key.format == EAGER else artifact_call(rv, key.format, file, key)
                with _torch_threads(key.threads):
                    done = trace_torch(
                        lambda: call(inputs), out, fmt=key.format, device=key.device, batch_size=batch, threads=key.threads
                    )
    except NotRunHere as e:
        rec.status, rec.reason = "not run on this host", str(e)
        return rec
    except (ToolkitError, RuntimeError, OSError, ValueError) as e:
        rec.status, rec.reason = "failed", f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
        log.warning("trace of %s %s failed: %s", key.model, key.format, rec.reason)
        return rec
    sampler.load(threshold_pct=threshold_pct).fill(done)
    done.file, done.shape = str(out.relative_to(out_dir)), shape
    return done


def _study(
    rv: Any, key: BaselineKey, batch: int, precisions: Sequence[str], opts: BaselineOptions, say: Callable[[str], None] | None
) -> list[PrecisionRow]:
    """The precision study of ``rv``'s eager model (one row saying why when it cannot load)."""
    try:
        module = eager_module(rv)
    except NotRunHere as e:
        return [
            PrecisionRow("eager PyTorch", "cpu", p, "", status="not run on this host", reason=str(e), batch_size=batch)
            for p in precisions
        ]
    with _torch_threads(key.threads):
        return precision_study(
            module,
            rv.spec,
            precisions,
            batch_size=batch,
            threads=key.threads,
            inputs=batch_inputs(rv.reference()[0], batch),
            min_run_time_s=opts.timing.min_run_time_s,
            rounds=opts.timing.rounds,
            host_busy_threshold_pct=busy_threshold(opts),
            deadline=opts.deadline,
            say=None if say is None else (lambda line: say(f"`{key.model}`: {line}")),
        )


@contextlib.contextmanager
def _torch_threads(threads: int | None) -> Iterator[None]:
    """Set torch's intra-op threads to ``threads`` (when given), restored afterwards."""
    import torch

    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
