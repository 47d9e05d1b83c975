"""The bundles in a run's folder that are of an earlier pick (:func:`stale_bundles`): a bundle of the run's
recommendation whose variant a later ``--resume`` no longer picks (trial 22, F-stale-bundle: after the resume changed
the pick, the bundle's README still said "The run's recommendation" and neither the resume's end nor report.md said
the run folder held a bundle of a variant no longer picked). Said by the report's console (a sweep's and a resume's
end), report.md's Recommendation (given to :func:`perf.report.write.write_report` by its caller) and
``export-deployment``."""

from __future__ import annotations

from pathlib import Path

from core.errors import PerfError
from perf.deploy.choose import choose_variant
from perf.deploy.pick_state import BUNDLE_PREFIX, RECOMMENDATION_WHY
from perf.records.results import RunResult


def recommended_variant(folder: Path) -> str | None:
    """The variant of the bundle in ``folder`` when its README says it is the run's recommendation
    (:data:`RECOMMENDATION_WHY`), else ``None`` (a named variant, a what-if budget's pick, no README)."""
    try:
        lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    head = lines[0] if lines else ""
    if not head.startswith("# Deployment bundle: `") or not any(ln.startswith(RECOMMENDATION_WHY) for ln in lines):
        return None
    return head.removeprefix("# Deployment bundle: `").partition("`")[0] or None


def current_pick(run: RunResult, run_dir: Path) -> str | None:
    """The variant ``export-deployment`` picks of ``run`` now under its own budget, whatever it waits for (an
    unfinished run, variants cut unmeasured: the pick stands), else ``None`` (no level within the budget...)."""
    try:
        return choose_variant(run, None, None, True, Path(run_dir).parent, allow_refused_flags=True, allow_cut=True).variant
    except PerfError:
        return None


def stale_bundles(run_dir: Path, run: RunResult) -> list[str]:
    """One sentence per bundle in ``run_dir`` written as the run's recommendation (:func:`recommended_variant`) whose
    variant is not the run's pick now (:func:`current_pick`): ``"`deployment-a` was written for an earlier pick (`a`);
    the pick is now `b`: `triton-perf export-deployment RUN` writes its bundle"``; ``[]`` for none. A kept previous
    bundle (``.previous-N``) is not listed: it was replaced, and says so by its name."""
    folders = sorted(d for d in Path(run_dir).glob(f"{BUNDLE_PREFIX}*") if d.is_dir() and ".previous-" not in d.name)
    bundles = [(d, v) for d in folders if (v := recommended_variant(d)) is not None]
    if not bundles:
        return []
    pick = current_pick(run, run_dir)
    command = f"`triton-perf export-deployment {run_dir}`"
    now = (
        f"the pick is now `{pick}`: {command} writes its bundle"
        if pick is not None
        else f"the run has no pick to deploy now ({command} says why)"
    )
    return [f"`{d.name}` was written for an earlier pick (`{v}`); {now}" for d, v in bundles if v != pick]
