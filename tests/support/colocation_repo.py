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


#: The two models of four variants the colocate CLI tests run (their last digit: the instance count).
TWO_BY_TWO = {"big_x1": 1, "big_x2": 2, "small_x1": 1, "small_x2": 2}


def colocate_argv(root: Path, variants: Mapping[str, int] = TWO_BY_TWO) -> tuple[Path, Path, list[str]]:
    """The repository of ``variants`` (name -> instances) [default: :data:`TWO_BY_TWO`] and an idle perf_analyzer under
    ``root``, and the ``colocate`` arguments that name them, ``root/results`` and run id ``r``: ``(repository, results
    folder, arguments)``."""
    repo, results = variant_repo(root, variants), root / "results"
    pa = idle_perf_analyzer(root)
    return (
        repo,
        results,
        ["colocate", "-r", str(repo), "--results-dir", str(results), "--run-id", "r", "--perf-analyzer", str(pa)],
    )


def sqrt_costs(combination: Mapping[str, str]) -> dict[str, tuple[float, float]]:
    """Each model's (infer/s, p99 ms) in ``combination``: throughput grows with the square root of its instance count
    (the variant name's last digit), p99 5 ms."""
    return {m: ((1000.0 if m == "big" else 3000.0) * int(v[-1]) ** 0.5, 5.0) for m, v in combination.items()}
