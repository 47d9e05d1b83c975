"""Written conclusions of a sweep, computed from its data (no number is typed in by hand).

Four parts: (1) what was compared and where, (2) the numbers with % differences and their
significance (:mod:`perf.analysis.stats.points` noise rule), (3) the mechanism (queue vs compute time,
batches formed by the dynamic batcher, host CPU and the server's own CPU), (4) the
conditions under which it holds. Every explanatory phrase comes from :mod:`perf.report.phrases`,
chosen by the sign and size of the numbers it explains. The numbers compare the best peak
with the 1-instance, no-batching baseline and the runner-up, then summarise the grid by its
main effects (:mod:`perf.analysis.effects.main_effects`); the conditions name the interactions that change an
effect's sign. A comparison with a host-busy level says it was not measured fairly
(:mod:`perf.analysis.stats.fair`, :func:`perf.report.conclusions.pairs.change_text`); every fair pair is listed
in the appendix by :func:`perf.report.conclusions.pairs.pair_bullets`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from core.wording import agree, count, sentence
from perf.analysis.effects.main_effects import Interaction, MainEffect, interactions, main_effects
from perf.analysis.effects.pairs import value_order, variant_of
from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.rises import p99_step, rise_between
from perf.analysis.stats.curves import curve
from perf.analysis.stats.paired import RULE_SHORT
from perf.analysis.stats.points import MIN_TRIALS_FOR_SPREAD, P99, THROUGHPUT, Point, run_points
from perf.markdown import flag_mark
from perf.records.levels import HOST_BUSY, UNSTABLE
from perf.records.results import RunResult, VariantResult
from perf.records.unfinished import unfinished_text
from perf.records.workloads import variant_name, workload, workloads_noun
from perf.report.conclusions.numbers import counts_per_level, number_lines, with_status
from perf.report.conclusions.pairs import once
from perf.report.conclusions.why import mechanism
from perf.report.phrases import Facts, say
from perf.report.sections.servers import measured_elsewhere


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
            f"at concurrency {concs[0]}–{concs[-1]}, {counts_per_level(counts, 'round' if run.rounds else 'trial')} per level."
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


def _no_knee_reason(run: RunResult, points: list[Point]) -> str:
    """Why a curve has no knee: its last step (:mod:`perf.report.phrases` ``no_knee``), each trend by its one
    rule (:mod:`perf.analysis.saturation.rises`): throughput "still grew" only when it rose beyond the noise
    and by more than the least gain a step must give, p99 "fell" only beyond the noise; a change the noise
    does not tell is said with its evidence (not distinguishable from noise: rounds and p, or spread unknown)."""
    c = [p for p in curve(points) if p.get(P99) is not None]
    if len(c) < 2:
        return ""
    a, b = c[-2], c[-1]
    r, q = rise_between(run, a, b), p99_step(run, a, b)
    p99 = (b.value(P99) / a.value(P99) - 1) * 100.0 if a.value(P99) else None
    facts = Facts(
        last_gain_pct=r.gain_pct,
        last_gain="rose" if r.rises else None if r.flat else "untold",
        last_gain_evidence=r.step.evidence if r.rises else r.step.said(),
        last_gain_basis=r.basis(),
        last_p99_change_pct=p99,
        last_p99="fell" if q.change == "fell" else "untold" if q.change is None else None,
        last_p99_evidence=q.said(),
    )
    return say("no_knee", facts, " and ")


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
                f"; {_list(reasons)} had no knee (a knee needs {rec.knee_rule} while p99 rises), so the ranking "
                "beyond that is unknown"
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
    unstable = with_status(allp, UNSTABLE)
    if unstable:
        parts.append(
            f"{count(len(unstable), 'level')} did not reach a stable measurement ({_some(unstable)}; marked "
            f"{flag_mark(UNSTABLE).strip()}); {agree(len(unstable), 'its', 'their')} numbers are less certain."
        )
    busy = with_status(allp, HOST_BUSY)
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
    elif allp and max(p.trials for p in allp) >= MIN_TRIALS_FOR_SPREAD:  # a single-trial run says so in number_lines
        parts.append(sentence(once(allp, rounds=run.rounds is not None)))
    return " ".join(parts)


def conclusions(run: RunResult, rec: Recommendation, effects: Sequence[MainEffect] | None = None) -> list[str]:
    """The four conclusion paragraphs as markdown lines (blank-line separated).

    Args:
        run: A loaded sweep.
        rec: Its :func:`perf.analysis.recommendation.recommend.recommend` result.
        effects: Its :func:`perf.analysis.effects.main_effects.main_effects` (computed when not given): the numbers
            name them, the conditions name the interactions that change an effect's sign.
    """
    pts = run_points(run)
    ok = [v for v in run.variants if v.status != "failed" and curve(pts[v.name])]
    if effects is None:
        effects = main_effects(run, pts)
    return [
        _what(run, ok, pts),
        "",
        *number_lines(run, ok, rec, pts, effects),
        "",
        mechanism(run, ok, rec, pts),
        "",
        _conditions(run, rec, pts, interactions(effects)),
    ]
