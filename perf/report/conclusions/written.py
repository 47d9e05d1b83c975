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
from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.curves import curve
from perf.analysis.stats.paired import RULE_SHORT
from perf.analysis.stats.pairs import value_order, variant_of
from perf.analysis.stats.points import MIN_TRIALS_FOR_SPREAD, THROUGHPUT, Point, run_points
from perf.markdown import APPENDIX_FILE, TOP_N, flag_mark, packed
from perf.records.levels import HOST_BUSY, UNSTABLE
from perf.records.results import RunResult, VariantResult
from perf.records.unfinished import unfinished_text
from perf.records.workloads import variant_name, workload, workloads_noun
from perf.report.conclusions.numbers import counts_per_level, number_lines, with_status
from perf.report.conclusions.pairs import once
from perf.report.conclusions.why import mechanism
from perf.report.sections.servers import measured_elsewhere


def _list(items: Iterable[Any]) -> str:
    return ", ".join(str(x) for x in items)


#: Names a sentence lists before it says how many more (the appendix and tables have them all).
NAMED = 5
#: The longest bullet of the conclusions said on one line (characters); a longer one is a short sentence and a
#: bullet per part (report.md's lines stay within 1,200: trial 19, T19-17).
INLINE_CHARS = 1000


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


def _load_bullets(run: RunResult, rec: Recommendation, pts: dict[str, list[Point]]) -> list[str]:
    """How far load was swept and what each variant's curve tells, one sub-bullet per kind, each naming at most
    :data:`NAMED` variants: why each one has no knee, its fall, its noise are said once, in the knee list
    (:func:`perf.report.sections.knees.knee_lines`; trial 19, T19-17: a 3,856-character paragraph said them again)."""
    allp = [p for ps in pts.values() for p in ps if p.ok]
    failed = {v.name for v in run.variants if v.status == "failed"}
    live = [n for n in rec.knees if n not in failed]
    judged = {n: f for n in live if rec.knees[n] is None and (f := rec.falls.get(n)) is not None}  # peaks.fall's words
    falls = [f"`{n}`" for n, f in judged.items() if f.finding]
    noise = [f"`{n}`" for n, f in judged.items() if not f.finding]
    open_ = [f"`{n}`" for n in live if rec.knees[n] is None and len(curve(pts[n])) > 1 and n not in judged]
    short = [f"`{n}`" for n in live if len(curve(pts[n])) == 1]
    never: dict[str, list[str]] = {}  # why -> variants with no measured level (cut for time...): none, not "fewer than 2"
    for n in live:
        if not curve(pts[n]):
            never.setdefault(unmeasured_text(run, n) or "no level measured", []).append(f"`{n}`")
    kinds = []
    if falls:
        kinds.append(f"throughput fell as load rose in {_some(falls)}, so the level before the fall is that variant's best")
    if noise:
        kinds.append(f"neither a knee nor a fall is told in {_some(noise)}")
    if open_:
        kinds.append(
            f"{_some(open_)} had no knee (a knee needs {rec.knee_rule} while p99 rises), so the ranking beyond that is unknown"
        )
    if short:
        kinds.append(
            f"{count(len(short), 'variant')} {agree(len(short), 'has', 'have')} only 1 measured level, "
            f"so no saturation point ({_some(short)})"
        )
    kinds += [f"{_some(names)} {agree(len(names), 'was', 'were')} {why}" for why, names in never.items()]
    head = f"- Load was swept up to concurrency {max(p.concurrency for p in allp)}"
    if not kinds:
        return [f"{head}; every variant reached its knee."]
    head += "; each variant's knee, fall or why it has neither: **Saturation (knee)** in the Recommendation" + (
        f" and [{APPENDIX_FILE}]({APPENDIX_FILE})" if len(rec.knees) > TOP_N else ""
    )
    if len(inline := f"{head}: {'; '.join(kinds)}.") <= INLINE_CHARS:
        return [inline]
    return [f"{head}:", *(f"  - {sentence(k)}" for k in kinds)]  # a sub-bullet a kind


def _conditions(
    run: RunResult, rec: Recommendation, pts: dict[str, list[Point]], inters: Sequence[Interaction] = ()
) -> list[str]:
    """The "When this holds" paragraph: one short sentence (this host and model), then one bullet per condition
    (trial 19, T19-17: one line of up to 3,856 characters)."""
    env, server = run.environment, run.environment.get("server") or {}
    gpus = env.get("gpus")
    head = (
        "**When this holds.** These numbers are for "
        + (
            measured_elsewhere(run)
            or f"this host ({env.get('cpu_count', '?')} cores"
            + (f", GPU {_list([g.get('name', '?') for g in gpus])})" if gpus else ", no GPU)")
        )
        + " and this model; instances of a CPU model share the same cores, so another core count or a larger "
        "model (longer compute per request) can change which setting wins:"
    )
    if server.get("runtime") == "bundled":  # said with the host: one short line
        head = head.removesuffix(":") + (
            ". The bundled runtime serves every format through the python backend (one forward pass per "
            "execute() batch); native backends in the container runtime may rank differently:"
        )
    allp = [p for ps in pts.values() for p in ps if p.ok]
    bullets = _load_bullets(run, rec, pts) if allp else []
    parts = []
    if unfinished_text(run) is not None:  # said whole in the note at the top: pointed to (s17a's left-alone repeat)
        parts.append("The run did not finish (the note at the top): comparisons use only the levels measured before it stopped.")
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
    if inters:  # each one's numbers are said once, in the Main effects section (trial 19, T19-17)
        which = list(dict.fromkeys(f"{i.effect.change} (with the {i.other.label})" for i in inters))  # a metric each
        parts.append(
            f"{count(len(which), 'effect')} {agree(len(which), 'changes', 'change')} sign with another factor, so "
            f"{agree(len(which), 'it holds', 'they hold')} only where that factor is set as measured: "
            f"{_some(which)}; numbers: **Interactions** in the Main effects section."
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
    rest = packed(parts, INLINE_CHARS)  # short ones share a bullet (the report's line bound)
    body = [*bullets, *([f"- {rest[0]}", *rest[1:]] if rest else [])]
    return [head, *body] if body else [sentence(head.removesuffix(":"))]


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
        *_conditions(run, rec, pts, interactions(effects)),
    ]
