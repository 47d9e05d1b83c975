"""``builders variants``: the variant grid as a table, without building anything."""

from __future__ import annotations

from typing import Any

import click

from builders.backends import servable
from builders.cli.flags import formats_of, grid_options
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, print_table
from core.cli import console as make_console
from core.errors import ConfigError


@click.command("variants", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--model",
    default="mlp",
    metavar="NAME",
    help="The model's name as variant names start with it (mlp, or the name `builders build` gave yours, e.g. "
    "kwspot); not the file:factory that `builders build --model` takes.",
)
@grid_options
def variants(model: str, formats: tuple[str, ...], precisions: tuple[str, ...], grid: Any, serving: str) -> None:
    """Print the variant grid as a table, without building anything; skipped grid points are listed with why."""
    from rich.markup import escape
    from rich.table import Table

    if ":" in model or model.endswith(".py"):  # builders build's --model, given to this --model
        name = model.rsplit(":", 1)[-1].removesuffix(".py").rsplit("/", 1)[-1] or "mymodel"
        raise click.BadParameter(
            f"{model!r} is a model file or factory: `builders variants --model` takes the model's name, as variant "
            f"names start with it (e.g. --model {name}; `builders build` names a build after its factory or --name)",
            param_hint="--model",
        )
    fmts = formats_of(formats)
    fmts = tuple(f for f in fmts if servable(f, serving))
    plan = grid.plan(model, fmts, precisions, serving=serving)
    table = Table(title=escape(f"{len(plan.variants)} variants ({serving} serving)"))
    table.add_column("name", no_wrap=True)
    for col in ("format", "precision", "instance group", "dynamic batching", "max_batch_size", "warmup", "ORT-TRT"):
        table.add_column(col)
    for v in plan.variants:
        db = (
            f"on, {v.max_queue_delay_us} µs" + (f", preferred {list(v.preferred_batch_sizes)}" if v.preferred_batch_sizes else "")
            if v.dynamic_batching
            else "off"
        )
        group = f"KIND_{v.kind.upper()} x{v.count}" + (f" gpus {list(v.gpus)}" if v.gpus else "")
        table.add_row(
            *(
                escape(str(x))
                for x in (
                    v.name,
                    v.format,
                    v.precision,
                    group,
                    db,
                    v.max_batch_size,
                    v.warmup or "off",
                    v.trt_accelerator or "off",
                )
            )
        )
    console = make_console(stderr=False)
    print_table(table, console)
    if not servable("trt", serving) and "trt" in formats_of(formats):
        console.print("skipped trt: the python backend cannot serve TensorRT plans (use --serving native)")
    for s in plan.skipped:
        console.print(escape(f"skipped {s.what}: {s.reason}"))
    if not plan.variants:
        raise ConfigError(
            "the variant grid is empty: every grid point was skipped (listed above)",
            hint=plan.empty_hint(),
        )
