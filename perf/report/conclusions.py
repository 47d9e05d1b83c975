"""Written conclusions of a sweep, computed from its data (no number is typed in by hand).

Four parts: (1) what was compared and where, (2) the numbers with % differences and their
significance (:mod:`perf.analysis.stats` noise rule), (3) the mechanism (queue vs compute time,
batches formed by the dynamic batcher, host CPU and the server's own CPU), (4) the
conditions under which it holds. Every explanatory phrase comes from :mod:`perf.report.phrases`,
chosen by the sign and size of the numbers it explains. The numbers compare the best peak
with the 1-instance, no-batching baseline and the runner-up, then summarise the grid by its
main effects (:mod:`perf.analysis.effects`); the conditions name the interactions that change an
effect's sign. A comparison with a host-busy level says it was not measured fairly
(:mod:`perf.analysis.fair`, :func:`perf.report.pairs.change_text`); every fair pair is listed
in the appendix by :func:`perf.report.pairs.pair_bullets`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from core.wording import agree, count, plural, sentence
from perf.analysis.cuts import unmeasured_text
from perf.analysis.effects import Interaction, MainEffect, interactions, main_effects
from perf.analysis.paired import RULE_SHORT
from perf.analysis.pairs import baseline, value_order, variant_of
from perf.analysis.peaks import peak_noun, step
from perf.analysis.recommendation import Recommendation, candidate
from perf.analysis.stats import (
    KNEE_GAIN_PCT,
    MIN_TRIALS_FOR_SPREAD,
    P99,
    THROUGHPUT,
    Point,
    curve,
    run_points,
)
from perf.markdown import flag_mark, fmt
from perf.records.levels import HOST_BUSY, UNSTABLE
from perf.records.results import RunResult, VariantResult
from perf.records.unfinished import unfinished_text
from perf.records.workloads import variant_name, workload, workloads_noun
from perf.report.effects import beside_recommendation, effects_sentences
from perf.report.pairs import change_clause, once, ranked_text
from perf.report.phrases import Facts, say
from perf.report.servers import measured_elsewhere
from perf.report.why import mechanism, runner_up


def _list(items: Iterable[Any]) -> str:
    return ", ".join(str(x) for x in items)


#: Names a sentence lists before it says how many more (the appendix and tables have them all).
NAMED = 5


def _some(items: Iterable[Any]) -> str:
    """The first :data:`NAMED` items, then "and N more"."""
    xs = [str(x) for x in items]
    return _list(xs[:NAMED]) + (f" and {len(xs) - NAMED} more" if len(xs) > NAMED else "")


def _what(run: RunResult, ok: list[VariantResult], pts: dict[str, list[Point]]) -> str:
    env, server = run.environment, run.environment.get("server") or {}
    ps = [t for t in (variant_of(v) for v in run.variants) if t is not None]
    uniq = lambda k: [str(x) for x in sorted({getattr(t, k) for t in ps}, key=value_order)]  # noqa: E731
    delays = sorted({t.max_queue_delay_us for t in ps if t.dynamic_batching})
    db = (
        "off" + (f" and on (max_queue_delay {_list(delays)} µs)" if delays else "")
        if any(not t.dynamic_batching for t in ps)
        else f"on (max_queue_delay {_list(delays)} µs)"
    )
    concs = sorted({p.concurrency for v in ok for p in pts[v.name] if p.ok})
    counts = sorted({p.trials for v in ok for p in pts[v.name] if p.ok})
    gpus = _list([g.get("name", "?") for g in env.get("gpus") or []]) or "no GPU"
    text = (
        f"**What was compared.** {_variants_words(run)} of model `{_list(uniq('model')) or '?'}` "
        f"(formats {_list(uniq('format')) or '?'}; {_list(uniq('kind')) or '?'} instances x{_list(uniq('count'))}; "
        f"dynamic batching {db}; max_batch_size {_list(uniq('max_batch_size'))}) on host `{env.get('host', '?')}` "
        f"({env.get('cpu', '?')}, {env.get('cpu_count', '?')} cores, {gpus}), served by the "
        f"{server.get('runtime', '?')} tritonserver {server.get('version', '?')} and measured by perf_analyzer "
        f"{(env.get('perf_analyzer') or {}).get('version', '?')} "
        + (
            f"at concurrency {concs[0]}–{concs[-1]}, {_per_level(counts, 'round' if run.rounds else 'trial')} per level."
            if concs
            else "(no level was measured)."
        )
    )
    failed = [v.name for v in run.variants if v.status == "failed"]
    return text + (
        f" {count(len(failed), 'variant')} failed and {agree(len(failed), 'is', 'are')} left out: {_some(failed)}."
        if failed
        else ""
    )


def _variants_words(run: RunResult) -> str:
    """``"4 variants"``; a shape sweep's series counted by variant, the sizes named (trial 9, F31:
    the two sizes of one variant are one variant): ``"2 variants at 2 input sizes (time=16, time=512)"``."""
    shapes = {v.name: workload(v) for v in run.variants}
    sizes = [s for s in dict.fromkeys(shapes.values()) if s]
    if not sizes:
        return count(len(run.variants), "variant")
    names = {variant_name(v) for v in run.variants}
    return f"{count(len(names), 'variant')} at {count(len(sizes), workloads_noun(sizes))} ({', '.join(sizes)})"


def _per_level(counts: list[int], noun: str) -> str:
    """``"3 rounds"``, ``"3–7 rounds"``: what each measured level got (``counts`` sorted)."""
    if not counts or counts[0] == counts[-1]:
        return count(counts[0] if counts else 0, noun)
    return f"{counts[0]}–{counts[-1]} {plural(noun)}"


def _with_status(points: Iterable[Point], status: str) -> list[str]:
    """The levels whose status (what every table marks, :func:`perf.markdown.flag_mark`) is ``status``."""
    return [
        f"`{p.variant}` c={p.concurrency}" + (f" b={p.batch_size}" if p.batch_size != 1 else "")
        for p in points
        if p.status == status
    ]


def _sentence(clause: str) -> str:
    """``"That is +12.0 % over X."`` for a measured change, ``"Its change over X is ..."`` otherwise."""
    return sentence(f"That is {clause}") if not clause.startswith("its change") else sentence(f"I{clause[1:]}")


def _numbers(
    run: RunResult, ok: list[VariantResult], rec: Recommendation, pts: dict[str, list[Point]], effects: Sequence[MainEffect]
) -> list[str]:
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
        f"**The numbers.** {what} {fmt(best.throughput_infer_per_s)} infer/s (`{best.variant}`, "
        f"concurrency {best.concurrency}{at_bs}, p99 {fmt(best.latency_p99_ms, 2)} ms{flag_mark(best.status)})"
        + (f"; its peak was not reached: {sentence(best.unreached)}" if best.unreached else ".")
    ]
    base = baseline(ok, run.variant(best.variant))
    if base is not None and base.name != best.variant and curve(pts[base.name], bs):
        bb = max(curve(pts[base.name], bs), key=lambda p: p.value(THROUGHPUT))
        own = f"`{base.name}` ({peak_noun(rec.unreached.get(base.name))} {fmt(bb.get(THROUGHPUT))} infer/s at concurrency {bb.concurrency}{flag_mark(bb.status)})"
        ranked = ranked_text(run, rec, base.name)
        head.append(
            f"Against the 1-instance, no-batching baseline {own}: {ranked}."
            if ranked
            else _sentence(change_clause(bb, bp, THROUGHPUT, mixed, run, f"over the 1-instance, no-batching baseline {own}"))
        )
    second = runner_up(ok, best.variant, bs, pts)
    if second is not None and (base is None or second.variant != base.name):
        head.append(
            # by peak, named as such: the Recommendation above ranks under the budget first (trial 9 F7: "The runner-up" was
            # the variant the budget's pick beats by the widest margin)
            f"The runner-up by {'peak throughput' if best.unreached is None else 'highest throughput measured'}"
            + (f" (not by the ranking under the {rec.budget_text})" if rec.latency_budget_ms is not None else "")
            + f", `{second.variant}`, "
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
            f"{fmt(top.get(THROUGHPUT))} infer/s (`{top.variant}` at concurrency {top.concurrency}{flag_mark(top.status)}), "
            f"but the paired ranking over the rounds {agree(len(higher), 'it', 'they')} shared does not put "
            f"{agree(len(higher), 'it', 'them')} ahead (see **Paired ranking**)."
        )
    elif top is not None and (second is None or top.variant != second.variant):  # its spread covers its lead (recommendation)
        head.append(
            f"{count(len(higher), 'flagged level')} measured more, up to {fmt(top.get(THROUGHPUT))} infer/s (`{top.variant}` "
            f"at concurrency {top.concurrency}, {top.status}), but none leads the best stable level by more than "
            "its own spread, so none is ranked above the pick."
        )
    if rec.latency_budget_ms is not None:
        u = rec.best_under_budget
        head.append(
            f"Under the {rec.budget_text} "
            + ("the pick, named first of a tie set (see Recommendation), is " if u and u.tied else "")
            + ("the pick, named first (see Recommendation), is " if u and u.uncompared and not u.tied else "")
            + ("the best is " if not (u and (u.tied or u.uncompared)) else "")
            + (
                f"`{u.variant}` at concurrency {u.concurrency}{_at_batch(u.batch_size)} with "
                f"{fmt(u.throughput_infer_per_s)} infer/s{flag_mark(u.status)}"
                + (f" ({u.judged_on})" if u.judged_on else "")
                + (f"; the rule did not separate it from {count(len(u.tie_set) - 1, 'other')}" if u.tied else "")
                + (
                    f"; never measured in the same round as {count(len(u.uncompared), 'other')}: not compared"
                    if u.uncompared
                    else ""
                )
                + sentence("".join(f"; {w}" for w in (u.short, u.headroom) if w))
                if u
                else "nothing: no level meets it"
                + (
                    f"; the lowest p99 reached is {fmt(rec.lowest_p99.latency_p99_ms, 2)} ms"
                    f"{flag_mark(rec.lowest_p99.status)}, by "
                    f"`{rec.lowest_p99.variant}` at concurrency {rec.lowest_p99.concurrency}"
                    f"{_at_batch(rec.lowest_p99.batch_size)}."
                    if rec.lowest_p99
                    else "."
                )
            )
        )
    if not mixed:
        head.append(sentence(once(measured, rounds=run.rounds is not None)))
    lines = [" ".join(head)]
    if effects:
        lines += ["", effects_sentences(effects, run.rounds is not None, beside_recommendation(effects, rec))]
    return lines


def _at_batch(batch_size: int) -> str:
    return f", client batch size {batch_size}" if batch_size != 1 else ""


def _no_knee_reason(run: RunResult, points: list[Point]) -> str:
    """Why a curve has no knee: its last step (:mod:`perf.report.phrases` ``no_knee``); throughput
    "still grew" only when the step rose beyond the noise (:func:`perf.analysis.peaks.step`), else its
    gain is said with what the noise rule found (not distinguishable from noise, spread unknown)."""
    c = [p for p in curve(points) if p.get(P99) is not None]
    if len(c) < 2:
        return ""
    a, b = c[-2], c[-1]
    gain = (b.value(THROUGHPUT) / a.value(THROUGHPUT) - 1) * 100.0 if a.value(THROUGHPUT) else None
    p99 = (b.value(P99) / a.value(P99) - 1) * 100.0 if a.value(P99) else None
    judged = step(run, a, b) if gain is not None and gain >= KNEE_GAIN_PCT else None
    if judged is None or judged.change == "rose":
        return say("no_knee", Facts(last_gain_pct=gain, last_p99_change_pct=p99), " and ")
    noise = f"throughput {gain:+.1f} % at the last step, {judged.said()}"
    rest = say("no_knee", Facts(last_gain_pct=None, last_p99_change_pct=p99), " and ")
    return f"{noise} and {rest}" if rest else noise


def _conditions(run: RunResult, rec: Recommendation, pts: dict[str, list[Point]], inters: Sequence[Interaction] = ()) -> str:
    env, server = run.environment, run.environment.get("server") or {}
    gpus = env.get("gpus")
    parts = [
        "**When this holds.**",
        "These numbers are for "
        + (
            measured_elsewhere(run)
            or f"this host ({env.get('cpu_count', '?')} cores"
            + (f", GPU {_list([g.get('name', '?') for g in gpus])})" if gpus else ", no GPU)")
        )
        + " and this model; instances of a CPU model share the same cores, so another core count or a larger "
        "model (longer compute per request) can change which setting wins.",
    ]
    if server.get("runtime") == "bundled":
        parts.append(
            "The bundled runtime serves every format through the python backend (one forward pass per "
            "execute() batch); native backends in the container runtime may rank differently."
        )
    allp = [p for ps in pts.values() for p in ps if p.ok]
    if allp:
        hi = max(p.concurrency for p in allp)
        failed = {v.name for v in run.variants if v.status == "failed"}
        live = [n for n in rec.knees if n not in failed]
        judged = {n: f for n in live if rec.knees[n] is None and (f := rec.falls.get(n)) is not None}  # peaks.fall's words
        falls = {n: f for n, f in judged.items() if f.finding}
        noise = {n: f for n, f in judged.items() if not f.finding}
        open_ = [n for n in live if rec.knees[n] is None and len(curve(pts[n])) > 1 and n not in judged]
        short = [n for n in live if len(curve(pts[n])) == 1]
        never: dict[str, list[str]] = {}  # why -> variants with no measured level (cut for time...): none, not "fewer than 2"
        for n in live:
            if not curve(pts[n]):
                never.setdefault(unmeasured_text(run, n) or "no level measured", []).append(f"`{n}`")
        text = f"Load was swept up to concurrency {hi}"
        if falls:
            said = [f"`{n}` ({f.describe()})" for n, f in list(falls.items())[:NAMED]]
            said += [f"{len(falls) - NAMED} more"] if len(falls) > NAMED else []
            text += f"; in {_list(said)} throughput fell as load rose, so the level before the fall is that variant's best"
        if noise:
            said = [f"`{n}` ({f.difference()})" for n, f in list(noise.items())[:NAMED]]
            said += [f"{len(noise) - NAMED} more"] if len(noise) > NAMED else []
            text += f"; in {_list(said)} neither a knee nor a fall is told"
        if open_:
            reasons = [f"`{n}` ({why})" if (why := _no_knee_reason(run, pts[n])) else f"`{n}`" for n in open_[:NAMED]]
            reasons += [f"{len(open_) - NAMED} more"] if len(open_) > NAMED else []
            text += (
                f"; {_list(reasons)} had no knee (a knee needs every later level to gain under {KNEE_GAIN_PCT:g} % "
                "throughput while p99 rises), so the ranking beyond that is unknown"
            )
        elif not short and not never and not judged:
            text += "; every variant reached its knee"
        if short:
            text += (
                f"; {count(len(short), 'variant')} {agree(len(short), 'has', 'have')} only 1 measured level, "
                f"so no saturation point ({_some(f'`{n}`' for n in short)})"
            )
        for why, names in never.items():
            text += f"; {_some(names)} {agree(len(names), 'was', 'were')} {why}"
        parts.append(sentence(text))
    if (stopped := unfinished_text(run)) is not None:
        parts.append(f"{stopped[:1].upper()}{stopped[1:]}: comparisons use only the levels measured before it stopped.")
    # by the status the tables mark (flag_mark): a host-busy level that was also unstable is marked host busy
    unstable = _with_status(allp, UNSTABLE)
    if unstable:
        parts.append(
            f"{count(len(unstable), 'level')} did not reach a stable measurement ({_some(unstable)}; marked "
            f"{flag_mark(UNSTABLE).strip()}); {agree(len(unstable), 'its', 'their')} numbers are less certain."
        )
    busy = _with_status(allp, HOST_BUSY)
    if busy:
        parts.append(
            f"{count(len(busy), 'level')} {agree(len(busy), 'was', 'were')} measured while other processes used the host "
            f"({_some(busy)}; marked "
            f"{flag_mark(HOST_BUSY).strip()})"
            + (
                ": each comparison pairs rounds in which both sides shared that load (see **Paired ranking**)."
                if run.rounds is not None
                else ": a comparison with them is not measured fairly and says so."
            )
        )
    if inters:
        parts.append(
            f"{count(len(inters), 'effect')} {agree(len(inters), 'changes', 'change')} sign with another factor, so "
            f"{agree(len(inters), 'it holds', 'they hold')} only where that factor is set as "
            f"measured: {'; '.join(i.describe() for i in inters[:2])}"
            + (f"; {len(inters) - 2} more in the Main effects section" if len(inters) > 2 else "")
            + "."
        )
    fewest = min((p.trials for p in allp), default=0)
    rel = [100.0 * s / p.value(THROUGHPUT) for p in allp if (s := p.spread(THROUGHPUT)) is not None]  # allp: ok, > 0 infer/s
    if fewest >= MIN_TRIALS_FOR_SPREAD and rel:
        parts.append(
            f"Each level was measured {fewest} times or more; throughput varied by a median "
            f"{statistics.median(rel):.1f} % (min–max) between {'rounds' if run.rounds else 'trials'}, and a difference is called "
            + (
                f"only by the paired rule over the rounds both sides shared ({RULE_SHORT})."
                if run.rounds is not None
                else "significant only when it exceeds both levels' spreads."
            )
        )
    elif allp and max(p.trials for p in allp) >= MIN_TRIALS_FOR_SPREAD:  # a single-trial run says so in _numbers
        parts.append(sentence(once(allp, rounds=run.rounds is not None)))
    return " ".join(parts)


def conclusions(run: RunResult, rec: Recommendation, effects: Sequence[MainEffect] | None = None) -> list[str]:
    """The four conclusion paragraphs as markdown lines (blank-line separated).

    Args:
        run: A loaded sweep.
        rec: Its :func:`perf.analysis.recommendation.recommend` result.
        effects: Its :func:`perf.analysis.effects.main_effects` (computed when not given): the numbers
            name them, the conditions name the interactions that change an effect's sign.
    """
    pts = run_points(run)
    ok = [v for v in run.variants if v.status != "failed" and curve(pts[v.name])]
    if effects is None:
        effects = main_effects(run, pts)
    return [
        _what(run, ok, pts),
        "",
        *_numbers(run, ok, rec, pts, effects),
        "",
        mechanism(run, ok, rec, pts),
        "",
        _conditions(run, rec, pts, interactions(effects)),
    ]
