"""What ``triton-perf baseline RUN`` (and ``--trace``/``--precision``) would replace in a run: refused
unless ``--replace``, and kept beside the new when replaced (issue 26: nothing a user runs loses a
result; trial 14, T14-8: ``coldstart --into`` replaced the sweep's own cold starts, and ``baseline RUN``
replaced the baseline the sweep took right after its levels the same way).

- :func:`refuse_replacing`: one error naming each measurement of the run the command would replace
  and the ways on, before anything is measured;
- :func:`file_baseline`: a new baseline in the run, the one it replaces kept in ``replaced_baselines``;
- :func:`refuse_files` and :func:`set_aside`: a repository's ``baseline.json``/``profile.json`` in an
  ``--out`` that holds them: refused unless ``--replace``, the earlier file kept as ``NAME.previous-N.json``;
- :func:`traces_set_aside` and :func:`keep_replaced_profile`: the traces and precision rows a new
  profile replaces, kept in its ``replaced_traces``/``replaced_precision``, the trace files moved to
  ``traces/replaced-N/`` before the new ones are written over their names.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from core.errors import PerfError
from core.wording import count
from perf.analysis.baseline_owed import baseline_owed
from perf.markdown import previous_path
from perf.records.baseline import BaselineResult
from perf.records.profile import ProfileRecord
from perf.records.results import RunResult

log = logging.getLogger(__name__)

#: The folder (under the run's ``traces/``) replaced trace files are moved to: ``replaced-1``, ``replaced-2``...
REPLACED_TRACES = "replaced-{n}"


def held_parts(run: RunResult, *, baseline: bool, trace: bool, precision: bool) -> list[str]:
    """The measurements of ``run`` a command measuring these parts would replace, one phrase each
    (``"its in-process baseline (measured 2026-12-03 14:30:12: 40 of 40 points)"``); empty: it only adds."""
    parts = []
    b = run.baseline
    if baseline and b is not None and any(p.ok for p in b.points) and not baseline_owed(run):  # else it adds (T29-1)
        parts.append(f"its in-process baseline ({_measured(b)})")
    prof = run.profile
    traced = [t for t in prof.traces if t.status == "measured"] if prof is not None else []
    if trace and traced:
        parts.append(f"{count(len(traced), 'trace')} ({', '.join(dict.fromkeys(t.format for t in traced))})")
    rows = [r for r in prof.precision if r.status == "measured"] if prof is not None else []
    if precision and rows:
        parts.append(
            f"a precision study ({count(len(rows), 'measured row')}: {', '.join(dict.fromkeys(r.precision for r in rows))})"
        )
    return parts


def refuse_replacing(
    run: RunResult, *, baseline: bool, trace: bool = False, precision: bool = False, variants: Sequence[str] = ()
) -> None:
    """Refuse a command that would replace what ``run`` has measured (:func:`held_parts`), before it measures; a
    baseline of ``variants`` (the command's ``--variants``) that names one it cannot run, in their words first
    (:func:`refuse_unmeasurable`).

    Raises:
        PerfError: it would replace something; the message names each part and the ways on.
    """
    if baseline:
        refuse_unmeasurable(run, variants)
    parts = held_parts(run, baseline=baseline, trace=trace, precision=precision)
    if not parts:
        return
    only = "" if not baseline or len(parts) > 1 else "; `--profile-only --trace/--precision` keeps it and adds only those"
    short = run.baseline.cut_short() if baseline and run.baseline is not None else {}
    again = f" (times {', '.join(f'`{m}`' for m in short)} in all its rounds)" if short else ""
    raise PerfError(
        f"run {run.run_id} has {' and '.join(parts)}: measuring again would replace it, and nothing is measured "
        "over a run's results unasked",
        hint=f"`--replace` measures again{again} and keeps the earlier one in results.json (replaced_baselines, or the profile's "
        f"replaced_traces/replaced_precision, their files in traces/replaced-N/){only}",
    )


def file_baseline(run: RunResult, new: BaselineResult) -> None:
    """Put ``new`` in ``run`` as its baseline; the one it replaces, when it measured a point, is kept
    in ``run.replaced_baselines`` (``--replace``, or a resumed sweep measuring the baseline of more variants)."""
    old = run.baseline
    if old is not None and any(p.ok for p in old.points):
        run.replaced_baselines.append(old)
        log.info(replaced_line(old))
    run.baseline = new


def owed_only(run: RunResult, variants: Sequence[str]) -> list[str]:
    """The variants ``triton-perf baseline RUN`` measures in a run whose baseline lacks some
    (:func:`~perf.analysis.baseline_owed.baseline_owed`; trial 29, T29-1: the command a resume's skip named was refused
    as "has its in-process baseline"): those, the rest of the baseline kept; ``[]`` when the run has none (all are
    measured). ``variants``, the command's own, must name only such variants.

    Raises:
        PerfError: ``variants`` names one whose baseline the run has.
    """
    b = run.baseline
    owed = baseline_owed(run)
    refuse_unmeasurable(run, variants)
    if b is None or not any(p.ok for p in b.points) or not owed:
        return []
    if variants and (had := [n for n in run_names(run, variants) if n not in owed]):
        raise PerfError(
            f"run {run.run_id} has the in-process baseline of {', '.join(f'`{n}`' for n in had)} ({_measured(b)}): "
            "measuring it again would replace it, and nothing is measured over a run's results unasked",
            hint=f"drop --variants to measure the variants that lack it ({', '.join(f'`{n}`' for n in owed)}), "
            "or `--replace` measures every variant again, the earlier baseline kept in results.json",
        )
    asked = [n for n in owed if n in run_names(run, variants)] if variants else owed  # review s23r, m1: all owed
    log.info("%s", owed_line(b, asked))
    return asked


def owed_line(b: BaselineResult, asked: Sequence[str]) -> str:
    """What a baseline of the variants ``asked`` measures of a run's baseline ``b`` and what it keeps, in one line
    (``triton-perf baseline RUN``'s and a resumed sweep's): ``"measuring the in-process baseline of v2, which the run
    lacks; keeping the one of v1 (measured 2026-12-05 10:37:07: 10 of 10 points)"``."""
    kept = [t.variant for t in b.targets if t.variant not in asked]
    return (
        f"measuring the in-process baseline of {', '.join(asked)}, which the run lacks; keeping the one of "
        f"{', '.join(kept) or 'no other variant'} ({_measured(b)})"
    )


def refuse_unmeasurable(run: RunResult, variants: Sequence[str]) -> None:
    """Refuse a baseline of ``variants`` (``--variants`` of ``baseline RUN``) that names one the run's baseline records
    as one the in-process baseline cannot run (``unmeasurable``): each with why, and what to measure instead (s23s: it
    was refused as "has the in-process baseline of `B`", or "has its in-process baseline", which it has not).

    Raises:
        PerfError: ``variants`` names such a variant.
    """
    b = run.baseline
    cannot = [n for n in run_names(run, variants) if n in b.unmeasurable] if b is not None and variants else []
    if b is None or not cannot:
        return
    owed = baseline_owed(run)
    why = "; ".join(f"`{n}`: {b.unmeasurable[n]}" for n in cannot)
    instead = (
        f"drop {', '.join(f'`{n}`' for n in cannot)} from --variants; the variants that lack the baseline: "
        + ", ".join(f"`{n}`" for n in owed)
        if owed
        else f"drop {', '.join(f'`{n}`' for n in cannot)} from --variants: every other variant of the run has its baseline"
    )
    raise PerfError(
        f"run {run.run_id}: {'variant' if len(cannot) == 1 else 'variants'} {', '.join(f'`{n}`' for n in cannot)} "
        f"cannot be measured in-process ({why}), so no in-process baseline is measured for it",
        hint=f"{instead}; its numbers on the server stand in the report without one",
    )


def add_owed(run: RunResult, new: BaselineResult) -> None:
    """Add ``new``, the baseline of the variants ``run``'s lacked (:func:`owed_only`), to the run's: its targets, in
    place of those variants' earlier ones (review s23r, m2: a target whose key was never timed stayed, and the variant
    owed), the variants it cannot run (``unmeasurable``) and the points of keys the run's did not time (a variant
    sharing a measured artifact, device and threads adds none). A model the run's timed in fewer rounds
    (:meth:`~perf.records.baseline.BaselineResult.cut_short`) that ``new`` timed in more takes ``new``'s points, the
    earlier baseline kept in ``replaced_baselines`` (a resume measures it again: s24b); the earlier notes of the models
    ``new`` timed (```m`: not measured: ...``) go, ``new``'s own say what became of them."""
    b = run.baseline
    assert b is not None
    retimed = {m for m, n in b.cut_short().items() if _rounds_of(new, m) > n}
    if retimed:  # its points replaced: the earlier record kept, as --replace keeps it
        run.replaced_baselines.append(copy.deepcopy(b))
        b.points = [p for p in b.points if p.key.model not in retimed]
    now = {p.key.model for p in new.points}
    b.notes = [n for n in b.notes if not (said := _models_said(n)) or not said <= now]
    timed = {(p.key, p.batch_size, p.shape) for p in b.points}
    planned = {t.variant for t in new.targets} | set(new.unmeasurable)
    b.targets = [t for t in b.targets if t.variant not in planned] + new.targets
    b.unmeasurable = {**{n: w for n, w in b.unmeasurable.items() if n not in planned}, **new.unmeasurable}
    b.points += [p for p in new.points if (p.key, p.batch_size, p.shape) not in timed]
    b.notes += [*new.notes, f"the baseline of {', '.join(t.variant for t in new.targets)} added {new.created}"]


def _rounds_of(b: BaselineResult, model: str) -> int:
    """The rounds ``model`` was timed in by ``b`` (:meth:`~perf.records.baseline.BaselineResult.rounds_timed`); 0: none."""
    points = [p for p in b.points if p.key.model == model]
    return BaselineResult.rounds_timed(points, b.settings.rounds) if points else 0


def _models_said(note: str) -> set[str]:
    """The models a baseline's note is of: those named in backquotes before its first ``": "`` (```kws`: timed in 3 of 8
    rounds``, ``in-process baseline cut for time (`mobilenet`, `kws`): ...``); empty for any other note."""
    return set(re.findall(r"`([^`]+)`", note.split(": ", 1)[0]))


def rest_words(run: RunResult, run_dir: Path | str) -> str | None:
    """What measures the in-process baseline ``run`` (in ``run_dir``) lacks after a stop (Ctrl-C) or the time budget cut
    it, as ``triton-perf baseline RUN`` would do it: the variants that lack it (:func:`~perf.analysis.baseline_owed.
    baseline_owed`) by the command itself, the rest kept (s23s, s24b: ``--replace`` was advised, which measures every
    variant again); the models timed in fewer rounds (:meth:`~perf.records.baseline.BaselineResult.cut_short`: not
    owed, their points kept) only by ``--replace``; ``None`` when the run lacks nothing of it."""
    b = run.baseline
    owed, short = baseline_owed(run), b.cut_short() if b is not None else {}
    words = []
    if owed:
        names = ", ".join(f"`{n}`" for n in owed)
        words.append(f"`triton-perf baseline {run_dir}` measures the baseline the run lacks ({names}), keeping the rest")
    if short and b is not None:
        timed = ", ".join(f"`{m}` in {n} of {b.settings.rounds} rounds" for m, n in short.items())
        words.append(
            f"`triton-perf baseline {run_dir} --replace` measures every variant again, the models timed in fewer "
            f"rounds too ({timed}; the baseline it replaces kept beside it in results.json)"
        )
    return "; ".join(words) or None


def run_names(run: RunResult, patterns: Sequence[str]) -> list[str]:
    """The variants of ``run`` that ``patterns`` (names or shell patterns) match."""
    import fnmatch

    return [v.name for v in run.variants if any(fnmatch.fnmatchcase(v.name, p) for p in patterns)]


def replaced_line(old: BaselineResult) -> str:
    """The one line ``--replace`` says of the run's baseline it replaced (re-check 14, NEW-5: nothing on the
    console said so, while ``coldstart --replace`` names what it replaced): ``"replaced the run's in-process
    baseline (measured 2026-12-03 14:30:12: 40 of 40 points; kept in results.json as its replaced_baselines)"``."""
    return f"replaced the run's in-process baseline ({_measured(old)}; kept in results.json as its replaced_baselines)"


def _measured(b: BaselineResult) -> str:
    """``"measured 2026-12-03 14:30:12: 40 of 40 points"``: when a baseline was measured and what it measured, and the
    models timed in fewer rounds (:func:`short_words`; trial 31, F11: a baseline cut short by Ctrl-C after 2 of its 8
    rounds was refused as "14 of 14 points", the reason to pass --replace unsaid)."""
    ok = sum(1 for p in b.points if p.ok)
    short = f"; {short_words(b)}" if b.cut_short() else ""
    return f"measured {b.created[:19].replace('T', ' ')}: {ok} of {len(b.points)} points{short}"


def short_words(b: BaselineResult) -> str:
    """The models of ``b`` timed in fewer rounds than planned (:meth:`~perf.records.baseline.BaselineResult.cut_short`),
    with what cut them where its note says (a Ctrl-C, the time budget): ```mlp` timed in only 2 of its 8 rounds (cut
    short: interrupted (Ctrl-C))``; ``""`` when every model had them all."""
    words = []
    for model, n in b.cut_short().items():
        note = next((x for x in b.notes if x.startswith(f"`{model}`: timed in ") and " rounds: " in x), "")
        why = f"cut short: {note.split(' rounds: ', 1)[1]}" if note else "cut short"
        words.append(f"`{model}` timed in only {n} of its {b.settings.rounds} rounds ({why})")
    return "; ".join(words)


def refuse_files(out_dir: Path, names: Sequence[str]) -> None:
    """Refuse writing a repository's baseline or profile (``names``) into an ``--out`` that holds one.

    Raises:
        PerfError: ``out_dir`` holds a file of ``names``; the message names each and the ways on.
    """
    there = [n for n in names if (out_dir / n).is_file()]
    if there:
        raise PerfError(
            f"{out_dir} holds {' and '.join(there)} of an earlier measurement: writing again would replace it",
            hint="pass another --out (by default a new results/baseline-<timestamp>), or --replace: the earlier "
            "file is kept beside it as NAME.previous-N.json",
        )


def set_aside(path: Path) -> Path | None:
    """Move an earlier ``path`` to the next free ``NAME.previous-N.json`` beside it (what ``--replace``
    keeps of a repository's ``baseline.json``/``profile.json``); returns where, ``None`` when there was none."""
    if not path.is_file():
        return None
    kept = previous_path(path)  # the one naming rule of kept copies (a bundle's, a report's)
    path.rename(kept)
    log.warning("the earlier %s is kept as %s", path.name, kept.name)
    return kept


@contextlib.contextmanager
def traces_set_aside(earlier: ProfileRecord | None, out_dir: Path, trace: bool) -> Iterator[dict[str, str]]:
    """With ``trace``: move ``earlier``'s trace files out of the new traces' way, into the next free
    ``out_dir/traces/replaced-N/``, for the time the new ones are written; yields old path -> new path
    (relative to ``out_dir``). When the block fails (nothing measured, Ctrl-C) they are moved back."""
    files = [t.file for t in earlier.traces if t.status == "measured" and t.file] if earlier and trace else []
    files = [f for f in dict.fromkeys(files) if (out_dir / f).is_file()]
    traces = out_dir / Path(files[0]).parent if files else out_dir  # the run's traces/ folder
    n = 1
    while (traces / REPLACED_TRACES.format(n=n)).exists():
        n += 1
    folder = traces / REPLACED_TRACES.format(n=n)
    moved = {f: str((folder / Path(f).name).relative_to(out_dir)) for f in files}
    for old, new in moved.items():
        (out_dir / new).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(out_dir / old), out_dir / new)
    try:
        yield moved
    except BaseException:
        for old, new in moved.items():
            shutil.move(str(out_dir / new), out_dir / old)
        if moved:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def keep_replaced_profile(
    earlier: ProfileRecord, record: ProfileRecord, moved: dict[str, str], *, trace: bool, precision: bool
) -> None:
    """Carry ``earlier``'s kept parts into the new ``record``: the part not asked for this time as it
    was, the part asked for (its measured rows) into ``replaced_traces``/``replaced_precision``, each
    replaced trace's ``file`` where :func:`traces_set_aside` moved it (``moved``)."""
    record.replaced_traces = list(earlier.replaced_traces)
    record.replaced_precision = list(earlier.replaced_precision)
    record.traces = record.traces if trace else earlier.traces
    record.precision = record.precision if precision else earlier.precision
    if precision:
        record.replaced_precision += [r for r in earlier.precision if r.status == "measured"]
    if trace:
        old = [t for t in earlier.traces if t.status == "measured"]
        for t in old:
            t.file = moved.get(t.file or "", t.file)
        record.replaced_traces += old
