"""Which measured variant a deployment bundle deploys (:func:`choose_variant`): the one named, or the run's recommendation — the
best level within the run's latency budget, or the best peak for a run without one. A named variant's level is chosen by the
same rule over that variant alone (:func:`perf.analysis.recommendation.recommend.recommend`): its best level within the
budget, and its best peak, said to be over the budget, only when none of its levels is within it. A run whose levels all miss
the budget gets no bundle unasked: a bundle is what gets deployed, so deploying over the budget takes naming the variant (the
refusal names the lowest-latency and best-peak ones), as the report's "best under the budget: none" says too. A run that did
not finish (interrupted) gets no bundle of its recommendation unasked either: its pick is of what it measured before it
stopped (:func:`perf.records.unfinished.unfinished_text`), so it takes ``--allow-unfinished`` or naming the variant, and the
bundle says so; so does a run whose time budget cut variants never measured (:func:`perf.deploy.pick_state.cut_refusal`,
``--allow-cut``). A run measured with a flag passed through that this version refuses
(:func:`perf.sweep.refused_run.measured_with_refused`: its levels may be mislabelled) gets no bundle at all unless
:data:`ALLOW_REFUSED_FLAGS` says so, and the bundle then says it first (recheck of trial 16, R16-10)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from pathlib import Path

from core.errors import PerfError
from core.names import close_names
from perf.analysis.measured import cut_variants
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.cuts import unmeasured_caveat
from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.models import refuse_several_models, run_models
from perf.analysis.recommendation.recommend import Recommendation, recommend
from perf.analysis.saturation.peaks import peak_mark, peak_title
from perf.analysis.stats.rounds_words import few_rounds
from perf.deploy.caveats import level_caveats
from perf.deploy.pick_state import cut_refusal, nothing_measured
from perf.deploy.workloads import match_workload, other_picks
from perf.markdown import fmt, fmt_given
from perf.records.measured_files import finish_words, resume_refused
from perf.records.results import RunResult
from perf.records.unfinished import unfinished_text
from perf.records.workloads import (
    batch_sizes_swept,
    series_name,
    several_workloads,
    split_by_workload,
    workload,
    workload_of,
)
from perf.sweep.refused_run import MEASURE_AGAIN, measured_with_refused

#: What the deployed level is called on the console and in the bundle's README: the level the choice was made at
#: (within the budget, or the best peak without one), not the variant's highest throughput (trial 16, T16-4:
#: "best measured level" beside a pick under the budget at half the throughput of the run's best measured level).
LEVEL_WORDS = "chosen level"
#: ``export-deployment``'s flag that deploys from a run measured with a flag this version refuses.
ALLOW_REFUSED_FLAGS = "--allow-refused-flags"


@dataclasses.dataclass(frozen=True)
class Chosen:
    """The variant a bundle deploys and the level it was chosen at (:data:`LEVEL_WORDS`).

    Attributes:
        variant: Variant (model) name.
        why: How it was chosen, in words.
        level: The level it was chosen at, by the recommendation's rule (within the budget, or its best
            peak without one; medians over its rounds or trials).
        unfinished: What the run holds when it did not finish (:func:`unfinished_text`), else ``None``.
        caveats: What the level's numbers rest on when a reader would assume more, in words (:func:`perf.deploy.caveats.level_caveats`):
            rounds that failed, a named variant's level over the budget, a flagged level; the console and README say it.
        unmeasured: For the run's pick, that it is the best of the measured variants only, the others cut for time
            (:func:`perf.analysis.recommendation.cuts.unmeasured_caveat`), else ``None``: said, as ``unfinished`` is,
            right below the chosen variant on the console and in the README's first lines.
        workloads: In a run of several client workloads, the one deployed for and the variants the others pick
            (:func:`perf.deploy.workloads.other_picks`), else ``None``.
        refused: That the run was measured with a flag this version refuses, deployed from with
            :data:`ALLOW_REFUSED_FLAGS` (:func:`perf.sweep.refused_run.measured_with_refused`), else ``None``.
    """

    variant: str
    why: str
    level: Choice
    unfinished: str | None = None
    caveats: tuple[str, ...] = ()
    unmeasured: str | None = None
    workloads: str | None = None
    refused: str | None = None


def choose_variant(
    run: RunResult,
    variant: str | None = None,
    latency_budget_ms: float | None = None,
    allow_unfinished: bool = False,
    results_dir: Path | None = None,
    workload_text: str | None = None,
    allow_refused_flags: bool = False,
    allow_cut: bool = False,
) -> Chosen:
    """The variant to deploy: ``variant``, else the run's recommendation. A run of several client workloads
    (``--shapes`` sizes, several ``--batch-sizes``) is ranked as the report ranks it, one series per variant and
    workload (a size or a batch size is the client's, not a setting to pick): the recommendation deployed is the
    report's first pick, at the workload it names, and a named variant's level is taken at that workload too (at its
    own best where it has none there); the chosen level and ``why`` name the workload.

    Args:
        run: A loaded sweep.
        variant: A variant the run measured (status ``ok``); ``None``: the recommendation.
        latency_budget_ms: Budget for the recommendation (ms) [default: the run's own].
        allow_unfinished: Recommend from a run that did not finish (else refused, as over a budget).
        results_dir: The run's parent folder, named in the command that continues it (:func:`resume_hint`).
        workload_text: The client workload to deploy for (``--workload time=16000,b=4``,
            :func:`perf.deploy.workloads.match_workload`) [default: the report's first pick's].
        allow_refused_flags: Deploy from a run measured with a flag this version refuses (else refused,
            a named variant too: its levels are as mislabelled).
        allow_cut: Recommend from a run whose time budget cut variants before they were measured (else refused).

    Raises:
        PerfError: ``variant`` is not in the run, was not measured or has no level to rank (the message lists the
            valid names; a usage error of ``--variant``, exit 2), or nothing can be recommended: none measured, or no level within the
            budget — a bundle is what gets deployed, so none is chosen over the budget; the hint
            names the ``--variant`` of the lowest latency at the budget's percentile and of the best peak to deploy one on purpose;
            or the run did not finish and neither ``variant`` nor ``allow_unfinished`` is given, or
            it was measured with a flag this version refuses and ``allow_refused_flags`` is not given, or its time
            budget cut variants never measured and neither ``variant`` nor ``allow_cut`` is given, or, without
            ``variant``, its variants serve several models (no pick across them; a named variant's level is judged
            among its own model's: :mod:`perf.analysis.recommendation.models`).
        FlagError: ``workload_text`` names none of the run's workloads (the message lists them).
    """
    refused = measured_with_refused(run)
    if refused is not None and not allow_refused_flags:
        raise PerfError(
            f"nothing deployed: {refused}; a bundle is what gets deployed, so none is written from such numbers "
            "without being asked for",
            hint=f"{MEASURE_AGAIN}; or deploy from these numbers anyway with {ALLOW_REFUSED_FLAGS}",
        )
    if variant is None:
        refuse_several_models(run)  # no pick across models (trial 25, T25-12)
    elif (named := run.variant(variant)) is not None and len(run_models(run)) > 1:  # judged among its own model's
        model = (named.params or {}).get("model")
        run = dataclasses.replace(run, variants=[v for v in run.variants if (v.params or {}).get("model") == model])
    if variant is None and (none := nothing_measured(run, results_dir)) is not None:
        raise none  # before any --allow-* refusal (break-it F20)
    stopped = unfinished_text(run, results_dir=results_dir)
    ok = stopped is None or allow_unfinished or variant is not None
    budget = latency_budget_ms if latency_budget_ms is not None else run.settings.get("latency_budget_ms")
    view = split_by_workload(run)  # as the report ranks them: one series per variant and client workload
    rec = functools.cache(lambda: recommend(view, budget))  # over every series: once, when a step needs it
    if variant is None and ok and not allow_cut and (cut := cut_refusal(run, rec())) is not None:
        raise cut
    chosen = _choose(run, view, rec, variant, latency_budget_ms, ok, results_dir, workload_text)
    if (series := view.variant(chosen.level.variant)) is not None and (label := workload(series)):
        chosen = dataclasses.replace(chosen, workloads=other_picks(view, rec(), chosen.variant, label, _of_series(run)))
    whose = "the run's" if latency_budget_ms is None else "the given"
    caveats = level_caveats(run, chosen.variant, chosen.level, budget if variant is not None else None, whose)
    unmeasured = unmeasured_caveat(run) if variant is None else None  # the run's pick, of the measured variants only
    return dataclasses.replace(chosen, unfinished=stopped, caveats=caveats, unmeasured=unmeasured, refused=refused)


def _of_series(run: RunResult) -> dict[str, str]:
    """Series name (:func:`perf.records.workloads.series_name`) -> its variant, every variant's own name too."""
    batches = batch_sizes_swept(run)  # once: each level's label reads it
    of_series = {series_name(v.name, workload_of(run, lv, batches)): v.name for v in run.variants for lv in v.levels}
    return of_series | {v.name: v.name for v in run.variants}


def _choose(
    run: RunResult,
    view: RunResult,
    run_rec: Callable[[], Recommendation],
    variant: str | None,
    latency_budget_ms: float | None,
    unfinished_ok: bool,
    results_dir: Path | None = None,
    workload_text: str | None = None,
) -> Chosen:
    """:func:`choose_variant` without the unfinished note (``unfinished_ok``: the run finished or was allowed);
    ``view`` is the run split by workload, ``run_rec`` its recommendation (computed once, by the caller)."""
    stopped = run.finished is None
    before = set(cut_variants(run)[1])  # an older record's "skipped" cut with numbers from an earlier session: measured
    valid = [
        v.name
        for v in run.variants
        if v.status == "ok" or (v.status == "skipped" and v.name in before) or (stopped and any(lv.ok for lv in v.levels))
    ]
    hint = f"valid variants of run {run.run_id}: {', '.join(valid) or '(none measured)'}"
    budget = latency_budget_ms if latency_budget_ms is not None else run.settings.get("latency_budget_ms")
    of_series = _of_series(run)
    at = match_workload(view, workload_text) if workload_text is not None else None
    if variant is not None:
        found = run.variant(variant)
        if found is None:
            meant = "".join(f" (did you mean {m!r}?)" for m in close_names(variant, valid or [v.name for v in run.variants]))
            raise PerfError(f"variant {variant!r} is not in run {run.run_id}{meant}", hint=hint, flag="--variant")  # T24-13
        if variant not in valid:
            reason = f": {found.error.splitlines()[0]}" if found.error else ""
            raise PerfError(
                f"variant {variant!r} was not measured in run {run.run_id} (status {found.status}{reason})",
                hint=hint,
                flag="--variant",
            )
        return _named(view, variant, of_series, budget, hint, run.run_id, at or _first_workload(view, run_rec), at is not None)
    if not unfinished_ok:
        raise PerfError(  # no resume advised where a rebuild replaced files it measured (break-it F18: it is refused)
            f"nothing deployed unasked: {unfinished_text(run, results_dir=None if resume_refused(run) else results_dir)}; "
            "a bundle is what gets deployed, so none is written from an unfinished run's recommendation without being asked for",
            hint=f"{finish_words(run, results_dir)}; or deploy from what it holds with --allow-unfinished, "
            "or name a variant with --variant NAME",
        )
    rec = run_rec()
    if at is not None:  # that workload's picks, by the rule the report's per-workload picks follow
        rec = workload_recommendations(view, rec)[at]
    if budget is not None:
        if rec.best_under_budget is None:
            said = rec.missed.sentence("its" if latency_budget_ms is None else "the given") if rec.missed else ""
            raise PerfError(  # the report's sentence (perf.analysis.recommendation.missed), once; --latency-budget-ms is not the run's
                f"nothing to deploy from run {run.run_id}: {said[:1].lower()}{said[1:].removesuffix('.')}"
                "; a bundle is what gets deployed, so none is written over the budget without being asked for",
                hint=_over_budget_hint(rec, of_series) or f"choose one with --variant NAME; {hint}",
            )
        return Chosen(
            of_series[rec.best_under_budget.variant],
            f"{_whose(run, rec, latency_budget_ms)}: the best level within the {rec.budget_text}"
            + _for_workload(view, rec.best_under_budget.variant, at is not None),
            rec.best_under_budget,
        )
    if rec.best_peak is None:
        raise PerfError(f"nothing to deploy: run {run.run_id} has no level that can be recommended", hint=hint)
    return Chosen(
        of_series[rec.best_peak.variant],
        f"the run's recommendation: the {peak_title(rec.best_peak)[:1].lower()}{peak_title(rec.best_peak)[1:]} "
        "(the run has no latency budget)" + _for_workload(view, rec.best_peak.variant, at is not None),
        rec.best_peak,
    )


def _whose(run: RunResult, rec: Recommendation, given_ms: float | None) -> str:
    """Whose recommendation a budget's pick is: ``"the run's recommendation"`` under the run's own budget, else the
    given budget's, naming the run's (trial 20, T20-8: a bundle of a 21 ms what-if was labelled the run's
    recommendation and never said the run swept for 20 ms, under which no level qualified)."""
    own = run.settings.get("latency_budget_ms")
    if given_ms is None or (own is not None and float(own) == float(given_ms)):
        return "the run's recommendation"
    theirs = (
        f"the run's own is a p{rec.latency_percentile} budget of {fmt_given(float(own))} ms"
        if own is not None
        else "the run had no latency budget"
    )
    return f"the recommendation under the given --latency-budget-ms {fmt_given(float(given_ms))} (a what-if: {theirs})"


def _for_workload(view: RunResult, series: str, asked: bool = False) -> str:
    """``" for clients sending b=8 (...)"``: the client workload of the chosen series in a run of several
    (``asked``: named with ``--workload``), else ``""``."""
    own = view.variant(series)
    label = workload(own) if own is not None else None
    if not label or not several_workloads(view):
        return ""
    if asked:
        return f", for clients sending {label} (--workload: that workload's pick in the report)"
    return (
        f", for clients sending {label} (the report's first pick; each client workload has its own pick in the report, "
        "a size or a batch size is the client's, not a setting to pick)"
    )


def _first_workload(view: RunResult, run_rec: Callable[[], Recommendation]) -> str | None:
    """The client workload of the report's first pick in a run of several (``run_rec``: the run's
    recommendation), else ``None``."""
    if not several_workloads(view):
        return None
    rec = run_rec()
    pick = rec.best_under_budget or rec.best_peak
    own = view.variant(pick.variant) if pick is not None else None
    return workload(own) if own is not None else None


def _named(
    view: RunResult,
    variant: str,
    of_series: dict[str, str],
    budget: float | None,
    hint: str,
    run_id: str,
    at: str | None = None,
    asked: bool = False,
) -> Chosen:
    """The level of a named (and measured) ``variant``: the recommendation's rule over its series alone (module
    docstring), those at client workload ``at`` where it has any; its status is not ranked against, it was named."""
    own = [dataclasses.replace(v, status="ok") for v in view.variants if of_series[v.name] == variant]
    own = [v for v in own if workload(v) == at] or own
    labels = {workload(o) for o in own}  # fitted beside its workloads' series, as the table and report do (trial 12, F5)
    beside = [v for v in view.variants if workload(v) in labels]
    rec = recommend(dataclasses.replace(view, variants=own), budget, fit=beside)
    pick, why = rec.best_under_budget, f"named with --variant: its best level within the {rec.budget_text}"
    if pick is None:
        pick = rec.best_peak
        best = f"its {peak_title(pick)[0].lower()}{peak_title(pick)[1:]}"  # its best peak, or its highest measured (...)
        why = (
            f"named with --variant: none of its levels is within the {rec.budget_text}, so {best}"
            if budget is not None
            else f"named with --variant: {best} (no latency budget)"
        )
    if pick is None:
        raise PerfError(f"variant {variant!r} has no level that can be ranked in run {run_id}", hint=hint, flag="--variant")
    if (label := workload(own[0])) and several_workloads(view):
        first = " (--workload)" if asked else " (the client workload of the report's first pick)"
        why += f", at {label}" + (first if label == at else "")
    short = few_rounds(pick.trials, False, named=True) if pick.short else None  # no verdict against the others to state
    return Chosen(
        variant, why, dataclasses.replace(pick, tie_set=[], beats=[], through=[], confidence=None, against="", short=short)
    )


def _over_budget_hint(rec: Recommendation, of_series: dict[str, str]) -> str | None:
    """The commands that deploy over the budget on purpose: the level closest to the budget
    (:attr:`perf.analysis.recommendation.recommend.Recommendation.missed`, at the budget's percentile as the budget
    judged it), the best peak, or the budget that the closest level would meet."""
    options = []
    miss = rec.missed
    low = miss.lowest if miss is not None else None
    if miss is not None and low is not None and miss.lowest_ms is not None:
        options.append(
            f"--variant {of_series[low.variant]} (the lowest p{miss.percentile}, {fmt(miss.lowest_ms, 2)} ms at c={low.concurrency})"
        )
    if rec.best_peak is not None and (low is None or rec.best_peak.variant != low.variant):
        peak = rec.best_peak
        options.append(
            f"--variant {of_series[peak.variant]} (the {peak_mark(peak)}, {peak.numbers()})"  # requests/s at batch > 1
        )
    if not options:
        return None
    larger = f"; or --latency-budget-ms {math.ceil(miss.lowest_ms)}" if miss is not None and miss.lowest_ms is not None else ""
    return "deploy one over the budget by naming it: " + " or ".join(options) + larger
