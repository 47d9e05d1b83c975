"""``triton-perf report RUN_DIR`` and ``triton-perf compare RUN_A RUN_B`` (thin shells over
:mod:`perf.report.write` and :mod:`perf.analysis.comparison.verdicts`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from core.cli import CONTEXT_SETTINGS, EXIT_INTERRUPTED, ToolkitCommand, print_table, verbosity_option
from core.console import ignore_further_interrupts, interrupted_words
from core.options import given, option
from core.wording import fold_clauses
from perf.analysis.ranking.budget_latency import DEFAULT_LATENCY_PERCENTILE
from perf.cli.runs import RunFolder
from perf.markdown import TOP_N
from perf.records.run_lock import refuse_live
from perf.sweep.options import SweepOptions

if TYPE_CHECKING:
    from perf.records.results import RunResult


def print_report(
    run_dir: Path, budget: float | None, percentile: int | None = None, top: int = TOP_N, html: bool = False
) -> None:
    """Write the run's report (:func:`perf.report.write.write_report`), print its summary table
    and the notes below it (:func:`perf.cli.summary.summary`), and every file it wrote (report.md,
    appendix.md, the plots, report.html with ``html``). Interrupted, it says what is kept and the
    command that writes the report (:func:`interrupted_report`), exit 130."""
    with interrupted_report(run_dir):
        _print_report(run_dir, budget, percentile, top, html)


@contextlib.contextmanager
def interrupted_report(run_dir: Path, coloc: bool = False, writing: bool = True) -> Iterator[None]:
    """A Ctrl-C (or SIGTERM/SIGHUP) while a report is written ends the command with one line: the run's numbers
    are kept, its report may be missing or part-written, and ``triton-perf report RUN_DIR`` writes it; exit 130
    (143/129 for a signal); ``coloc``: a co-location run's (its record is colocation.json); ``writing=False``: its
    summary printed, no file written (``sweep --no-report``: :func:`print_summary`). Trial 23, T23-3: a sweep stopped while it wrote its report printed only "aborted",
    and nothing said that the run was saved or how to get its report."""
    try:
        yield
    except KeyboardInterrupt:
        from perf.records.colocation import COLOCATION_FILE
        from perf.records.results import RESULTS_FILE

        ignore_further_interrupts()  # a second Ctrl-C cuts no word of what was kept
        doing = "writing the report" if writing else "printing the summary"
        files = "its report.md and plots may be missing or part-written" if writing else f"{NOT_WRITTEN} are not written"
        click.secho(
            f"{interrupted_words()} while {doing} of {Path(run_dir).name}: its numbers are kept in "
            f"{Path(run_dir) / (COLOCATION_FILE if coloc else RESULTS_FILE)} (nothing measured is lost); {files}: "
            f"`triton-perf report {run_dir}` writes them",
            fg="yellow",
            err=True,
        )
        raise SystemExit(EXIT_INTERRUPTED) from None


def _print_report(run_dir: Path, budget: float | None, percentile: int | None, top: int, html: bool) -> None:
    from perf.analysis.recommendation.models import refuse_several_models
    from perf.deploy.stale import stale_bundles
    from perf.records import results
    from perf.report.write import write_report

    folders = {d: _files(d) for d in (Path(run_dir), *Path(run_dir).glob("report-*/"))}
    run = results.load(run_dir)
    refuse_several_models(run)  # before it says it writes (trial 26, T26-6: said, then refused)
    # seconds to minutes on a busy host (the plots): said before, not after a silence (trial 18, T18-4: 2 min 17 s)
    click.echo(f"writing the report and its plots of {Path(run_dir).name} ...", err=True)
    stale = stale_bundles(Path(run_dir), run)  # a bundle of an earlier pick: a resume's end and report.md (trial 22)
    path = write_report(run_dir, budget, latency_percentile=percentile, top_n=top, html=html, stale=stale)
    # a what-if view's report.md is beside the run's own, which it leaves as it was: the pointer names the one written
    where = None if path.parent == Path(run_dir) else f"{path.parent.name}/{path.name}'s Recommendation"
    _say_summary(run, Path(run_dir), budget, percentile, top, stale, where)
    if path.parent != Path(run_dir):  # perf.report.layout.what_if: written beside the run's own report
        click.echo(f"what-if report (an option differs from the run's; its own report.md is unchanged): {path}")
    else:
        click.echo(f"report: {path}")
    echo_written(path, folders.get(path.parent, {}))


#: What ``sweep --no-report`` leaves out, its help's words and the line it ends with (trial 26, T26-10: it also left
#: out the summary table and the Recommendation line, which its help did not say).
NOT_WRITTEN = "report.md, appendix.md and the plots"


def print_summary(run: RunResult, run_dir: Path, budget: float | None, percentile: int | None = None) -> None:
    """What :func:`print_report` prints of ``run`` (saved in ``run_dir``), without writing a file (``sweep
    --no-report``): the summary table, the notes below it and the Recommendation line, then that :data:`NOT_WRITTEN`
    were not written and the command that writes them. Interrupted, as :func:`print_report` (exit 130)."""
    from perf.deploy.stale import stale_bundles

    with interrupted_report(run_dir, writing=False):
        from perf.cli.summary import why_unwritten

        # the pointer names the command that writes report.md: none was written from this state (trial 28, T28-13)
        stale = stale_bundles(Path(run_dir), run)
        _say_summary(run, Path(run_dir), budget, percentile, TOP_N, stale, why_unwritten(run_dir))
        click.echo(f"not written (--no-report): {NOT_WRITTEN}; `triton-perf report {run_dir}` writes them")
        say_outdated(run_dir)


def _say_summary(
    run: RunResult,
    run_dir: Path,
    budget: float | None,
    percentile: int | None,
    top: int,
    stale: list[str],
    why_at: str | None = None,
) -> None:
    """The console's part of a report: the summary table (:func:`perf.cli.summary.summary`), its notes, what a rebuild,
    refused flags, an unfinished run, an older toolkit's words and stale bundles mean for it, the Recommendation last
    (``why_at``: where it sends the reader for why, :data:`perf.cli.summary.WHY_AT` by default)."""
    from perf.cli.summary import WHY_AT, summary
    from perf.records.measured_files import rebuilt_text
    from perf.records.unfinished import unfinished_text
    from perf.report.sections.said import said_note
    from perf.sweep.refused_run import refused_flags_text

    view = summary(run, budget, percentile, top, WHY_AT if why_at is None else why_at)
    print_table(view.table)
    rebuilt = rebuilt_text(run)  # a resume it would advise is refused (trial 22, F-rebuild-runs)
    for note in view.notes:  # report.md's words: the cut caveat said wherever the pick is, no level within the budget...
        if rebuilt is None or f"--resume {run.run_id} " not in note:
            click.secho(fold_clauses(note), fg="yellow", err=True)
    if rebuilt is not None:
        click.secho(fold_clauses(rebuilt), fg="yellow", err=True)
    if (refused := refused_flags_text(run)) is not None:  # report.md says it first too (R16-10)
        click.secho(fold_clauses(refused), fg="yellow", err=True)
    if (stopped := unfinished_text(run, results_dir=None if rebuilt else run_dir.parent)) is not None:
        click.secho(fold_clauses(stopped), fg="yellow", err=True)
    if (said := said_note(run)) is not None:  # an older toolkit's words, never today's verdict (issue 26)
        click.secho(fold_clauses(said), fg="yellow", err=True)
    for line in stale:
        click.secho(fold_clauses(line), fg="yellow", err=True)
    if view.recommendation is not None:  # the pick and its numbers, last (trial 23, T23-9)
        click.echo(fold_clauses(view.recommendation))


def say_outdated(run_dir: Path, coloc: bool = False) -> None:
    """Say a report of the run written from an earlier state of its record (:func:`perf.report_state.outdated_text`,
    marked so at its top): the end of every command that saved the record and wrote no report (s22z, Z-13)."""
    from perf.records.colocation import COLOCATION_FILE
    from perf.records.results import RESULTS_FILE
    from perf.report_state import outdated_text

    if (text := outdated_text(Path(run_dir), COLOCATION_FILE if coloc else RESULTS_FILE)) is not None:
        click.secho(fold_clauses(text), fg="yellow", err=True)


#: What ``colocate --no-report`` leaves out, its help's words and the line it ends with (:data:`NOT_WRITTEN`).
COLOCATION_NOT_WRITTEN = "report.md and its trade-off plot"


def print_colocation_report(run_dir: Path, write: bool = True) -> None:
    """Write a co-location run's report (``triton-perf colocate``: :func:`perf.report.colocation.write_report`) and
    print every file it wrote, report.md first; ``write=False`` (``colocate --no-report``): the line that says they
    were not written, and the command that writes them."""
    from perf.report.colocation import write_report as write_colocation_report

    if not write:
        click.echo(f"not written (--no-report): {COLOCATION_NOT_WRITTEN}; `triton-perf report {run_dir}` writes them")
        say_outdated(run_dir, coloc=True)
        return
    before = _files(Path(run_dir))
    click.echo(f"writing the report and its plots of {Path(run_dir).name} ...", err=True)
    with interrupted_report(run_dir, coloc=True):
        path = write_colocation_report(run_dir)
    click.echo(f"report: {path}")
    echo_written(path, before)


def _refuse_unread_colocation(run_dir: Path, coloc: bool) -> None:
    """Refuse the flags of a sweep's report given for a co-location run (``coloc``), whose report reads none of them
    (issue 26, K1: ``report COLOC_RUN --latency-budget-ms 5 --top 3 --html`` wrote the run's own report without a word)."""
    from core.flag_refusals import Unread, refuse_unread

    why = "its report"
    refuse_unread(
        given(click.get_current_context()),
        [
            Unread(
                "latency_budget_ms",
                "--latency-budget-ms",
                coloc,
                f"{why} judges each model by the budgets the run was given",
                "drop --latency-budget-ms; colocate --latency-budget-ms sets a co-location run's budgets",
            ),
            Unread(
                "latency_percentile",
                "--latency-percentile",
                coloc,
                f"{why} holds each model's p99 to its budget (a co-location's budgets are p99)",
                "drop --latency-percentile",
            ),
            Unread("top", "--top", coloc, f"{why} lists every combination measured", "drop --top"),
            Unread("html", "--html", coloc, f"{why} has no report.html", "drop --html"),
        ],
        since=f"{Path(run_dir).name} is a co-location run, of triton-perf colocate",
    )


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file of ``folder`` (not below it): name -> (modification time in ns, size)."""
    if not folder.is_dir():
        return {}
    return {
        p.name: (p.stat().st_mtime_ns, p.stat().st_size)
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".") and ".previous-" not in p.name  # a kept copy is said apart
    }


def echo_written(report: Path, before: dict[str, tuple[int, int]]) -> None:
    """Print the files a report wrote beside ``report`` (new or changed since ``before``,
    :func:`_files` of its folder), ``report`` first: one line, the folder once."""
    now = _files(report.parent)
    written = sorted(
        (n for n, v in now.items() if before.get(n) != v and n != report.name), key=lambda n: (n.endswith(".png"), n)
    )
    if written:
        click.echo(f"also written in {report.parent}: {', '.join(written)}")


@click.command("report", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("run_dir", type=RunFolder())
@option(
    SweepOptions,
    "latency_budget_ms",
    help="Client latency budget for the recommendation (ms) [default: the run's own, if it had one].",
)
@option(
    SweepOptions,
    "latency_percentile",
    default=None,
    help="Client latency percentile the budget is on, as Model Analyzer's perf_latency_p9x constraints "
    f"[default: the run's, else {DEFAULT_LATENCY_PERCENTILE}].",
)
@click.option(
    "--top",
    type=click.IntRange(1),
    default=TOP_N,
    show_default=True,
    help="Variants per level table (plus the baseline) and highlighted in the plots of a run of more than 10.",
)
@click.option("--html", is_flag=True, help="Also write report.html: one self-contained interactive page (plotly, opens offline).")
@verbosity_option
def report(run_dir: Path, latency_budget_ms: float | None, latency_percentile: int | None, top: int, html: bool) -> None:
    """Write RUN_DIR/report.md, appendix.md and the plots from results.json, and print the summary.

    With a budget, percentile or --top other than the run's own, the report is a what-if view:
    it goes to RUN_DIR/report-<what differs>/ (e.g. report-budget5ms/report.md with its own
    appendix and plots), and the run's report.md stays as it is. A run another command is still
    writing (a sweep...) is refused: its report is written when that command ends.
    """
    from perf.records.colocation import is_colocation

    coloc = is_colocation(run_dir)
    _refuse_unread_colocation(run_dir, coloc)
    refuse_live(run_dir, "its report")
    if coloc:
        print_colocation_report(run_dir)
    else:
        print_report(run_dir, latency_budget_ms, latency_percentile, top, html)


@click.command("compare", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("run_a", type=RunFolder())
@click.argument("run_b", type=RunFolder())
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the comparison [default: RUN_B/compare_<RUN_A id>.md]; an existing file is "
    "replaced only when it is an earlier comparison (any other file is kept and nothing is written).",
)
@verbosity_option
def compare(run_a: Path, run_b: Path, out: Path | None) -> None:
    """Compare two runs (before/after, or two machines) level by level."""
    from perf.analysis.comparison.runs import headline
    from perf.records import results
    from perf.records.unfinished import unfinished_text
    from perf.report.compare import compare_runs
    from perf.sweep.refused_run import refused_flags_text

    for run in (run_a, run_b):  # a run still measured is compared when its command ends
        refuse_live(run, "the comparison")
    path = compare_runs(run_a, run_b, out)  # the Python API README names (trial 30, F7)
    click.echo(f"comparison: {path}")
    for line in headline(path.read_text(encoding="utf-8")):  # the file's Summary counts (trial 23, T23-13)
        click.echo(line)
    for run in (run_a, run_b):
        loaded = results.load(run)
        if (refused := refused_flags_text(loaded)) is not None:  # its numbers may be mislabelled (R16-10)
            click.secho(fold_clauses(refused), fg="yellow", err=True)
        if (stopped := unfinished_text(loaded, results_dir=Path(run).parent)) is not None:
            click.secho(fold_clauses(stopped), fg="yellow", err=True)
        say_outdated(run)  # its report.md, of an earlier state, is not what was compared (s22z, Z-13)
