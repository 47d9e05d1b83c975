"""``perf``: concurrency sweeps with perf_analyzer, reports and comparisons.

A thin shell over :mod:`perf.sweep.run`, :mod:`perf.report.write` and :mod:`perf.analysis.compare`.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click

from builders.repository.view import DEFAULT_REPOSITORY
from clients.cli.options import SERVER_KEYS, server_options
from core.cli import EXIT_INTERRUPTED, EXIT_VARIANT_FAILED, CommaList, group, list_option, print_table, run_cli, verbosity_option
from core.cli import console as make_console
from perf.analysis.recommendation import DEFAULT_LATENCY_PERCENTILE, LATENCY_PERCENTILES
from perf.cli.baseline import baseline, describe_point, no_baseline_option
from perf.cli.coldstart import coldstart
from perf.cli.deploy import export_deployment
from perf.markdown import TOP_N
from perf.records.search import SEARCH_MODES
from perf.records.settings import MeasureSettings
from perf.search.policy import AUTO
from perf.sweep.options import DEFAULT_BATCH_SIZES, SweepOptions

#: Defaults shown by the CLI come from the API's dataclasses (one source of truth).
_M = MeasureSettings()
_S = SweepOptions.__dataclass_fields__


def concurrency_item(text: str) -> list[int] | list[str]:
    """One part of ``--concurrency``: ``auto`` (the adaptive ladder, :mod:`perf.search.policy`), a
    level ``4``, or perf_analyzer's linear range ``start:end[:step]`` (``1:8:2`` -> 1, 3, 5, 7).

    Raises:
        ValueError: not ``auto``, an integer >= 1 or a valid range.
    """
    if text.strip().lower() == AUTO:
        return [AUTO]
    if ":" in text:
        try:
            parts = [int(x) for x in text.split(":")]
        except ValueError:
            raise ValueError("a range is start:end[:step] with integers") from None
        if len(parts) not in (2, 3) or parts[0] < 1 or parts[1] < parts[0] or (len(parts) == 3 and parts[2] < 1):
            raise ValueError("a range is start:end[:step] with 1 <= start <= end and step >= 1")
        return list(range(parts[0], parts[1] + 1, parts[2] if len(parts) == 3 else 1))
    try:
        level = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not auto, a level (an integer >= 1) or a range start:end[:step]") from None
    if level < 1:
        raise ValueError("concurrency levels are >= 1")
    return [level]


def concurrency_list(text: str) -> tuple[int, ...]:
    """``"1,2,4"`` (a list) or ``"start:end[:step]"`` (perf_analyzer's linear range), or both mixed.

    Raises:
        click.BadParameter: a part is neither.
    """
    levels = CommaList(concurrency_item).convert(text, None, None)
    if not levels:
        raise click.BadParameter("--concurrency needs at least one level, e.g. 1,2,4")
    return levels


def concurrency_setting(levels: tuple[int | str, ...]) -> tuple[int, ...] | str:
    """The ``--concurrency`` values as :attr:`perf.sweep.options.SweepOptions.concurrency`:
    ``"auto"`` alone, or the levels.

    Raises:
        click.BadParameter: ``auto`` mixed with levels.
    """
    if AUTO in levels:
        if len(levels) > 1:
            raise click.BadParameter(
                f"--concurrency auto grows its own levels; got it with {list(levels)}: pass one or the other"
            )
        return AUTO
    return tuple(int(c) for c in levels)


def parse_shapes_flag(text: str) -> tuple[str, tuple[int, ...]]:
    """``--shapes seq=16,64,128`` -> ``("seq", (16, 64, 128))``.

    Raises:
        click.BadParameter: not ``AXIS=SIZE[,SIZE...]`` with sizes >= 1.
    """
    axis, sep, sizes = text.partition("=")
    try:
        values = tuple(dict.fromkeys(int(x) for x in sizes.split(",") if x.strip()))
    except ValueError:
        values = ()
    if not sep or not axis.strip() or not values or min(values) < 1:
        raise click.BadParameter(f"--shapes {text!r} is not AXIS=SIZE[,SIZE...], e.g. seq=16,64,128")
    return axis.strip(), values


def _positive_rate(text: str) -> float:
    rate = float(text)
    if not rate > 0:
        raise ValueError("request rates are > 0 requests/s")
    return rate


@group()
def cli() -> None:
    """Sweep request concurrency over Triton config variants and compare them."""


def latency_percentile_option(fn: Any) -> Any:
    """``--latency-percentile 50|90|95|99``: the client latency percentile a budget is on."""
    return click.option(
        "--latency-percentile",
        type=click.Choice([str(p) for p in LATENCY_PERCENTILES]),
        default=None,
        show_default=False,
        help="Client latency percentile the budget is on, as Model Analyzer's perf_latency_p9x constraints "
        f"[default: the run's, else {DEFAULT_LATENCY_PERCENTILE}].",
    )(fn)


@cli.command()
@click.option(
    "--repository",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_REPOSITORY,
    help="Model repository to sweep (written by `builders build`).",
)
@list_option(
    "--variants",
    metavar="NAME|PATTERN[,...]",
    help="Variant names or shell patterns such as 'mlp_*' [default: every model in the repository].",
)
@list_option(
    "--concurrency",
    item=concurrency_item,
    default=(AUTO,),
    metavar="auto|N|START:END[:STEP][,...]",
    help="Concurrency levels: auto (grow 1, 2, 4 ... while throughput still rises by more than the noise and the "
    "latency stays under the budget), or a list 1,2,4 and/or perf_analyzer's range start:end[:step], measured whole.",
)
@click.option(
    "--search",
    type=click.Choice(SEARCH_MODES),
    default=None,
    help="brute: every variant at every level; prune: measure every variant at the best level so far first and drop "
    "those that cannot win (each decision recorded and shown in the report) [default: prune above 4 variants].",
)
@list_option(
    "--request-rates",
    item=_positive_rate,
    metavar="R[,R...]",
    help="Also measure at these fixed request rates (requests/s), e.g. 100,200 [default: none].",
)
@list_option(
    "--batch-sizes",
    item=click.IntRange(1),
    default=DEFAULT_BATCH_SIZES,
    metavar="N[,N...]",
    help="Client batch sizes (-b); above a variant's max_batch_size they are skipped.",
)
@click.option(
    "--shapes",
    "sweep_axes",
    multiple=True,
    metavar="AXIS=SIZE[,SIZE...]",
    help="Sweep a dynamic axis of the build's spec as a level dimension, e.g. --shapes seq=16,64,128 (repeat for "
    "more axes: every combination); the report lists each size like a concurrency level "
    "[default: each axis at the build's opt size, said in the report].",
)
@click.option(
    "--protocol", type=click.Choice(["grpc", "http"]), default=_M.protocol, help="Protocol perf_analyzer measures with."
)
@click.option(
    "--measurement-mode",
    type=click.Choice(["time_windows", "count_windows"]),
    default=_M.measurement_mode,
    help="perf_analyzer's window kind: fixed time (--measurement-interval) or fixed request count (--measurement-request-count).",
)
@click.option(
    "--measurement-interval",
    "interval_ms",
    type=click.IntRange(1),
    default=_M.measurement_interval_ms,
    help="Window length, ms (time_windows).",
)
@click.option(
    "--measurement-request-count",
    "request_count",
    type=click.IntRange(1),
    default=_M.measurement_request_count,
    help="Requests per window (count_windows).",
)
@click.option(
    "--stability-percentage",
    "stability",
    type=click.FloatRange(0, min_open=True),
    default=_M.stability_pct,
    help="A level is stable when throughput and latency of the last 3 windows differ by less than this (%).",
)
@click.option(
    "--max-trials", type=click.IntRange(3), default=_M.max_trials, help="perf_analyzer windows before a level counts as unstable."
)
@click.option(
    "--unstable-retries",
    type=click.IntRange(0),
    default=_M.unstable_retries,
    help="Retries of an unstable level with a doubled window before it is kept and flagged.",
)
@click.option(
    "--perf-analyzer-arg",
    "pa_args",
    multiple=True,
    metavar="FLAG",
    help="Extra perf_analyzer flag passed through verbatim to every measurement (repeatable), "
    "e.g. --perf-analyzer-arg=--max-threads=16.",
)
@click.option(
    "--trials",
    type=click.IntRange(1),
    default=_S["trials"].default,
    help="Repeat each level N times (median and spread reported).",
)
@click.option(
    "--results-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=_S["results_dir"].default,
    help="Parent folder of run folders: the run is written to RESULTS_DIR/RUN_ID.",
)
@click.option("--run-id", default=None, help="Run folder name [default: a timestamp].")
@click.option(
    "--resume",
    "resume",
    default=None,
    metavar="RUN_ID",
    help="Continue RESULTS_DIR/RUN_ID with every setting it was started with (repository, variants, levels, "
    "measurement, server runtime); levels already measured are kept.",
)
@click.option(
    "--perf-analyzer",
    "pa",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="perf_analyzer binary [default: $PERF_ANALYZER, the venv, PATH].",
)
@click.option(
    "--input-data",
    type=click.Path(path_type=Path),
    default=None,
    help="Your perf_analyzer --input-data (JSON file, folder, random or zero) [default: generated from the model's signature].",
)
@click.option(
    "--shape",
    "shapes",
    multiple=True,
    metavar="NAME:DIMS",
    help="Size of an input's dynamic dims, as perf_analyzer's --shape (dims without the batch axis, e.g. input_ids:128; "
    "repeatable). Needed where the build's spec gives none (a repository without the toolkit's manifest).",
)
@click.option(
    "--latency-budget-ms",
    type=click.FloatRange(0, min_open=True),
    default=None,
    help="Client latency budget for the recommendation (ms), on the --latency-percentile (p99 by default) [default: none].",
)
@latency_percentile_option
@click.option(
    "--host-busy-threshold",
    "host_busy",
    type=click.FloatRange(0),
    default=_S["host_busy_threshold_pct"].default,
    help="Other processes' mean CPU use during a level (% of one core) above which the level is measured "
    "again after a pause, then flagged 'host busy'.",
)
@click.option(
    "--allow-failed-variants",
    is_flag=True,
    help=f"Exit 0 even when a variant failed to load or measure [default: exit {EXIT_VARIANT_FAILED}].",
)
@click.option("--no-report", is_flag=True, help="Do not write report.md at the end.")
@no_baseline_option
@click.option(
    "--allow-shared-host",
    is_flag=True,
    help="With several --url servers: measure in parallel even on servers that share a host or GPU (refused by "
    "default: they compete, so their numbers include each other's load).",
)
@server_options(repository_flag=False, omit=("model_control", "load_models", "log_file"))
@verbosity_option
@click.pass_context
def sweep(
    ctx: click.Context,
    repository: Path,
    variants: tuple[str, ...],
    concurrency: tuple[int | str, ...],
    search: str | None,
    request_rates: tuple[float, ...],
    batch_sizes: tuple[int, ...],
    sweep_axes: tuple[str, ...],
    protocol: str,
    measurement_mode: str,
    interval_ms: int,
    request_count: int,
    stability: float,
    max_trials: int,
    unstable_retries: int,
    pa_args: tuple[str, ...],
    trials: int,
    results_dir: Path,
    run_id: str | None,
    resume: str | None,
    pa: Path | None,
    input_data: Path | None,
    shapes: tuple[str, ...],
    latency_budget_ms: float | None,
    latency_percentile: str | None,
    allow_failed_variants: bool,
    host_busy: float,
    server_opts: Any,
    no_report: bool,
    no_baseline: bool,
    allow_shared_host: bool,
) -> None:
    """Run perf_analyzer over every variant and concurrency level; write RESULTS_DIR/RUN_ID/.

    The server is launched with explicit model control and one variant loaded at a time; its
    log is kept in the run folder. Exit codes: 0 every variant measured, 1 an error (nothing
    measured), 3 some variant failed (see --allow-failed-variants), 130 interrupted (resume
    with --resume RUN_ID).
    """
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from clients.shapes import parse_shapes
    from perf.sweep.run import Sweep

    if resume and run_id and run_id != resume:
        raise click.BadParameter(f"--resume {resume} continues that run; --run-id {run_id} names another one: pass only one")
    given = {p for p in ctx.params if ctx.get_parameter_source(p) not in (click.core.ParameterSource.DEFAULT, None)}
    opts = SweepOptions(
        server=server_opts,
        variants=variants,
        concurrency=concurrency_setting(concurrency),
        search=search,
        batch_sizes=batch_sizes,
        request_rates=request_rates,
        measure=MeasureSettings(
            protocol=protocol,
            measurement_mode=measurement_mode,
            measurement_interval_ms=interval_ms,
            measurement_request_count=request_count,
            stability_pct=stability,
            max_trials=max_trials,
            unstable_retries=unstable_retries,
            extra_args=pa_args,
        ),
        trials=trials,
        results_dir=results_dir,
        run_id=resume or run_id,
        resume=resume is not None,
        perf_analyzer=pa,
        input_data=input_data,
        shapes=parse_shapes(shapes),
        latency_budget_ms=latency_budget_ms,
        latency_percentile=int(latency_percentile or DEFAULT_LATENCY_PERCENTILE),
        host_busy_threshold_pct=host_busy,
        given=frozenset(_GIVEN_FIELDS[p] for p in given if p in _GIVEN_FIELDS) if resume else None,
        sweep_axes=dict(parse_shapes_flag(x) for x in sweep_axes),
        baseline=not no_baseline,
        allow_shared_host=allow_shared_host,
    )
    console = make_console()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)

    def on_event(e: dict[str, Any]) -> None:
        if e["event"] == "level_start":
            trial = f" t={e['trial'] + 1}/{state['trials']}" if state["trials"] > 1 else ""
            load = f"rate={e['request_rate']:g}/s" if e.get("request_rate") else f"c={e['concurrency']}"
            load += f" {e['shape']}" if e.get("shape") else ""
            progress.update(
                task,
                description=escape(
                    f"{e['variant']} ({e['index'] + 1}/{e['n_variants']}) {load} b={e['batch_size']}{trial}{state['last']}"
                ),
            )
        elif e["event"] == "level_done":
            lv = e["level"]
            trial = f" t={lv.trial + 1}/{state['trials']}" if state["trials"] > 1 else ""
            state["last"] = f" | last {lv.throughput_infer_per_s:.0f} infer/s" if lv.ok else ""
            note = f"{lv.throughput_infer_per_s:.0f} infer/s, p99 {lv.latency_p99_ms:.2f} ms" if lv.ok else f"error: {lv.error}"
            flag = "" if lv.status in ("ok", "failed") else f" [{lv.status}]"
            load = f"rate={lv.request_rate:g}/s" if lv.request_rate else f"c={lv.concurrency}"
            load += f" {lv.shape}" if lv.shape else ""
            progress.console.log(escape(f"{e['variant']} {load} b={lv.batch_size}{trial}: {note}{flag}"))
            progress.advance(task)
        elif e["event"] == "search_decision":
            if e["decision"] is not None:
                progress.console.log(escape(f"{e['variant']}: not measured further because {e['decision'].reason}"))
            progress.advance(task, e.get("levels_left", 0))  # its planned levels the search left out
        elif e["event"] == "variant_failed":
            progress.console.log(f"[red]{escape(e['variant'])} failed: {escape(e['error'])}[/red]")
            progress.advance(task, e.get("levels_left", 0))  # its planned levels that will not run now
        elif e["event"] == "baseline_point":
            progress.console.log(escape("in-process baseline " + describe_point(e)))

    state: dict[str, Any] = {"last": "", "trials": 1}  # the last measured throughput, shown on the progress bar
    sw = Sweep(opts, on_event)
    o = sw.opts  # after --resume these are the run's saved settings
    state["trials"] = o.trials
    total, done = sw.level_counts()  # planned levels only: skipped ones are listed at the end
    with progress:
        task = progress.add_task(
            "reaching tritonserver" if o.server.urls else "starting tritonserver", total=total, completed=done
        )
        try:
            run = sw.run_all()
        except KeyboardInterrupt:
            console.print(
                f"[yellow]interrupted: measurements so far are kept in {escape(str(sw.run_dir))}; continue with "
                f"{escape(resume_command(o.results_dir, sw.run_id))}[/yellow]"
            )
            raise SystemExit(EXIT_INTERRUPTED) from None
    for line in skipped_summary(run):
        console.print(escape(line))
    click.echo(f"results: {sw.run_dir}")
    failed = [v for v in run.variants if v.status not in ("ok", "skipped")]  # skipped ones are listed above
    if not any(v.status == "ok" for v in run.variants):
        from core.errors import PerfError

        raise PerfError(
            f"no variant was measured: {'; '.join(f'{v.name}: {v.error}' for v in run.variants)[:600]}",
            hint=f"see {sw.run_dir / 'results.json'} and the server log there",
        )
    if not no_report:
        _print_report(sw.run_dir, sw.opts.latency_budget_ms, sw.opts.latency_percentile)
    if failed:
        names = ", ".join(v.name for v in failed)
        if allow_failed_variants:
            click.secho(
                f"{len(failed)} of {len(run.variants)} variants failed ({names}); exit 0 (--allow-failed-variants)",
                fg="yellow",
                err=True,
            )
        else:
            click.secho(
                f"{len(failed)} of {len(run.variants)} variants failed ({names}); the others are measured and reported. "
                f"Exit {EXIT_VARIANT_FAILED} (pass --allow-failed-variants to exit 0).",
                fg="red",
                err=True,
            )
            ctx.exit(EXIT_VARIANT_FAILED)


def skipped_summary(run: Any) -> list[str]:
    """Lines naming every asked level the sweep skipped, per variant, with the reason."""
    from perf.search.plan import describe_skipped

    lines = []
    for v in run.variants:
        lines += [f"skipped {v.name}: {d}" for d in describe_skipped(v.skipped)]
    n = sum(len(v.skipped) for v in run.variants)
    return ([f"{n} asked level(s) skipped (not measured, not in the progress count):"] + lines) if n else []


def resume_command(results_dir: Path, run_id: str) -> str:
    """The command that continues run ``run_id`` (every other setting comes from the run)."""
    return shlex.join(["perf/run_sweep.sh", "--resume", run_id, "--results-dir", str(results_dir)])


#: CLI parameter -> the SweepOptions setting it gives (what a resumed run reports as ignored).
_GIVEN_FIELDS = {
    "repository": "repository",
    "variants": "variants",
    "concurrency": "concurrency",
    "search": "search",
    "batch_sizes": "batch_sizes",
    "request_rates": "request_rates",
    "trials": "trials",
    "protocol": "measure",
    "measurement_mode": "measure",
    "interval_ms": "measure",
    "request_count": "measure",
    "stability": "measure",
    "max_trials": "measure",
    "unstable_retries": "measure",
    "pa_args": "measure",
    "pa": "perf_analyzer",
    "input_data": "input_data",
    "shapes": "shapes",
    "sweep_axes": "sweep_axes",
    "host_busy": "host_busy_threshold_pct",
    "latency_percentile": "latency_percentile",
    **{k: "server" for k in SERVER_KEYS},
}


def _print_report(
    run_dir: Path, budget: float | None, percentile: int | None = None, top: int = TOP_N, html: bool = False
) -> None:
    from perf.records import results
    from perf.report.write import summary_table, write_report

    path = write_report(run_dir, budget, latency_percentile=percentile, top_n=top, html=html)
    print_table(summary_table(results.load(run_dir), budget, percentile, top))
    click.echo(f"report: {path}")


@cli.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--latency-budget-ms",
    type=click.FloatRange(0, min_open=True),
    default=None,
    help="Client latency budget for the recommendation (ms) [default: the run's own, if it had one].",
)
@latency_percentile_option
@click.option(
    "--top",
    type=click.IntRange(1),
    default=TOP_N,
    show_default=True,
    help="Variants per level table (plus the baseline) and highlighted in the plots of a run of more than 10.",
)
@click.option("--html", is_flag=True, help="Also write report.html: one self-contained interactive page (plotly, opens offline).")
@verbosity_option
def report(run_dir: Path, latency_budget_ms: float | None, latency_percentile: str | None, top: int, html: bool) -> None:
    """Write RUN_DIR/report.md, appendix.md and the plots from results.json, and print the summary."""
    _print_report(run_dir, latency_budget_ms, int(latency_percentile) if latency_percentile else None, top, html)


@cli.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the comparison [default: RUN_B/compare_<RUN_A id>.md].",
)
@verbosity_option
def compare(run_a: Path, run_b: Path, out: Path | None) -> None:
    """Compare two runs (before/after, or two machines) level by level."""
    from perf.analysis.compare import compare_runs

    click.echo(f"comparison: {compare_runs(run_a, run_b, out)}")


cli.add_command(export_deployment)
cli.add_command(baseline)
cli.add_command(coldstart)


def main() -> None:
    """The ``triton-perf`` console script: run the command group with the toolkit's error handling."""
    run_cli(cli)


if __name__ == "__main__":
    main()
