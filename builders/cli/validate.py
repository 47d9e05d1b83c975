"""``builders validate PATH`` (every problem of a model repository, and the checks not run) and
``builders spec`` (an input spec as JSON)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from builders.model.builtin import BUILTINS, get_builtin
from builders.repository.manifest import build_spec
from builders.repository.missing import DEFAULT_REPOSITORY, not_found_parts
from builders.repository.validate import Validation, ValidationInterrupted, relative, summary
from builders.repository.validate import validate as validate_run
from builders.triton.releases import coverage, release
from core.cli import CONTEXT_SETTINGS, EXIT_INTERRUPTED, ToolkitCommand, print_table, verbosity_option
from core.cli import console as make_console
from core.console import ignore_further_interrupts, interrupted_words
from core.errors import ModelSpecError, RepositoryError
from core.wording import count, of


@click.command("validate", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=click.Path(path_type=Path), default=DEFAULT_REPOSITORY, required=False)
@click.option(
    "--server-gpu/--no-server-gpu",
    "server_gpu",
    default=None,
    help="Whether the server has a GPU: --no-server-gpu reports KIND_GPU instance groups (default: not checked).",
)
@click.option("--no-artifacts", is_flag=True, help="Do not open model files to compare their inputs and outputs with the config.")
@click.option(
    "--load-artifacts",
    is_flag=True,
    help="Also load TorchScript archives and TensorRT plans (in a separate process): loading them can run code "
    "from the file, so by default only ONNX graphs (plain protobuf) are read.",
)
@click.option(
    "--target-triton",
    metavar="RELEASE",
    default=None,
    help="The Triton release that will serve the repository: container tag (24.10) or, where the table has it, server version (2.56.0). "
    "Checks the artifacts its own backends serve (repositories built with --serving native): ONNX IR version/opset "
    "against its onnxruntime backend's ONNX Runtime, TensorRT plans against its TensorRT. An ONNX file served by the "
    "python backend (the default --serving python) runs another ONNX Runtime and is listed as not run, as is a check "
    f"whose version is not confirmed for that release (confirmed: {coverage()}).",
)
@click.option(
    "--details",
    is_flag=True,
    help="One row per file for every problem and check not run, instead of one row per kind (its files counted, "
    "the first named).",
)
@verbosity_option
def validate(
    path: Path, server_gpu: bool | None, no_artifacts: bool, load_artifacts: bool, target_triton: str | None, details: bool
) -> None:
    """Check a Triton model repository (or one model folder) and report every problem.

    PATH defaults to model_repository in the current directory, as every command's -r does.

    Checks that each config.pbtxt parses, its name equals its folder, version folders are
    integers, the model file the platform expects exists, inputs/outputs match the artifact
    (ONNX graph and its external data; TorchScript module and TensorRT engine with
    --load-artifacts), outputs match what the build recorded, Triton's batching rules hold
    and, with --target-triton, the artifacts fit that release. Checks that did not run are
    listed. The tables hold one row per kind (the same field, problem and fix; its files
    counted), --details one row per file. Warnings (what Triton serves as meant, by luck of an
    order nothing checks) are a table of their own. Exits 1 when there is any problem, 0 with
    warnings only.
    """
    from core.flag_refusals import Unread, refuse_unread
    from core.options import given

    refuse_unread(  # issue 26, K1: --no-artifacts --load-artifacts opened nothing, and said only the first
        given(click.get_current_context()),
        [Unread("load_artifacts", "--load-artifacts", no_artifacts, "--no-artifacts opens no model file", "drop one of them")],
    )
    target = release(target_triton) if target_triton is not None else None
    if not path.is_dir():  # a path typed that is not there: a usage error (exit 2), as every command's -r (T19-2)
        state, hint = not_found_parts(path, flag="")
        raise RepositoryError(f"repository {path} {state}", hint=hint, flag="PATH")
    try:
        with _progress(load_artifacts) as progress:
            result = validate_run(
                path,
                server_gpu=server_gpu,
                check_artifacts=not no_artifacts,
                load_artifacts=load_artifacts,
                target=target,
                progress=progress,
            )
    except ValidationInterrupted as stop:  # what the folders checked found, and what was not checked (issue 26)
        ignore_further_interrupts()
        _show(stop.result, path, details, whole=False)
        left = [stop.stopped_at, *stop.left]
        checked = of(len(stop.checked), len(stop.checked) + len(left), "model folder")
        if stop.checked:
            found = "its problems in the tables above" if stop.result.problems else "no problem found in them"
            checked += f" checked ({', '.join(stop.checked)}): {found}"
        else:
            checked += " checked"
        click.secho(
            f"{interrupted_words()} while checking {stop.stopped_at}: {checked}; not checked: {', '.join(left)}; the "
            f"same command checks them all again (or `builders validate {path}/MODEL` one)",
            fg="yellow",
            err=True,
        )
        raise SystemExit(EXIT_INTERRUPTED) from None
    if _show(result, path, details):
        click.get_current_context().exit(1)


def _show(result: Validation, path: Path, details: bool, whole: bool = True) -> bool:
    """Print ``result``'s tables, notes and (``whole``: every folder checked) summary line; whether it
    found a problem."""
    from rich.markup import escape
    from rich.table import Table

    console = make_console(stderr=False)
    shown: dict[str, int] = {}
    tables = (
        (f"problems in {path}", result.problems, "red"),
        ("warnings (served as meant today; not failures)", result.warnings, "yellow"),
        ("checks not run", result.skipped, "yellow"),
    )
    for title, rows, style in tables:
        if not rows:
            continue
        table = Table(title=escape(title), show_lines=True, title_style=style)
        for col in (
            "file" if details else "files",
            "check" if rows is result.skipped else "field",
            "why" if rows is result.skipped else "problem",
            "what to do",
        ):
            table.add_column(col, overflow="fold")
        grouped = table_rows(rows, path, details)
        shown[title] = len(grouped)
        for row in grouped:
            table.add_row(*(escape(x) for x in row))
        print_table(table, console)
    for note in result.notes:
        console.print(escape(note))
    if not whole:  # the interrupted line counts the folders checked
        return bool(result.problems)
    line = summary(result.problems, path)
    if result.problems and shown.get(f"problems in {path}", 0) != len(result.problems):
        line += f" ({count(shown[f'problems in {path}'], 'row')} above, one per kind; --details: a row each)"
    if result.skipped:
        rows_note = (
            "a row each above"
            if shown["checks not run"] == len(result.skipped)
            else f"{count(shown['checks not run'], 'row')} above, one per kind; --details: a row each"
        )
        line += f" ({count(len(result.skipped), 'check')} not run, {rows_note})"
    if result.warnings:
        line += f"; {count(len(result.warnings), 'warning')} (a table above: served as meant, not a failure)"
    console.print(escape(line))
    return bool(result.problems)


@contextlib.contextmanager
def _progress(load_artifacts: bool) -> Iterator[Callable[[int, int, str], None]]:
    """A progress bar over the model folders on a terminal (stderr; gone when done); with
    ``--load-artifacts`` (seconds a TorchScript archive: trial 12, F20) also a log line per model,
    so that a log or a pipe shows it moving."""
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    err = make_console()
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    task = bar.add_task("checking", total=None)

    def on_model(done: int, total: int, model: str) -> None:
        bar.update(task, completed=done, total=total, description=escape(f"checking {model}" if model else "checked"))
        if load_artifacts and model:
            err.log(escape(f"checking {done + 1}/{total}: {model}"))

    with bar:
        yield on_model


def table_rows(rows: list[Any], path: Path, details: bool) -> list[tuple[str, str, str, str]]:
    """The rows of one of validate's tables: one per problem or check not run with ``details``,
    else one per kind (the same field, text and fix), its files counted and the first named.

    Args:
        rows: The problems or checks not run (``file``, ``field``, ``problem``, ``fix``).
        path: The repository validated (files are shown relative to it).
        details: One row per file.

    Returns:
        ``(files, field, problem, fix)`` per row, in the order the kinds were first found.
    """
    if details:
        return [(relative(p.file, path), p.field, p.problem, p.fix) for p in rows]
    kinds: dict[tuple[str, str, str], list[str]] = {}
    for p in rows:
        kinds.setdefault((p.field, p.problem, p.fix), []).append(relative(p.file, path))
    out = []
    for (field, problem, fix), files in kinds.items():
        where = files[0] if len(files) == 1 else f"{count(len(files), 'file')}: {files[0]} and {len(files) - 1} more"
        out.append((where, field, problem, fix))
    return out


@click.command("spec", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--example",
    is_flag=True,
    help="Print a complete example spec (two int64 inputs with value ranges, a dynamic seq axis, two outputs).",
)
@click.option(
    "--model",
    "model",
    metavar="NAME",
    help=f"Print the spec of a built-in model ({', '.join(BUILTINS)}); your own model's spec: --build.",
)
@click.option(
    "--build",
    "build",
    type=click.Path(path_type=Path),
    metavar="FOLDER",
    help="Print the spec a build recorded in its manifest: FOLDER is BUILD_DIR/<name> of `builders build` "
    "(e.g. builds/mymodel). Your own model's spec, with its outputs filled in, to pass again as --spec "
    "(or as the demo's DEMO_SPEC).",
)
def spec(example: bool, model: str | None, build: Path | None) -> None:
    """Print an input spec as JSON: the format `builders build --spec FILE` reads.

    Keys: "inputs" (in forward() order) and "outputs" (in the order forward() returns them,
    tuple/dict outputs flattened; bare names are allowed, dtype and shape are then taken from
    the eager model), each with "name", "dtype" (float32, int64, ...), "shape" (per sample,
    without the batch axis; ints or the name of a dynamic axis) and, for integer inputs,
    "value_range" [low, high] inclusive, or one [low, high] per position of a fixed last axis
    ([[0, 4], [0, 11]]: a tabular input's columns); a bound may name a dynamic axis, its size in the
    same request ([1, "time"]: lengths of at most the waveform's time); an input's "domain" says what values a request
    can send ("mask": 0s and 1s, at least one 1 per row); "dynamic_axes" maps each axis name to
    [min, opt, max] (any size in that range, unless "multiple_of" gives the axis a step: {"H": 32}).
    """
    if [example, model is not None, build is not None].count(True) != 1:
        raise click.UsageError("give exactly one of --example, --model NAME or --build FOLDER")
    if build is not None:
        try:
            spec = build_spec(build)
        except RepositoryError as e:  # its own words; a path that is not there is a typed mistake (core.cli.EXIT_USAGE)
            e.flag = e.flag or ("--build" if not build.exists() else None)
            raise
        click.echo(json.dumps(spec.to_json(), indent=2))
        return
    if model is not None and model not in BUILTINS:
        raise ModelSpecError(
            f"`builders spec --model` prints a built-in model's spec, and {model!r} is not one ({', '.join(BUILTINS)})",
            hint="your own model's spec is the one you write for `builders build --spec` (`builders spec --example` "
            "prints a complete one to start from); once built, `builders spec --build builds/<name>` prints the "
            "spec its build recorded",
            flag="--model",
        )
    click.echo(json.dumps(get_builtin(model or "encoder").spec.to_json(), indent=2))
