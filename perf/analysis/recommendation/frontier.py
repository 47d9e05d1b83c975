"""The Pareto frontier of a sweep: the levels no other level beats on both throughput and p99.

A level ``a`` *dominates* ``b`` when ``a``'s throughput is at least ``b``'s and ``a``'s p99
at most ``b``'s, one of the two strictly. The frontier is every candidate level (medians over
trials that may be ranked, :func:`perf.analysis.recommendation.excluded.candidate`) that no other candidate
dominates, sorted by p99 (lowest first, so throughput rises along it). A report whose budget is on another
percentile (a p95 what-if view) takes every frontier on that latency instead
(:attr:`perf.analysis.recommendation.recommend.Recommendation.latency_field`), as its plots draw it (trial 14,
T14-7). Three views:

* :func:`operating_frontier`: over every (variant, level) — the operating points worth
  choosing from; the frontier plot draws it.
* :func:`best_level_frontier`: each variant at its best level (:func:`perf.analysis.stats.trials.rank`:
  highest throughput, stable levels first), then the frontier of those.
* :func:`level_frontiers`: per (client batch size, concurrency), among the variants measured there.

Flagged levels (unstable, host busy) may be on the frontier; the report marks them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from core.units import infer_per_s_legend
from core.wording import agree, count, plural, sentence, some_of
from perf.analysis.build_checks import named
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import Recommendation, recommend
from perf.analysis.saturation.best_level import best_levels as named_levels
from perf.analysis.saturation.peaks import HEADROOM_NOTE, peak_mark
from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.markdown import APPENDIX_FILE, UNSTABLE_MARK, flag_mark, fmt, name_then_numbers, table
from perf.records.results import RunResult
from perf.records.workloads import workload, workloads_noun

#: Frontier rows the report shows; the appendix lists every one.
FRONTIER_ROWS = 10
#: Concurrency levels up to which the report lists the frontier per level (the appendix always does).
PER_LEVEL_MAX = 4


def size_of(p: Point) -> str:
    """The client workload of a series of a run of several (``"ncat=32"`` of ``"v [ncat=32]"``, ``"b=8"`` of
    ``"v [b=8]"``: :func:`perf.records.workloads.series_name`), ``""`` for a run of one."""
    name = p.variant
    return name[name.rindex(" [") + 2 : -1] if name.endswith("]") and " [" in name else ""


def variant_of_series(p: Point) -> str:
    """The variant of a shape sweep's series (``"v"`` of ``"v [ncat=32]"``); the name itself for a
    run without one."""
    size = size_of(p)
    return p.variant[: -len(size) - 3] if size else p.variant


def size_order(sizes: Iterable[str]) -> list[str]:
    """Swept sizes in their numbers' order (``time=16`` before ``time=128``), ``""`` first."""
    return sorted(set(sizes), key=lambda s: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)])


def levels_words(points: Iterable[Point], sizes: bool = True) -> str:
    """How many levels of how many variants, counted by variant (not by series: the sizes of one
    variant are one variant, trial 9 F31), with the sizes named (``sizes``): ``"4 levels of 1
    variant at 2 input sizes (time=16, time=512)"``, ``"8 levels of 3 variants"``."""
    pts = list(points)
    said = f"{count(len(pts), 'level')} of {count(len({variant_of_series(p) for p in pts}), 'variant')}"
    named = [s for s in size_order(size_of(p) for p in pts) if s] if sizes else []
    return said + (f" at {count(len(named), workloads_noun(named))} ({', '.join(named)})" if named else "")


