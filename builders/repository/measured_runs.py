"""The runs of ``triton-perf sweep`` that measured variants of a model repository: looked up by every build line
that refuses, removes or replaces a measured variant, so each names the runs (trial 24, T24-16: the lines that
removed four measured ONNX variants named none, while the TorchScript line of the same build named its runs).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from builders.repository.build_lock import repository_lock
from core.wording import agree, count

log = logging.getLogger(__name__)

#: Where ``triton-perf sweep`` writes its runs by default (``perf.cli.runs.DEFAULT_RESULTS_DIR``); the runs
#: that measured a variant are looked for there, in the working folder and beside the repository (:func:`results_dirs`).
RESULTS_DIR = Path("results")
#: A run's record in its folder (``perf.records.results.RESULTS_FILE``).
RESULTS_FILE = "results.json"
#: The runs that measured a repository, wherever their results folder is (``--results-dir``): their run folders'
#: absolute paths, a JSON list in this file at the repository's root, written by :func:`record_run` when a sweep
#: makes (or resumes) its run folder. Triton serves the repository's model folders only; files at its root, as
#: ``index.json``, are not read (break-it s21k, item 1: a run in ``--results-dir other_results`` was not found, and a
#: rebuild wrote over and removed the variants it measured).
RUNS_FILE = ".runs.json"
#: A co-location run's record (``perf.records.colocation.COLOCATION_FILE``; builders does not import perf).
COLOCATION_FILE = "colocation.json"


def results_dirs(repo: Path, results_dir: Path = RESULTS_DIR) -> list[Path]:
    """The folders of runs looked in for those that measured variants of ``repo``, absolute, each once: ``results_dir``
    when another one is given; by default ``results`` of the working folder and ``results`` beside the repository,
    where a sweep of it from the project's folder keeps its runs (break-it F25: a rebuild from another folder looked in
    ``./results`` there only and said "no run in results measured them" while a run had)."""
    if Path(results_dir) != RESULTS_DIR:
        return [Path(results_dir).resolve()]
    return list(dict.fromkeys(p.resolve() for p in (RESULTS_DIR, Path(repo).resolve().parent / RESULTS_DIR)))


def recorded_runs(repo: Path) -> list[Path]:
    """The run folders :data:`RUNS_FILE` of ``repo`` lists that are still there, absolute, each once, in the order
    recorded; none when the file is missing or cannot be read (a folder since removed is passed over)."""
    try:
        listed = json.loads((Path(repo) / RUNS_FILE).read_text())
    except (OSError, ValueError):
        return []
    paths = [Path(p) for p in listed if isinstance(p, str) and Path(p).is_absolute()] if isinstance(listed, list) else []
    return [p for p in dict.fromkeys(paths) if p.is_dir()]


def record_run(repo: Path, run_dir: Path) -> None:
    """Add run folder ``run_dir`` (made absolute) to :data:`RUNS_FILE` of ``repo``, so that every build looks it up
    wherever its results folder is; folders since removed are dropped from the list. A repository that cannot be
    written (read-only) is said in a warning: the sweep goes on, and a build then finds the run only in the folders
    :func:`results_dirs` names."""
    repo, run = Path(repo), Path(run_dir).resolve()
    try:
        with repository_lock(repo):  # two sweeps of one repository: neither's line is lost
            runs = [str(p) for p in dict.fromkeys([*recorded_runs(repo), run])]
            fd, tmp = tempfile.mkstemp(dir=repo, prefix=f"{RUNS_FILE}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(json.dumps(runs, indent=1) + "\n")
                os.replace(tmp, repo / RUNS_FILE)  # a build reading it meanwhile reads the old list or the new
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    except OSError as e:
        log.warning(
            "could not record run %s in %s (%s): a rebuild of %s finds it only in %s; keep the run there, "
            "or make the repository writable",
            run,
            repo / RUNS_FILE,
            e,
            repo,
            " and ".join(str(d) for d in results_dirs(repo)),
        )


def where_runs(repo: Path, results_dir: Path = RESULTS_DIR) -> str:
    """Where :func:`results_dirs` looked, as a message says it: the folders that are there (``/p/results``, or
    ``/a/results and /p/results``), then those of runs :data:`RUNS_FILE` lists elsewhere (``/p/other_results``);
    none there: every folder looked in."""
    dirs = results_dirs(repo, results_dir)
    found = [d for d in dirs if d.is_dir()] or dirs
    return " and ".join(str(d) for d in dict.fromkeys([*found, *(r.parent for r in recorded_runs(repo))]))


def measured_words(repo: Path, ids: list[str], what: str = "it", results_dir: Path = RESULTS_DIR) -> str:
    """Which runs measured ``what`` (run ids ``ids``, from :func:`measuring_runs` or
    :func:`builders.repository.run_stamps.runs_of_content`), in the words every build line that removes, keeps or
    replaces a measured variant uses: ``"the runs s2, s3 in /p/results measured it"``, or ``"no run in /p/results
    measured it"`` (the folders looked in, :func:`where_runs`)."""
    where = where_runs(repo, results_dir)
    if not ids:
        return f"no run in {where} measured {what}"
    return f"the {agree(len(ids), 'run', 'runs')} {', '.join(ids)} in {where} measured {what}"


