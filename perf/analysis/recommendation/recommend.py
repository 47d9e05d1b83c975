"""The recommendation: the best level under a latency budget (p99 unless
``--latency-percentile`` says 50, 90 or 95) and the best peak, trusted levels first.

Ranking rule (every pick, in the report, the CLI summary and ``scripts/gpu_check.py``):

1. **Candidates** are the concurrency levels (medians over trials, :class:`perf.analysis.stats.points.Point`)
   of variants that did not fail, with a throughput above 0 and a p99; the others are listed
   in :attr:`Recommendation.excluded` with the reason (failed variants or levels, ``not
   achieved`` request rates, request-rate levels: a fixed arrival rate is another load model).
2. **Stable levels rank first**: the pick is the highest-throughput level with status
   ``ok`` (ties to the lower p99).
3. A **flagged** level (``unstable``, ``host busy``) wins only when its throughput beats
   every ``ok`` candidate's by more than its own spread (:func:`spread`); the pick then says
   so in words (:attr:`perf.analysis.recommendation.choice.Choice.why`). With no ``ok`` candidate at all the best flagged level
   is picked, also in words.

A **rounds** sweep (``results.json`` with ``rounds``; the default design) is ranked by its
paired rounds instead (:mod:`perf.analysis.ranking.rank`): the pick is the paired ranking's leader at
its operating point (under the budget: as :mod:`perf.analysis.ranking.budget_latency` judges it), flags or
not (a round's variants shared the host's state; the flag stays). Where the leader does not beat a
runner-up by the rule, the pick names the **tie set** (:attr:`perf.analysis.recommendation.choice.Choice.tie_set`), and what it beats.

A run of several **client workloads** (:func:`perf.records.workloads.split_by_workload`) has a pick per workload
(:func:`perf.analysis.recommendation.frontier.workload_recommendations`); the **first pick** (the report's, the
one ``export-deployment`` bundles by default) is, in a rounds sweep, of the workloads' picks the one whose level
has the most infer/s by the median the tables show (each workload ranked on its own: :func:`_first_ranking`);
a run of trials ranks every workload's levels together by the rule above, stable levels first
(:func:`first_pick_words` says which).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

from core.errors import PerfError
from perf.analysis.build_checks import run_verdict
from perf.analysis.effects.thread_hint import thread_hints
from perf.analysis.ranking.budget_latency import DEFAULT_LATENCY_PERCENTILE, host_cores, latency_metric, unverified_sentences
from perf.analysis.ranking.named_first import adjusted_over, kneed, outsupported, overtook, trailed
from perf.analysis.ranking.rank import Drops, Ranking, dropped_by_search, rank_variants
from perf.analysis.ranking.standing import rounds_left, settled, uncompared
from perf.analysis.ranking.standing_words import higher_medians, others_words, outside_words, tie_parts, tie_words
from perf.analysis.recommendation.budget_origin import budget_origin, set_by
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.cuts import caveat_subject, cut_notes
from perf.analysis.recommendation.dominated import dominated
from perf.analysis.recommendation.excluded import candidate, excluded_levels
from perf.analysis.recommendation.flagged import flagged_brief, flagged_items, flagged_summary
from perf.analysis.recommendation.host_load import load_words
from perf.analysis.recommendation.missed import Missed, missed
from perf.analysis.recommendation.models import refuse_several_models
from perf.analysis.recommendation.uniform_sizes import batching_off_instead, no_batch_words
from perf.analysis.saturation.above_cap import above_cap, lifted
from perf.analysis.saturation.best_level import at_side, best_levels
from perf.analysis.saturation.falls import Fall, falls_all
from perf.analysis.saturation.peaks import budget_unreached, higher_median, unreached, unreached_all
from perf.analysis.saturation.rises import judge, knee, knee_words, least_rounds
from perf.analysis.stats.no_batch import formed_no_batch
from perf.analysis.stats.paired import ALPHA
from perf.analysis.stats.points import P99, THROUGHPUT, Point, run_points
from perf.analysis.stats.rounds_words import few_rounds
from perf.analysis.stats.trials import DEFAULT_TOLERANCE_PCT, rank, tolerance
from perf.markdown import fmt, fmt_given
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import workload


@dataclasses.dataclass
class Recommendation:
    """What :func:`recommend` found.

    Attributes:
        latency_budget_ms: The latency budget applied (ms), or None for none.
        best_under_budget: Best level whose latency at :attr:`latency_percentile` <= budget (module rule); None when no
            budget was given or no level meets it.
        best_peak: Best level of any variant regardless of latency (module rule).
        knees: Saturation concurrency per variant (:func:`perf.analysis.saturation.rises.knee`); None = no knee within the swept range.
        notes: Sentences explaining gaps (no level under budget, no level at all), and hints, each labelled as one.
        excluded: One sentence per level or variant left out of the ranking, with why.
        flagged: One sentence per flagged (unstable, host busy) candidate, ranked after the stable ones; a variant's
            levels next to each other flagged in the same words share one (``"`v` at concurrency 8 and 12: ..."``):
            :attr:`flagged_levels` counts the levels. The appendix says them; report.md says :attr:`flagged_summary`.
        flagged_brief: The same levels with their flags only (``"`v` at concurrency 1, 2: host busy; unstable"``,
            :func:`perf.analysis.recommendation.flagged.flagged_brief`), the appendix's items' heads.
        flagged_summary: The same levels counted per set of flags, report.md's few lines (:func:`flagged_summary`).
        latency_percentile: The client latency percentile the budget is on (default 99).
        budget_latency_ms: That percentile's latency (ms) at :attr:`best_under_budget`.
        ranking: A rounds sweep's paired ranking behind :attr:`best_peak` (``None`` otherwise).
        ranking_under_budget: The same under the budget, behind :attr:`best_under_budget`.
        unreached: Per variant whose highest measured level is not a measured peak, why (:func:`perf.analysis.saturation.peaks.unreached_all`).
        falls: Per variant whose median throughput fell as load rose, the fall as the noise judges it (:func:`perf.analysis.saturation.falls.fall`).
        missed: With a budget no level meets, the level that came closest and the one sentence every place says it
            in (:mod:`perf.analysis.recommendation.missed`); ``None`` otherwise.
        knee_rule: The knee's rule in words, as the run judges it (:func:`perf.analysis.saturation.rises.knee_words`).
    """

    latency_budget_ms: float | None
    best_under_budget: Choice | None
    best_peak: Choice | None
    knees: dict[str, int | None]
    notes: list[str] = dataclasses.field(default_factory=list)
    excluded: list[str] = dataclasses.field(default_factory=list)
    flagged: list[str] = dataclasses.field(default_factory=list)
    latency_percentile: int = DEFAULT_LATENCY_PERCENTILE
    budget_latency_ms: float | None = None
    ranking: Ranking | None = None
    ranking_under_budget: Ranking | None = None
    unreached: dict[str, str] = dataclasses.field(default_factory=dict)
    falls: dict[str, Fall] = dataclasses.field(default_factory=dict)
    missed: Missed | None = None
    knee_rule: str = dataclasses.field(default_factory=knee_words)
    flagged_levels: int = 0
    flagged_brief: list[str] = dataclasses.field(default_factory=list)
    flagged_summary: list[str] = dataclasses.field(default_factory=list)

    @property
    def latency_field(self) -> str:
        """The :class:`perf.records.levels.LevelResult` field of :attr:`latency_percentile` (``latency_p95_ms``): the
        latency the budget is judged on, which the frontier and every plot are drawn on (trial 14, T14-7)."""
        return latency_metric(self.latency_percentile)

    @property
    def budget_text(self) -> str:
        """``"p95 budget of 20.00 ms"`` (empty without a budget)."""
        if self.latency_budget_ms is None:
            return ""
        return f"p{self.latency_percentile} budget of {fmt_given(self.latency_budget_ms)} ms"


def best_under_budget(
    points: Iterable[Point],
    latency_budget_ms: float,
    tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
    latency_percentile: int = DEFAULT_LATENCY_PERCENTILE,
) -> Point | None:
    """The best point (module rule) whose client latency at ``latency_percentile`` (default
    p99) is within ``latency_budget_ms`` (ms)."""
    return rank(_under(points, latency_budget_ms, latency_metric(latency_percentile)), tolerance_pct)[0]


def _under(points: Iterable[Point], budget_ms: float, metric: str = P99) -> list[Point]:
    """The sequential design's :func:`perf.analysis.ranking.budget_latency.within`: a point's median over its
    trials is :func:`~perf.analysis.ranking.budget_latency.level_judged` of its trials (``paired=False``)."""
    return [p for p in points if (lat := p.get(metric)) is not None and lat <= budget_ms]


def recommend(
    run: RunResult,
    latency_budget_ms: float | None = None,
    latency_percentile: int | None = None,
    fit: Iterable[VariantResult] = (),
) -> Recommendation:
    """Best level under a latency budget, best peak throughput, and each variant's knee.

    Args:
        run: A loaded sweep (its ``stability_pct`` setting is the tolerance for spreads).
        latency_budget_ms: Client latency budget in ms (default None: no budget).
        latency_percentile: The percentile the budget is on: 50, 90, 95 or 99 (default: the
            run's ``latency_percentile`` setting, else 99).
        fit: A rounds sweep: other series the round-adjusted throughput is fitted over, never ranked
            (:func:`perf.analysis.ranking.rank.rank_variants`).

    Raises:
        PerfError: the budget is not a positive number, or the percentile is not reported, or the run's variants
            serve several models (:func:`perf.analysis.recommendation.models.refuse_several_models`: no pick across them).
    """
    refuse_several_models(run)
    if latency_budget_ms is not None and not latency_budget_ms > 0:
        raise PerfError(f"latency budget must be a positive number of ms, got {latency_budget_ms}", hint="give one above 0 ms")
    pct = int(latency_percentile or run.settings.get("latency_percentile") or DEFAULT_LATENCY_PERCENTILE)
    metric = latency_metric(pct)
    tol = tolerance(run)
    points = run_points(run)
    rule = judge(run)
    tops, least = best_levels(run, points), least_rounds(run)  # a knee is never below the variant's best (T25-18)
    knees = {v.name: knee(points[v.name], rule, best=tops.get(v.name), min_rounds=least) for v in run.variants}
    notes: list[str] = []
    excluded = excluded_levels(run, points)
    cands = [p for v in run.variants if v.status != "failed" for p in points[v.name] if candidate(p)]
    flagged, n_flagged = flagged_items([p for p in cands if p.status != "ok"], run)
    brief, summary = flagged_brief(flags := [p for p in cands if p.status != "ok"]), flagged_summary(flags)
    if run.rounds is not None:
        rec = _paired(run, latency_budget_ms, pct, points, knees, notes, excluded, flagged, cands, fit)
        rec.flagged_levels, rec.flagged_brief, rec.flagged_summary = n_flagged, brief, summary
        return _peaks(run, points, rec)
    best, why = rank(cands, tol)
    under, under_why = rank(_under(cands, latency_budget_ms, metric), tol) if latency_budget_ms is not None else (None, None)
    rec = Recommendation(
        latency_budget_ms,
        Choice.of(under, under_why) if under else None,
        Choice.of(best, why) if best else None,
        knees,
        notes,
        excluded,
        flagged,
        pct,
        under.get(metric) if under else None,
    )
    rec.flagged_levels, rec.flagged_brief, rec.flagged_summary = n_flagged, brief, summary
    return _peaks(run, points, _gaps(run, cands, rec))


def _gaps(run: RunResult, cands: list[Point], rec: Recommendation) -> Recommendation:
    """``rec`` with what both designs say of a gap: the :class:`~perf.analysis.recommendation.missed.Missed`
    of a budget no level meets (its sentence among the notes), or that no level can be recommended."""
    if rec.latency_budget_ms is not None and rec.best_under_budget is None:
        rec.missed = missed(run, cands, rec.latency_budget_ms, rec.latency_percentile)
        if cands:  # none: the note below says it
            rec.notes.append(rec.missed.sentence())
    if not cands:
        rec.notes.append("No variant has a level that can be recommended.")
    return rec


def _peaks(run: RunResult, points: dict[str, list[Point]], rec: Recommendation) -> Recommendation:
    """``rec`` with the peaks not reached, its best peak's why and its best under the budget's headroom (:mod:`perf.analysis.saturation.peaks`),
    each pick's build verdict when it is not ``ok`` (:func:`perf.analysis.build_checks.run_verdict`), and the hints of
    :func:`perf.analysis.effects.thread_hint.thread_hints` among its notes."""
    rec.unreached, rec.falls, rec.knee_rule = unreached_all(run, points), falls_all(run, points), knee_words(run)
    unbatched = formed_no_batch(run.variants)  # the run's own batching finding, said with a pick of it (T24-8)
    for pick in (rec.best_peak, rec.best_under_budget):
        if pick is not None:
            pick.build_verdict = run_verdict(run, pick.variant)
            held = unbatched.get(pick.variant)  # with what to deploy instead (README; T25-22: the twin cut for time)
            pick.no_batch = None if held is None else f"{no_batch_words(held)} -> {batching_off_instead(run, pick.variant)}"
    if (c := rec.best_peak) is not None:
        at = next(p for p in points[c.variant] if (p.concurrency, p.batch_size) == (c.concurrency, c.batch_size))
        c.unreached, c.level_why = unreached(run, points[c.variant], at), higher_median(run, points[c.variant], at)
    if (u := rec.best_under_budget) is not None:
        at = next(p for p in points[u.variant] if (p.concurrency, p.batch_size) == (u.concurrency, u.batch_size))
        said = rec.latency_percentile == 99 and not u.judged_note  # the number beside it: the level's own p99
        lat = u.latency_p99_ms if said else rec.budget_latency_ms
        r = rec.ranking_under_budget
        quiet = not said and r is not None and r.leader is not None and r.leader.latency is not None and r.leader.latency.quieter
        u.headroom = budget_unreached(run, points[u.variant], at, rec.latency_percentile, lat, quiet)
        if u.headroom and (more := above_cap(run, at)):  # trial 21, T21-6: what measures above a cap
            u.headroom += f"; {more}"
        if rec.latency_percentile != 99 and rec.budget_latency_ms is not None:  # the budget's percentile first (F39)
            r = rec.ranking_under_budget
            j = r.leader.latency if r is not None and r.leader is not None else None
            basis = f" ({j.basis()})" if j is not None and j.quieter else ""
            u.budget_latency = f"p{rec.latency_percentile} {fmt(rec.budget_latency_ms, 2)} ms{basis}"
    rec.notes += [n for n in [lifted(run)] if n]  # a cap a resume lifted: what was found above it (T21-6)
    # a budget an earlier session did not run under: where it came from (break-it F15's report part)
    # and one a script set for the user (make demo's default): who set it
    origin = [f(run, rec.latency_budget_ms, rec.latency_percentile) for f in (budget_origin, set_by)]
    rec.notes += [n for n in origin if n]
    rec.notes += thread_hints(run)  # a hint, labelled so: a slow variant's likely cause, not measured (trial 16, T16-21)
    return rec


def _paired_choice(ranking: Ranking, points: dict[str, list[Point]], run: RunResult, under: bool) -> Choice | None:
    """The :class:`perf.analysis.recommendation.choice.Choice` of a paired ranking's leader (medians over its rounds; ``under``: a budget's)."""
    op = ranking.leader
    p = None if op is None else next((p for p in points.get(op.side.variant, []) if at_side(p, op.side) and candidate(p)), None)
    if p is None:
        return None
    c = Choice.of(p)
    c.tie_set, c.beats, c.confidence = ranking.names, [x.b.variant for x in ranking.beaten()], 1 - ALPHA
    c.uncompared, c.through = [x.b.variant for x in uncompared(ranking)], [x.b.variant for x in ranking.beaten_through()]
    done = c.tied and all(settled(x) for x in ranking.comparisons if x.b.variant in c.tie_set[1:])
    beats_all, alone = bool(c.beats) and not (c.tied or c.uncompared), not (c.beats or c.tied or c.uncompared or c.through)
    c.short = None if done else few_rounds(p.trials, beats_all, alone)  # one trial a round; alone: no verdict needed
    c.against = tie_words(ranking, run) if c.tied else others_words(ranking, run, under)
    c.tie_parts = tie_parts(ranking, run) if c.tied else []
    c.tie_marks = tie_parts(ranking, run, brief=True) if c.tied else []  # the console's, in the same words (T25-3)
    c.rivals = higher_medians(ranking, run, short=True) if c.tied else []  # report.md's, in tie_words
    c.trails = trailed(ranking, run) if c.tied else []  # not named first by the shared rounds then (T21-9)
    c.supported = outsupported(ranking, run) if c.tied else []  # by its median over more rounds (trial 28, T28-1)
    c.kneed = kneed(ranking, run) if c.tied else []  # named first by its latency at their throughput (trial 22)
    c.overtook = overtook(ranking, run) if c.tied else []  # named first by both its medians (trial 30, F10)
    c.adjusted = adjusted_over(ranking, run) if c.tied else []  # by round-adjusted over a higher median (F10)
    c.batching_off = ranking.batching_off  # named first over its batching twin that formed no batch (trial 24, T24-8)
    c.outside = outside_words(ranking, run, under) if c.tied else ""
    c.host_load = load_words(ranking, {v.name: v for v in run.variants})  # what its verdicts hold for
    return c


def first_pick_words(run: RunResult) -> str:
    """How the first pick of a run of several client workloads was chosen (module docstring), for the
    sentence that names its workload: ``"of the workloads' picks, the one with the most infer/s"``."""
    if run.rounds is not None:
        return "of the workloads' picks, the one with the most infer/s"
    return "the best of every workload's levels, stable levels first"


def _first_ranking(
    run: RunResult,
    points: dict[str, list[Point]],
    budget_ms: float | None,
    metric: str,
    dropped: Drops | None,
    fit: list[VariantResult],
) -> Ranking:
    """The paired ranking behind a rounds sweep's first pick (:func:`perf.analysis.ranking.rank.rank_variants`):
    a run of several client workloads (:func:`perf.records.workloads.split_by_workload`) ranks each workload's
    series on its own (a size or a batch size is the client's, not a setting to pick), and the first pick is
    the workload pick whose level has the most infer/s by the median the tables show (the lower p99 on a
    tie); its ranking names every other workload's series as not its rivals. Break test B11: ranked over
    every series together, a time=400 pick at 1,884.9 infer/s was named first, ahead in the rounds it
    shared with the mixed workload's series, over that workload's own pick at 2,030.8."""
    groups: dict[str | None, list[VariantResult]] = {}
    for v in run.variants:
        groups.setdefault(workload(v), []).append(v)
    if len(groups) < 2:
        return rank_variants(run.variants, budget_ms, metric, dropped, fit, cores=host_cores(run))
    ranked = [
        (rank_variants(series, budget_ms, metric, dropped, fit, cores=host_cores(run)), series) for series in groups.values()
    ]

    def level(r: Ranking) -> tuple[float, float]:
        op = r.leader
        p = (
            None
            if op is None
            else next((p for p in points.get(op.side.variant, []) if at_side(p, op.side) and candidate(p)), None)
        )
        return (p.value(THROUGHPUT), -p.value(P99)) if p is not None else (-math.inf, -math.inf)

    first, series = max(ranked, key=lambda rs: level(rs[0]))
    own = {v.name for v in series}
    first.other_sizes = [v.name for v in run.variants if v.name not in own]
    return first


def _paired(
    run: RunResult,
    budget_ms: float | None,
    pct: int,
    points: dict[str, list[Point]],
    knees: dict[str, int | None],
    notes: list[str],
    excluded: list[str],
    flagged: list[str],
    cands: list[Point],
    fit: Iterable[VariantResult] = (),
) -> Recommendation:
    """:func:`recommend` for a rounds sweep (module docstring)."""
    metric, fit = latency_metric(pct), list(fit)
    own, drops = run.settings.get("latency_budget_ms"), dropped_by_search(run.search.decisions) if run.search else None
    peak = _first_ranking(run, points, None, metric, drops if own is None else None, fit)  # a drop holds in its own ranking only
    under = _first_ranking(run, points, budget_ms, metric, drops if own == budget_ms else None, fit) if budget_ms is not None else None  # fmt: skip
    for r in (peak, under):  # what the search's settle rule saw: the rounds each pair's group could still have had
        if r is not None:
            r.comparisons = [dataclasses.replace(c, rounds_left=rounds_left(run, c)) for c in r.comparisons]
    best_peak = _paired_choice(peak, points, run, False)
    best_under = _paired_choice(under, points, run, True) if under is not None else None
    lead = under.leader if under is not None and best_under is not None else None
    if best_under is not None and lead is not None and lead.latency is not None and budget_ms is not None:
        best_under.judged_on = lead.latency.picked_on(pct, budget_ms)
        best_under.judged_note = lead.latency.picked_note(pct, budget_ms)
    if best_under is not None and budget_ms is not None:  # below its workload's frontier: said in its line (T16-1)
        said = dominated(run, points, best_under, budget_ms, metric, pct) or (None, None, None)
        best_under.dominated, best_under.dominated_mark, best_under.dominated_by = said
    if best_peak is not None:  # the best peak too: never "best" beside a level better on both without a word (F10)
        said = dominated(run, points, best_peak, None, metric, pct) or (None, None, None)
        best_peak.dominated, best_peak.dominated_mark, best_peak.dominated_by = said
    rec = Recommendation(
        budget_ms,
        best_under,
        best_peak,
        knees,
        notes,
        excluded,
        flagged,
        pct,
        lead.latency_ms if lead is not None else None,
        peak,
        under,
    )
    rec = _gaps(run, cands, rec)
    subject = caveat_subject(rec.best_under_budget, rec.best_peak, budget_ms)  # what is the best of the measured ones
    rec.notes += [*unverified_sentences(run, pct, budget_ms), *cut_notes(run, subject)]  # not verified here; cut, no numbers
    return rec
