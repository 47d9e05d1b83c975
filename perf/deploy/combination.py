"""A deployment bundle of a co-location run's pick (``triton-perf export-deployment`` on a
``triton-perf colocate`` run): one model repository holding the chosen variant of each model.

Layout (default folder ``<run>/deployment-combination/``):

.. code-block:: text

    README.md                      the combination, why, what each model measured alone and co-located
    model_repository/<variant>/    one folder per model of the pick (copied, natively served)

Each variant is copied as :func:`perf.deploy.bundle.copy_variant` copies a single-model bundle's
(a python-served one rewritten for its native backend, and the README says so). Kubernetes
manifests are not written for a combination: the single-model manifests size one model's
instance group, not several sharing a pod.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path

from core.errors import PerfError
from perf.colocate import judge
from perf.deploy.bundle import README_FILE, copy_variant, source_variant
from perf.deploy.readme import BUNDLE_REPOSITORY
from perf.markdown import fmt
from perf.records import colocation
from perf.records.colocation import ColocationRecord

log = logging.getLogger(__name__)

#: The folder name of a combination's bundle in its run folder.
COMBINATION_DIR = "deployment-combination"


@dataclasses.dataclass(frozen=True)
class CombinationBundle:
    """What :func:`export_combination` wrote.

    Attributes:
        folder: The bundle folder.
        pick: Model -> the variant deployed.
        notes: One per variant whose serving changed (python backend -> native), in words.
    """

    folder: Path
    pick: dict[str, str]
    notes: tuple[str, ...]


def export_combination(run_dir: Path, out: Path | None = None, repository: Path | None = None) -> CombinationBundle:
    """Write the bundle of the run's pick (module docstring).

    Args:
        run_dir: A co-location run folder (``colocation.json``).
        out: Bundle folder [default: ``<run_dir>/deployment-combination``]; a previous one there is replaced.
        repository: The repository holding the variants [default: the one the run served].

    Raises:
        PerfError: the run picked no combination, or ``out`` holds something that is not a bundle.
        RepositoryError: a variant is not in the repository.
    """
    rec = colocation.load(run_dir)
    if rec.pick is None:
        raise PerfError(
            f"co-location run {rec.run_id} picked no combination: {rec.pick_reason}",
            hint="run triton-perf colocate again with a larger --latency-budget-ms or --time-budget",
        )
    repo = Path(repository) if repository else Path(rec.repository)
    out = Path(out) if out else Path(run_dir) / COMBINATION_DIR
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / README_FILE).is_file())):
        raise PerfError(
            f"{out} exists and is not a deployment bundle", hint="pass --out with a new folder or a previous bundle's"
        )
    variants = [source_variant(repo, v) for v in rec.pick.values()]  # every one checked before anything is written
    tmp = out.parent / f".{out.name}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        notes = tuple(n for rv in variants if (n := copy_variant(rv, tmp / BUNDLE_REPOSITORY)) is not None)
        (tmp / README_FILE).write_text("\n".join(readme_lines(rec, notes)) + "\n")
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.info("combination bundle written to %s", out)
    return CombinationBundle(out, dict(rec.pick), notes)


def readme_lines(rec: ColocationRecord, notes: tuple[str, ...]) -> list[str]:
    """The bundle's README: which variants, why, what each measured, how to serve them."""
    assert rec.pick is not None
    lines = [
        f"# Combination from co-location run {rec.run_id}",
        "",
        f"One server, one variant of each model: {judge.describe(rec.pick)}.",
        "",
        f"Why: {rec.pick_reason}.",
        "",
        f"p99 budget: {judge.budget_words(rec)}; required throughput: {judge.required_words(rec)}; "
        + (
            f"objective: the fewest instances ({rec.instances(rec.pick)} in all)."
            if rec.objective == "fewest-instances"
            else "objective: the highest weighted throughput."
        ),
        "",
    ]
    memory = {g.variant: g for g in rec.gpu_memory}
    for r in judge.neighbour_cost(rec):
        paired = r.paired.spread_text() if r.paired else "not measured in the same rounds"
        on_gpu = rec.model(r.model).gpus.get(r.variant)
        gpu = ""
        if on_gpu is not None:
            g = memory.get(r.variant)
            mib = "not measured" if g is None or g.delta_bytes is None else f"{g.delta_bytes / 2**20:,.0f} MiB at load"
            gpu = f"; KIND_GPU on {'GPU ' + ', '.join(map(str, on_gpu)) if on_gpu else 'every GPU'}, GPU memory {mib}"
        lines.append(
            f"- {r.model} = `{r.variant}` ({rec.model(r.model).instances_of(r.variant)} instance(s)): "
            f"{fmt(r.together, 0)} infer/s co-located, {fmt(r.alone, 0)} alone "
            f"(co-located / alone {paired}), p99 {'—' if r.p99_ms is None else f'{r.p99_ms:.3g}'} ms{gpu}"
        )
    lines += [
        "",
        "Serve it with every model loaded at start:",
        "",
        "```bash",
        f"tritonserver --model-repository=$PWD/{BUNDLE_REPOSITORY} --model-control-mode=none",
        "```",
        "",
        "No Kubernetes manifests are written for a combination (the single-model bundle's manifests size one model's "
        "instance group); the measured numbers above hold for the traffic mix the run sent: "
        + ", ".join(f"{m.name} at concurrency {m.concurrency}" for m in rec.models)
        + ".",
    ]
    return lines + (["", *notes] if notes else [])
