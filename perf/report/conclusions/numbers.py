"""The conclusions' second part: the numbers with % differences and their significance
(:func:`number_lines`), and the levels each count and status covers (:mod:`perf.report.conclusions.written`
joins the parts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.units import throughput_text
from core.wording import agree, count, plural, sentence
from perf.analysis.build_checks import named
from perf.analysis.effects.main_effects import MainEffect
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.peaks import HEADROOM_NOTE, WHY_SAID, peak_noun, unreached_mark
from perf.analysis.stats.curves import curve
from perf.analysis.stats.pairs import baseline
from perf.analysis.stats.points import MIN_TRIALS_FOR_SPREAD, THROUGHPUT, Point
from perf.markdown import flag_mark, fmt, packed
from perf.records.results import RunResult, VariantResult
from perf.report.conclusions.pairs import change_clause, once, ranked_text
from perf.report.conclusions.why import runner_up
from perf.report.sections.effects import BESIDE_POINTER, beside_recommendation, effects_sentences

#: A best under the budget that is best among the levels measured only, in the Conclusions: its why
#: (:func:`perf.analysis.saturation.peaks.budget_unreached`, up to ~700 characters with a peak not told) is said with the
#: pick in the Recommendation (re-check 20, NEW-4: said whole there and here, word for word).
HEADROOM_SAID = f"best among the levels measured only ({HEADROOM_NOTE}; {WHY_SAID})"


def counts_per_level(counts: list[int], noun: str) -> str:
    """``"3 rounds"``, ``"3–7 rounds"``: what each measured level got (``counts`` sorted)."""
    if not counts or counts[0] == counts[-1]:
        return count(counts[0] if counts else 0, noun)
    return f"{counts[0]}–{counts[-1]} {plural(noun)}"


def with_status(points: Iterable[Point], status: str) -> list[str]:
    """The levels whose status (what every table marks, :func:`perf.markdown.flag_mark`) is ``status``."""
    return [
        f"`{p.variant}` c={p.concurrency}" + (f" b={p.batch_size}" if p.batch_size != 1 else "")
        for p in points
        if p.status == status
    ]


def _sentence(clause: str) -> str:
    """``"That is +12.0 % over X."`` for a measured change, ``"Its change over X is ..."`` otherwise."""
    return sentence(f"That is {clause}") if not clause.startswith("its change") else sentence(f"I{clause[1:]}")


def number_lines(
    run: RunResult, ok: list[VariantResult], rec: Recommendation, pts: dict[str, list[Point]], effects: Sequence[MainEffect]
) -> list[str]:
    """The conclusions' "The numbers." paragraph (the best peak, its spread and flags, a budget no level meets: its first
    sentence, then a bullet per comparison) and the effects' sentences."""
    best = rec.best_peak
    if best is None:
        return ["**The numbers.** No variant produced a measurement."]
    bs = best.batch_size
    measured = [p for v in ok for p in pts[v.name] if p.ok]
    mixed = any(p.trials >= MIN_TRIALS_FOR_SPREAD for p in measured)  # else every spread is unknown: said once
    at_bs = _at_batch(bs)
    bp = next(p for p in pts[best.variant] if (p.concurrency, p.batch_size) == (best.concurrency, bs))
    what = "The best peak is" if best.unreached is None else "The best throughput measured is"
    head = [
        f"**The numbers.** {what} {throughput_text(best.throughput_infer_per_s, best.batch_size, fmt)} (`{best.variant}`, "
        f"concurrency {best.concurrency}{at_bs}, p99 {fmt(best.latency_p99_ms, 2)} ms{flag_mark(best.status)}"
        + "".join(f"; {w}" for w in best.unverified)  # the build's verdict on it (T13-10)
        + ")"
        + (f"; {unreached_mark(best.unreached)} ({WHY_SAID})." if best.unreached else ".")  # said once (T19-17)
    ]
    base = baseline(ok, run.variant(best.variant))
    peaks = best_levels(run, pts, bs)  # each series' level the table names
    if base is not None and base.name != best.variant and (bb := peaks.get(base.name)) is not None:
        own = f"{named(run, base.name)} ({peak_noun(rec.unreached.get(base.name))} {fmt(bb.get(THROUGHPUT))} infer/s at concurrency {bb.concurrency}{flag_mark(bb.status)})"
        ranked = ranked_text(run, rec, base.name)
        head.append(
            f"Against the 1-instance, no-batching baseline {own}: {ranked}."
            if ranked
            else _sentence(change_clause(bb, bp, THROUGHPUT, mixed, run, f"over the 1-instance, no-batching baseline {own}"))
        )
    second = runner_up(ok, best.variant, peaks)
    if second is not None and (base is None or second.variant != base.name):
        head.append(
            # by peak, named as such: the Recommendation above ranks under the budget first (trial 9 F7: "The runner-up" was
            # the variant the budget's pick beats by the widest margin)
            f"The runner-up by {'peak throughput' if best.unreached is None else 'highest throughput measured'}"
            + (f" (not by the ranking under the {rec.budget_text})" if rec.latency_budget_ms is not None else "")
            + f", {named(run, second.variant)}, "
            + ("peaked at" if second.variant not in rec.unreached else "measured up to")
            + f" {fmt(second.get(THROUGHPUT))} infer/s "
            f"(concurrency {second.concurrency}{flag_mark(second.status)}"
            + (f"; the median of its {count(second.trials, 'round')}" if run.rounds is not None else "")
            + "): "
            + (
                f"against the best, {ranked}"
                if (ranked := ranked_text(run, rec, second.variant, of_pick=False))
                else change_clause(bp, second, THROUGHPUT, mixed, run, "against the best")
            )
            + (
                "; the paired ranking over the rounds they shared does not put it ahead (see **Paired ranking**)."
                if second.value(THROUGHPUT) > bp.value(THROUGHPUT) and run.rounds is not None
                else f", at a {second.status} level that does not lead the best stable level by more than its own spread, "
                "so it is not ranked above the pick."
                if second.value(THROUGHPUT) > bp.value(THROUGHPUT)
                else "."
            )
        )
    higher = [p for v in ok for p in curve(pts[v.name], bs) if candidate(p) and p.value(THROUGHPUT) > bp.value(THROUGHPUT)]
    top = max(higher, key=lambda p: p.value(THROUGHPUT), default=None)
    if top is not None and (second is None or top.variant != second.variant) and run.rounds is not None:
        head.append(  # the rounds design ranks by paired rounds, not by a level's own spread
            f"{count(len(higher), 'level')} measured more in {agree(len(higher), 'its', 'their')} own rounds, up to "
            f"{fmt(top.get(THROUGHPUT))} infer/s ({named(run, top.variant)} at concurrency {top.concurrency}{flag_mark(top.status)}), "
            f"but the paired ranking over the rounds {agree(len(higher), 'it', 'they')} shared does not put "
            f"{agree(len(higher), 'it', 'them')} ahead (see **Paired ranking**)."
        )
    elif top is not None and (second is None or top.variant != second.variant):  # its spread covers its lead (recommendation)
        head.append(
            f"{count(len(higher), 'flagged level')} measured more, up to {fmt(top.get(THROUGHPUT))} infer/s ({named(run, top.variant)} "
            f"at concurrency {top.concurrency}, {top.status}), but none leads the best stable level by more than "
            "its own spread, so none is ranked above the pick."
        )
    if rec.missed is not None:  # said whole in the Recommendation (perf.analysis.recommendation.missed): pointed to
        head.append(f"No level meets {rec.missed.budget_words()} (the closest: see Recommendation).")
    elif rec.latency_budget_ms is not None and (u := rec.best_under_budget) is not None:
        head.append(
            f"Under the {rec.budget_text} "
            + ("the pick, named first of a tie set (see Recommendation), is " if u.tied else "")
            + ("the pick, named first (see Recommendation), is " if u.uncompared and not u.tied else "")
            + ("the best is " if not (u.tied or u.uncompared) else "")
            + f"`{u.variant}` at concurrency {u.concurrency}{_at_batch(u.batch_size)} with "
            f"{fmt(u.throughput_infer_per_s)} infer/s{flag_mark(u.status)}"
            + (f" ({u.judged_on})" if u.judged_on else "")
            + (f"; the rule did not separate it from {count(len(u.tie_set) - 1, 'other')}" if u.tied else "")
            + (f"; never measured in the same round as {count(len(u.uncompared), 'other')}: not compared" if u.uncompared else "")
            + sentence("".join(f"; {w}" for w in (u.short, u.headroom and HEADROOM_SAID, *u.unverified) if w))
        )
    if not mixed:  # of every level: said with the best, not as a comparison
        head[0] += " " + sentence(once(measured, rounds=run.rounds is not None))
    lines = packed(head)  # the best, then the comparisons as bullets (trial 19, T19-17: one line of 2,132)
    if effects:
        beside = BESIDE_POINTER if beside_recommendation(effects, rec) else None
        lines += ["", effects_sentences(effects, run.rounds is not None, beside)]
    return lines


def _at_batch(batch_size: int) -> str:
    return f", client batch size {batch_size}" if batch_size != 1 else ""
