"""The files a ``colocate`` run starts from, for tests that do not serve them: a repository of
variants with their instance counts, and a ``perf_analyzer`` that is found and never run.

- :func:`variant_repo`: ``root/repo`` with one model folder per variant, its config naming the
  variant's instance count (KIND_CPU; python backend unless told, one the bundled server has);
- :func:`idle_perf_analyzer`: an executable ``perf_analyzer`` that does nothing (the tests replace
  the measurement).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def variant_repo(root: Path, counts: Mapping[str, int], backend: str = "python") -> Path:
    """``root/repo`` with a folder (``1/`` and ``config.pbtxt``) per variant of ``counts`` (name ->
    instance count, KIND_CPU, max_batch_size 8, ``backend``); returns the repository."""
    repo = root / "repo"
    for name, count in counts.items():
        (repo / name / "1").mkdir(parents=True)
        (repo / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "{backend}"\nmax_batch_size: 8\ninstance_group {{ count: {count} kind: KIND_CPU }}\n'
        )
    return repo


def idle_perf_analyzer(folder: Path) -> Path:
    """An executable ``folder/perf_analyzer`` that does nothing; returns its path."""
    path = folder / "perf_analyzer"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path
