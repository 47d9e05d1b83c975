"""The report's "Recommendation" section (:func:`recommendation_section`): each pick as a bullet with its remarks
(:func:`pick_lines`), a best peak at the level the best under the budget names as one line pointing to it
(:func:`peak_lines`), a run of several client workloads' picks at each (:func:`size_lines`), knees, notes, flagged
and excluded levels, with what the flagged ones mean for the pick (:func:`flagged_note`, the appendix's too). Moved out
of :mod:`perf.report.write` (at its 400-line limit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.wording import agree, sentence
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation, first_pick_words
from perf.analysis.saturation.peaks import peak_mark, peak_title, unreached_mark, unreached_words
from perf.analysis.stats.points import Point
from perf.markdown import APPENDIX_FILE, UNSTABLE_MARK, capped, packed
from perf.records.results import RunResult
from perf.records.workloads import workload
from perf.report.sections.knees import knee_lines


def recommendation_section(
    rec: Recommendation,
    points: dict[str, list[Point]],
    front: str = "",
    unfinished: str | None = None,
    sizes: Sequence[str] = (),
    unmeasured: Mapping[str, str | None] | None = None,
    refused: str | None = None,
    run: RunResult | None = None,
) -> list[str]:
    """The report's "Recommendation" section: best under the budget, best peak, the Pareto
    frontier's ends (``front``, :func:`perf.analysis.recommendation.frontier.frontier_summary`), knees (grouped by
    concurrency when there are more than :data:`perf.markdown.TOP_N` variants), notes,
    flagged and excluded levels (the first :data:`perf.markdown.LIST_LIMIT`; the rest in the appendix).
    ``unfinished``: :func:`perf.records.unfinished.unfinished_text` of a run that did not finish, said first;
    ``sizes``: a shape sweep's picks at its other sizes (:func:`size_lines`), after the picks;
    ``unmeasured``: why a variant has no measured level (:func:`perf.analysis.recommendation.cuts.unmeasured_text`), its knee's words;
    ``refused``: :func:`perf.sweep.refused_run.refused_flags_text` of a run measured with a flag this version refuses;
    ``run``: a knee list's curve with no knee says why (:func:`perf.report.sections.knees.knee_lines`)."""
    lines, said = ["## Recommendation", ""], set[str]()  # said: the build verdicts said (pick_lines)
    if refused:
        lines.append(f"- **A pick from numbers that may be mislabelled**: {sentence(refused)}")
    if unfinished:  # said whole in the note at the top (s17a's left-alone repeat): pointed to here
        lines.append(
            "- **Not a finished run's pick**: the run did not finish (what it holds and what continues it: the note at the top)."
        )
    if rec.latency_budget_ms is not None:
        lines += pick_lines(f"**Best under the {rec.budget_text}:**", rec.best_under_budget, said=said)  # percentile first (F39)
    else:
        lines.append(
            "- No latency budget given (pass `--latency-budget-ms`, and `--latency-percentile` for p50/p90/p95, "
            "for a best-under-budget pick)."
        )
    lines += peak_lines(rec.best_peak, rec.best_under_budget, said)
    lines += sizes
    if front:
        lines += f"- {front}".splitlines()  # a sub-bullet a workload's ends
    lines.append(f"- **Saturation (knee)**: the concurrency after which {rec.knee_rule} while p99 keeps rising:")
    lines += knee_lines(rec, points, unmeasured, run)
    lines += [f"- {n}" for n in rec.notes]
    if rec.flagged:
        why = f"{rec.flagged_levels}; {flagged_note(rec, points)}; why each: {APPENDIX_FILE}, section “Flagged levels”"
        # a short list that stays in report.md whatever its length (s22z, Z-3: moved to the appendix in every real run,
        # report.md never said which levels were flagged); the appendix's section says every level and why
        lines += [f"- **Flagged levels** ({why}):"] + capped(rec.flagged_summary or rec.flagged, FLAGGED_SHOWN, indent="  ")
    if rec.excluded:
        lines += [f"- **Excluded from the recommendation** ({len(rec.excluded)}):"] + capped(rec.excluded, indent="  ")
    return lines


