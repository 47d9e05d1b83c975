"""Whether a run's written report is of its record now: the report records the state of the run's record it was
written from (:func:`record_written`: a digest of each part of ``results.json`` or ``colocation.json``, in the report
folder's :data:`STATE_FILE`), and every save of the record (:func:`perf.records.results.save`,
:func:`perf.records.colocation.save`) marks a report written from an earlier state out of date at its top
(:func:`mark_outdated`), report.md and appendix.md, and the commands that saved say so at their end
(:func:`outdated_text`). s22z, Z-13: a ``--resume --no-report`` changed the run's pick, and the run folder kept the
older report.md, appendix.md and plots naming the old pick with no mark; ``coldstart --into``, ``baseline RUN``,
``baseline --trace`` and a killed resume save the record without writing the report too. Nothing is deleted: the
marked files stay until ``triton-perf report`` rewrites them (the mark is recorded as the toolkit's own writing,
:data:`perf.markdown.WRITTEN_FILE`, so that rewrite does not keep them aside as edited). A report written before
its state was recorded has no :data:`STATE_FILE`: it cannot be told, and is left as it is."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: The record, in each folder a report is written into, of the state of the run's record it was written from.
STATE_FILE = ".report_state.json"
#: The files a mark goes into (the plots cannot hold one: the mark in report.md names them).
MARKED_FILES = ("report.md", "appendix.md")
#: How a marked file's first words after its title begin (and how a mark is found again).
MARK = "> **Out of date**:"


def _sessions(data: dict) -> Any:  # a session's report time is recorded after its report: not a change of state
    return [{k: v for k, v in s.items() if k != "report_s"} for s in data.get("sessions") or [] if isinstance(s, dict)]


def _variants(data: dict, cold: bool) -> Any:
    cold_keys = ("cold_start", "replaced_cold_starts")
    return [
        {k: v for k, v in var.items() if (k in cold_keys) == cold} for var in data.get("variants") or [] if isinstance(var, dict)
    ]


#: Each part of a record (a ``results.json`` or ``colocation.json`` decoded) that a report is written from, and the
#: words for a change of it; what no part names is ``"measurements"`` (a co-location run's steps and visits...).
PARTS: dict[str, tuple[Callable[[dict], Any], str]] = {
    "sessions": (_sessions, "a later session of the run (--resume)"),
    "variants": (lambda d: _variants(d, cold=False), "further measurements of its variants"),
    "cold starts": (lambda d: _variants(d, cold=True), "a cold start recorded into it (`triton-perf coldstart --into`)"),
    "baseline": (
        lambda d: [d.get("baseline"), d.get("replaced_baselines")],
        "its in-process baseline measured (`triton-perf baseline`)",
    ),
    "profile": (lambda d: d.get("profile"), "profiler traces or the precision study (`triton-perf baseline --trace`)"),
}
_NAMED = {"sessions", "variants", "baseline", "replaced_baselines", "profile"}
OTHER = "measurements"


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def state(data: dict) -> dict[str, str]:
    """Each part's digest of a decoded record (:data:`PARTS`, the rest as :data:`OTHER`)."""
    parts = {name: _digest(get(data)) for name, (get, _) in PARTS.items()}
    return {**parts, OTHER: _digest({k: v for k, v in data.items() if k not in _NAMED})}


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def record_written(folder: Path, record: Path, room: tuple[int, int] | None = None) -> None:
    """Record in ``folder`` (where a report was just written) the state of ``record`` (the run's ``results.json`` or
    ``colocation.json``) it was written from; a record not readable is left unrecorded (the report is then not
    told out of date). ``room``: the read lines report.md may still grow by within its bound, and the width its lines
    fold at (:mod:`perf.report.layout`): its mark is kept within them (:func:`mark_outdated`)."""
    data = _read(Path(record))
    if data is None:
        return
    stamp = {
        "record": Path(record).name,
        "written": datetime.now().isoformat(timespec="seconds"),
        "state": state(data),
        "sessions": len(_sessions(data)),
        **({"room": list(room)} if room else {}),
    }
    (Path(folder) / STATE_FILE).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _folders(run_dir: Path) -> list[Path]:  # the run's report, then each what-if view's (report-<what differs>/)
    return [d for d in (run_dir, *sorted(run_dir.glob("report-*/"))) if (d / STATE_FILE).is_file()]


#: The run's record as read once for every report folder of a run (:func:`_current`): its decoded data and their
#: :func:`state`, ``None`` when it cannot be read.
Current = tuple[dict, dict[str, str]] | None


def _current(run_dir: Path, record_file: str) -> Current:
    """The run's record and its state, read and digested once for all its report folders (a what-if view each; a
    2.9 MB results.json of 200 variants takes about 45 ms to read and digest, at every save of the record)."""
    data = _read(Path(run_dir) / record_file)
    return None if data is None else (data, state(data))


