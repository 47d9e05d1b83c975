"""The report of one sweep: ``report.md`` with recommendation, frontier, main effects, conclusions, plots and tables.

:func:`write_report` turns ``results/<run>/results.json`` into ``report.md``, ``appendix.md``
(:mod:`perf.report.appendix`) and PNG plots (:mod:`perf.plots.figures`) in the same folder, as one list of
section calls, each section a function returning markdown lines in the module named for it:
what was run (:mod:`perf.report.sections.run`), the recommendation (here), the Pareto frontier
(:mod:`perf.analysis.recommendation.frontier`), the main effects (:mod:`perf.analysis.effects.main_effects`), the conclusions
(:mod:`perf.report.conclusions.written`), the plots, the top-N tables per level (:mod:`perf.report.sections.tables`).
:func:`perf.cli.summary.summary_table` is the CLI's terminal view. The numbers come from
:mod:`perf.analysis.stats.points` and :mod:`perf.analysis.recommendation.recommend`; tables are markdown written by :func:`perf.markdown.table`.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.errors import PerfError
from core.wording import agree, sentence
from perf.analysis.effects.main_effects import interactions, main_effects
from perf.analysis.effects.pairs import baseline
from perf.analysis.ranking.budget_latency import verdict_notes
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.recommendation.excluded import candidate, rate_statuses
from perf.analysis.recommendation.frontier import frontier_section, frontier_summary, workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation, first_pick_words, recommend
from perf.analysis.recommendation.uniform_sizes import mixed_no_batch_note, uniform_sizes_note
from perf.analysis.saturation.peaks import peak_mark, peak_title, unreached_mark
from perf.analysis.stats.points import Point, run_points
from perf.markdown import APPENDIX_FILE, LIST_LIMIT, TOP_N, UNSTABLE_MARK, capped, packed
from perf.plots import figures as plots
from perf.records.results import RunResult, load
from perf.records.unfinished import unfinished_text
from perf.records.workloads import split_by_workload, workload
from perf.report import html as report_html
from perf.report.appendix import flagged_note, write_appendix
from perf.report.conclusions import written as conclusions
from perf.report.layout import MAX_REPORT_LINES, Part, fit, report_folder, what_if
from perf.report.sections import coldstart as coldstart_report
from perf.report.sections.effects import beside_recommendation, effects_section
from perf.report.sections.efficiency import efficiency_details, efficiency_section
from perf.report.sections.knees import knee_lines
from perf.report.sections.profile import profile_section, trace_lines
from perf.report.sections.ranking import busy_note, flagged_counts, ranking_lines
from perf.report.sections.rounds_budget import CUT_WORDS
from perf.report.sections.run import what_was_run
from perf.report.sections.said import said_lines
from perf.report.sections.search import search_lines
from perf.report.sections.servers import servers_section
from perf.report.sections.tables import (
    LEVEL_TABLE_LINES,
    LEVEL_TABLES_INTRO,
    failed_lines,
    failed_measurements,
    level_tables,
    request_rate_table,
)
from perf.sweep.refused_run import refused_flags_text

log = logging.getLogger(__name__)

REPORT_FILE = "report.md"


# ---------------------------------------------------------------- markdown


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
    lines += peak_lines(rec, said)
    lines += sizes
    if front:
        lines += f"- {front}".splitlines()  # a sub-bullet a workload's ends
    lines.append(f"- **Saturation (knee)**: the concurrency after which {rec.knee_rule} while p99 keeps rising:")
    lines += knee_lines(rec, points, unmeasured, run)
    lines += [f"- {n}" for n in rec.notes]
    if rec.flagged:
        lines += [f"- **Flagged levels** ({rec.flagged_levels}; {flagged_note(rec, points)}):"] + capped(rec.flagged, indent="  ")
    if rec.excluded:
        lines += [f"- **Excluded from the recommendation** ({len(rec.excluded)}):"] + capped(rec.excluded, indent="  ")
    return lines


def pick_lines(title: str, choice: Choice | None, indent: str = "", said: set[str] | None = None) -> list[str]:
    """A pick as a bullet, ``"- **title** `v` at concurrency 4: ... ."``, its remarks, its tie set's members and
    the others outside it as bullets under it (:meth:`~perf.analysis.recommendation.choice.Choice.listed`: said
    once, here; the Paired ranking points to them; trial 19, T19-17), ``indent`` before each. ``said``: the
    build verdicts a pick above said already (a run-wide one, such as a repository not there, is the same for
    every pick): the same words again point to it; the ones said here are added."""
    if choice is None:
        return [f"{indent}- {title} none."]
    said = set() if said is None else said
    verdict = choice.build_verdict.text() if choice.build_verdict else None
    again = verdict is not None and verdict in said  # said with the pick: a few words
    items = [item for item in choice.listed() if not (again and item == verdict)]
    said |= {verdict} if verdict else set()
    head = choice.describe(listed=True) + (" — its build's verdict: the same as the pick's above" if again else "")
    first, *rest = packed([f"{title} {head}", *items], sep=" — ")  # short remarks stay on the pick's line
    return [f"{indent}- {sentence(first)}", *(f"{indent}  - {sentence(ln[2:])}" for ln in rest)]


def peak_lines(rec: Recommendation, said: set[str]) -> list[str]:
    """The best-peak pick's bullet (:func:`pick_lines`), or, where it is the level the best under the budget names
    above with the same verdict and no item the pick above does not say, one line that says so: the pick's verdict, tie set and the why of a peak
    not told were said twice, word for word (s17a's left-alone repeats: re-check 19's rc19d, 1,100 characters)."""
    peak, under = rec.best_peak, rec.best_under_budget
    level = (lambda c: (c.variant, c.concurrency, c.batch_size)) if peak and under else None
    if level is None or peak is None or under is None or level(peak) != level(under):
        return pick_lines(f"**{peak_title(peak)}:**", peak, said=said)
    if peak.verdict(True) != under.verdict(True) or not set(peak.listed()) <= set(under.listed()):
        return pick_lines(f"**{peak_title(peak)}:**", peak, said=said)
    above = " ".join([under.describe(listed=True), *under.listed()])
    title = peak_title(peak)
    if peak.unreached is not None and peak.unreached in above:  # its why said with the pick above
        title = f"Best measured throughput ({unreached_mark(peak.unreached)}; why: as said of the pick above)"
    batch = f" (batch {peak.batch_size})" if peak.batch_size != 1 else ""
    return [
        f"- **{title}:** the same level as the best under the budget above, said there with its verdicts: "
        f"`{peak.variant}` at concurrency {peak.concurrency}{batch}: {peak.numbers()}"
        + (f" {UNSTABLE_MARK} {peak.status}." if peak.status != "ok" else ".")
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
            lines += (
                [f"    - {_kind_words(a, c)}: the one above."]
                if c is getattr(rec, a) and c is not None
                else pick_lines(f"{_kind_words(a, c)}:", c, "    ", verdicts)
            )
    return lines


def _kind_words(attr: str, choice: Choice | None) -> str:
    """What a pick is, as the tables mark it: ``"best under the budget"``, or the best peak's
    :func:`perf.analysis.saturation.peaks.peak_mark` (``"best measured (peak not reached)"`` where it was not)."""
    return "best under the budget" if attr == "best_under_budget" else peak_mark(choice)


def _workload_of(run: RunResult, choice: Choice | None) -> str | None:
    """The client workload of a pick's series (``None``: no pick, or a run of one workload)."""
    own = run.variant(choice.variant) if choice is not None else None
    return workload(own) if own is not None else None


