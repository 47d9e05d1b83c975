"""Whether a run's pick is one to deploy unasked (:func:`cut_refusal`), and the words that mark a bundle of the run's
pick (:data:`RECOMMENDATION_WHY`, read back by :mod:`perf.deploy.stale`).

A pick made while the time budget cut variants before they were measured is the best of some of the variants only:
no bundle is written of it unasked (:func:`cut_refusal`, :data:`ALLOW_CUT`), as for a run that did not finish (trial
22, F-demo-cut-winner: make demo's step 4 bundled the best of 7 of 8 variants as "the run's recommendation"; the cut
one, measured by the resume the demo printed, beat it 1.85x). A bundle of the run's recommendation whose variant a
later resume no longer picks is said to be of an earlier pick wherever the pick is said (:func:`perf.deploy.stale.stale_bundles`: the
resume's and the report's console, report.md's Recommendation; trial 22, F-stale-bundle: its README still said "The
run's recommendation" and nothing said otherwise).
"""

from __future__ import annotations

from pathlib import Path

from core.errors import PerfError
from perf.analysis.measured import cut_variants
from perf.analysis.recommendation.cuts import caveat_subject, unmeasured_caveat
from perf.analysis.recommendation.recommend import Recommendation
from perf.records.measured_files import finish_words
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
    caveat = unmeasured_caveat(run, caveat_subject(rec.best_under_budget, rec.best_peak, rec.latency_budget_ms))
    if not cut_variants(run)[0] or caveat is None:  # none cut unmeasured, or none measured (no pick: nothing_measured)
        return None
    said = caveat.removesuffix(".")
    return PerfError(
        f"nothing deployed unasked: {said[:1].lower()}{said[1:]}; a bundle is what gets deployed, so none is written "
        "from a pick of some of the variants without being asked for",
        hint="measure them first (as said above), then `triton-perf export-deployment` of the run that measured "
        f"them deploys the pick of them all; or deploy this pick anyway with {ALLOW_CUT} (the bundle's README says it "
        "first), or name a variant with --variant NAME",
    )


def nothing_measured(run: RunResult, results_dir: Path | None) -> PerfError | None:
    """The refusal to deploy the pick of a run that did not finish and measured no level: there is none, and only
    what finishes it is said (break-it F20: "deploy from what it holds with --allow-unfinished", which then said
    "deploy this pick anyway with --allow-cut", which then said "nothing to deploy"); ``None`` otherwise (a finished
    run with nothing measured is refused by the pick itself: "has no level that can be recommended")."""
    if run.finished is not None or any(lv.ok for v in run.variants for lv in v.levels):
        return None
    return PerfError(
        f"nothing to deploy: run {run.run_id} did not finish and measured no level (it was stopped before its first "
        "measurement): it has no pick, so no flag deploys one",
        hint=f"{finish_words(run, results_dir)}; then `triton-perf export-deployment` deploys its pick",
    )
