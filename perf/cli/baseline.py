"""``triton-perf baseline RUN_DIR|REPOSITORY``: the in-process baseline (a thin shell over
:mod:`perf.profile.baseline`).

Given a run folder it measures the run's variants at the batch sizes the run's dynamic
batcher formed and stores the result in the run's ``results.json`` (``triton-perf report RUN_DIR``
then shows the serving efficiency); given a model repository it measures every variant at
batch 1, ``--batch-sizes`` and max_batch_size and writes ``baseline.json`` into ``--out``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from clients.runtimes.options import ServerOptions
from core.cli import EXIT_INTERRUPTED, ToolkitCommand, list_option, print_table, verbosity_option
from core.console import ignore_further_interrupts, interrupted_words
from core.naming import PATTERNS_METAVAR, variant_patterns
from core.options import option
from core.precision import PRECISION_NAMES
from core.wording import count
from perf.cli.baseline_time import duration, estimate_options, estimate_words, profile_words
from perf.cli.report import say_outdated
from perf.cli.runs import RunFolder
from perf.markdown import UNSTABLE_MARK, flag_mark, fmt
from perf.profile.replacing import short_words
from perf.profile.stopped import BaselineInterrupted, ProfileInterrupted, interrupted_profile_text, interrupted_text
from perf.profile.timing import COMMAND_BUDGET, TimingSettings
from perf.records.baseline import BaselineResult
from perf.records.levels import FLAG_MEANINGS, HOST_BUSY
from perf.records.profile import ProfileRecord
from perf.report.sections.inprocess import point_status
from perf.report.sections.profile import profile_section
from perf.sweep.baseline_words import BASELINE_START_SHARE

if TYPE_CHECKING:  # rich is imported only when a table is drawn
    from rich.table import Table

_T = TimingSettings()


@click.command("baseline", cls=ToolkitCommand)
@click.argument("target", type=RunFolder(also="(or a model repository)"))
@list_option(
    "--variants",
    item=variant_patterns,
    metavar=PATTERNS_METAVAR,
    help="Variants to measure [default: the run's, else every one].",
)
@list_option(
    "--batch-sizes",
    item=click.IntRange(1),
    metavar="N[,N...]",
    help="Batch sizes measured besides 1, max_batch_size and (for a run) the batch sizes the server formed.",
)
@click.option(
    "--min-run-time",
    type=click.FloatRange(0.01),
    default=_T.min_run_time_s,
    show_default=True,
    help="Seconds of timing per point for blocked_autorange, and again for single calls (p50/p99).",
)
@click.option("--warmup", type=click.FloatRange(0), default=_T.warmup_s, show_default=True, help="Warm-up seconds per point.")
@click.option("--no-eager", is_flag=True, help="Do not measure the build's eager PyTorch model beside each artifact.")
@click.option(
    "--trace",
    is_flag=True,
    help="Also write a profiler trace of one batch per format (torch.profiler Chrome trace; ONNX Runtime's profile) "
    "into traces/ of the run folder (or --out), with the top 10 operators by self time.",
)
@list_option(
    "--precision",
    "precisions",
    item=click.Choice(PRECISION_NAMES),
    metavar="fp32,fp16,bf16",
    help="Also study these precisions of the eager model: speed and max error against fp32, on each device of this "
    "host (others: 'not run on this host').",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="For a repository: the folder baseline.json is written to [default: results/baseline-<timestamp>].",
)
@option(
    ServerOptions,
    "repository",
    default=None,
    path={"file_okay": False},
    help="For a run: the repository holding its variants [default: the one the run swept].",
)
@click.option(
    "--profile-only",
    is_flag=True,
    help="With --trace/--precision: keep the run's baseline (measured right after its sweep) and only add the "
    "traces and the precision study.",
)
@click.option(
    "--time-budget",
    "time_budget",
    metavar="DURATION",
    default=None,
    callback=lambda _ctx, _param, v: duration(v),
    help="Wall time it may spend (10m, 90s, 1h; as the sweep's --time-budget): no point, trace or precision round "
    "starts that would end after it, and what it cuts is said [default: none]. Its estimate is said first; a budget "
    f"under {fmt(100 * BASELINE_START_SHARE, 0)} % of it is refused before it starts (the sweep's rule for its baseline).",
)
@click.option(
    "--replace",
    is_flag=True,
    help="For a run that has a baseline (or traces, a precision study): measure it again; the earlier one stays "
    "in results.json (replaced_baselines; the profile's replaced_traces/replaced_precision, their files in "
    "traces/replaced-N/). For a repository: write into an --out that holds baseline.json/profile.json, the "
    "earlier file kept as NAME.previous-N.json. Without it either is refused before anything is measured.",
)
@verbosity_option
def baseline(
    target: Path,
    variants: tuple[str, ...],
    batch_sizes: tuple[int, ...],
    min_run_time: float,
    warmup: float,
    no_eager: bool,
    trace: bool,
    precisions: tuple[str, ...],
    out: Path | None,
    repository: Path | None,
    profile_only: bool,
    time_budget: float | None,
    replace: bool,
) -> None:
    """Measure each format in-process (no server) with a served instance's threads.

    TARGET is a run folder (its results.json gets the baseline; `triton-perf report` then shows the
    serving efficiency) or a model repository (baseline.json is written to --out). A run keeps
    what it has measured: a baseline, traces or a precision study it has is measured again only
    with --replace.
    """
    from perf.cli.baseline_flags import refuse_unread_baseline, refuse_unsendable_batch_sizes
    from perf.profile import baseline as api
    from perf.records.results import RESULTS_FILE, new_run_id

    opts = api.BaselineOptions(
        repository=target,
        variants=variants,
        batch_sizes=batch_sizes,
        timing=TimingSettings(min_run_time_s=min_run_time, warmup_s=warmup),
        eager=not no_eager,
        deadline=None if time_budget is None else time.monotonic() + time_budget,
        budget=COMMAND_BUDGET,
    )
    is_run = (target / RESULTS_FILE).is_file()
    refuse_unread_baseline(target, is_run, repository, profile_only, trace, precisions)
    estimate_opts = estimate_options(target, opts, repository)  # the run read once: the refusal's and both estimates'
    refuse_unsendable_batch_sizes(estimate_opts, batch_sizes)  # sizes no variant takes (T27-8)
    if not is_run:
        out = out or Path("results") / f"baseline-{new_run_id()}"
        if not replace:  # an earlier baseline.json / profile.json in --out: kept, never written over unasked
            from perf.profile.replacing import refuse_files
            from perf.profile.run import PROFILE_FILE

            refuse_files(out, [*([] if profile_only else [api.BASELINE_FILE]), *([PROFILE_FILE] if trace or precisions else [])])
    elif not replace:  # what the run has is refused as a whole, before any part is measured (trial 14, T14-8)
        from perf.profile.replacing import refuse_replacing
        from perf.records.results import load

        run = estimate_opts.run if estimate_opts is not None else load(target)  # unreadable: refused in its own words
        refuse_replacing(run, baseline=not profile_only, trace=trace, precision=bool(precisions), variants=variants)
    if estimate_opts is not None and estimate_opts.run is not None:  # before an estimate is said (trial 26, T26-15)
        from perf.profile.checks import BASELINE_DOING, TRACES_DOING, refuse_unusable

        refuse_unusable(estimate_opts.run, variants, estimate_opts.repository, TRACES_DOING if profile_only else BASELINE_DOING)
    say = _say()
    if not profile_only:
        if said := estimate_words(estimate_opts, time_budget):
            say(said)
        earlier = _earlier_baseline(estimate_opts) if is_run and replace else None
        try:
            if is_run:
                result = api.baseline_for_run(target, opts, _progress(), repository, replace=replace)
                where = f"stored in {target / RESULTS_FILE}; `triton-perf report {target}` shows the serving efficiency"
            else:
                assert out is not None
                result = api.run_baseline(opts, _progress())
                where = f"written to {api.write_baseline(result, out)}"
        except BaselineInterrupted as stop:  # what it measured is shown and kept, the rest named, exit 130
            _interrupted(stop, None if is_run else out, earlier, trace or bool(precisions))
        if earlier is not None:  # said as coldstart --replace says its own (re-check 14, NEW-5)
            from perf.profile.replacing import replaced_line

            where += f"\n{replaced_line(earlier)}"
        print_table(baseline_table(result))
        click.echo(f"baseline: {where}")
    if trace or precisions:
        from perf.profile import run as profile_run

        started = time.monotonic()
        if said := profile_words(estimate_opts, trace, precisions, time_budget):
            say(said)
        try:
            profile, stored = profile_run.profile_target(
                target, opts, out, trace=trace, precisions=precisions, repository=repository, say=say, replace=replace
            )
        except KeyboardInterrupt as stop:  # what it kept, said with what measures the rest, exit 130 (issue 26)
            _profile_interrupted(target, None if is_run else out, trace, precisions, replace, not profile_only, stop)
        if cut := cut_words(profile, target, trace, precisions, out):
            say(cut)
        click.echo("\n".join(profile_section(profile, operators=None)))
        click.echo(profile_line(profile, stored, time.monotonic() - started, trace=trace, precision=bool(precisions)))
    if is_run:  # its report.md, of the run before this baseline, says so at its top (s22z, Z-13)
        say_outdated(target)


def _interrupted(stop: BaselineInterrupted, out: Path | None, earlier: BaselineResult | None, profile: bool) -> None:
    """Say what an interrupted baseline measured (its table), where it is kept (a repository's: written to
    ``out`` here; a run's: filed by :func:`perf.profile.stopped.kept_in`), what it did not, and exit 130."""
    from perf.profile import baseline as api
    from perf.profile.replacing import replaced_line

    ignore_further_interrupts()  # a second Ctrl-C cuts none of it
    if out is not None and any(p.ok for p in stop.result.points):
        stop.stored = api.write_baseline(stop.result, out)
    if stop.result.points:
        print_table(baseline_table(stop.result))
    lines = [interrupted_text(stop)]
    if earlier is not None and stop.stored is not None:
        lines.append(replaced_line(earlier))
    if profile:
        lines.append("--trace/--precision: not started (the baseline comes first)")
    click.secho("\n".join(lines), fg="yellow", err=True)
    if out is None and stop.stored is not None:  # a run's report.md of before it says so at its top (s22z, Z-13)
        say_outdated(Path(stop.stored).parent)
    raise SystemExit(EXIT_INTERRUPTED) from None


def _profile_interrupted(
    target: Path, out: Path | None, trace: bool, precisions: Sequence[str], replace: bool, kept: bool, stop: KeyboardInterrupt
) -> None:
    """Say what an interrupted ``--trace``/``--precision`` of ``target`` stored (the rows measured before it,
    :class:`perf.profile.stopped.ProfileInterrupted`, in the run or the repository's ``out``), else that it
    stored nothing (``kept``: the baseline measured first is kept), and what measures the rest; exit 130."""
    ignore_further_interrupts()
    folder = out or target
    what = " and ".join((["the traces"] if trace else []) + (["the precision study"] if precisions else []))
    if isinstance(stop, ProfileInterrupted) and stop.stored is not None:
        click.echo("\n".join(profile_section(stop.record, operators=None)))
        click.secho(interrupted_profile_text(stop.record, stop.stored, folder, what), fg="yellow", err=True)
        if out is None:  # a run's report.md of before it says so at its top (s22z, Z-13)
            say_outdated(target)
        raise SystemExit(EXIT_INTERRUPTED) from None
    where = f"{folder} holds what it held before" + (
        f"; trace files written before it in {folder}/traces are not recorded" if trace else ""
    )
    again = f"triton-perf baseline {target}" + (f" --out {out}" if out is not None else "") + " --profile-only"
    again += (" --trace" if trace else "") + (f" --precision {','.join(precisions)}" if precisions else "")
    kept_words = "; the baseline above is kept" if kept else ""
    click.secho(
        f"{interrupted_words()}: {what} stored nothing ({where}){kept_words}; `{again}{' --replace' if replace else ''}` "
        "measures them",
        fg="yellow",
        err=True,
    )
    raise SystemExit(EXIT_INTERRUPTED) from None


def _earlier_baseline(opts: Any | None) -> BaselineResult | None:
    """The run's baseline ``--replace`` replaces (one that measured a point), to name it once replaced
    (``opts``: :func:`perf.cli.baseline_time.estimate_options`, the run read once)."""
    earlier = opts.run.baseline if opts is not None and opts.run is not None else None
    return earlier if earlier is not None and any(p.ok for p in earlier.points) else None


def cut_words(profile: ProfileRecord, target: Path, trace: bool, precisions: Sequence[str], out: Path | None = None) -> str:
    """What the time budget cut of the traces and the precision study, and what measures it (``""``: nothing cut;
    ``out``: a repository's ``--out``, :func:`perf.profile.run.measures_again`)."""
    from perf.records.profile import CUT

    traces = sum(1 for t in profile.traces if t.status == CUT)
    rows = sum(1 for r in profile.precision if r.status == CUT)
    if not traces and not rows:
        return ""
    from perf.profile.run import measures_again

    what = " and ".join(([count(traces, "trace")] if traces else []) + ([count(rows, "precision row")] if rows else []))
    return f"cut for time: {what} not measured; {measures_again(target, trace, precisions, out)}"


def profile_line(profile: ProfileRecord, stored: Path, seconds: float, *, trace: bool, precision: bool) -> str:
    """The last line of ``--trace``/``--precision``, all a script keeps of them (``make demo``'s step 3b
    printed its header and nothing else: trial 9, F1): what was written, what ran, how long, where.
    ``"traces: 3 of 3 written to RUN/traces; precision study: 3 of 6 rows measured (3 not run on this host);
    12 s; stored in RUN/results.json"``. Each count's rest is said by status, so the counts add up (trial 19,
    T19-13's kind: "traces: 1 of 3 written" said nothing of the other 2)."""
    parts = []
    if trace:
        done = [t.file for t in profile.traces if t.status == "measured" and t.file]
        folder = stored.parent / Path(done[0]).parent if done else stored.parent
        rest = Counter(
            t.status if t.status != "measured" else "no file" for t in profile.traces if not (t.status == "measured" and t.file)
        )
        why = f" ({', '.join(f'{n} {status}' for status, n in rest.items())})" if rest else ""
        written = (
            f"{len(done)} of {len(profile.traces)} written to {folder}" if done else f"none of {len(profile.traces)} written"
        )
        parts.append(f"traces: {written}{why}" if profile.traces else "traces: none written")
    if precision:
        rows = profile.precision
        others = Counter(r.status for r in rows if r.status != "measured")
        left = ", ".join(f"{n} {status}" for status, n in others.items())
        measured = sum(1 for r in rows if r.status == "measured")
        parts.append(f"precision study: {measured} of {len(rows)} rows measured" + (f" ({left})" if left else ""))
    return "; ".join([*parts, f"{fmt(seconds, 0)} s", f"stored in {stored}"])


def describe_point(e: dict[str, Any]) -> str:
    """One line for a ``baseline_point`` progress event: ``[3/12] mlp onnx fp32 cpu threads=2 b=8: 1,234.5 infer/s``
    (``threads=2 seq=64 b=8`` for a point at an input size)."""
    p = e["point"]
    k = p.key
    size = f" {p.shape}" if p.shape else ""  # each client workload's input size is timed (issue 26, F23)
    what = f"{k.model} {k.format} {k.precision} {k.device} threads={k.threads or 'default'}{size} b={p.batch_size}"
    note = f"{fmt(p.throughput_infer_per_s)} infer/s{flag_mark(p.flag)}" if p.ok else f"{p.status}: {p.reason}"
    return f"[{e['done']}/{e['total']}] {what}: {note}"


def describe_rounds(e: dict[str, Any]) -> str:
    """One line for a ``baseline_rounds`` event: ``mlp: round 2 of 5 of 40 points timed together
    (each point's line follows the last round)``."""
    return f"{e['model']}: round {e['round'] + 1} of {e['rounds']} of its {e['points']} points timed together" + (
        " (each point's line follows the last round)" if e["round"] == 0 else ""
    )


def describe_event(e: dict[str, Any]) -> str:
    """A baseline progress event in one line (:func:`describe_point`, :func:`describe_rounds`; a
    ``baseline_cut``: its note, ``"`mlp`: timed in 2 of 8 rounds: the sweep's time budget ran out"``; a
    ``baseline_loading``: ``"`mlp`: loading 3 keys and warming up its 12 points before its first round"``)."""
    if e["event"] == "baseline_cut":
        return e["text"]
    if e["event"] == "baseline_loading":
        return f"`{e['model']}`: loading {count(e['keys'], 'key')} and warming up its {count(e['points'], 'point')} before its first round"
    return describe_rounds(e) if e["event"] == "baseline_rounds" else describe_point(e)


def _progress() -> Any:
    say = _say()
    return lambda e: say(describe_event(e))


def _say() -> Any:
    """One stamped line on stderr (the console's log; a script keeping stdout's last line still shows it)."""
    from core.cli import console

    out = console()
    return lambda line: out.log(line, markup=False)


def baseline_table(result: BaselineResult) -> Table:
    """One row per point: what ran, batch, status, p50/p99 (single calls), median and its spread, infer/s."""
    from rich.table import Table

    view = Table(
        title="In-process baseline",
        caption=f"{result.settings.timer}; min_run_time {result.settings.min_run_time_s:g} s per point"
        + (  # the legend lists only the marks the table shows (trial 9, F3's kind)
            f"; {UNSTABLE_MARK} host busy: {FLAG_MEANINGS[HOST_BUSY]} (more than "
            f"{fmt(result.settings.host_busy_threshold_pct, 0)} % of one core) during the point's rounds"
            if any(flag_mark(p.flag) for p in result.points if p.ok)
            else ""
        )
        + (f"; {short_words(result)}: fewer rounds, a wider spread" if result.cut_short() else ""),  # trial 31, F11
    )
    for col in ("model", "format", "precision", "device", "threads", "batch", "status"):
        view.add_column(col, no_wrap=True)
    for col in ("p50 ms", "p99 ms", "median ms", "spread %", "infer/s"):
        view.add_column(col, justify="right", no_wrap=True)
    for p in result.points:
        k = p.key
        view.add_row(
            k.model,
            k.format,
            k.precision,
            k.device,
            str(k.threads or "default"),
            str(p.batch_size),
            point_status(p),
            fmt(p.latency_p50_ms, 3),
            fmt(p.latency_p99_ms, 3),
            fmt(p.latency_median_ms, 3),
            fmt(p.spread_pct),
            fmt(p.throughput_infer_per_s),
        )
    return view