def plot_lines(run: RunResult, run_dir: Path, rec: Recommendation, breakdown_concurrency: int | None, html: bool) -> list[str]:
    """The "Plots" section: PNGs (:mod:`perf.plots.figures`) and, with ``html``, the interactive file."""
    lines = ["## Plots", ""]
    if importlib.util.find_spec("matplotlib") is not None:
        pngs = plots.write_plots(run, run_dir, breakdown_concurrency, rec.latency_budget_ms, rec)
        lines += [f"![{title}]({path.name})" for title, path in pngs.items()] + [""]
    else:  # e.g. the slim offline GPU bundle: the tables still carry every number
        lines += ["(no plots: matplotlib is not installed here; `pip install matplotlib` and run `triton-perf report` again)", ""]
        log.warning("matplotlib is not installed: report.md is written without plots")
    if html:
        lines += [report_html.html_line(run, run_dir, rec), ""]
    return lines


def untrusted_warning(points: dict[str, list[Point]]) -> list[str]:
    """A warning at the top of the report when no measured level is stable: every number below
    (the pick, the effects, the cold-start counts) then comes from flagged levels.

    Returns:
        Markdown lines (empty when at least one candidate level is ``ok``).
    """
    cands = [p for ps in points.values() for p in ps if candidate(p)]
    if not cands or any(p.status == "ok" for p in cands):
        return []
    return [
        f"> **No level of this run is stable** ({flagged_counts(cands)}): the pick, "
        "the effects and every comparison below come from flagged numbers and may reflect the host, not the "
        "variants. Sweep again on a quiet host (a new run: `--resume` keeps flagged levels as they are), "
        "with `--trials 3` to measure the spread.",
        "",
    ]