def removed_words(repo: Path, ids: list[str], results_dir: Path = RESULTS_DIR, *, dry_run: bool = False) -> str:
    """:func:`measured_words` of a variant removed from ``repo`` (a build's stale variant, ``make clean``), with what
    its removal costs the runs ``ids``: ``"the run s1 in /p/results measured it: its export-deployment and --resume
    refuse it now"``; ``"no run in /p/results measured it"``. Every line that removes a variant says it (trial 24,
    T24-16). ``triton-perf compare`` is not named: it reads the runs' numbers and recorded file digests, not the
    repository, and goes on comparing them (s22z, Z-9: the words said it refused). ``dry_run``: nothing is removed,
    so they ``would refuse it`` (trial 30, F14: ``builders remove --dry-run`` said "refuse it now")."""
    refuse = "would refuse it" if dry_run else "refuse it now"
    lost = f": {agree(len(ids), 'its', 'their')} export-deployment and --resume {refuse}" if ids else ""
    return measured_words(repo, ids, results_dir=results_dir) + lost


def removal_lines(repo: Path, names: list[str], done: str = "", *, dry_run: bool = False) -> list[tuple[str | None, str]]:
    """What removing variants ``names`` of ``repo`` costs the runs that measured them: ``(name, removed_words)`` for each
    variant a run measured, in the order given, then ``(None, "no run in /p/results measured them")`` (or "the other 2
    variants``, then ``done``: ``" deleted"``) for the rest. The one source of the runs lines of every command that deletes or drops variants
    (``make clean``, ``builders prune``, ``builders remove``, a build dropping entries whose folder is gone); each
    prefixes a line with the name as it says it. ``dry_run``: what removing them would cost (:func:`removed_words`)."""
    if not names:
        return []
    runs = measuring_runs(repo, names)
    lines: list[tuple[str | None, str]] = [(n, removed_words(repo, runs[n], dry_run=dry_run)) for n in names if n in runs]
    rest = len(names) - len(lines)
    if rest:
        lone = agree(len(names), "it", "them")  # one variant is "it" (was "measured them")
        lines.append((None, measured_words(repo, [], lone if not lines else f"the other {count(rest, 'variant')}{done}")))
    return lines


def run_files(repo: Path, results_dir: Path) -> list[Path]:
    """The runs' ``results.json`` files in :func:`results_dirs`, each folder's in name order, then those of the runs
    :data:`RUNS_FILE` of ``repo`` lists elsewhere (:func:`recorded_runs`), each file once: the one source of the runs
    that measured a repository, for every build line that refuses, removes or replaces a measured variant."""
    found = [p for d in results_dirs(repo, results_dir) for p in sorted(d.glob(f"*/{RESULTS_FILE}"))]
    listed = [r / RESULTS_FILE for r in recorded_runs(repo) if (r / RESULTS_FILE).is_file()]
    return list(dict.fromkeys(p.resolve() for p in [*found, *listed]))


def measuring_runs(repo: Path, names: Iterable[str], results_dir: Path = RESULTS_DIR) -> dict[str, list[str]]:
    """The runs in ``results_dir`` (``<run>/results.json``) that swept ``repo`` and measured
    one of ``names``: ``{variant: [run id, ...]}``, sorted; a file that cannot be read is passed over.

    A run measured a variant when its record holds a level of it with numbers (:func:`has_numbers`);
    a variant the run only planned, cut for time or failed is not measured by it (trial 19, T19-12)."""
    wanted, here = set(names), Path(repo).resolve()
    out: dict[str, list[str]] = {}
    for path in run_files(repo, results_dir):
        try:
            run = json.loads(path.read_text())
            swept = Path(run["settings"]["repository"]).resolve()
            measured = [v["name"] for v in run.get("variants", []) if v.get("name") in wanted and has_numbers(v)]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if swept != here:
            continue
        for name in measured:
            out.setdefault(name, []).append(str(run.get("run_id") or path.parent.name))
    return out


