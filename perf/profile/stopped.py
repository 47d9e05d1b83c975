"""What ``triton-perf baseline`` (and the sweep's in-process baseline) keeps and says when Ctrl-C stops it.

A Ctrl-C used to end the baseline with a bare "aborted": nothing measured was shown or kept (issue 26,
trial 17). The points of one model are timed together in rounds (:func:`perf.profile.timing.time_interleaved`),
so a Ctrl-C keeps every model timed before it and, of the model it cut, the rounds timed whole
(:class:`perf.profile.timing.RoundsInterrupted`; none when it came in the first round). The baseline
then raises :class:`BaselineInterrupted` with that partial record, its notes naming what was not
measured; a run keeps it as its baseline (:func:`kept_in`), a repository's ``--out`` as baseline.json,
and the command shows it, names the rest and exits 130.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import cast

from core.console import interrupted_words, stop_name
from core.wording import of
from perf.profile.replacing import rest_words, short_words
from perf.records import results
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult
from perf.records.profile import STOPPED, PrecisionRow, ProfileRecord, RunStatus, TraceRecord
from perf.records.results import RunResult


def _status() -> RunStatus:
    """The status and words of what a stop left: ``interrupted (SIGTERM)``, what stopped it named (break-it F4:
    every one said "Ctrl-C")."""
    return cast(RunStatus, interrupted_words())


class BaselineInterrupted(KeyboardInterrupt):
    """A baseline stopped by Ctrl-C, with what it measured: still a ``KeyboardInterrupt`` to a caller that
    does not look for it.

    Args:
        result: The record of the points measured (rounds timed whole only); its notes name the models
            not measured or cut, as a time budget's cut is named.
    """

    def __init__(self, result: BaselineResult):
        super().__init__(interrupted_words())
        self.result = result
        self.stored: Path | None = None  # where it was kept (a run's results.json, baseline.json), once it was
        #: What measures the rest of a run's baseline once this was filed in it, as ``triton-perf baseline RUN`` would
        #: (:func:`~perf.profile.replacing.rest_words`); ``None``: not a run's, or it lacks nothing.
        self.rest: str | None = None


def stopped_notes(models: Sequence[str], rounds_done: int, rounds: int) -> list[str]:
    """The notes of the models a Ctrl-C left: the first one cut (timed in ``rounds_done`` of ``rounds``
    rounds, or not at all), the others not started."""
    first, *rest, stop = *models, interrupted_words()
    cut = f"timed in {rounds_done} of {rounds} rounds: {stop}" if rounds_done else f"not measured: {stop}"
    return [f"`{first}`: {cut}"] + [f"`{m}`: not measured: {stop} before it" for m in rest]


def interrupted_parts(
    stop: KeyboardInterrupt, points: Sequence[BaselinePoint], notes: Sequence[str], models: Sequence[str], rounds: int
) -> tuple[list[BaselinePoint], list[str]]:
    """What a Ctrl-C (``stop``) in :func:`perf.profile.baseline.run_baseline` adds to its ``points`` (those
    timed before it) and notes: the points of the rounds timed whole of the model it cut
    (:class:`perf.profile.timing.RoundsInterrupted`'s), and the notes of the ``models`` neither measured
    nor named in ``notes`` (the loop's so far: cut by the time budget)."""
    cut, said = list(getattr(stop, "points", [])), " ".join(notes)
    left = [m for m in models if m not in {p.key.model for p in points} and f"`{m}`:" not in said]
    return cut, stopped_notes(left, getattr(stop, "rounds", 0) if cut else 0, rounds) if left else []


@contextlib.contextmanager
def kept_in(run: RunResult, run_dir: Path, file: Callable[[RunResult, BaselineResult], None]) -> Iterator[None]:
    """Keep an interrupted baseline that measured a point in ``run`` as the same command's whole one is filed
    (``file``: :func:`~perf.profile.replacing.file_baseline`, the earlier one kept in ``replaced_baselines`` as
    ``--replace`` keeps it, or :func:`~perf.profile.replacing.add_owed`, added to the run's: review s23r, M3, a
    Ctrl-C filed the baseline of the owed variants over the whole run's) and save the run in ``run_dir``; the stop
    then says what measures the rest (:attr:`BaselineInterrupted.rest`)."""
    try:
        yield
    except BaselineInterrupted as stop:
        if any(p.ok for p in stop.result.points):
            file(run, stop.result)
            stop.stored = results.save(run, run_dir)
            stop.rest = rest_words(run, run_dir)
        raise


def interrupted_text(stop: BaselineInterrupted) -> str:
    """The closing line of an interrupted baseline: what it measured (the table above) and where that is
    kept, what it did not measure, and the command that measures it."""
    r = stop.result
    models = list(dict.fromkeys(t.key.model for t in r.targets))
    short = r.cut_short()  # timed in fewer rounds: not measured in full (trial 31, F11: "1 of 1 model measured")
    measured = [m for m in models if any(p.ok and p.key.model == m for p in r.points)]
    whole = [m for m in measured if m not in short]
    cut = [n.split("`")[1] for n in r.notes if any(s in n for s in STOPPED) and n.startswith("`")]
    unmeasured = [m for m in dict.fromkeys(cut) if m not in measured]
    line = f"{interrupted_words()}: in-process baseline of {of(len(whole), len(models), 'model')} measured in full"
    if short:
        line += f"; {short_words(r)}"
    if unmeasured:
        line += f"; not measured: {', '.join(unmeasured)}"
    line += f"; what it timed (the table above) is kept in {stop.stored}" if stop.stored is not None else "; nothing kept"
    if stop.stored is None:
        return f"{line}; the same command measures it"
    if stop.rest is not None:  # a run's: what `baseline RUN` would measure of it (s23s, s24b: --replace was advised)
        return f"{line}; {stop.rest}"
    return f"{line}; the same command with --replace measures every variant again (this one kept beside it)"


class ProfileInterrupted(KeyboardInterrupt):
    """``triton-perf baseline --trace/--precision`` stopped by Ctrl-C: still a ``KeyboardInterrupt`` to a caller
    that does not look for it.

    Args:
        record: The traces and precision rows measured before it (each whole: a trace written, a model's
            study done), the rest marked ``interrupted (Ctrl-C)`` (:data:`perf.records.profile.STOPPED`).
    """

    def __init__(self, record: ProfileRecord):
        super().__init__(interrupted_words())
        self.record = record
        self.stored: Path | None = None  # where it was kept (the run's results.json, profile.json), once it was


def stopped_trace(key: BaselineKey, at: tuple[int, str | None], in_flight: bool) -> TraceRecord:
    """The row of a trace a Ctrl-C left: the one it came in (``in_flight``: its file, if begun, not
    recorded) or one after it."""
    rec = TraceRecord(format=key.format, profiler="", device=key.device, batch_size=at[0], shape=at[1], threads=key.threads)
    rec.status, rec.reason = _status(), f"{stop_name()} came {'while it ran (not recorded)' if in_flight else 'before it'}"
    return rec


def stopped_study(precisions: Sequence[str], batch: int, in_flight: bool) -> list[PrecisionRow]:
    """The rows of a model's precision study a Ctrl-C left (``in_flight``: it came during that study, whose rows
    timed so far are dropped: the study's ratios pair its rows)."""
    when = "during this model's study (its rows dropped)" if in_flight else "before it"
    why = f"{stop_name()} came {when}"
    return [PrecisionRow("eager PyTorch", "cpu", p, "", status=_status(), reason=why, batch_size=batch) for p in precisions]


def interrupted_profile_text(record: ProfileRecord, stored: Path, folder: Path, what: str) -> str:
    """The closing line of an interrupted ``--trace``/``--precision`` that measured something: what it kept
    and where (``stored``; trace files in ``folder``/traces), what it left, and what measures that."""
    rows: list[TraceRecord | PrecisionRow] = [*record.traces, *record.precision]
    measured = sum(1 for r in rows if r.status == "measured")
    left = sum(1 for r in rows if r.status in STOPPED)
    kept = f"{of(measured, len(rows), 'trace or precision row')} measured before it, kept in {stored}"
    if record.traces:
        kept += f" (the trace files in {folder / 'traces'})"
    return (
        f"{interrupted_words()}: {what}: {kept}, shown above; {left} marked {_status()!r} (each row's reason names the "
        "command that measures it again; --replace keeps this record beside the new one)"
    )
