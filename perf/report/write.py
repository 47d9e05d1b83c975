"""The report of one sweep: ``report.md`` with recommendation, frontier, main effects, conclusions, plots and tables.

:func:`write_report` turns ``results/<run>/results.json`` into ``report.md``, ``appendix.md``
(:mod:`perf.report.appendix`) and PNG plots (:mod:`perf.plots.figures`) in the same folder, as one list of
section calls, each section a function returning markdown lines in the module named for it:
what was run (:mod:`perf.report.sections.run`), the recommendation (:mod:`perf.report.sections.recommendation`), the Pareto frontier
(:mod:`perf.analysis.recommendation.frontier`), the main effects (:mod:`perf.analysis.effects.main_effects`), the conclusions
(:mod:`perf.report.conclusions.written`), the plots, the top-N tables per level (:mod:`perf.report.sections.tables`).
:func:`perf.cli.summary.summary_table` is the CLI's terminal view. The numbers come from
:mod:`perf.analysis.stats.points` and :mod:`perf.analysis.recommendation.recommend`; tables are markdown written by :func:`perf.markdown.table`.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from collections.abc import Sequence
from pathlib import Path

from core.errors import PerfError
from core.wording import sentence
from perf.analysis.effects.main_effects import interactions, main_effects
from perf.analysis.ranking.budget_latency import verdict_notes
from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.recommendation.excluded import candidate, rate_statuses
from perf.analysis.recommendation.frontier import frontier_section, frontier_summary
from perf.analysis.recommendation.recommend import Recommendation, recommend
from perf.analysis.recommendation.uniform_sizes import mixed_no_batch_note, uniform_sizes_note
from perf.analysis.stats.pairs import baseline
from perf.analysis.stats.points import Point, run_points
from perf.markdown import APPENDIX_FILE, LIST_LIMIT, TOP_N, write_kept
from perf.plots import figures as plots
from perf.records.measured_files import rebuilt_text
from perf.records.results import RESULTS_FILE, RunResult, load
from perf.records.unfinished import unfinished_text
from perf.records.workloads import split_by_workload
from perf.report import html as report_html
from perf.report.appendix import FULL_FORMS, pointed, write_appendix
from perf.report.conclusions import written as conclusions
from perf.report.layout import (
    MARK_ROOM,
    MAX_REPORT_LINES,
    READ_WIDTH,
    Part,
    briefs,
    fit,
    read_lines,
    read_rule,
    report_folder,
    split_details,
    what_if,
)
from perf.report.sections import coldstart as coldstart_report
from perf.report.sections.baseline_unusable import unusable_lines
from perf.report.sections.effects import beside_recommendation, effects_section
from perf.report.sections.efficiency import efficiency_details, efficiency_section
from perf.report.sections.profile import profile_parts, trace_lines
from perf.report.sections.ranking import busy_note, flagged_counts, ranking_lines
from perf.report.sections.recommendation import recommendation_section, size_lines
from perf.report.sections.rounds_budget import CUT_SECTION, CUT_WORDS, cut_details
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
    pick_levels,
    request_rate_table,
)
from perf.report_state import record_written
from perf.sweep.refused_run import refused_flags_text

log = logging.getLogger(__name__)

REPORT_FILE = "report.md"
#: The lookup parts of report.md's first sections (:func:`perf.report.layout.split_details`): a bullet's start to
#: the name its part gets when it moves to the appendix (trial 23, T23-5: the Recommendation alone was 95 lines at
#: 100 columns: each variant's knee, every flagged level; the Paired ranking's design and rule, the same words in
#: every rounds report). The pick, its numbers, the runner-up and tie set and the caveats are never among them.
HEAD_DETAILS: dict[str | re.Pattern[str], str] = {
    "- Server command:": "What was run: the server command",
    "- Settings:": "What was run: the settings",
    "| variant | format |": "What was run: every variant's parameters",
    "- Group ": "Paired ranking: each group's variants and rounds",
    "- **Saturation (knee)**": "Recommendation: each variant's knee",
    "- **Excluded from the recommendation**": "Recommendation: the variants excluded",
    "- **Design: interleaved rounds.**": "Paired ranking: the design, the rule and the levels",
    "- **The rule:**": "Paired ranking: the design, the rule and the levels",
    "- **Levels:**": "Paired ranking: the design, the rule and the levels",
    "- A comparison with fewer than": "Paired ranking: the rule at fewer rounds",
    "- **Time budget:**": "Paired ranking: the time budget",
    "- **Variant frontier**": "Pareto frontier: the variant frontier and the per-level frontier",
    "- **Per-level frontier**": "Pareto frontier: the variant frontier and the per-level frontier",
    "What changing one factor does,": "Main effects: what the table shows",
    "- **Rounds:**": "Main effects: how a pair's change is judged",
    "- **Left out:**": "Main effects: how a pair's change is judged",
    "**Why.** At concurrency": "Conclusions: why (where the server's time went)",
    # trial 25, T25-1: what the findings left above the bound at 8 variants (256-277 read lines): hints, the levels
    # over the budget (each level named), the failures' list, explanations and the effects' long comparison
    "- Hint, not a measured finding:": "Recommendation: the hints (not measured findings)",
    re.compile(r"- \d+ levels? over the p\d+ budget"): "Recommendation: the levels over the budget",
    "- **Failed measurements**": "Recommendation: the failed measurements",
    "- Variants of different groups never shared a round": "Paired ranking: each group's variants and rounds",
    "- Δ p99 ms:": "Paired ranking: what Δ p99 ms is",
    "- **Beside the recommendation**": "Main effects: beside the recommendation",
    "- **Client workloads:**": "Recommendation: the other client workloads' picks",  # one list per workload
    "- **Cut for time**": CUT_SECTION,
    "| server (HTTP) |": "Servers: every server",  # a row per session
}
#: The parts of :data:`HEAD_DETAILS` that are findings: they move only when no lookup part is left (:attr:`Part.late`).
LATE_DETAILS = ("Recommendation: the levels over the budget", "Recommendation: the other client workloads' picks")
#: The serving efficiency's lookup parts: its findings (what was compared, the numbers, why, when it holds) stay.
EFFICIENCY_DETAILS = {
    "### Served vs in-process": "Serving efficiency: served vs in-process, per level",
    "### In-process baseline": "Serving efficiency: the in-process baseline",
}
#: The bullets of :data:`HEAD_DETAILS` whose own line stays in report.md (the finding: what the list under it is).
KEEP_HEAD = (
    "- **Saturation (knee)**",
    "- **Excluded from the recommendation**",
    "- **Failed measurements**",
    "- **Client workloads:**",
    "- **Cut for time**",
)


# ---------------------------------------------------------------- markdown


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
    stale: Sequence[str] = (),
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
        stale: The bundles in ``run_dir`` of an earlier pick, in words (:func:`perf.deploy.stale.stale_bundles`, read
            by the caller: the report reads no bundle), said in the Recommendation (trial 22, F-stale-bundle).

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
    # a rebuild replaced files it measured: said, and no resume advised, since it would be refused (trial 22, F-rebuild-runs)
    parent = None if (rebuilt := rebuilt_text(run)) is not None else run_dir.parent
    if rebuilt is not None:
        head += [f"> {sentence(rebuilt)}", ""]
    if (banner := unfinished_text(run, "**This run**", parent)) is not None:
        head += [f"> {sentence(banner)}", ""]
    head += untrusted_warning(points) if run.rounds is None else busy_note(points, rate_statuses(run))
    head += what_was_run(run, run_dir, up) + [""]
    head += servers_section(run)
    head += recommendation_section(
        rec,
        points,
        frontier_summary(points, rec, failed, run),
        unfinished_text(run, results_dir=parent),
        [
            *size_lines(run, rec),
            *(f"- **Measured at uniform sizes**: {sentence(n)}" for n in [uniform_sizes_note(run)] if n),
            *(f"- **No batch formed under mixed sizes**: {sentence(n)}" for n in [mixed_no_batch_note(run)] if n),
        ],
        {v.name: unmeasured_text(run, v.name) for v in run.variants},
        refused_flags_text(run),
        run,
    )
    # a bundle of an earlier pick, or of the pick whose README opens with caveats it no longer carries (break-it F8);
    # told apart by perf.deploy.stale.EARLIER's words (perf.report imports no perf.deploy)
    kinds = {True: "A bundle of an earlier pick", False: "A bundle of the pick, out of date"}
    head += [f"- **{kinds['was written for an earlier pick' in s]}**: {sentence(s)}" for s in stale]
    head += [""]
    head += failed_lines(run)
    head += ranking_lines(run, rec)
    head += frontier_section(points, rec, failed, run) + [""]
    findings = effects_section(effects, inters, run.rounds is not None, beside_recommendation(effects, rec)) + [""]
    findings += ["## Conclusions", ""] + conclusions.conclusions(run, rec, effects) + [""]
    picks = pick_levels(  # which pick each level is, said where the tables name them (trial 23, T23-8)
        (w, (c.batch_size, c.concurrency) if c is not None else None)
        for w, c in (
            ("the best under the budget", rec.best_under_budget),
            (
                "the best peak" if rec.best_peak is None or rec.best_peak.unreached is None else "the best measured throughput",
                rec.best_peak,
            ),
        )
    )
    base_name = base.name if base else None
    unusable = unusable_lines(run, run_dir)  # what report.md keeps of its section when it moves
    efficiency = split_details(efficiency_section(run, out, run_dir, unusable), EFFICIENCY_DETAILS)
    if efficiency:  # its findings may move too, after its lookup parts, the unusable baseline kept (trial 21, T21-3)
        efficiency[0].detail, efficiency[0].kept = True, unusable
    said = said_lines(run, CUT_WORDS)  # apart and labelled; what it is stays when its list moves
    tables = Part([], detail=True, last=True)  # the level tables: what the other parts leave of the report's length
    parts = [  # a long paragraph of the findings may keep its brief form (briefs: trial 28, T28-2)
        *split_details(head, HEAD_DETAILS, KEEP_HEAD),
        Part(search_lines(run), detail=True),
        *split_details(findings, HEAD_DETAILS),
        Part(coldstart_report.section(run), detail=True),
        Part(plot_lines(run, out, rec, breakdown_concurrency, html)),
        *efficiency,
        tables,
        Part(request_rate_table(run), detail=True),
        *profile_parts(run.profile, up),
        Part(said, detail=True, kept=[ln for ln in said if ln.startswith("> ")]),  # an older toolkit's saved verdicts (issue 26)
        Part(["", f"Everything left out above (every pair, variant, flagged level): [{APPENDIX_FILE}]({APPENDIX_FILE})."]),
    ]
    parts = briefs(parts)
    for part in parts:
        part.late = part.name in LATE_DETAILS
    verdicts = verdict_notes(run, rec.latency_percentile, rec.latency_budget_ms)

    def body_tables(budget: int) -> list[str]:
        return level_tables(points, failed, top_n, base_name, up, picks, budget, rounds=run.rounds is not None, verdicts=verdicts)

    # the level tables get what the other parts leave once they fit: the fewest first, then as many as that room holds,
    # in read lines (trial 25, T25-1: the budget counted the tables' rows, not their legend's folded lines, so the
    # tables took more than the room, and the second fit moved them whole or ended over the bound)
    tables.lines = body_tables(0)
    layout = MAX_REPORT_LINES - MARK_ROOM  # a mark's room kept (trial 29, T29-8)
    room = layout - read_lines(fit(parts, layout, FULL_FORMS)[0]) + read_lines(tables.lines)
    budget = min(room - LEVEL_TABLES_INTRO, LEVEL_TABLE_LINES)
    while budget > 0 and (over := read_lines(body_tables(budget)) - room) > 0:
        budget -= over
    tables.lines = body_tables(max(budget, 0))
    lines, moved = fit(parts, layout, FULL_FORMS)  # a pointer names the section holding it (s21o); a mark's room
    if (read := read_lines(lines)) > MAX_REPORT_LINES:  # its findings alone: a part to split is missing (T23-5)
        log.warning(
            "report.md reads as %d lines, over its bound of %s: every part that may move to %s has moved, and what "
            "is left, its findings, is longer; nothing is lost (%s holds what moved) -> please report it with this "
            "run's results.json: a part of the report has no rule to move it",
            read,
            read_rule(MAX_REPORT_LINES),
            APPENDIX_FILE,
            APPENDIX_FILE,
        )
    details = [
        *(search_lines(run, limit=None) if len(run.variants) > TOP_N else []),
        *efficiency_details(run),
        *level_tables(points, failed, top_n, base_name, up, rounds=run.rounds is not None, verdicts=verdicts),
        *(trace_lines(run.profile.traces, up) if run.profile else []),
        *(
            ["## Failed measurements", "", *failed_lines(run, limit=None)]
            if max(len(failed_measurements(run, s)) for s in (False, True)) > LIST_LIMIT
            else []
        ),
        *said_lines(run, CUT_WORDS, limit=None),
        *cut_details(run),
    ]
    # what moved, once: not where the appendix holds it whole; the cold start with every variant's row (T25-16)
    whole = {"Cold start": coldstart_report.section(run, limit=max(1, len(coldstart_report.entries(run))))}
    lines = pointed(lines, write_appendix(run, out, rec, points, effects, inters, up, details, moved, whole))
    path = out / REPORT_FILE
    write_kept(path, "\n".join(lines) + "\n")  # an edited one kept aside (trial 25, T25-17)
    record_written(out, run_dir / RESULTS_FILE, (MAX_REPORT_LINES - read_lines(lines), READ_WIDTH))  # s22z, Z-13
    log.info("report written to %s", path)
    return path
