"""``perf``: concurrency sweeps with perf_analyzer, reports and comparisons.

A thin shell over :mod:`perf.sweep`, :mod:`perf.report` and :mod:`perf.compare`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from core.cli import int_list, run_cli, verbosity_option
from clients.cli_options import server_options
from perf.analyzer import MeasureSettings
from perf.sweep import DEFAULT_CONCURRENCY, SweepOptions

#: Defaults shown by the CLI come from the API's dataclasses (one source of truth).
_M = MeasureSettings()
_S = SweepOptions.__dataclass_fields__


def concurrency_list(text: str) -> tuple[int, ...]:
    """``"1,2,4"`` (a list) or ``"start:end[:step]"`` (perf_analyzer's linear range)."""
    if ":" in text:
        parts = int_list(text.replace(":", ","), "--concurrency")
        if len(parts) not in (2, 3) or parts[0] < 1 or parts[1] < parts[0]:
            raise click.BadParameter(f"--concurrency range must be start:end[:step] with 1 <= start <= end, got {text!r}")
        step = parts[2] if len(parts) == 3 else 1
        if step < 1:
            raise click.BadParameter(f"--concurrency range step must be >= 1, got {text!r}")
        return tuple(range(parts[0], parts[1] + 1, step))
    levels = int_list(text, "--concurrency")
    if not levels or min(levels) < 1:
        raise click.BadParameter(f"--concurrency levels must be >= 1, got {text!r}")
    return levels


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Sweep request concurrency over Triton config variants and compare them."""


@cli.command()
@click.option("--repository", type=click.Path(file_okay=False, path_type=Path), default=Path("model_repository"), show_default=True)
@click.option("--variants", default="", help="Comma-separated variant names or patterns such as 'mlp_*' (default: every model in the repository).")
@click.option("--concurrency", default=",".join(map(str, DEFAULT_CONCURRENCY)), show_default=True, help="Levels: a list 1,2,4 or a range start:end[:step].")
@click.option("--request-rates", default="", help="Also measure at these fixed request rates (requests/s), e.g. 100,200.")
@click.option("--batch-sizes", default=",".join(map(str, _S["batch_sizes"].default)), show_default=True, help="Client batch sizes (-b); above a variant's max_batch_size they are skipped.")
@click.option("--protocol", type=click.Choice(["grpc", "http"]), default=_M.protocol, show_default=True)
@click.option("--measurement-mode", type=click.Choice(["time_windows", "count_windows"]), default=_M.measurement_mode, show_default=True)
@click.option("--measurement-interval", "interval_ms", type=click.IntRange(1), default=_M.measurement_interval_ms, show_default=True, help="Window length, ms (time_windows).")
@click.option("--measurement-request-count", "request_count", type=click.IntRange(1), default=_M.measurement_request_count, show_default=True, help="Requests per window (count_windows).")
@click.option("--stability-percentage", "stability", type=click.FloatRange(0, min_open=True), default=_M.stability_pct, show_default=True)
@click.option("--max-trials", type=click.IntRange(3), default=_M.max_trials, show_default=True, help="perf_analyzer windows before a level counts as unstable.")
@click.option("--unstable-retries", type=click.IntRange(0), default=_M.unstable_retries, show_default=True, help="Retries of an unstable level with a doubled window before it is kept and flagged.")
@click.option("--trials", type=click.IntRange(1), default=_S["trials"].default, show_default=True, help="Repeat each level N times (median and spread reported).")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=_S["results_dir"].default, show_default=True)
@click.option("--run-id", default=None, help="Run folder name (default: a timestamp).")
@click.option("--resume", "resume", default=None, metavar="RUN_ID", help="Continue results/RUN_ID with its saved settings (repository, variants, levels, measurement); levels already measured are kept.")
@click.option("--perf-analyzer", "pa", type=click.Path(dir_okay=False, path_type=Path), default=None, help="perf_analyzer binary (default: $PERF_ANALYZER, the venv, PATH).")
@click.option("--input-data", type=click.Path(path_type=Path), default=None, help="Your perf_analyzer --input-data (default: generated from the model's signature).")
@click.option("--latency-budget-ms", type=click.FloatRange(0, min_open=True), default=None, help="p99 latency budget for the recommendation (ms).")
@click.option("--no-report", is_flag=True, help="Do not write report.md at the end.")
@server_options(repository_flag=False)
@verbosity_option
def sweep(repository: Path, variants: str, concurrency: str, request_rates: str, batch_sizes: str, protocol: str, measurement_mode: str,
          interval_ms: int, request_count: int, stability: float, max_trials: int, unstable_retries: int, trials: int,
          results_dir: Path, run_id: str | None, resume: str | None, pa: Path | None, input_data: Path | None,
          latency_budget_ms: float | None, server_opts: Any, no_report: bool) -> None:
    """Run perf_analyzer over every variant and concurrency level; write results/<run-id>/.

    The server is launched with explicit model control and one variant loaded at a time.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from perf.sweep import Sweep

    levels = concurrency_list(concurrency)
    if resume and run_id and run_id != resume:
        raise click.BadParameter(f"--resume {resume} continues that run; --run-id {run_id} names another one: pass only one")
    opts = SweepOptions(
        server=server_opts,
        variants=tuple(v for v in variants.split(",") if v),
        concurrency=levels,
        batch_sizes=_positive(int_list(batch_sizes, "--batch-sizes"), "--batch-sizes"),
        request_rates=_float_list(request_rates, "--request-rates"),
        measure=MeasureSettings(protocol=protocol, measurement_mode=measurement_mode, measurement_interval_ms=interval_ms,
                                measurement_request_count=request_count, stability_pct=stability, max_trials=max_trials,
                                unstable_retries=unstable_retries),
        trials=trials,
        results_dir=results_dir,
        run_id=resume or run_id,
        resume=resume is not None,
        perf_analyzer=pa,
        input_data=input_data,
        latency_budget_ms=latency_budget_ms,
    )
    console = Console(stderr=True)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)

    def on_event(e: dict[str, Any]) -> None:
        if e["event"] == "level_start":
            load = f"rate={e['request_rate']:g}/s" if e.get("request_rate") else f"c={e['concurrency']}"
            progress.update(task, description=escape(f"{e['variant']} ({e['index'] + 1}/{e['n_variants']}) {load} b={e['batch_size']}{state['last']}"))
        elif e["event"] == "level_done":
            lv = e["level"]
            state["last"] = f" | last {lv.throughput_infer_per_s:.0f} infer/s" if lv.ok else ""
            note = f"{lv.throughput_infer_per_s:.0f} infer/s, p99 {lv.latency_p99_ms:.2f} ms" if lv.ok else f"error: {lv.error}"
            flag = "" if lv.stable or not lv.ok else " [unstable]"
            load = f"rate={lv.request_rate:g}/s" if lv.request_rate else f"c={lv.concurrency}"
            progress.console.log(escape(f"{e['variant']} {load} b={lv.batch_size}: {note}{flag}"))
            progress.advance(task)
        elif e["event"] == "variant_failed":
            progress.console.log("[red]" + escape(f"{e['variant']} failed: {e['error']}"))
            progress.advance(task, e.get("levels_left", 0))  # its planned levels that will not run now

    state = {"last": ""}  # the last measured throughput, shown on the progress bar
    sw = Sweep(opts, on_event)
    total, done = sw.level_counts()  # planned levels only: skipped ones are listed at the end
    with progress:
        task = progress.add_task("starting tritonserver", total=total, completed=done)
        try:
            run = sw.run_all()
        except KeyboardInterrupt:
            console.print("[yellow]" + escape(f"interrupted: measurements so far are kept in {sw.run_dir}; continue with --resume {sw.run_id}"))
            raise SystemExit(130)
    for line in skipped_summary(run):
        console.print(escape(line))
    click.echo(f"results: {sw.run_dir}")
    if not any(v.status == "ok" for v in run.variants):
        from core.errors import PerfError

        raise PerfError(f"no variant was measured: {'; '.join(f'{v.name}: {v.error}' for v in run.variants)[:600]}",
                        hint=f"see {sw.run_dir / 'results.json'} and the server log there")
    if not no_report:
        _print_report(sw.run_dir, sw.opts.latency_budget_ms)