def frontier(points: Iterable[Point], metric: str = P99) -> list[Point]:
    """The non-dominated candidates of ``points``, by p99 (or ``metric``) ascending (throughput ascending too).

    Sort by p99 (ties: higher throughput first) and keep each point whose throughput beats
    every point kept before it: O(n log n). Two points with equal throughput and p99 are both kept.
    Levels of different client workloads (swept input sizes, client batch sizes) never dominate each
    other (a size or a batch size is the client's, not a setting to pick; trial 7: ncat=1 levels were
    "dominated" by ncat=32 ones; trial 9: b=1 ones by b=8 ones): one frontier per workload, merged by p99.

    Args:
        points: Any levels; non-candidates (:func:`perf.analysis.recommendation.excluded.candidate`) are skipped.
        metric: The latency field (default p99); another percentile's (``latency_p95_ms``): the frontier on the
            latency a budget is judged on, which a what-if view's plots draw (levels without it skipped).
    """
    cands = sorted(
        (p for p in points if candidate(p) and p.get(metric) is not None), key=lambda p: (p.value(metric), -p.value(THROUGHPUT))
    )
    out: list[Point] = []
    last: dict[str, Point] = {}  # the last point kept of each size
    for p in cands:
        prev = last.get(size_of(p))
        if prev is None or p.value(THROUGHPUT) > prev.value(THROUGHPUT):
            out.append(p)
            last[size_of(p)] = p
        elif p.value(THROUGHPUT) == prev.value(THROUGHPUT) and p.value(metric) == prev.value(metric):
            out.append(p)
    return out


def operating_frontier(points: dict[str, list[Point]], failed: Iterable[str] = (), metric: str = P99) -> list[Point]:
    """The frontier over every level of every variant that did not fail (on the latency ``metric``, :func:`frontier`)."""
    gone = set(failed)
    return frontier((p for n, pts in points.items() if n not in gone for p in pts), metric)


def workload_frontiers(front: Iterable[Point]) -> dict[str, list[Point]]:
    """A frontier (:func:`frontier`, :func:`operating_frontier`) split by client workload
    (:func:`size_of`; ``""`` for a run of one), in the workloads' order, each by p99: the one
    line per workload that every drawing of it draws (pareto_frontier.png, report.html; workloads are
    never compared, so one line through all of them would step from one workload's levels to another's)."""
    pts = list(front)
    return {w: [p for p in pts if size_of(p) == w] for w in size_order(size_of(p) for p in pts)}


def best_levels(points: dict[str, list[Point]], failed: Iterable[str] = (), run: RunResult | None = None) -> dict[str, Point]:
    """Each variant's best level, the one the console table and the picks name
    (:func:`perf.analysis.saturation.best_level.best_levels`; trial 12, F5: the Variant frontier took another level
    of a series than the table), of the variants not ``failed``; ``run``: the run of ``points`` (``None``: a
    run of trials at the default stability tolerance)."""
    gone = set(failed)
    return {n: p for n, p in named_levels(run, points).items() if n not in gone}


def best_level_frontier(
    points: dict[str, list[Point]], failed: Iterable[str] = (), run: RunResult | None = None, metric: str = P99
) -> list[Point]:
    """The frontier of the variants at their best level (:func:`best_levels`), on the latency ``metric`` (:func:`frontier`)."""
    return frontier(best_levels(points, failed, run).values(), metric)


def level_frontiers(
    points: dict[str, list[Point]], failed: Iterable[str] = (), metric: str = P99
) -> dict[tuple[int, int], list[Point]]:
    """``{(batch size, concurrency): frontier of the variants measured at that level}`` (on the latency ``metric``), sorted by level."""
    gone = set(failed)
    groups: dict[tuple[int, int], list[Point]] = {}
    for name, pts in points.items():
        if name not in gone:
            for p in pts:
                groups.setdefault((p.batch_size, p.concurrency), []).append(p)
    return {k: frontier(v, metric) for k, v in sorted(groups.items())}


def _level(p: Point) -> str:
    return f"c={p.concurrency}" + (f", b={p.batch_size}" if p.batch_size != 1 else "")


def _names(pts: list[Point], limit: int = 4) -> str:
    return some_of([f"`{p.variant}`" for p in pts], limit)


def _is(p: Point, choice: object) -> bool:
    return choice is not None and (p.variant, p.concurrency, p.batch_size) == (
        getattr(choice, "variant", None),
        getattr(choice, "concurrency", None),
        getattr(choice, "batch_size", None),
    )


