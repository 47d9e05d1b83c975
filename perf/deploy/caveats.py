"""What a bundle's chosen level rests on when a reader would assume more (:func:`level_caveats`): rounds (or
trials) that failed, a named variant's level over the latency budget, a flagged level (:func:`flagged_caveat`), a
dynamic batching that formed no batch; :func:`perf.deploy.choose.choose_variant` says them, on the console and in the
bundle's README.
"""

from __future__ import annotations

from perf.analysis.ranking.budget_latency import host_cores, latency_metric, level_judged, within
from perf.analysis.recommendation.choice import Choice
from perf.analysis.stats.notes import repeat_noun
from perf.deploy.workloads import batching_caveat
from perf.markdown import fmt, fmt_given, times
from perf.records.results import RunResult
from perf.records.workloads import series_name, workload_of


def level_caveats(
    run: RunResult, variant: str, level: Choice, budget_ms: float | None, whose: str = "the run's"
) -> tuple[str, ...]:
    """What a bundle's level rests on, when less than a reader assumes (trial 6: a named variant's
    "best measured level" at 684.4 infer/s came from 1 of its 3 rounds, the other 2 failed, and
    was 4x over the run's 10 ms budget, and neither was said). Where it stands to the budget is
    judged as the ranking judges it (:func:`perf.analysis.ranking.budget_latency.within`: a rounds run's
    rounds not host busy where some were and enough were not; over it on rounds too busy to judge:
    not verified here), in the run's words (rounds or trials).

    Args:
        run: The run.
        variant: The variant deployed.
        level: Its chosen level.
        budget_ms: The latency budget to state the level against (a variant named with
            ``--variant``: the run's own, or the one given); ``None``: not stated.
        whose: Whose budget it is, in words (``"the run's"``, ``"the given"``).

    Returns:
        Sentences: how many of the rounds (or trials) that measured the level have numbers, and
        why the others failed; where the level stands to the budget (the run's percentile); that a
        flagged level is not a measurement to deploy on (:func:`flagged_caveat`); that its dynamic batching formed
        no batch in the run (:func:`perf.deploy.workloads.batching_caveat`).
    """
    vr = run.variant(variant)
    same = [  # the level's series: its variant at its client workload (series_name)
        lv
        for lv in (vr.levels if vr else [])
        if (lv.concurrency, lv.batch_size) == (level.concurrency, level.batch_size)
        and series_name(variant, workload_of(run, lv)) == level.variant
    ]
    ok = [lv for lv in same if lv.ok]
    unit = repeat_noun(run)
    out = []
    failed = [lv for lv in same if not lv.ok]
    if failed:
        which = ", ".join(str(lv.trial + 1) for lv in failed)
        error = next((lv.error.splitlines()[0][:160] for lv in failed if lv.error), "no numbers")
        out.append(
            f"its numbers rest on {len(ok)} of the {len(same)} {unit}s that measured this level: {unit}"
            f"{'s' if len(failed) > 1 else ''} {which} failed ({error})"
        )
    if budget_ms is not None and ok:
        pct = int(run.settings.get("latency_percentile") or 99)
        judged = level_judged(ok, latency_metric(pct), run.rounds is not None, cores=host_cores(run))
        if judged is not None:
            at, limit = judged.ms, f"{whose} p{pct} budget of {fmt_given(budget_ms)} ms"
            basis = f"; {judged.basis()}" if judged.quieter or judged.loaded else ""
            where = (
                f"within {limit} (p{pct} {fmt(at, 2)} ms{basis})"
                if within(judged, budget_ms)
                else f"not verified here against {limit} ({why}): {judged.might_meet()}"
                if (why := judged.unverified_why(pct, budget_ms))
                else f"over {limit}: p{pct} {fmt(at, 2)} ms, {times(at / budget_ms)} the budget{basis}"
            )
            out.append(f"this level is {where}")
    return tuple(out) + tuple(w for w in (flagged_caveat(run, level), batching_caveat(run, level.variant)) if w)


def flagged_caveat(run: RunResult, level: Choice) -> str | None:
    """What a flagged (host busy, unstable) chosen level means for deploying it, with what to do
    in the run's design (more trials, or more rounds); ``None`` for an ``ok`` level. Trial 7: the
    console said it and the bundle's README, the artefact that travels, did not."""
    if level.status == "ok":
        return None
    more = "with --trials 3" if run.rounds is None else "with a longer --time-budget, for more rounds per level"
    if "host busy" in level.status:
        again = f"sweep again on a quiet host (or {more})"
    else:  # unstable on a quiet host: its windows disagreed (trial 15, T15-5: "sweep again on a quiet host" on a quiet one)
        window = "--measurement-interval" if run.rounds is None else "--round-window"
        again = f"sweep again with longer windows ({window} 1000) or {more.removeprefix('with ')}"
    return (
        f"the chosen level is {level.status}: its numbers are flagged, not a measurement to deploy on; "
        f"{again} before relying on this choice"
    )