def skipped_summary(run: Any) -> list[str]:
    """Lines naming every asked level the sweep skipped, per variant, with the reason."""
    from perf.plan import describe_skipped

    lines = []
    for v in run.variants:
        lines += [f"skipped {v.name}: {d}" for d in describe_skipped(v.skipped)]
    n = sum(len(v.skipped) for v in run.variants)
    return ([f"{n} asked level(s) skipped (not measured, not in the progress count):"] + lines) if n else []


def _positive(values: tuple[int, ...], what: str) -> tuple[int, ...]:
    if not values or min(values) < 1:
        raise click.BadParameter(f"{what}: values must be >= 1, got {list(values)}")
    return values


def _float_list(text: str, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{what}: expected comma-separated numbers such as 100,250.5, got {text!r}") from None
    if any(v <= 0 for v in values):
        raise click.BadParameter(f"{what}: request rates must be > 0 requests/s, got {text!r}")
    return values


def _print_report(run_dir: Path, budget: float | None) -> None:
    from rich.console import Console

    from perf import results
    from perf.report import summary_table, write_report

    path = write_report(run_dir, budget)
    # a log or CI console is not a terminal: give the table room instead of rich's 80 columns
    Console(width=None if sys.stdout.isatty() else 140).print(summary_table(results.load(run_dir), budget))
    click.echo(f"report: {path}")


@cli.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--latency-budget-ms", type=click.FloatRange(0, min_open=True), default=None, help="p99 latency budget for the recommendation (ms).")
@verbosity_option
def report(run_dir: Path, latency_budget_ms: float | None) -> None:
    """Write RUN_DIR/report.md and its plots from results.json, and print the summary."""
    _print_report(run_dir, latency_budget_ms)


@cli.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Where to write the comparison (default: RUN_B/compare_<RUN_A id>.md).")
@verbosity_option
def compare(run_a: Path, run_b: Path, out: Path | None) -> None:
    """Compare two runs (before/after, or two machines) level by level."""
    from perf.compare import compare_runs

    click.echo(f"comparison: {compare_runs(run_a, run_b, out)}")


def main() -> None:
    run_cli(cli)


if __name__ == "__main__":
    main()
