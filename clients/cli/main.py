"""``clients``: serve a repository, send requests, check served outputs against PyTorch.

A thin shell over :mod:`clients.cli.launch`, :mod:`clients.infer` and :mod:`clients.check`;
``--help`` imports neither torch nor tritonclient.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from clients.cli.launch import serve_command
from clients.cli.options import server_options
from clients.cli.unread import DEFAULT_PORTS, refuse_unread_check, refuse_unread_infer, refuse_unread_running
from clients.runtimes.options import ServerOptions
from core.cli import EXIT_INTERRUPTED, group, list_option, print_table, run_cli, verbosity_option
from core.cli import console as make_console
from core.console import interrupted_words
from core.flag_refusals import parse_flag
from core.naming import PATTERNS_METAVAR, variant_patterns
from core.options import option
from core.units import throughput_text


@group()
def cli() -> None:
    """Launch tritonserver, send inference requests, and check served outputs against PyTorch."""


cli.add_command(serve_command("serve"))


@cli.command()
@click.argument("model")
@click.option(
    "--url",
    default=None,
    help="host:port of the server, any server (one the toolkit did not start too); http:// or grpc:// in front sets "
    "--protocol [default: localhost:8000 (http) / localhost:8001 (grpc)].",
)
@click.option("--protocol", type=click.Choice(["http", "grpc"]), default="http", help="Protocol of the requests.")
@click.option(
    "--input-data",
    "--input",
    "input_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Inputs from a file: .npz (one key per input name, or input:<name> as in a build's reference.npz), .npy "
    "(single-input models) or .json in perf_analyzer's --input-data form [default: generated from the model's "
    "signature and the build's spec; the shapes and value ranges used are printed].",
)
@click.option(
    "--shape",
    "shapes",
    multiple=True,
    metavar="NAME:DIMS",
    help="Per-sample dims of an input with dynamic dims, without the batch axis, e.g. --shape input_ids:128 "
    "(repeatable; inputs sharing an axis take its size; within the build's verified range) "
    "[default: the build's opt size of the axis; required without a build].",
)
@click.option(
    "-b",
    "--batch-size",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Batch size: rows per request of generated inputs or of a .json --input-data file's entries; "
    "a .npy/.npz file's first axis is the batch (a -b given must equal it); 1 for a model with max_batch_size 0.",
)
@click.option("--requests", type=click.IntRange(1), default=1, show_default=True, help="Number of requests to send.")
@click.option("--concurrency", type=click.IntRange(1), default=1, show_default=True, help="Requests in flight at once (threads).")
@click.option(
    "--shared-memory",
    is_flag=True,
    help="Pass tensors through system shared memory (server on this host); an output whose config leaves dims open "
    "(-1) goes there when the build's record sizes it from the inputs (-r), else over the wire, said in a line.",
)
@option(
    ServerOptions,
    "repository",
    help="Repository whose index.json leads to the build manifest (integer input value ranges, dynamic axis sizes).",
)
@click.option("--output", "outputs", multiple=True, metavar="NAME", help="Output to request (repeatable; default all).")
@click.option(
    "--no-cast",
    is_flag=True,
    help="Refuse inputs whose dtype differs from the model's (default: cast float->float, int->int with a note).",
)
@click.option(
    "--save-outputs", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Save the last outputs to this .npz."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of generated inputs.")
@verbosity_option
def infer(
    model: str,
    url: str | None,
    protocol: str,
    input_path: Path | None,
    shapes: tuple[str, ...],
    batch_size: int,
    requests: int,
    concurrency: int,
    shared_memory: bool,
    repository: Path,
    outputs: tuple[str, ...],
    no_cast: bool,
    save_outputs: Path | None,
    seed: int,
) -> None:
    """Send one or many requests to MODEL and summarise its outputs."""
    import numpy as np
    from rich.markup import escape
    from rich.table import Table

    from clients.infer import UnknownModelError, model_signature, run_requests
    from clients.input_files import load_input_file
    from clients.input_values import verified_range
    from clients.inputs import generate_inputs, plan_inputs, spec_for, summarize
    from clients.request_stats import RequestsInterrupted, not_finite_lines
    from clients.shape_flags import parse_shapes
    from clients.shapes import check_batch_size, refuse_shape_flags
    from clients.shared_memory import placement_words
    from core.console import ignore_further_interrupts
    from core.errors import ClientError
    from core.names import require_known

    scheme = url.partition("://")[0] if url and "://" in url else None
    refuse_unread_infer(protocol, scheme, input_path, requests, concurrency)
    if url and scheme:
        url = url.partition("://")[2]
        if scheme not in DEFAULT_PORTS:
            raise click.BadParameter(f"{scheme}:// is not a protocol the server speaks: http:// or grpc://", param_hint="--url")
        protocol = scheme
    url = url or f"localhost:{DEFAULT_PORTS[protocol]}"
    try:
        given = parse_flag(parse_shapes, shapes, hint="--shape")  # a usage error before the server is asked anything
    except click.BadParameter as e:  # --shapes' AXIS=SIZE form: the NAME:dims to give, from the model's config
        refuse_shape_flags(e, shapes, lambda: [_shape_model(model_signature(url, protocol, model), spec_for(repository, model))])
    try:
        sig = model_signature(url, protocol, model)
    except UnknownModelError as e:  # the MODEL typed names no model of the server: a usage error (exit 2)
        e.flag = "MODEL"
        raise
    check_batch_size(model, sig.max_batch_size, batch_size, flag="-b")  # typed: a usage error (exit 2), T19-2
    require_known("--output", outputs, [t.name for t in sig.outputs], kind="output", owner=model, error=ClientError)
    if input_path:
        given_b = click.get_current_context().get_parameter_source("batch_size") is ParameterSource.COMMANDLINE
        held: dict[str, str] = {}  # a cast is said on its input's line, not as a log line above it (trial 15, T15-6)
        inputs = load_input_file(
            input_path, sig, batch_size, spec_for(repository, model), batch_given=given_b, cast=not no_cast, said=held.__setitem__
        )
        how = [
            f"{k} {_shape(v.shape, sig.max_batch_size)} {v.dtype}: from {input_path}"
            + (f", which holds {held[k]}" if k in held else "")
            for k, v in inputs.items()
        ]
    else:
        spec = spec_for(repository, model)
        try:
            inputs = generate_inputs(sig, batch_size, spec, seed, given)
        except ClientError as e:
            if spec is None and "nothing gives its size" in e.message:  # say where it looked, and the other way out
                e.message = e.message.replace("the repository has no", f"the repository {repository} has no")
                e.hint = (
                    f"pass -r with the repository builders build wrote for {model} (its manifest gives the sizes), or {e.hint}"
                )
            raise
        how = [c.describe() for c in plan_inputs(sig, batch_size, spec, given)]
    for line in how:
        click.echo(f"input {line}")
    try:
        stats = run_requests(
            url,
            protocol,
            model,
            inputs,
            requests,
            concurrency,
            list(outputs) or None,
            not no_cast,
            shared_memory,
            spec_for(repository, model),
        )
    except RequestsInterrupted as stop:  # what ended before Ctrl-C, what was not sent, exit 130 (T17-16)
        ignore_further_interrupts()
        click.secho(stop.text(), fg="yellow", err=True)
        raise SystemExit(EXIT_INTERRUPTED) from None
    except ClientError as e:
        spec = spec_for(repository, model)
        ranges = [f"{t.name!r} {v.text} ({v.source})" for t in (spec.inputs if spec else ()) if (v := verified_range(t))]
        if ranges and "index past a table" in e.message:
            e.hint = f"send values the model accepts; the build verified {', '.join(ranges)}"
        raise
    console = make_console(stderr=False)
    table = Table(title=escape(f"{model} ({protocol}, {url})"))
    for col in ("output", "shape", "dtype", "min", "max", "mean"):
        table.add_column(col, justify="right" if col in ("min", "max", "mean") else "left")
    fmt = lambda x: "-" if x is None else f"{x:.6g}"  # noqa: E731
    for row in summarize(stats.outputs):
        table.add_row(escape(row["name"]), str(row["shape"]), row["dtype"], fmt(row["min"]), fmt(row["max"]), fmt(row["mean"]))
    print_table(table, console)
    for line in not_finite_lines(stats.outputs):  # NaN printed as a number is read as an answer (trial 10)
        click.secho(line, fg="yellow", err=True)
    sent = ", ".join(
        f"{k} {_shape(shape, sig.max_batch_size)} {dtype}" for k, (shape, dtype) in stats.sent.items()
    )  # after the cast
    shm = [placement_words(list(stats.sent), stats.shm_outputs)] if shared_memory else []  # and what did not (T30 F20)
    click.echo("\n".join([f"inputs: {sent}", *shm]))
    if requests > 1:
        click.echo(
            f"requests: {requests} (concurrency {stats.concurrency}), failed: {len(stats.failures)}, "
            f"latency p50 {stats.latency_percentile_ms(50):.2f} ms, p99 {stats.latency_percentile_ms(99):.2f} ms, "
            f"throughput {throughput_text(stats.throughput_infer_per_s, stats.batch_size)}" + stats.load_note()
        )
    if save_outputs:
        np.savez(save_outputs, **stats.outputs)
        click.echo(f"outputs saved to {save_outputs}")
    if stats.failures:
        raise click.exceptions.Exit(1)


@cli.command()
@server_options(omit=("model_control", "load_models"))  # it loads each variant itself, on a server it starts in explicit mode
@click.option(
    "--http-url",
    default=None,
    help="Check on a running server at this HTTP host:port instead of starting one; with --protocol both and no "
    "--grpc-url, gRPC is its port + 1 (Triton's layout: 8001 beside 8000), said in a line.",
)
@click.option(
    "--grpc-url",
    default=None,
    help="Check on a running server at this gRPC host:port instead of starting one; with --protocol both and no "
    "--http-url, HTTP is its port - 1 (Triton's layout), said in a line.",
)
@click.option(
    "--protocol", type=click.Choice(["http", "grpc", "both"]), default="both", help="Protocol(s) the outputs are checked over."
)
@list_option(
    "--variant",
    "--variants",
    "variants",
    item=variant_patterns,
    metavar=PATTERNS_METAVAR,
    help="Variant names or patterns such as 'mlp_*', as triton-perf sweep --variants takes them [default: all in index.json].",
)
@verbosity_option
def check(server_opts: Any, http_url: str | None, grpc_url: str | None, protocol: str, variants: tuple[str, ...]) -> None:
    """Send each variant's saved reference inputs and compare served outputs with PyTorch's.

    Without --http-url/--grpc-url a server is started on the repository (explicit model
    control) and each variant is loaded, checked and unloaded in turn; with --runtime remote
    --url, a variant already loaded there is checked as it is served (its served config
    compared with the variant's first), never reloaded. With --http-url/--grpc-url the server there is
    checked (a variant not ready is loaded, waiting at most --start-timeout) and the tritonserver flags, which set
    up a server to start, are refused. Exit 1 if any fails.
    """
    from rich.markup import escape

    from clients.check import check_running, check_summary, check_with_server, running_urls
    from clients.check_stop import CheckInterrupted, interrupted_text
    from core.console import ignore_further_interrupts
    from core.errors import first_in_chain

    console = make_console(stderr=False)
    protocols = ("http", "grpc") if protocol == "both" else (protocol,)
    try:
        if http_url or grpc_url:
            refuse_unread_check(protocol, http_url, grpc_url)
            at = http_url or (grpc_url if "://" in str(grpc_url) else f"grpc://{grpc_url}")  # as --url takes it
            refuse_unread_running("--http-url" if http_url else "--grpc-url", str(at))
            urls = running_urls(http_url, grpc_url, protocols)
            for line in urls.derived:
                console.print(escape(line), highlight=False)
            say = lambda m: console.log(escape(m))  # noqa: E731
            results = check_running(server_opts.repository, urls.urls, variants, say, server_opts.start_timeout_s)
        else:
            results = check_with_server(server_opts, protocols, variants, lambda m: console.log(escape(m)))
    except KeyboardInterrupt as e:  # the rows it has, what it did not check, exit 130 (T17-16)
        ignore_further_interrupts()
        stop = first_in_chain(e, CheckInterrupted)  # a second Ctrl-C while it stopped keeps the first's rows
        if stop is None:  # before the first variant (the server's start): nothing was checked
            console.print(f"[yellow]{interrupted_words()} before any variant was checked[/yellow]")
            raise SystemExit(EXIT_INTERRUPTED) from None
        if stop.results:
            print_table(results_table(stop.results), console)
            click.echo(check_summary(stop.results))
        console.print(f"[yellow]{escape(interrupted_text(stop))}[/yellow]")
        raise SystemExit(EXIT_INTERRUPTED) from None
    print_table(results_table(results), console)
    click.echo(check_summary(results))
    if not all(r.passed for r in results):
        raise click.exceptions.Exit(1)


def _shape_model(sig: Any, spec: Any) -> Any:
    """What a ``--shape`` refusal is answered from (:data:`clients.shape_flags.ShapeModel`): the served signature's."""
    return sig.name, [(t.name, t.dims) for t in sig.inputs], sig.max_batch_size, spec


def _shape(shape: Any, max_batch_size: int) -> str:
    """An array's shape sent to a model, as every output states it (:func:`clients.request_shapes.request_shape`)."""
    from clients.request_shapes import request_shape

    dims = [int(d) for d in shape]
    return request_shape(dims[1:], dims[0]) if max_batch_size > 0 and dims else request_shape(dims, None)


def results_table(results: list[Any]) -> Any:
    """A rich table: one row per variant, protocol and output (max abs/rel error, pass/fail).
    A variant that failed the same way on every protocol (it did not load, say) is one row,
    its error printed once and whole. An integer or bool output is compared by the fraction of
    its elements that differ, not by an error: its row says that count in the build's words
    (:func:`builders.verify.compare.differing_words`), its error and rtol cells ``-`` (trial 19,
    T19-10: a bool mask's fraction was shown as a max abs / rel error under an rtol)."""
    from rich.markup import escape
    from rich.table import Table

    from builders.verify.compare import differing_words
    from clients.check import checked_sizes
    from clients.shapes import batch_sizes_text

    sizes = {batch_sizes_text(r.sizes) for r in results if r.sizes}
    one_size = len(sizes) == 1  # the sizes sent, in the title; per row where variants differ
    table = Table(title="served outputs vs PyTorch reference" + (f", at {checked_sizes(results)}" if one_size else ""))
    columns = ["variant", "protocol", "output", "max abs err", "max rel err", "rtol", "result"]
    for col in columns[:1] + ([] if one_size or not sizes else ["at"]) + columns[1:]:
        table.add_column(col, no_wrap=col == "variant", overflow="fold")
    at = (lambda r: [batch_sizes_text(r.sizes)]) if sizes and not one_size else (lambda r: [])
    failed: dict[tuple[str, str], list[str]] = {}
    for r in results:
        if not r.outputs:
            failed.setdefault((r.variant, r.error or ""), []).append(r.protocol)
    shown: set[tuple[str, str]] = set()
    for r in results:
        key = (r.variant, r.error or "")
        if not r.outputs and key not in shown:
            shown.add(key)
            table.add_row(
                escape(r.variant), *at(r), ", ".join(failed[key]), "-", "-", "-", "-", f"[red]FAIL[/red] {escape(r.error or '')}"
            )
        for o in r.outputs:
            labels = o.get("differing") is not None and o.get("elements") is not None
            verdict = "[green]pass[/green]" if o["passed"] else f"[red]FAIL[/red] {escape(o.get('problem') or '')}"
            if o["passed"] and r.not_exercised:
                verdict = "[yellow]pass*[/yellow] (precision not exercised)"
            if o["passed"] and labels:
                verdict += f": {escape(differing_words('', o['differing'], o['elements'], o['rtol']))}"
            errors = ["-", "-", "-"] if labels else [f"{o['max_abs_err']:.3g}", f"{o['max_rel_err']:.3g}", f"{o['rtol']:.0e}"]
            table.add_row(escape(r.variant), *at(r), r.protocol, escape(o["name"]), *errors, verdict)
    return table


def main() -> None:
    """Entry point of the ``clients`` command (and ``python -m clients.cli.main``, which ``make demo`` runs):
    usage lines name ``clients``, the command a user types, never the module."""
    run_cli(cli, prog_name="clients")


if __name__ == "__main__":
    main()
