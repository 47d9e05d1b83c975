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


def export_flags(run: RunResult, run_dir: Path) -> list[str]:
    """The flags ``export-deployment RUN`` needs to deploy :func:`current_pick` (``--allow-unfinished``,
    ``--allow-cut``, ``--allow-refused-flags``: each it would refuse the run without), ``[]`` for none (break-it of
    this session, F7: the stale-bundle line advised the bare command, which then refused the run)."""
    parent, flags = Path(run_dir).parent, []
    for flag in ("--allow-unfinished", "--allow-cut", "--allow-refused-flags"):
        try:  # every other allowance given: refused only for want of this one
            choose_variant(
                run,
                None,
                None,
                flag != "--allow-unfinished",
                parent,
                allow_refused_flags=flag != "--allow-refused-flags",
                allow_cut=flag != "--allow-cut",
            )
        except PerfError:
            flags.append(flag)
    return flags


def stale_bundles(run_dir: Path, run: RunResult) -> list[str]:
    """One sentence per bundle in ``run_dir`` written as the run's recommendation (:func:`recommended_variant`) whose
    variant is not the run's pick now (:func:`current_pick`, under the run's own budget, whatever a what-if report
    asks): ``"`deployment-a` was written for an earlier pick (`a`); the run's pick under its own p99 budget is now `b`:
    `triton-perf export-deployment RUN` writes its bundle"`` (with the flags it needs: :func:`export_flags`; where
    ``deployment-b`` is there already, that it holds it); ``[]`` for none. A kept previous bundle (``.previous-N``) is
    not listed: it was replaced, and says so by its name."""
    folders = sorted(d for d in Path(run_dir).glob(f"{BUNDLE_PREFIX}*") if d.is_dir() and ".previous-" not in d.name)
    bundles = [(d, v) for d in folders if (v := recommended_variant(d)) is not None]
    if not bundles:
        return []
    pick = current_pick(run, run_dir)
    command = f"`triton-perf export-deployment {run_dir}`"
    if pick is None:
        now = f"the run has no pick to deploy now ({command} says why)"
    elif (Path(run_dir) / f"{BUNDLE_PREFIX}{pick}").is_dir():
        now = f"the run's pick under its own budget is now `{pick}`, whose bundle `{BUNDLE_PREFIX}{pick}` is there too"
    else:
        flags = export_flags(run, run_dir)
        command = f"`triton-perf export-deployment {run_dir}{''.join(' ' + f for f in flags)}`"
        now = f"the run's pick under its own budget is now `{pick}`: {command} writes its bundle"
    return [f"`{d.name}` was written for an earlier pick (`{v}`); {now}" for d, v in bundles if v != pick]