def frontier_rows(front: list[Point], rec: Recommendation | None) -> list[list[object]]:
    """Table rows of frontier levels (:func:`frontier_headers`): variant, level, throughput, the budget's percentile
    when not p99, p99, what the recommendation made of it."""
    other = rec.latency_field if rec is not None and rec.latency_percentile != 99 else None
    rows: list[list[object]] = []
    for p in front:
        under = rec and rec.best_under_budget
        quieter = f" ({under.judged_note})" if under and under.judged_note else ""
        top = rec and rec.best_peak
        marks = [m for m, c in ((f"best under budget{quieter}", under), (peak_mark(top or None), top)) if _is(p, c)]
        flag = flag_mark(p.flags)
        latencies = [fmt(p.get(m), 2) for m in (other, P99) if m is not None]
        rows.append([f"`{p.variant}`{flag}", _level(p), fmt(p.get(THROUGHPUT)), *latencies, ", ".join(marks)])
    return rows


def frontier_headers(rec: Recommendation | None) -> list[str]:
    """The headers of :func:`frontier_rows`: the budget's percentile before the p99 when it is another."""
    other = [f"p{rec.latency_percentile} (ms)"] if rec is not None and rec.latency_percentile != 99 else []
    return ["variant", "level", "throughput (infer/s)", *other, "p99 (ms)", "recommended as"]


def frontier_table(front: list[Point], rec: Recommendation | None) -> list[str]:
    """The frontier levels as a markdown table (:func:`frontier_rows`)."""
    headers = frontier_headers(rec)
    return table(headers, frontier_rows(front, rec), name_then_numbers(len(headers) - 1) + ["left"])


def frontier_section(
    points: dict[str, list[Point]], rec: Recommendation, failed: Iterable[str] = (), run: RunResult | None = None
) -> list[str]:
    """The report's "Pareto frontier" section (markdown lines): the operating frontier (at
    most :data:`FRONTIER_ROWS` rows, evenly spread along it when longer), the frontier at each
    variant's best level (:func:`best_levels` of ``run``), and per concurrency level; on the latency the budget
    is judged on (:attr:`~perf.analysis.recommendation.recommend.Recommendation.latency_field`)."""
    failed, lat, said = set(failed), rec.latency_field, f"p{rec.latency_percentile}"
    front = operating_frontier(points, failed, lat)
    if not front:
        return ["## Pareto frontier", "", "No level can be ranked, so there is no frontier."]
    sizes = size_order(size_of(p) for p in front)
    if len(sizes) > 1:  # one frontier per size, each in latency order (sorted is stable)
        front = sorted(front, key=lambda p: sizes.index(size_of(p)))
    shown = front
    if len(front) > FRONTIER_ROWS:  # keep both ends and the recommended levels, spread the rest evenly
        step = (len(front) - 1) / (FRONTIER_ROWS - 1)
        keep = {round(i * step) for i in range(FRONTIER_ROWS)}
        keep |= {i for i, p in enumerate(front) if _is(p, rec.best_peak) or _is(p, rec.best_under_budget)}
        shown = [p for i, p in enumerate(front) if i in keep]
    lines = [
        "## Pareto frontier",
        "",
        "The **operating frontier**: over every level of every variant, the levels no other level"
        + (f" of the same {workloads_noun(sizes)}" if len(sizes) > 1 else "")
        + f" beats on both throughput and {said} ({levels_words(front)}"
        + (
            f"; one frontier per {workloads_noun(sizes)}, never compared across {plural(workloads_noun(sizes))}, each"
            f" lowest {said} first"
            if len(sizes) > 1
            else f", lowest {said} first"
            if len(front) > 1
            else ""  # one level has no order (trial 25, T25-10)
        )
        + f"; every other level is slower, has a higher {said}, or both). "
        + (
            f"{len(shown)} of them shown, evenly spread along it; all in [{APPENDIX_FILE}]({APPENDIX_FILE}). "
            if shown is not front
            else ""
        )
        + f"{UNSTABLE_MARK}: a flagged level (unstable or host busy)."
        + "".join(f" {sentence(w)}" for w in [infer_per_s_legend(p.batch_size for p in shown)] if w),  # T23-15
        "",
        *frontier_table(shown, rec),
        "",
    ]
    best = best_level_frontier(points, failed, run, lat)
    lines.append(
        f"- **Variant frontier** (another definition: each variant reduced to its best level, then the variants no "
        f"other beats on both): {_names(best, 6)} (lowest {said} first)." + _why_differ(front, best, said)
    )
    per = per_level_lines(points, failed, lat)
    if len(per) <= PER_LEVEL_MAX:
        lines += ["- **Per-level frontier** (a third: at one concurrency, among the variants measured there):", *per]
    else:
        lines.append(
            f"- **Per-level frontier** (at one concurrency at a time): in [{APPENDIX_FILE}]({APPENDIX_FILE}) ({len(per)} levels)."
        )
    return lines


