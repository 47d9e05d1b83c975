"""``builders inspect PATH``: the graph health of exports, as a table of facts with what each
usually means (a thin shell over :func:`builders.graph.inspect.inspect_path`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from builders.graph.facts import facts
from builders.graph.inspect import Inspected, inspect_path
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, print_table, verbosity_option
from core.cli import console as make_console
from core.flag_refusals import Unread, refuse_unread
from core.options import given
from core.wording import count


@click.command("inspect", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--load-artifacts",
    is_flag=True,
    help="Also load the TorchScript archives found under a folder (in a separate process): loading them can run "
    "code from the file, so by default only ONNX graphs are read. A .pt file named as PATH is always loaded.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON (one object per export file) instead of tables.")
@verbosity_option
def inspect(path: Path, load_artifacts: bool, as_json: bool) -> None:
    """Graph health of an export (.onnx or TorchScript .pt) or of every export in a build folder or model repository.

    ONNX: opset and IR version, operator counts as exported and after ONNX Runtime's own graph
    optimisation (ORT_ENABLE_ALL on the CPU provider, Triton's onnxruntime default), Conv ->
    BatchNormalization (-> Relu) left unfused, shapes computed from the batch size
    (Shape -> Gather -> ... -> Reshape), dynamic dims and their names, external data bytes.
    TorchScript: frozen or not, and the node count of forward's inlined graph (an archive under a
    folder is loaded only with --load-artifacts; otherwise the facts its build recorded are shown). Plain facts,
    each with what it usually means; no score. Exits 1 when a file cannot be read.
    """
    refuse_unread(  # issue 26, K1: a file named as PATH is read whole with or without it
        given(click.get_current_context()),
        [
            Unread(
                "load_artifacts",
                "--load-artifacts",
                path.is_file(),
                f"{path.name} is a file, read whole either way (a .pt loaded, an .onnx parsed); the flag loads "
                "the TorchScript archives under a folder",
                "drop --load-artifacts",
            )
        ],
    )
    found = inspect_path(path, load_artifacts=load_artifacts)
    if as_json:
        click.echo(json.dumps([_json(i, path) for i in found], indent=2))
    else:
        _print(found, path)
    if any(i.error for i in found):
        click.get_current_context().exit(1)


def _rel(p: Path, root: Path) -> str:
    return os.path.relpath(p, root) if root.is_dir() else str(p)


def _json(i: Inspected, root: Path) -> dict[str, object]:
    return {
        "path": _rel(i.path, root),
        "copies": [_rel(c, root) for c in i.copies],
        "format": i.format,
        "health": i.health.model_dump(mode="json") if i.health else None,
        "how": i.how,
        "skipped": i.skipped,
        "error": i.error,
    }


def _print(found: list[Inspected], root: Path) -> None:
    from rich.markup import escape
    from rich.table import Table

    console = make_console(stderr=False)
    for i in found:
        title = _rel(i.path, root) + (f" (same file at {count(len(i.copies), 'more path')})" if i.copies else "")
        if i.health is None:
            console.print(escape(f"{title}: {'not read: ' + i.error if i.error else i.skipped}"), highlight=False)
            continue
        table = Table(title=escape(f"{title} ({i.format}, {i.how})"), show_lines=True)
        for col, width in (("fact", 40), ("found", 60), ("what this usually means", 70)):
            table.add_column(col, overflow="fold", max_width=width)
        for f in facts(i.health):
            table.add_row(escape(f.name), escape(f.value), escape(f.meaning))
        print_table(table, console)
