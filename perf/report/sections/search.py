"""The report's section on the search: how the levels were chosen, and why each variant that
was not measured at every level was not ("not measured further because ...", or "its ladder
went no higher than concurrency N because ..." where only its ladder ended:
:meth:`perf.records.search.SearchDecision.words`), from the run's
:class:`perf.records.search.SearchRecord`."""

from __future__ import annotations

from core.wording import count, sentence
from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.stats.points import aggregate
from perf.markdown import APPENDIX_FILE, TOP_N, capped, fmt, table
from perf.records.results import RunResult
from perf.records.workloads import decision_name, series_decision, variant_name, workload, workloads_noun
from perf.report.sections.said import SEE, own
from perf.search.order import ORDER_RULE
from perf.search.policy import AUTO, ladder

#: Words for each decision rule, in the table: what stopped the variant's levels (:data:`perf.records.search.DecisionRule`).
RULE_WORDS = {
    "knee": "past the knee",
    "noise": "a rise the noise does not tell",
    "budget": "over the latency budget",
    "cap": "top of the ladder",
    "failed": "a level failed",
    "pruned": "pruned",
}


def _order_words(order: list[str], limit: int | None) -> str:
    """The search's order, its first ``limit`` names and how many more (the whole order in the appendix:
    trial 19, T19-17, a 200-variant run's order was one line of 5,708 characters)."""
    said = order if limit is None else order[:limit]
    more = (
        f", … {len(order) - len(said)} more (the whole order: [{APPENDIX_FILE}]({APPENDIX_FILE}))"
        if len(said) < len(order)
        else ""
    )
    return ", ".join(f"`{n}`" for n in said) + more + "."


def search_lines(run: RunResult, limit: int | None = TOP_N) -> list[str]:
    """Markdown lines of the ``## Search`` section; none for a run that measured every
    asked level of every variant (``brute`` over an explicit list, or a run saved before
    the search was recorded); a blank line ends the section.

    Every number is read from the run: the rules' thresholds, each decision's evidence,
    and the levels measured per variant.

    Args:
        run: The run.
        limit: With more variants than this (report.md), the table of every variant becomes a
            count per way their ladders ended, and the reasons are listed up to
            :data:`perf.markdown.LIST_LIMIT`; ``None`` (the appendix): every row and reason.
    """
    rec = run.search
    if rec is None or (rec.mode == "brute" and not rec.adaptive):
        return []
    r = rec.rules
    levels = ladder(AUTO, r)[0] if rec.adaptive else tuple(run.settings.get("concurrency") or ())
    how = []
    if rec.adaptive:
        how.append(
            f"concurrency **auto**: each variant from concurrency {r.start}, x{r.growth} per step up to {r.max_concurrency}, "
            f"while throughput still rose by more than {fmt(r.min_gain_pct)} % and more than both levels' measured spread"
            + (
                f", and the latency stayed under the budget (then up to {r.refine_steps} bisection steps toward its edge)"
                if run.settings.get("latency_budget_ms")
                else ""
            )
        )
    else:
        how.append(f"concurrency levels {', '.join(map(str, levels))}, measured whole on every variant not pruned")
    if run.rounds is not None:  # interleaved rounds: the ladder and pruning rules of perf.search.ladder / rounds
        how = [
            "concurrency " + ("**auto**" if rec.adaptive else ", ".join(map(str, levels))) + " in interleaved rounds "
            "(see Paired ranking)"
        ]
    elif rec.mode == "prune":
        how.append(
            "**pruning**: after the first variant, each one measured first at the concurrency of the best level so far "
            "and dropped when its best throughput plus its spread stayed below the best's minus the best's spread "
            "(the search assumes a variant behind at the best's concurrency stays behind at the others)"
        )
    b = run.rounds.budget if run.rounds is not None else None
    ints = [c for c in levels if isinstance(c, int)]
    cap = b.max_concurrency if b is not None and b.max_concurrency and ints and b.max_concurrency < max(ints) else None
    cuts = run.rounds.in_force() if run.rounds is not None else []
    cut = next((c.concurrency for c in cuts if c.kind == "levels" and c.variant is None and c.concurrency), None)
    if cut is not None and (below := [c for c in ints if c < cut]):  # the cap in force: a refit's (trial 24, T24-2)
        cap = min(cap or max(below), max(below))
    if cap is not None:  # the time budget capped the ladder: brute force over what it left
        levels = tuple(c for c in ints if c <= cap)
    capped_words = f"cut for time at c={cap}" if cap is not None else ""
    names = {variant_name(v) for v in run.variants}  # variants counted by name, their series apart (trial 10, F9)
    labels = sorted({w for v in run.variants if (w := workload(v))})
    planned = len(levels) * len(names) * max(1, len(labels))  # each variant at each client workload
    at = f" at {count(len(labels), workloads_noun(labels))}" if len(labels) > 1 else ""
    measured = sum(len({p.concurrency for p in aggregate(v.levels)}) for v in run.variants)
    lines = [
        "## Search",
        "",
        sentence("- Levels chosen by the search: " + "; ".join(how)),
        f"- Order ({ORDER_RULE if rec.mode == 'prune' else 'as the variants were given'}): " + _order_words(rec.order, limit),
        f"- Measured {measured} concurrency levels over "
        f"{len({variant_name(v) for v in run.variants if v.levels})} of the {len(names)} variants{at}"
        + (
            f" (brute force over the same ladder{', ' + capped_words if cap else ''}: {count(planned, 'level')})."
            if planned
            else "."
        ),
        "",
    ]
    rows = []
    for v in run.variants:
        d = series_decision(rec, v)  # its client workload's ladder's stop, else the variant's own
        cs = sorted({p.concurrency for p in aggregate(v.levels)})
        stop = RULE_WORDS[d.rule] if d else "every asked level" if cs else unmeasured_text(run, v.name) or "no level measured"
        if cap is not None and cs and max(cs) >= cap and (d is None or d.rule == "cap"):
            stop = capped_words  # not the ladder's own top: its peak above the cap was not measured
        rows.append([f"`{v.name}`", ", ".join(map(str, cs)) or "—", stop])
    why = [
        f"`{decision_name(run, d)}`: {sentence(d.words())}"
        if own(run)  # else an older toolkit's reason: its rule and level here, its words apart (issue 26)
        else f"`{decision_name(run, d)}`: {RULE_WORDS[d.rule]}{f' at concurrency {d.concurrency}' if d.concurrency else ''} ({SEE})."
        for d in rec.decisions
        if d.rule != "cap"
    ]
    if limit is not None and len(rows) > limit:
        ended: dict[str, int] = {}
        for row in rows:
            ended[row[2]] = ended.get(row[2], 0) + 1
        lines.append(
            "- Ladders ended: "
            + ", ".join(f"{words} {n}" for words, n in sorted(ended.items(), key=lambda x: -x[1]))
            + f" (each variant's levels: [{APPENDIX_FILE}]({APPENDIX_FILE}))."
        )
        return [*lines, *(["", *capped(why)] if why else []), ""]
    lines += table(["variant", "concurrency measured", "levels ended"], rows, ["left", "left", "left"])
    if why:
        lines += ["", *(f"- {x}" for x in why)]
    return [*lines, ""]