def changes(folder: Path, run_dir: Path, record_file: str, current: Current | bool = True) -> str | None:
    """What changed in the run's record since the report in ``folder`` was written, in words (``"written 07:53:01,
    before a later session of the run (--resume, started 07:53:40)"``); ``None`` when nothing did, or it cannot
    be told (no state recorded, a record not readable). ``current``: the record as :func:`_current` read it for
    every folder of the run (``True``: read here)."""
    stamp = _read(folder / STATE_FILE)
    if stamp is None or not isinstance(stamp.get("state"), dict) or stamp.get("record") != record_file:
        return None
    current = _current(run_dir, record_file) if current is True else current
    if not current:
        return None
    data, now = current
    changed = [name for name, digest in now.items() if stamp["state"].get(name) != digest]
    if not changed:
        return None
    words, sessions = [], _sessions(data)
    later = len(sessions) > (stamp.get("sessions") or 0)
    for name in changed:
        if name == "sessions" and later:
            words.append(f"a later session of the run (--resume, started {_clock(str(sessions[-1].get('started', '')))})")
        elif name == "cold starts" and _cold_by(data, len(sessions)) and later:  # not `coldstart --into` (T29-2)
            words.append("cold starts that session measured")
        elif name != OTHER or "variants" not in changed:  # "further measurements" once (trial 29, T29-2)
            words.append(PARTS[name][1] if name in PARTS else f"further {OTHER}")
    return f"written {_clock(str(stamp.get('written', '')))}, before {', '.join(dict.fromkeys(words))}"


def _cold_by(data: dict, session: int) -> bool:
    """Whether a cold start of the record was measured by sweep session ``session`` (1 first): a resume loads the
    variants it measures and records their cold starts itself; ``triton-perf coldstart --into`` records none."""
    colds = [v.get("cold_start") for v in data.get("variants") or [] if isinstance(v, dict)]
    return any(isinstance(c, dict) and c.get("session") == session for c in colds)


def _clock(iso: str) -> str:  # "2026-12-05T07:53:01" -> "2026-12-05 07:53:01"
    return iso.replace("T", " ").split(".")[0] or "at a time not recorded"


def _command(folder: Path, run_dir: Path) -> str:
    if folder == run_dir:
        return f"`triton-perf report {run_dir}` rewrites them"
    return f"`triton-perf report {run_dir}` with the options this view's folder name says ({folder.name}) rewrites them"


def mark_outdated(run_dir: Path, record_file: str) -> None:
    """Mark every report of the run (its own, each what-if view's) written from an earlier state of its record
    (:func:`changes`) out of date: one line after report.md's and appendix.md's title (:data:`MARK`), once, what
    changed and the command that rewrites them. Called after every save of the record; a file not writable is
    logged and left as it is."""
    from perf.markdown import mark_written

    run_dir = Path(run_dir)
    current: Current | bool = True  # read once, for the first folder not marked yet
    for folder in _folders(run_dir):
        stamp = _read(folder / STATE_FILE) or {}
        if stamp.get("marked"):
            continue
        current = _current(run_dir, record_file) if current is True else current
        if (what := changes(folder, run_dir, record_file, current)) is None:
            continue
        line = (
            f"{MARK} written from the run's {record_file} {what}: its numbers and pick may not be the run's now, nor "
            f"those of appendix.md and the plots beside it; {_command(folder, run_dir)}."
        )
        room, width = stamp.get("room") or (None, 1)
        short = f"{MARK} the run changed since; appendix.md at its top says how, and what rewrites them."
        try:
            for name in MARKED_FILES:  # report.md's bound kept (trial 29, T29-8: 248 -> 252 read lines)
                if (folder / name).is_file() and name == "report.md" and room is not None and 1 + -(-len(line) // width) > room:
                    mark_written(folder / name, short, blank=False)  # one read line, kept free by its layout
                elif (folder / name).is_file():
                    mark_written(folder / name, line)
            (folder / STATE_FILE).write_text(
                json.dumps({**stamp, "marked": True}, indent=1, sort_keys=True) + "\n", encoding="utf-8"
            )
        except OSError as e:
            log.warning("%s is out of date (%s) and could not be marked so: %s", folder / "report.md", what, e)


def outdated_text(run_dir: Path, record_file: str = "results.json") -> str | None:
    """The console's words on a report of the run written from an earlier state of its record (said at the end of a
    command that saved it and wrote no report), ``None`` when none is."""
    run_dir = Path(run_dir)
    said = []
    folders = [f for f in _folders(run_dir) if (f / "report.md").is_file()]
    current = _current(run_dir, record_file) if folders else None
    for folder in folders:
        if (what := changes(folder, run_dir, record_file, current)) is not None:
            where = "report.md" if folder == run_dir else f"{folder.name}/report.md"
            said.append(
                f"{where} in {run_dir} is out of date ({what}): it may name another pick than {record_file} now, and "
                f"says so at its top; {_command(folder, run_dir).replace('them', 'it')}"
            )
    return "; ".join(said) or None