#: The flagged levels' lines report.md lists, one per set of flags (the rest: "… N more in appendix.md"), never moved.
FLAGGED_SHOWN = 4


def pick_lines(
    title: str, choice: Choice | None, indent: str = "", said: set[str] | None = None, why: Sequence[str] = ()
) -> list[str]:
    """A pick as a bullet, ``"- **title** `v` at concurrency 4: ... ."``, its remarks, its tie set's members and
    the others outside it as bullets under it (:meth:`~perf.analysis.recommendation.choice.Choice.listed`: said
    once, here; the Paired ranking points to them; trial 19, T19-17), ``indent`` before each. ``said``: the
    build verdicts a pick above said already (a run-wide one, such as a repository not there, is the same for
    every pick): the same words again point to it; the ones said here are added. ``why``: items said first under
    it (a best peak's why it is not a measured peak: :func:`peak_lines`)."""
    if choice is None:
        return [f"{indent}- {title} none."]
    said = set() if said is None else said
    verdict = choice.build_verdict.text() if choice.build_verdict else None
    again = verdict is not None and verdict in said  # said with the pick: a few words
    items = [*why, *(item for item in choice.listed() if not (again and item == verdict))]
    said |= {verdict} if verdict else set()
    head = choice.describe(listed=True) + (" — its build's verdict: the same as the pick's above" if again else "")
    first, *rest = packed([f"{title} {head}", *items], sep=" — ")  # short remarks stay on the pick's line
    return [f"{indent}- {sentence(first)}", *(f"{indent}  - {sentence(ln[2:])}" for ln in rest)]


def peak_lines(
    peak: Choice | None, under: Choice | None, said: set[str], title: str | None = None, indent: str = ""
) -> list[str]:
    """A best-peak pick's bullet (:func:`pick_lines`; ``title`` default its :func:`peak_title`), or, where it is the
    level the best under the budget ``under`` names above with the same verdict and no item that pick does not say,
    one line that says so: the pick's verdict, tie set and the why of a peak not told were said twice, word for word
    (s17a's left-alone repeats: re-check 19's rc19d, 1,100 characters), and so were a client workload's two picks
    at one level (:func:`size_lines`). The one rule for every pick pair at one level."""
    head, why = title or f"**{peak_title(peak)}:**", list[str]()
    if title is None and peak is not None and peak.unreached is not None:  # its why under its name, not before it
        head = f"**Best measured throughput ({unreached_mark(peak.unreached)}):**"  # (trial 23, T23-5: 900 characters)
        why = [unreached_words(peak.unreached)]
    if (
        peak is None
        or under is None
        or (peak.variant, peak.concurrency, peak.batch_size)
        != (
            under.variant,
            under.concurrency,
            under.batch_size,
        )
    ):
        return pick_lines(head, peak, indent, said, why)
    above = " ".join([under.describe(listed=True), *under.listed()])
    if title is None and peak.unreached is not None and peak.unreached in above:  # its why said with the pick above
        head, why = f"**Best measured throughput ({unreached_mark(peak.unreached)}; why: as said of the pick above):**", []
    if peak.verdict(True) != under.verdict(True) or not set(peak.listed()) <= set(under.listed()):
        return pick_lines(head, peak, indent, said, why)  # its own verdict, its why pointed to (rc20m: said twice)
    batch = f" (batch {peak.batch_size})" if peak.batch_size != 1 else ""
    return [
        f"{indent}- {head} the same level as the best under the budget above, said there with its verdicts: "
        f"`{peak.variant}` at concurrency {peak.concurrency}{batch}: {peak.numbers()}"
        + (f" {UNSTABLE_MARK} {peak.flags}." if peak.status != "ok" else "."),
        *(f"{indent}  - {sentence(w)}" for w in why),
    ]