def has_numbers(variant: dict) -> bool:
    """Whether a variant record of a sweep's ``results.json`` holds a level with numbers: no error and
    a throughput above 0 (the rule of ``perf.records.levels.LevelResult.ok``, read from the file's fields)."""
    return any(
        isinstance(lv, dict) and lv.get("error") is None and (lv.get("throughput_infer_per_s") or 0) > 0
        for lv in variant.get("levels") or []
    )


def being_written(run_dir: Path) -> bool:
    """Whether a command is writing run folder ``run_dir`` (a sweep or its --resume, ``triton-perf baseline``,
    ``coldstart --into``, ``colocate``): it holds the kernel's exclusive lock on the folder
    (``perf.records.run_lock``), which a shared lock here cannot take; ``False`` when it is not a folder."""
    try:
        fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # closing lets go
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def writer_pid(run_dir: Path) -> str | None:
    """The pid of the process holding run folder ``run_dir``'s lock, as ``/proc/locks`` says it (Linux), else ``None``
    (the lock adds no file to a run folder, so no pid is written there)."""
    try:
        st = os.stat(run_dir)
        locks = Path("/proc/locks").read_text()
    except OSError:
        return None
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in locks.splitlines():
        parts = line.split()
        if "FLOCK" in parts and "WRITE" in parts and dev in parts and "->" not in parts:
            return parts[parts.index(dev) - 1]
    return None


def live_runs(repo: Path, names: Iterable[str] | None, results_dir: Path = RESULTS_DIR) -> list[str]:
    """The runs of ``repo`` still being written (:func:`being_written`) that plan or measured one of variants ``names``
    (``None``: any variant, for a command that deletes every build, as make clean does), one line each
    (``"t29c (/p/results/t29c, pid 4242)"``): a command that deletes those variants refuses while one is (trial 29,
    T29-7: ``builders remove`` deleted the variants a sweep was measuring; it ended rc 0 on variants gone). A run
    :data:`RUNS_FILE` lists whose record is not written yet counts: it may be about to load them."""
    wanted, here = None if names is None else set(names), Path(repo).resolve()
    listed = set(recorded_runs(repo))
    colocations = [p.parent.resolve() for d in results_dirs(repo, results_dir) for p in sorted(d.glob(f"*/{COLOCATION_FILE}"))]
    folders = list(dict.fromkeys([*(p.parent for p in run_files(repo, results_dir)), *colocations, *listed]))
    out: list[str] = []
    for folder in folders:
        if not being_written(folder):
            continue
        try:
            run, ours, planned = _planned(folder, here)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            ours, planned, run = folder in listed, set(wanted or ()), {}
        if ours and (wanted is None or planned & wanted):
            pid = writer_pid(folder)
            out.append(f"{run.get('run_id') or folder.name} ({folder}{f', pid {pid}' if pid else ''})")
    return out


def _planned(folder: Path, here: Path) -> tuple[dict, bool, set[str]]:
    """A run folder's record, whether it is of repository ``here`` and the variants it plans: a sweep's
    ``results.json``, else a co-location run's ``colocation.json`` (its models' variants; s23r, M4: a live
    ``triton-perf colocate`` was never seen). Raises OSError/ValueError/KeyError/TypeError when neither can be read."""
    if (folder / RESULTS_FILE).is_file() or not (folder / COLOCATION_FILE).is_file():
        run = json.loads((folder / RESULTS_FILE).read_text())
        planned = {str(v.get("name")) for v in run.get("variants", []) if isinstance(v, dict)}
        return run, Path(run["settings"]["repository"]).resolve() == here, planned
    run = json.loads((folder / COLOCATION_FILE).read_text())
    planned = {str(v) for m in run.get("models", []) for v in m.get("variants", [])}
    return run, Path(run["repository"]).resolve() == here, planned


def live_words(runs: list[str], what: str) -> str:
    """The refusal of ``what`` (``"nothing removed"``) while :func:`live_runs` ``runs`` measure the variants."""
    it = agree(len(runs), "it", "they")
    return (
        f"the {agree(len(runs), 'run', 'runs')} {', '.join(runs)} {agree(len(runs), 'is', 'are')} still being written "
        f"by a sweep, colocate or coldstart --into measuring these variants: {what}, so {it} can still load what {it} "
        + agree(len(runs), "measures", "measure")  # trial 30, F19: "so it can still load what it measure"
    )