def _why_differ(front: list[Point], best: list[Point], said: str = "p99") -> str:
    """Why the variant frontier names other variants than the operating frontier, when it does."""
    if {p.variant for p in best} == {p.variant for p in front}:
        return ""
    return (
        " It differs from the operating frontier above by definition, not by error: there a variant is on it with "
        f"any level nothing beats (often a low-concurrency level: low {said}, less throughput); here only with its best "
        "level (its highest throughput)."
    )


def per_level_lines(points: dict[str, list[Point]], failed: Iterable[str] = (), metric: str = P99) -> list[str]:
    """One indented bullet per level naming its frontier's variants (on the latency ``metric``)."""
    return [f"  - {_level(ps[0])}: {_names(ps)}" for ps in level_frontiers(points, failed, metric).values() if ps]


def frontier_summary(
    points: dict[str, list[Point]], rec: Recommendation, failed: Iterable[str] = (), run: RunResult | None = None
) -> str:
    """One sentence for the recommendation: the frontier's ends and whether each pick is on it (on the latency
    the budget is judged on, as :func:`frontier_section`; several client workloads: each one's ends on its own
    line, a sub-bullet, ``newline + "  - "`` before it); each end with its build's verdict when it is not ``ok``
    (``run``'s: :func:`perf.analysis.build_checks.named`)."""
    lat, said = rec.latency_field, f"p{rec.latency_percentile}"
    front = operating_frontier(points, failed, lat)
    if not front:
        return ""
    sizes = size_order(size_of(p) for p in front)
    ends = []
    for size in sizes:
        own = [p for p in front if size_of(p) == size]
        lo, hi = own[0], own[-1]
        at = f"at {size}: " if size else ""
        if len(own) == 1:  # one level is both ends: said once (trial 25, T25-10: "from `a` at c=4 (...) to `a` at c=4 (...)")
            ends.append(
                f"{at}one level, {named(run, lo.variant)} at {_level(lo)} (both the lowest {said} and the highest "
                f"throughput: {fmt(lo.get(THROUGHPUT))} infer/s, {said} {fmt(lo.get(lat), 2)} ms)"
            )
            continue
        ends.append(
            at
            + f"from {named(run, lo.variant)} at {_level(lo)} (lowest {said}, {fmt(lo.get(lat), 2)} ms, {fmt(lo.get(THROUGHPUT))} infer/s) "
            f"to {named(run, hi.variant)} at {_level(hi)} (highest throughput, {fmt(hi.get(THROUGHPUT))} infer/s, {said} {fmt(hi.get(lat), 2)} ms)"
        )
    apart = (
        "; one per client workload (input size, client batch size), never compared across workloads: a size or a "
        "batch size is the client's, not a setting to pick"
        if len(sizes) > 1
        else ""
    )
    head = (
        f"**Pareto frontier** (the operating frontier: over every level of every variant{apart}; {levels_words(front)}; "
        "see the section below)"
    )
    off = [
        what
        for what, c in (("best under budget", rec.best_under_budget), (peak_mark(rec.best_peak), rec.best_peak))
        if c is not None and not any(_is(p, c) for p in front)
    ]
    off_words = (  # a flagged level with more throughput at no more latency beats the stable pick
        f"the {' and the '.join(off)} {agree(len(off), 'pick is', 'picks are')} not on it (a flagged level "
        f"beats {agree(len(off), 'it', 'them')} on both)"
        if off
        else ""
    )
    if len(ends) > 1:  # one sub-bullet a workload (trial 19, T19-17: 4 workloads' ends on one line of 1,348 characters)
        return f"{head}{'; ' + off_words if off_words else ''}:" + "".join(f"\n  - {sentence(e)}" for e in ends)
    return sentence(f"{head}: {ends[0]}" + (f"; {off_words}" if off_words else ""))