def write_report(
    run_dir: Path,
    latency_budget_ms: float | None = None,
    breakdown_concurrency: int | None = None,
    latency_percentile: int | None = None,
    top_n: int = TOP_N,
    html: bool = False,
) -> Path:
    """Write ``report.md``, ``appendix.md`` and the PNG plots into ``run_dir`` — or, when an
    option differs from the run's own (:func:`what_if`: another budget, percentile or ``top_n``),
    into the what-if folder ``run_dir/report-<tags>/`` (:func:`report_folder`), leaving the
    run's report as it is.

    ``report.md`` stays within :data:`perf.report.layout.MAX_REPORT_LINES` at any grid and ladder
    size (:func:`perf.report.layout.fit`): the top ``top_n`` variants at the levels that matter,
    the Pareto frontier and the main effects; every level's table, every pair, variant and flagged
    level is in ``appendix.md``, every number in ``flat.csv`` and ``results.json``.

    Args:
        run_dir: A run folder holding ``results.json``.
        latency_budget_ms: Client latency budget in ms for the recommendation (default: the
            run's ``settings["latency_budget_ms"]`` if set, else none).
        breakdown_concurrency: Concurrency of the latency-breakdown plot (default: each
            variant's highest measured level).
        latency_percentile: The client latency percentile the budget is on (50, 90, 95, 99;
            default: the run's ``latency_percentile`` setting, else 99).
        top_n: Variants per level table, plus the baseline (default :data:`perf.markdown.TOP_N`).
        html: Also write ``report.html``, one self-contained interactive file (plotly).

    Returns:
        Path of the ``report.md`` written (in the what-if folder for a what-if view).

    Raises:
        PerfError: no readable ``results.json``, a run without variants, or a bad budget;
            ``html`` without plotly installed.
    """
    run_dir = Path(run_dir)
    run = split_by_workload(load(run_dir))  # one series per variant and client workload (size, batch size)
    if not run.variants:
        raise PerfError(
            f"run {run.run_id} in {run_dir} has no variants",
            hint="the sweep stopped before its first variant; run perf/run_sweep.sh again",
        )
    differences = what_if(run, latency_budget_ms, latency_percentile, top_n)
    out = report_folder(run_dir, differences)
    out.mkdir(exist_ok=True)
    up = "../" if differences else ""  # links to the run's own files from a what-if folder
    if latency_budget_ms is None:
        latency_budget_ms = run.settings.get("latency_budget_ms")
    rec = recommend(run, latency_budget_ms, latency_percentile)
    points = run_points(run)
    failed = {v.name for v in run.variants if v.status == "failed"}
    effects = main_effects(run, points)
    inters = interactions(effects)
    ok = [v for v in run.variants if v.name not in failed]
    base = baseline(ok, run.variant(rec.best_peak.variant) if rec.best_peak else None)

    head = [f"# Sweep report: {run.run_id}", ""]
    if differences:
        own = (
            f"is [{REPORT_FILE}]({up}{REPORT_FILE}) in the run folder, unchanged"
            if (run_dir / REPORT_FILE).exists()
            else f"goes to {REPORT_FILE} in the run folder (`triton-perf report {run_dir}` writes it)"
        )
        head += [
            f"> **What-if view** of run `{run.run_id}`: {'; '.join(w for _, w in differences)}. The run's own report, "
            f"from the settings it was swept with, {own}; results.json is unchanged.",
            "",
        ]
    refused = refused_flags_text(run, "**This run**")  # said first: every number below rests on it (R16-10)
    if refused is not None:
        head += [f"> {sentence(refused)}", ""]
    if (banner := unfinished_text(run, "**This run**", run_dir.parent)) is not None:
        head += [f"> {sentence(banner)}", ""]
    head += untrusted_warning(points) if run.rounds is None else busy_note(points, rate_statuses(run))
    head += what_was_run(run, run_dir, up) + [""]
    head += servers_section(run)
    head += recommendation_section(
        rec,
        points,
        frontier_summary(points, rec, failed, run),
        unfinished_text(run, results_dir=run_dir.parent),
        [
            *size_lines(run, rec),
            *(f"- **Measured at uniform sizes**: {sentence(n)}" for n in [uniform_sizes_note(run)] if n),
            *(f"- **No batch formed under mixed sizes**: {sentence(n)}" for n in [mixed_no_batch_note(run)] if n),
        ],
        {v.name: unmeasured_text(run, v.name) for v in run.variants},
        refused_flags_text(run),
        run,
    )
    head += [""]
    head += failed_lines(run)
    head += ranking_lines(run, rec)
    head += frontier_section(points, rec, failed, run) + [""]
    findings = effects_section(effects, inters, run.rounds is not None, beside_recommendation(effects, rec)) + [""]
    findings += ["## Conclusions", ""] + conclusions.conclusions(run, rec, effects) + [""]
    picks = [(c.batch_size, c.concurrency) for c in (rec.best_under_budget, rec.best_peak) if c is not None]
    base_name = base.name if base else None
    parts = [
        Part(head),
        Part(search_lines(run), detail=True),
        Part(findings),
        Part(coldstart_report.section(run), detail=True),
        Part(plot_lines(run, out, rec, breakdown_concurrency, html)),
        Part(efficiency_section(run, out, run_dir), detail=True),
        Part([], detail=True),  # the level tables: what the other parts leave of the report's length
        Part(request_rate_table(run), detail=True),
        Part(profile_section(run.profile, up), detail=True),
        Part(said_lines(run, CUT_WORDS)),  # an older toolkit's saved verdicts, apart and labelled (issue 26)
        Part(["", f"Everything left out above (every pair, variant, flagged level): [{APPENDIX_FILE}]({APPENDIX_FILE})."]),
    ]
    room = MAX_REPORT_LINES - sum(len(p.lines) for p in parts) - LEVEL_TABLES_INTRO
    verdicts = verdict_notes(run, rec.latency_percentile, rec.latency_budget_ms)
    parts[6].lines = level_tables(
        points,
        failed,
        top_n,
        base_name,
        up,
        picks,
        min(room, LEVEL_TABLE_LINES),
        rounds=run.rounds is not None,
        verdicts=verdicts,
    )
    lines, moved = fit(parts)
    details = [
        *(search_lines(run, limit=None) if len(run.variants) > TOP_N else []),
        *efficiency_details(run),
        *level_tables(points, failed, top_n, base_name, up, rounds=run.rounds is not None, verdicts=verdicts),
        *(trace_lines(run.profile.traces, up) if run.profile else []),
        *(failed_lines(run, limit=None) if len(failed_measurements(run)) > LIST_LIMIT else []),
        *moved,
        *said_lines(run, CUT_WORDS, limit=None),
    ]
    write_appendix(run, out, rec, points, effects, inters, up, details)
    path = out / REPORT_FILE
    path.write_text("\n".join(lines) + "\n")
    log.info("report written to %s", path)
    return path
