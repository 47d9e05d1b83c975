"""``make clean``: delete what builds made, keep what a user wrote (trial 8 F14).

What builds made: ``builds/``, the variant folders ``model_repository/index.json`` lists and that
index. A folder in ``model_repository/`` the index does not list (a hand-written model, which
``builders validate`` invites and every command's default ``-r`` serves) is kept and named; so is
every file there but the index (``README.md``). Sweep results (``results/``) are never touched
(``make clean-results``). Standard library only: ``make clean`` works without the virtual
environment (``python3 -m builders.repository.clean``, run from the checkout's root).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

from builders.repository.build_lock import holder
from builders.repository.measured_runs import live_runs, live_words, removal_lines
from core.errors import RecordError
from core.names import read_text

#: The folders a build writes, relative to where ``make`` runs (the checkout's root).
BUILDS, REPOSITORY, INDEX = Path("builds"), Path("model_repository"), "index.json"


@dataclasses.dataclass
class Cleaned:
    """What :func:`clean` did.

    Attributes:
        deleted: The folders and files deleted, as paths under ``root``.
        kept: The model folders kept (no build listed them).
        note: Why no variant folder was deleted, when the index could not be read or a build is at
            work (else ``None``).
        busy: A build was at work (:mod:`builders.repository.build_lock`): nothing was deleted.
        runs: What the variant folders deleted were measured by: one line per folder a sweep's run measured, naming
            the runs and what its removal costs them, then one for the others (the words of a build's removal lines,
            :func:`builders.repository.measured_runs.removed_words`; trial 24, T24-16: they named no run).
    """

    deleted: list[str] = dataclasses.field(default_factory=list)
    kept: list[str] = dataclasses.field(default_factory=list)
    note: str | None = None
    busy: bool = False
    runs: list[str] = dataclasses.field(default_factory=list)


def _listed(index: Path) -> list[str]:
    """The variant names ``index`` lists (plain folder names only).

    Raises:
        ValueError: the index is not JSON or not the repository index's form.
    """
    data = json.loads(read_text(index, "repository index", "JSON", RecordError))
    entries = data.get("variants") if isinstance(data, dict) else None
    names = [v.get("name") if isinstance(v, dict) else None for v in entries] if isinstance(entries, list) else None
    if names is None or not all(isinstance(n, str) for n in names):
        raise ValueError("not a repository index (no list of variants with names)")
    return [n for n in names if n and Path(n).name == n and n not in (".", "..")]


def clean(root: Path) -> Cleaned:
    """Delete ``root/builds``, the variant folders ``root/model_repository/index.json`` lists and
    the index; keep every other folder and file of the repository.

    Args:
        root: Where ``make`` runs (the checkout's root).

    Returns:
        What was deleted and kept; an unreadable index deletes no variant folder and says why; a
        build at work in ``root/builds`` deletes nothing (trial 17, T17-9: it would lose its files).
    """
    out = Cleaned()
    at_work = [f"{BUILDS / d.name}/ (pid {pid})" for d in _folders(root / BUILDS) if (pid := holder(d))]
    if at_work:
        out.busy = True
        out.note = (
            f"a build is at work in {', '.join(at_work)}: nothing deleted (a build writes {BUILDS}/ and {REPOSITORY}/); "
            "run make clean again when it ends"
        )
        return out
    live = live_runs(root / REPOSITORY, None)  # any run of the repository: make clean deletes every build in builds/
    if live:  # trial 29, T29-7: a run measuring the variants would go on over deleted folders
        out.busy = True
        out.note = live_words(live, "nothing deleted") + "; run make clean again when it ends (Ctrl-C stops it)"
        return out
    if (root / BUILDS).exists():
        shutil.rmtree(root / BUILDS)
        out.deleted.append(f"{BUILDS}/")
    repo = root / REPOSITORY
    index = repo / INDEX
    listed: list[str] = []
    if index.is_file():
        try:
            listed = _listed(index)
        except (OSError, ValueError, RecordError) as e:
            out.note = (
                f"{REPOSITORY / INDEX} cannot be read ({getattr(e, 'message', e)}): no model folder deleted, the index kept"
            )
        else:
            index.unlink()
            out.deleted.append(str(REPOSITORY / INDEX))
    folders = [name for name in listed if (repo / name).is_dir()]
    out.runs = _runs_lines(repo, folders)
    for name in folders:
        shutil.rmtree(repo / name)
        out.deleted.append(f"{REPOSITORY / name}/")
    if repo.is_dir():
        out.kept = sorted(f"{REPOSITORY / d.name}/" for d in repo.iterdir() if d.is_dir() and d.name not in listed)
    return out


def _runs_lines(repo: Path, names: list[str]) -> list[str]:
    """:attr:`Cleaned.runs` of deleting the variant folders ``names`` of ``repo``
    (:func:`builders.repository.measured_runs.removal_lines`)."""
    return [f"deleted {REPOSITORY / n}/: {words}" if n else words for n, words in removal_lines(repo, names, " deleted")]


def _folders(builds: Path) -> list[Path]:
    """The build folders in ``builds`` (none when it is missing)."""
    return sorted(d for d in builds.iterdir() if d.is_dir()) if builds.is_dir() else []


def main() -> None:
    """``make clean``: :func:`clean` of the current folder, saying what it deleted and kept."""
    done = clean(Path.cwd())
    lines = [f"deleted: {', '.join(done.deleted)}" if done.deleted else "nothing a build made is left to delete"]
    lines = [] if done.busy else lines + done.runs
    if done.kept:
        lines.append(f"kept (no build listed them in {REPOSITORY / INDEX}): {', '.join(done.kept)}")
    if done.note:
        lines.append(done.note)
    sys.stdout.write("\n".join(lines) + "\n")
    if done.busy:
        sys.exit(1)


if __name__ == "__main__":
    main()