def series_sizes(run: RunResult) -> dict[str, str]:
    """Series name -> the client workload (swept size, client batch size) its levels were measured
    at, for a run split by workload (:func:`perf.records.workloads.split_by_workload`); empty for a
    run of one workload."""
    sizes = {v.name: s for v in run.variants if (s := workload(v))}
    return sizes if len(set(sizes.values())) > 1 else {}


def workload_recommendations(run: RunResult, rec: Recommendation) -> dict[str, Recommendation]:
    """Each client workload's recommendation, in the run's order of workloads, for a run split by
    workload (:func:`perf.records.workloads.split_by_workload`): a size or a batch size is the
    client's, so each workload has its own picks. ``rec``'s picks (the report's first, which its
    Recommendation section names) stand at their own workload; every other workload's are the
    recommendation's rule over that workload's series alone. The one source of every workload's
    picks: the report's "Client workloads" line, the console's marks and every plot's marks
    (trial 11, F20: the plots starred the first workload's pick only). ``{"": rec}`` for a run of
    one workload."""
    sizes = series_sizes(run)
    if not sizes:
        return {"": rec}
    out = {}
    for size in dict.fromkeys(sizes.values()):
        series = [v for v in run.variants if sizes.get(v.name) == size]
        names = {v.name for v in series}
        sub = recommend(dataclasses.replace(run, variants=series), rec.latency_budget_ms, rec.latency_percentile)
        own: dict[str, object] = {}
        if rec.best_under_budget is not None and rec.best_under_budget.variant in names:
            own |= {"best_under_budget": rec.best_under_budget, "budget_latency_ms": rec.budget_latency_ms}
            own["ranking_under_budget"] = rec.ranking_under_budget
        if rec.best_peak is not None and rec.best_peak.variant in names:
            own |= {"best_peak": rec.best_peak, "ranking": rec.ranking}
        out[size] = dataclasses.replace(sub, **own)  # type: ignore[arg-type]
    return out


def size_marks(run: RunResult, rec: Recommendation, best: Mapping[str, Point] | None = None) -> dict[str, list[str]]:
    """For the console table (:mod:`perf.report.write`; trial 7, F21: one size marked "best peak",
    no word of the other). Series name -> its pick marks at its own workload, ``"best peak for ncat=1 clients (c=4 †
    host busy)"``: each workload's picks (:func:`workload_recommendations`), a flagged level named as flagged, and
    a pick's build verdict when it is not ok, once (:attr:`perf.analysis.recommendation.choice.Choice.unverified`), and
    the rest by :meth:`Choice.note`, as the one-workload row (trial 27, T27-17: no tie word on a tied pick);
    empty for a run of one workload. A pick at another level than its row's (``best``: the level each row
    shows, :func:`perf.analysis.saturation.best_level.best_levels`) names its numbers (:meth:`Choice.numbers`; trial 13,
    T13-6: "best under budget for H=256 clients (c=1)" beside c=4's p99, over the budget)."""
    out = dict[str, list[str]]()
    if not series_sizes(run):
        return out
    for size, sub in workload_recommendations(run, rec).items():
        for what, c in (("best under budget", sub.best_under_budget), (peak_mark(sub.best_peak), sub.best_peak)):
            if c is not None:
                level = f"c={c.concurrency}" + (f", b={c.batch_size}" if c.batch_size != 1 else "") + flag_mark(c.flags)
                if (shown := (best or {}).get(c.variant)) is not None and not c.at(shown.concurrency, shown.batch_size):
                    level += f": {c.numbers()}"
                marks = out.setdefault(c.variant, [])
                beside = HEADROOM_NOTE if what == "best under budget" and c.headroom else None  # as the one-workload row
                said = [level, *([n] if (n := c.note(beside)) else [])]  # Choice.note: its tie too (T21-9, T27-17)
                marks.append(f"{what} for {size} clients ({'; '.join(said)})")
                marks += [w for w in c.unverified if w not in marks]  # the build's verdict on a pick, once (T13-10)
    return out
