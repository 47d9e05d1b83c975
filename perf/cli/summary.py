"""The sweep's terminal view (:func:`summary`, printed by ``triton-perf sweep`` and
``triton-perf report``): one row per variant, every mark it shows named in its row's note, and a
legend listing only what the table shows (trial 9, F3, F16, F23); below it, the sentences report.md's
Recommendation adds to its picks (:attr:`perf.analysis.recommendation.recommend.Recommendation.notes`: no
level meets the latency budget and the lowest latency reached, levels over it not verified here, variants
cut for time), each on one line, in the report's words: a run whose every level misses the budget
said nothing of it on the console. The numbers come from :mod:`perf.analysis.stats.points` and
:mod:`perf.analysis.recommendation.recommend`, as report.md's (:mod:`perf.report.write`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.units import throughput_text
from core.wording import count
from perf.analysis.build_checks import notes as build_notes
from perf.analysis.measured import cut_variants, rounds_measured
from perf.analysis.ranking.budget_latency import latency_metric, unverified_sentences, verdict_notes
from perf.analysis.ranking.compared_at import compared_elsewhere, compared_here, elsewhere_words
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.cuts import caveat_subject, unmeasured_caveat
from perf.analysis.recommendation.frontier import size_marks, workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation, recommend
from perf.analysis.recommendation.uniform_sizes import mixed_no_batch_note, uniform_sizes_note
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.peaks import HEADROOM_NOTE, UNREACHED_MARKS, higher_median, peak_mark, unreached_mark
from perf.analysis.stats.points import P99, THROUGHPUT, Point, run_points
from perf.cli.summary_legend import BEST_LEVEL_WORDS, left_out, summary_legend
from perf.markdown import TOP_N, errors_text, flag_mark, fmt
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import split_by_workload, variant_name
from perf.search.budget import not_measured

if TYPE_CHECKING:  # rich is imported only when a table is drawn
    from rich.table import Table


#: Where the console's Recommendation line sends the reader for why (:func:`recommendation_line`), when report.md was
#: just written from this state of the run.
WHY_AT = "report.md's Recommendation"


@dataclasses.dataclass
class Summary:
    """The console summary of a run (:func:`summary`).

    Attributes:
        table: One row per variant (:func:`summary_table`).
        recommendation: The line the console ends with (:func:`recommendation_line`), ``None`` without a pick.
        notes: The lines printed below it: the cut-for-time caveat said wherever the pick is
            (:func:`perf.analysis.recommendation.cuts.unmeasured_caveat`), then report.md's Recommendation notes, each once,
            and its line on batching measured at uniform sizes (:mod:`perf.analysis.recommendation.uniform_sizes`).
    """

    table: Table
    notes: list[str]
    recommendation: str | None = None


def summary(
    run: RunResult,
    latency_budget_ms: float | None = None,
    latency_percentile: int | None = None,
    top_n: int = TOP_N,
    why_at: str = WHY_AT,
) -> Summary:
    """The table of :func:`summary_table` and the notes below it (module docstring; same arguments); ``why_at``: where
    the Recommendation line sends the reader for why (:func:`recommendation_line`)."""
    view = split_by_workload(run)
    rec = recommend(
        view, view.settings.get("latency_budget_ms") if latency_budget_ms is None else latency_budget_ms, latency_percentile
    )
    caveat = unmeasured_caveat(view, caveat_subject(rec.best_under_budget, rec.best_peak, rec.latency_budget_ms))
    notes = [caveat] if caveat is not None else []
    # batching at one size per level (trial 12, F13); no batch formed under a mix (trial 19, T19-19)
    uniform = [n for n in [uniform_sizes_note(run), mixed_no_batch_note(run)] if n is not None]
    notes += [n for n in _shorter(view, rec) if n not in notes] + uniform
    return Summary(_table(view, rec, top_n), notes, recommendation_line(rec, why_at))


def why_unwritten(run_dir: object) -> str:
    """Where the Recommendation line sends the reader when no report was written from this state of the run (``sweep
    --no-report``): to the command that writes report.md, not to report.md (trial 28, T28-13: "report.md's
    Recommendation" said of a report that was not written, or that an earlier session wrote and is out of date)."""
    return f"report.md's Recommendation, which `triton-perf report {run_dir}` writes"


def recommendation_line(rec: Recommendation, why_at: str = WHY_AT) -> str | None:
    """``"Recommendation: best under the p99 budget of 5.00 ms: `v` at c=1: 1,590.2 infer/s, p99 2.33 ms; best peak:
    ..."``: each pick and its level's numbers (:meth:`Choice.numbers`, report.md's), the line the console ends
    with (trial 23, T23-9: the console named the pick only inside a row's note). ``None`` without a pick.
    ``why_at``: where the reader finds why (:data:`WHY_AT`; :func:`why_unwritten` when no report was written)."""
    u, b = rec.best_under_budget, rec.best_peak
    parts = []
    if rec.latency_budget_ms is not None:
        parts.append(f"best under the {rec.budget_text}: " + (_pick_words(u) if u else "none (no level within it)"))
    if b is not None:
        same = u is not None and (u.variant, u.concurrency, u.batch_size) == (b.variant, b.concurrency, b.batch_size)
        tie = f" ({w})" if (w := b.tie_word()) else ""  # its own tie set's words, as every other line (trial 30, F10)
        parts.append(f"{peak_mark(b)}: " + (f"the same level{tie}" if same else _pick_words(b)))
    if u is None and b is None:
        return None
    return "Recommendation: " + "; ".join(parts) + f" (why, and what each was compared with: {why_at})"


def _pick_words(c: Choice) -> str:
    """```v` at c=1 † host busy: 1,590.2 infer/s, p99 2.33 ms`` (a pick whose dynamic batching formed no batch says so:
    :attr:`Choice.no_batch`; trial 24, T24-8), a tied pick its tie (trial 27, T27-17: "best under the p95 budget" alone)."""
    said = "".join(f" ({w})" for w in (c.no_batch, c.tie_word()) if w)
    return f"`{c.variant}` at {_level_label(c.concurrency, c.batch_size, c.flags, True)}: {c.numbers()}{said}"


def _shorter(view: RunResult, rec: Recommendation) -> list[str]:
    """``rec``'s notes, the levels not verified here or far over the budget naming one level each and counting
    the rest (:func:`perf.analysis.ranking.budget_latency.unverified_sentences`, which names 3 in the report; trial 14:
    two such sentences of 1,000+ characters each under the demo's table)."""
    pct, budget = rec.latency_percentile, rec.latency_budget_ms
    shorter = dict(zip(unverified_sentences(view, pct, budget), unverified_sentences(view, pct, budget, named=1)))
    return [shorter.get(n, n) for n in rec.notes]


def summary_table(
    run: RunResult, latency_budget_ms: float | None = None, latency_percentile: int | None = None, top_n: int = TOP_N
) -> Table:
    """A rich table, one row per variant: highest measured throughput, its concurrency and p99, knee,
    notes. A run of more than ``top_n`` variants shows the ``top_n`` by that throughput and the
    recommended ones, in run order, and counts the others in the caption.

    Notes: ``best under budget``, ``best peak`` (``best measured (peak not reached)``: :mod:`perf.analysis.saturation.peaks`),
    ``peak not reached`` (or ``peak not told``) for any other such row, ``† unstable`` / ``† host busy`` (that level), and
    ``failed: <error>`` / ``pending`` for variants that did not finish.

    Args:
        run: A loaded sweep.
        latency_budget_ms: Latency budget (ms) for the "best under budget" mark (default: the
            run's ``settings["latency_budget_ms"]`` if set, else none — as :func:`write_report`).
        latency_percentile: The percentile the budget is on (default: the run's, else 99).
        top_n: Rows of a larger run (default :data:`perf.markdown.TOP_N`).
    """
    return summary(run, latency_budget_ms, latency_percentile, top_n).table


def _table(run: RunResult, rec: Recommendation, top_n: int) -> Table:
    """:func:`summary_table` of ``run`` as split by client workload (:func:`perf.records.workloads.split_by_workload`),
    ``rec`` its recommendation."""
    from rich.markup import escape
    from rich.table import Table

    latency_budget_ms = rec.latency_budget_ms
    points = run_points(run)
    best = best_levels(run, points)  # the level each row names: the report's, by one rule (trial 9, F36)
    title = f"Sweep {run.run_id}" + (f" — {rec.budget_text}" if latency_budget_ms else "")
    shown = run.variants
    if len(run.variants) > top_n:
        peaks = {v.name: p.value(THROUGHPUT) for v in run.variants if v.status != "failed" and (p := best.get(v.name))}
        keep = set(sorted(peaks, key=lambda n: -peaks[n])[:top_n])
        keep |= {c.variant for c in (rec.best_under_budget, rec.best_peak) if c is not None}
        shown = [v for v in run.variants if v.name in keep]
    pct = rec.latency_percentile
    other = pct != 99 and latency_budget_ms is not None  # the budget's percentile beside the p99
    rows = _summary_rows(run, rec, shown, points, other, best)
    shown_text = " ".join(cell for cells, _ in rows for cell in cells[1:])  # not the names
    batches = [p.batch_size for v in shown if (p := best.get(v.name))] + [
        c.batch_size for c in (rec.best_under_budget, rec.best_peak) if c
    ]
    legend = summary_legend(shown_text, pct, other, run, left_out(run, shown, best), top_n, batches)
    view = Table(title=escape(title), caption=legend)
    view.add_column("variant", no_wrap=True)
    for col in (
        "best infer/s",
        "at c",
        *([f"p{pct} ms"] if other else []),
        "p99 ms",
        "knee c",
    ):  # the budget's first (F39)
        view.add_column(col, justify="right", no_wrap=True)
    view.add_column("note")
    for cells, style in rows:  # a workload's label on its own line: a 68-character name left the note a word wide (T18-12)
        view.add_row(*(escape(c) for c in [cells[0].replace(" [", "\n[", 1), *cells[1:]]), style=style)
    return view


def _summary_rows(
    run: RunResult,
    rec: Recommendation,
    shown: Sequence[VariantResult],
    points: dict[str, list[Point]],
    other: bool,
    best: dict[str, Point],
) -> list[tuple[list[str], str | None]]:
    """The console table's rows (unescaped cells, row style): every † in a row is named in its
    note (``† unstable`` / ``† host busy``), and a mark is said once per note (trial 9, F16, F23)."""
    pct = rec.latency_percentile
    (never, before), by_size = map(set, cut_variants(run)), size_marks(run, rec, best)  # a shape sweep: each size's picks, named
    verdicts = verdict_notes(run, pct, rec.latency_budget_ms)  # the budget's number where it goes the other way
    tied = {
        n
        for s in workload_recommendations(run, rec).values()
        for c in (s.best_under_budget, s.best_peak)
        if c
        for n in c.tie_set[1:]
    }
    rows = []
    for v in shown:
        p = best.get(v.name)
        marks = list(by_size.get(v.name, []))
        u, own = None if by_size else rec.best_under_budget, None
        if u and (own := pick_row_point(rec, v.name, points, p)) is not None:  # the pick's level in the columns (T23-9)
            p, whatever = own, p
        if u and u.variant == v.name:  # the † goes with the level it marks, named there
            r = rec.ranking_under_budget
            quiet = r is not None and r.leader is not None and r.leader.latency is not None and r.leader.latency.quieter
            at_budget = (  # not the column's median over every round: said so (report.md says how it was taken)
                f", p{pct} {fmt(rec.budget_latency_ms, 2)} ms" + (" on its quieter rounds" if quiet else "")
                if other and rec.budget_latency_ms is not None
                else ""
            )
            if u.judged_note:  # the number the verdict used, not the column's (over every round)
                at_budget = f"; {u.judged_note}"
            pick_note = u.note(HEADROOM_NOTE if u.headroom else None)  # below the frontier first, as report.md (T21-9)
            short = f"; {pick_note}" if pick_note else ""
            level = pick_level(u, p)
            if u.budget_latency and not u.at(*_at(p)) and not u.judged_note:
                at_budget = ""  # its numbers say it (Choice.numbers)
            best_words = f"; {BEST_LEVEL_WORDS}: {level_numbers(whatever)}" if own is not None else ""
            marks.append(f"best under budget ({level}{at_budget}{short}{best_words})")
        if (b := rec.best_peak) and b.variant == v.name and not by_size:
            said = [w for w in ("" if b.at(*_at(p)) else pick_level(b, p), b.note()) if w]  # another level: its numbers
            marks.append(peak_mark(b) + (f" ({'; '.join(said)})" if said else ""))
        if own is None and p is not None and (elsewhere := _compared_elsewhere(run, rec, v.name, p)):
            marks.append(elsewhere)  # the row's level is not the one compared with a pick (trial 13, T13-18)
        elif v.name in rec.unreached and not any(k in m for k in UNREACHED_MARKS for m in marks):  # a size's pick said it
            marks.append(unreached_mark(rec.unreached[v.name]))
        picks = [] if by_size else [c for c in (u, rec.best_peak) if c is not None and c.variant == v.name]
        marks += dict.fromkeys(w for c in picks for w in c.unverified)  # the build's verdict on a pick, once (T13-10)
        if v.name in tied:  # and on a pick's tie-set member, as on the pick (issue 26)
            marks += [w for w in build_notes(run, v.name) if w not in marks]
        if own is None and p is not None and (higher := higher_median(run, points[v.name], p, short=True)):
            marks.append(higher)  # its level's median is not the variant's highest: why, in numbers
        if p is not None and (note := verdicts.get((v.name, p.batch_size, p.concurrency))):
            if not any(note in m for m in marks):  # the budget's number where it goes the other way (trial 10, F3)
                marks.append(note)
        if p is not None and flag_mark(p.flags):  # the "at c" column's †, named
            marks.append(flag_mark(p.flags).strip())
        if (of := variant_name(v)) in before:  # cut in this session, with numbers from an earlier one: they stand
            marks.append(f"measured in {count(rounds_measured(run, of), 'round')}, then {not_measured(True)} (cut for time)")
        elif of in never:  # one short row; why, once: the caveat below the table, report.md's Cut for time
            marks.append("cut for time (see report.md)")
        elif v.status != "ok":
            marks.append(v.status + (f": {errors_text(v.error)}" if v.error else ""))
        k = rec.knees.get(v.name)
        at = _level_label(p.concurrency, p.batch_size, p.flags).removeprefix("c=") if p else "—"
        cells = [
            v.name,
            fmt(p.get(THROUGHPUT)) if p else "—",
            at,
            *([fmt(p.get(latency_metric(pct)), 2) if p else "—"] if other else []),
            fmt(p.get(P99), 2) if p else "—",
            "—" if k is None else str(k),
            "; ".join(marks),
        ]
        rows.append((cells, "dim" if v.status == "failed" else None))
    return rows


def pick_row_point(rec: Recommendation, name: str, points: dict[str, list[Point]], best: Point | None) -> Point | None:
    """The level the best under budget's row shows in its columns where it is not the variant's ``best`` level: the pick's
    own (trial 23, T23-9: the pick's row read "p99 24.39 ms" against a 5 ms budget, its pick's 2.33 ms only in the
    note). ``None`` for every other row, and where that variant is the best peak too (its row: the peak's level)."""
    u, b = rec.best_under_budget, rec.best_peak
    if u is None or u.variant != name or best is None or u.at(*_at(best)) or (b is not None and b.variant == name):
        return None
    return next((q for q in points.get(name, []) if q.ok and u.at(*_at(q))), None)


def level_numbers(p: Point) -> str:
    """``"c=4 †: 1,686.5 infer/s, p99 24.39 ms"``: a level and its medians, as a note says them."""
    return f"{_level_label(p.concurrency, p.batch_size, p.flags)}: {throughput_text(p.value(THROUGHPUT), p.batch_size, fmt)}, p99 {fmt(p.get(P99), 2)} ms"


def pick_level(c: Choice, p: Point | None) -> str:
    """A pick's level as a note names it, ``"c=2 † host busy"``, and its numbers (:meth:`Choice.numbers`, as
    report.md's Recommendation says them) where the row shows another level ``p`` (trial 13, T13-18: "best under
    budget (c=2)" beside c=16's p99 of 116 ms against a 60 ms budget, the pick's own numbers nowhere)."""
    label = _level_label(c.concurrency, c.batch_size, c.flags, True)
    return label if c.at(*_at(p)) else f"{label}: {c.numbers()}"


def _at(p: Point | None) -> tuple[int, int]:
    """The row's level (concurrency, client batch size); ``(0, 0)`` for a row without one."""
    return (p.concurrency, p.batch_size) if p is not None else (0, 0)


def _compared_elsewhere(run: RunResult, rec: Recommendation, name: str, p: Point) -> str | None:
    """Where the row's level ``p`` of ``name`` is not the level a pick was compared with (a rounds sweep):
    ``"c=2 not compared (2 rounds): with the best under budget at c=1 (2 rounds): not distinguishable"``;
    the budget's pick only for a level within the budget. ``None`` otherwise. Where another pick's ranking compared
    that very level, the note says each comparison at its own level and never "not compared" (trial 27, T27-15: "c=4
    not compared with the pick" beside report.md's comparison of that pair, 4 of 4, by the best peak's ranking)."""
    said, here = [], []
    for sub in workload_recommendations(run, rec).values():
        budget = sub.latency_budget_ms
        value = p.get(latency_metric(sub.latency_percentile))
        within = budget is not None and value is not None and value <= budget
        for what, c, ranking in (
            ("best under budget", sub.best_under_budget if within else None, sub.ranking_under_budget),
            ("best peak", sub.best_peak, sub.ranking),
        ):
            if c is not None and (cmp := compared_elsewhere(ranking, name, p.concurrency, p.batch_size)) is not None:
                said.append(elsewhere_words(cmp, what, ranking))
            elif c is not None and (cmp := compared_here(ranking, name, p.concurrency, p.batch_size)) is not None:
                here.append(elsewhere_words(cmp, what, ranking))  # each names its level: "... at c=4 (4 rounds): ..."
    if not said:
        return None
    if here:
        return "; ".join(dict.fromkeys([*here, *said]))
    level = _level_label(p.concurrency, p.batch_size, "ok")
    return f"{level} not compared with the pick ({count(p.trials, 'round')}): {'; '.join(dict.fromkeys(said))}"


def _level_label(concurrency: int, batch_size: int, status: str, words: bool = False) -> str:
    """``"c=8"``, ``"c=8, b=4"``, with `` †`` when that level is flagged (:func:`perf.markdown.flag_mark`;
    ``words``: `` † host busy``, as a note says it)."""
    mark = flag_mark(status, words=words).strip()
    return f"c={concurrency}" + (f", b={batch_size}" if batch_size != 1 else "") + (f" {mark}" if mark else "")