def size_lines(run: RunResult, rec: Recommendation) -> list[str]:
    """A run of several client workloads' picks at each workload (swept input size, client batch
    size: :func:`perf.records.workloads.split_by_workload`): each pick above is for the workload of its
    own series, and when the best under the budget and the best peak stand at different workloads each
    is said with its own (a size or a batch size is the client's, not a setting to pick:
    :mod:`perf.analysis.ranking.rank` compares series of one workload only); every workload gets its own
    picks by the same rule (:func:`perf.analysis.recommendation.frontier.workload_recommendations`, which the plots
    mark too; trial 6: one pick at frames=16 for a run that also swept frames=98; trial 9: one pick at
    b=8 for a run that also measured b=1; the best peak at b=8 was said to be for b=1 clients, the
    workload of the best under the budget). Empty for a run of one workload."""
    per = workload_recommendations(run, rec)
    kinds = (["best_under_budget"] if rec.latency_budget_ms is not None else []) + ["best_peak"]
    above = {attr: at for attr in kinds if (at := _workload_of(run, getattr(rec, attr))) is not None}
    if len(per) < 2 or not above:
        return []
    one = len(set(above.values())) == 1
    said = (
        f"the {agree(len(above), 'pick', 'picks')} above {agree(len(above), 'is', 'are')} for clients sending "
        f"{next(iter(above.values()))}"
        if one
        else ", ".join(
            f"the {_kind_words(attr, getattr(rec, attr))} above is for clients sending {at}" for attr, at in above.items()
        )
    )
    lines = [
        f"- **Client workloads:** {said} ({first_pick_words(run)}; a size or a batch size is the client's, not a setting "
        "to pick); " + ("at the other workloads:" if one else "each workload's own picks:")
    ]
    verdicts = {c.build_verdict.text() for a in kinds if (c := getattr(rec, a)) is not None and c.build_verdict}  # above
    for label, sub in per.items():
        own = {attr: getattr(sub, attr) for attr in kinds}
        if all(c is getattr(rec, attr) for attr, c in own.items()):
            continue  # every pick of this workload is said above
        lines.append(f"  - {label}:")  # a bullet a pick (trial 19, T19-17: two picks on one line of 1,767 characters)
        for a, c in own.items():
            if c is getattr(rec, a) and c is not None:
                lines.append(f"    - {_kind_words(a, c)}: the one above.")
            elif a == "best_peak":  # at the level of this workload's best under the budget: one line (peak_lines)
                lines += peak_lines(c, own.get("best_under_budget"), verdicts, f"{_kind_words(a, c)}:", "    ")
            else:
                lines += pick_lines(f"{_kind_words(a, c)}:", c, "    ", verdicts)
    return lines


def _kind_words(attr: str, choice: Choice | None) -> str:
    """What a pick is, as the tables mark it: ``"best under the budget"``, or the best peak's
    :func:`perf.analysis.saturation.peaks.peak_mark` (``"best measured (peak not reached)"`` where it was not)."""
    return "best under the budget" if attr == "best_under_budget" else peak_mark(choice)


def _workload_of(run: RunResult, choice: Choice | None) -> str | None:
    """The client workload of a pick's series (``None``: no pick, or a run of one workload)."""
    own = run.variant(choice.variant) if choice is not None else None
    return workload(own) if own is not None else None


def flagged_note(rec: Recommendation, points: dict[str, list[Point]]) -> str:
    """What the flagged levels (:attr:`Recommendation.flagged`) mean for the pick, after their count
    and mark: in a rounds run the paired rounds decide, in a sequential one a flagged level ranks
    after the stable ones (or stands alone when there is none)."""
    if rec.ranking is not None:
        return (
            f"{UNSTABLE_MARK} on their numbers; the pick rests on paired rounds, in which every variant shared the "
            "host's state, so a flag does not decide it"
        )
    if any(p.status == "ok" for ps in points.values() for p in ps if candidate(p)):
        return f"{UNSTABLE_MARK}; ranked after the stable levels: a flagged level wins only when it beats every stable one by more than its spread"
    return f"{UNSTABLE_MARK}; the run has no stable level to rank first"
