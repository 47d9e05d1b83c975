"""Whether a run's pick is one to deploy unasked, and whether the bundles in its folder are still of its pick.

A pick made while the time budget cut variants before they were measured is the best of some of the variants only:
no bundle is written of it unasked (:func:`cut_refusal`, :data:`ALLOW_CUT`), as for a run that did not finish (trial
22, F-demo-cut-winner: make demo's step 4 bundled the best of 7 of 8 variants as "the run's recommendation"; the cut
one, measured by the resume the demo printed, beat it 1.85x). A bundle of the run's recommendation whose variant a
later resume no longer picks is said to be of an earlier pick wherever the pick is said (:func:`stale_bundles`: the
resume's and the report's console, report.md's Recommendation; trial 22, F-stale-bundle: its README still said "The
run's recommendation" and nothing said otherwise).
"""

from __future__ import annotations

from pathlib import Path

from core.errors import PerfError
from perf.analysis.measured import cut_variants
from perf.analysis.recommendation.cuts import caveat_subject, unmeasured_caveat
from perf.analysis.recommendation.recommend import Recommendation
from perf.records.results import RunResult

#: ``export-deployment``'s flag that deploys the pick of a run whose time budget cut variants never measured.
ALLOW_CUT = "--allow-cut"
#: A bundle's folder in its run's folder (:func:`perf.deploy.bundle.export_deployment`'s default ``--out``).
BUNDLE_PREFIX = "deployment-"
#: How the README of a bundle of the run's own recommendation says why its variant (:mod:`perf.deploy.readme`):
#: a named ``--variant`` or a given ``--latency-budget-ms`` (a what-if) is chosen otherwise, not "the run's pick".
RECOMMENDATION_WHY = "The run's recommendation"


def cut_refusal(run: RunResult, rec: Recommendation) -> PerfError | None:
    """The refusal to deploy ``run``'s recommendation (``rec``) unasked when its time budget cut variants before they
    were measured: its pick is the best of the others only (:func:`~perf.analysis.recommendation.cuts.unmeasured_caveat`,
    whose words say what measures them); ``None`` when none was cut unmeasured. A variant cut after its first rounds
    is in the ranking with its numbers, and is said by the bundle's caveat, not refused."""
    if not cut_variants(run)[0]:
        return None
    caveat = unmeasured_caveat(run, caveat_subject(rec.best_under_budget, rec.best_peak, rec.latency_budget_ms)) or ""
    said = caveat.removesuffix(".")
    return PerfError(
        f"nothing deployed unasked: {said[:1].lower()}{said[1:]}; a bundle is what gets deployed, so none is written "
        "from a pick of some of the variants without being asked for",
        hint="measure them first (as said above), then `triton-perf export-deployment` of the run that measured "
        f"them deploys the pick of them all; or deploy this pick anyway with {ALLOW_CUT} (the bundle's README says it "
        "first), or name a variant with --variant NAME",
    )


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
    from perf.deploy.choose import choose_variant

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
