"""``triton-perf coldstart``: load time and first requests of each variant, on their own (:mod:`perf.coldstart.measure`)."""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import click

from clients.cli.options import server_options
from core.cli import CONTEXT_SETTINGS, EXIT_INTERRUPTED, ToolkitCommand, list_option, verbosity_option
from core.console import ignore_further_interrupts, interrupted_words, stop_name
from core.errors import PerfError, ToolkitError
from core.flag_refusals import Unread, parse_flag, refuse_unread
from core.options import given, option
from core.wording import of
from perf.cli.report import say_outdated
from perf.cli.runs import RunFolder
from perf.sweep.options import SweepOptions
from perf.sweep.server import server_record


@click.command("coldstart", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@option(SweepOptions, "variants")
@list_option(
    "--batch-sizes",
    item=click.IntRange(1),
    default=(1,),
    metavar="N[,N...]",
    help="Batch sizes of the first requests, after batch 1 (those above a variant's max_batch_size are left out for it; "
    "sizes no variant takes are refused before anything starts).",
)
@click.option("--protocol", type=click.Choice(["http", "grpc"]), default="http", help="Protocol of the requests.")
@click.option(
    "--shape",
    "shapes",
    multiple=True,
    metavar="NAME:DIMS",
    help="Size of an input's dynamic dims (dims without the batch axis, e.g. input_ids:128; repeatable) "
    "[default: the build's opt sizes; with --into, the run's own --shape].",
)
@click.option(
    "--into",
    "into",
    type=RunFolder(),
    default=None,
    metavar="RUN",
    help="A sweep's run folder: measures the cold start of its variants that lack one and adds it to results.json "
    "(ratios then use its levels; `triton-perf report RUN` shows them); a variant whose cold start the run has is "
    "kept and not measured, and said so (--replace measures it again).",
)
@click.option(
    "--replace",
    is_flag=True,
    help="With --into: also measure the variants whose cold start the run has; each earlier one stays in "
    "results.json (the variant's replaced_cold_starts) and is named with its first request and load against the new.",
)
@server_options(omit=("model_control", "load_models"))
@verbosity_option
def coldstart(
    variants: tuple[str, ...],
    batch_sizes: tuple[int, ...],
    protocol: str,
    shapes: tuple[str, ...],
    into: Path | None,
    replace: bool,
    server_opts: Any,
) -> None:
    """Load each variant alone and time it (repository API and server log), then send single
    requests at batch 1 and each --batch-sizes until their latency settles (perf_analyzer's
    stability rule over medians of a few requests in a row, within a time cap a size), and compare each first request
    with that settled latency (with --into RUN: the run's steady p50 at that size). A size that does
    not settle is said so, with no ratio or count. Prints a table and the --warmup-count to build
    with (measured on the variants without warmup). TensorRT variants are "not measured on this host" where the server
    cannot run them. With --into RUN, a variant whose cold start the run has is kept, not
    measured again, unless --replace."""
    from builders.repository.view import Repository
    from clients.shape_flags import parse_shapes
    from clients.shape_models import repository_models
    from clients.shapes import refuse_shape_flags
    from perf.records.run_lock import holding_run

    refuse_unread(  # the one rule of unread flags (s19: its own usage error before)
        given(click.get_current_context()),
        [
            Unread(
                "replace",
                "--replace",
                into is None,
                "it measures again the cold starts a run has, and no --into RUN names one",
                "add --into RUN, or drop --replace",
            )
        ],
    )
    try:
        dims = parse_flag(parse_shapes, shapes, hint="--shape")
    except click.BadParameter as e:  # --shapes' AXIS=SIZE form: the NAME:dims to give, from a variant's config (T26-14)
        refuse_shape_flags(e, shapes, lambda: repository_models(server_opts.repository, variants))
    repo = Repository(server_opts.repository)
    # --into: the run is held from its read to its save, so neither this nor another command loses measurements
    with holding_run(into, "this cold start") if into else contextlib.nullcontext():
        _measure(variants, batch_sizes, protocol, dims, into, replace, server_opts, repo)


def _measure(
    variants: tuple[str, ...],
    batch_sizes: tuple[int, ...],
    protocol: str,
    dims: Any,
    into: Path | None,
    replace: bool,
    server_opts: Any,
    repo: Any,
) -> None:
    """:func:`coldstart`'s measurement, ``into`` held."""
    from clients.server import TritonServer
    from perf.coldstart import measure as cs
    from perf.measure import environment
    from perf.measure.batch_limits import refuse_unsendable
    from perf.measure.inputs import check_variant_shapes, resolve_shapes
    from perf.records import results
    from perf.records.measured_files import refuse_missing
    from perf.report.sections import coldstart as report
    from perf.report.sections.servers import held_line, replaced_line
    from perf.sweep.server import now

    run = results.load(into) if into else results.RunResult(report.STANDALONE_RUN, now())
    kept_held: list[str] = []
    configs: dict[str, dict[str, Any]] = {}
    nothing = "nothing was started or measured" + (f", and {into} is as it was" if into else "")
    if into:  # the run's variants it files cold starts of: all there, or nothing is measured (trial 8, F21)
        chosen = _chosen(run, repo, variants, into)
        # a size none of them takes is the flag's mistake, said before what the run holds (s22z, Z-17: "nothing
        # measured: run RUN has the cold start of each variant chosen ... --replace" of --batch-sizes 8 over mbs 4)
        configs = _configs(repo, chosen)  # each read once: the limits here, the shape checks below
        refuse_unsendable(_limits(configs), batch_sizes, "this cold start", nothing)
        kept_held = [] if replace else [n for n in chosen if cs.held(run.variant(n))]  # type: ignore[arg-type]
        _refuse_all_held(run, chosen, kept_held, into)
        refuse_missing(run, [n for n in chosen if n not in kept_held], repo.path, "`coldstart --into`")
    names = chosen if into else repo.names(variants, indexed=False)
    names = [n for n in names if n not in kept_held]  # the run's own cold starts are kept (trial 14, T14-8)
    configs = configs if into else _configs(repo, names)
    swept = {k: list(v) for k, v in (run.settings.get("shapes") or {}).items()} if into else {}
    given, dims = bool(dims), dims or swept  # --into: the run's own --shape, so its levels are at these sizes
    for name in names:  # a --shape the build's verified range refuses: said before any server starts
        try:
            cfg, spec = configs[name], repo.variant(name).served_spec
        except (KeyError, ToolkitError):  # an unreadable config or build record fails that variant when it is measured
            continue
        try:
            check_variant_shapes(name, cfg, spec, dims)
        except ToolkitError as e:
            e.flag = e.flag if given else None  # --into's own sizes, not typed here: a problem found (exit 1)
            raise
        if into and given:
            batching = _limits({name: cfg})[name] > 0
            _refuse_other_sizes(name, resolve_shapes(cfg, spec, dims), resolve_shapes(cfg, spec, swept), into, batching)
    # each variant's max_batch_size: --batch-sizes none takes is refused (T27-8)
    refuse_unsendable(_limits({n: c for n, c in configs.items() if n in names}), batch_sizes, "this cold start", nothing)
    opts = dataclasses.replace(server_opts, model_control="explicit", load_models=())
    records = []
    server = TritonServer(opts)  # a server that could load none of them is not started (the sweep's rule, T15-9)
    server.refuse_unservable(names, "nothing was started or measured" + (f", and {into} is as it was" if into else ""))
    stopped: list[str] = []  # Ctrl-C: the variants not measured; those measured are shown and kept (T17-16)
    late = False  # a stop while the server stopped, every variant measured (held till then): all of it kept, then said
    try:
        with server as srv:
            for i, name in enumerate(names):
                click.echo(f"{name}: loading", err=True)
                try:
                    records.append(cs.measure(srv, repo.variant(name), batch_sizes, protocol, dims))
                except KeyboardInterrupt:
                    ignore_further_interrupts()  # what it measured is filed and shown, whatever comes next
                    stopped = names[i:]
                    wait = f"up to {srv.runtime_impl.stop_wait_s():g} s"
                    click.secho(
                        f"stopping ({stop_name()}): {name} left unfinished; stopping tritonserver ({wait})", fg="yellow", err=True
                    )
                    break
            run.environment.setdefault("server", server_record(srv))
    except KeyboardInterrupt:
        if len(records) < len(names) or stopped:
            raise
        ignore_further_interrupts()
        late = True
    if not into:
        run.environment.update(environment.collect())  # type: ignore[typeddict-item]
    replaced = [  # --into: the run's own records these replace, said (trial 8 F13)
        replaced_line(run, vr.cold_start, rec)
        for rec in records
        if into
        and rec.measured
        and (vr := run.variant(rec.variant)) is not None
        and vr.cold_start is not None
        and vr.cold_start.measured
    ]
    kept = cs.file_into(run, records) if into else _standalone(run, records, repo)
    items = [e for e in report.entries(run) if e.name in names]
    for line in report.table_lines(items):
        click.echo(line)
    click.echo("")
    click.echo(report.conclusion(run, items))
    for line in kept:
        click.secho(line, fg="yellow", err=True)
    if not any(r.measured for r in records) and not stopped:
        raise PerfError("no cold start was measured: the reasons are in the table", hint="fix what they name, then run it again")
    if into:
        results.save(run, into)
        click.echo(f"\nrecorded in {into / results.RESULTS_FILE}; `triton-perf report {into}` writes the report with them")
        for line in replaced:
            click.echo(line)
        for name in kept_held:
            click.echo(held_line(run, run.variant(name).cold_start))  # type: ignore[union-attr,arg-type]
        say_outdated(into)  # its report.md, of the run before this cold start, says so at its top (s22z, Z-13)
    if stopped or late:
        click.secho(interrupted_line(names, records, stopped), fg="yellow")
        raise SystemExit(EXIT_INTERRUPTED)


def _configs(repo: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    """Each of ``names``' config.pbtxt as a dict, read once for every check before the server starts (one that cannot
    be read is left out: it fails when measured)."""
    from google.protobuf import json_format

    from builders.config.pbtxt import read_config

    configs: dict[str, dict[str, Any]] = {}
    for name in names:
        try:
            configs[name] = json_format.MessageToDict(
                read_config(repo.path / name / "config.pbtxt"), preserving_proto_field_name=True
            )
        except (ToolkitError, OSError):
            continue
    return configs


def _limits(configs: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Each config's max_batch_size (0: the model does not batch)."""
    return {name: int(cfg.get("max_batch_size", 0) or 0) for name, cfg in configs.items()}


def interrupted_line(names: list[str], records: list[Any], stopped: list[str]) -> str:
    """The closing line of a Ctrl-C'd ``coldstart``: ``"interrupted (Ctrl-C): 1 of 4 variants measured (the
    table above); 1 failed: b (the table says why); not measured: c, d; to measure them, run ..."``. Each of
    ``names`` is in one group, so the counts add up (trial 19, T19-13's kind: a cold start that failed was
    counted as measured)."""
    measured = [r for r in records if r.measured]
    failed = [r.variant for r in records if not r.measured]
    done = f"{of(len(measured), len(names), 'variant')} measured" + (" (the table above)" * bool(records))
    if failed:
        done += f"; {len(failed)} failed: {', '.join(failed)} (the table says why)"
    if not stopped:  # it came while the server stopped, every variant measured and filed
        return f"{interrupted_words()} while tritonserver stopped: {done}"
    again = f"the same command with --variants {','.join(stopped)}"
    return f"{interrupted_words()}: {done}; not measured: {', '.join(stopped)}; to measure them, run {again}"


def _chosen(run: Any, repo: Any, variants: tuple[str, ...], into: Path) -> list[str]:
    """The variants ``coldstart --into`` acts on: the run's, or those ``--variants`` names in the repository,
    each of which must be the run's. A named one the run does not hold is refused by name, whatever else is
    named (re-check 14, NEW-4: in a list beside the run's own it was dropped without a word, and the run was
    said to have "the cold start of each variant chosen").

    Raises:
        click.BadParameter: a variant ``--variants`` names is not in the run (the closest of the run's named).
        RepositoryError: a name or pattern matches no variant of the repository.
    """
    from builders.repository.patterns import meant

    if not variants:
        return [v.name for v in run.variants]
    names = repo.names(variants, indexed=False)
    own = [v.name for v in run.variants]
    absent = [n for n in names if n not in own]
    if absent:
        named = ", ".join(n + (f" (did you mean {m}?)" if (m := meant(n, own)) else "") for n in absent)
        raise click.BadParameter(
            f"{named} not in the run {into}: --into records only the run's own variants ({', '.join(own)})",
            param_hint="'--variants'",
        )
    return names


def _refuse_all_held(run: Any, chosen: list[str], held: list[str], into: Path) -> None:
    """Refuse ``coldstart --into`` when the run has the cold start of every chosen variant (nothing to
    add; measuring again would replace the run's own: trial 14, T14-8), naming each and the way on.

    Raises:
        PerfError: every chosen variant's cold start is held.
    """
    from perf.report.sections.servers import held_line

    if not chosen or len(held) < len(chosen):
        return
    lines = "\n".join(f"  {held_line(run, run.variant(n).cold_start)}" for n in held)
    raise PerfError(
        f"nothing measured: run {run.run_id} ({into}) has the cold start of each variant chosen, and --into "
        f"adds only what the run lacks:\n{lines}",
        hint="--replace measures them again (the run's stay in results.json, beside the new ones); "
        "without --into the cold starts are measured on their own, leaving the run as it is",
    )


def _refuse_other_sizes(
    name: str, sent: dict[str, list[int]], swept: dict[str, list[int]], into: Path, batching: bool = True
) -> None:
    """Refuse ``coldstart --into RUN --shape`` sizes other than those the run's levels were measured at: its
    first requests would be divided by a steady p50 of another input size (trial 16, T16-11: a cold start's
    reference must be the level at the same batch size and shape). The dims are said as every output says them
    (:func:`clients.request_shapes.per_sample_shape`; ``batching``: the model's ``max_batch_size`` is above 0).

    Raises:
        PerfError: an input's sizes differ (each named, with both sizes).
    """
    from clients.request_shapes import per_sample_shape

    differ = [
        f"{k} {per_sample_shape(sent[k], batching)} (--shape) where the run sent "
        + (per_sample_shape(swept[k], batching) if k in swept else "none")
        for k in sent
        if sent[k] != swept.get(k)
    ]
    if differ:
        raise PerfError(
            f"{name}: {'; '.join(differ)}: its first requests would be compared with the run's steady levels at "
            f"other sizes; nothing was measured, and {into} is as it was",
            hint="drop --shape (--into sends at the run's own sizes), or measure them without --into (compared with "
            "the latency they settle at)",
            flag="--shape",  # a typed --shape that does not go with --into RUN: exit 2 (trial 20)
        )


def _standalone(run: Any, records: list[Any], repo: Any) -> list[str]:
    """Put ``records`` in the standalone ``run`` (one variant record each); nothing is kept out."""
    from perf.records import results

    for rec in records:
        vr = run.variant(rec.variant)
        if vr is None:
            entry = repo.variant(rec.variant).entry
            vr = results.VariantResult(rec.variant, entry.params if entry else None)
            run.variants.append(vr)
        vr.cold_start = rec
    return []
