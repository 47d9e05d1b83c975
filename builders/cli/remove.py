"""``builders remove NAME``: remove one model from a repository (its variant folders, build folder and index entries,
as ``index.json`` records them: :mod:`builders.repository.remove`; s22z, Z-12: the README's shell-glob recipe was
bash-only)."""

from __future__ import annotations

from pathlib import Path

import click

from builders.repository.missing import DEFAULT_REPOSITORY
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, verbosity_option
from core.wording import count


@click.command("remove", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("name")
@click.option(
    "-r",
    "--repository",
    type=click.Path(path_type=Path, file_okay=False),
    default=DEFAULT_REPOSITORY,
    show_default=True,
    help="The model repository the model is removed from.",
)
@click.option("--dry-run", is_flag=True, help="List what would be deleted; delete nothing.")
@verbosity_option
def remove(name: str, repository: Path, dry_run: bool) -> None:
    """Remove model NAME: its variant folders, its build folder and its index.json entries.

    NAME is the model's name (`net`, not `net_onnx_*`); only the variants index.json records as
    NAME's are removed (never another model whose name begins with it, such as net_v2), and only
    the build folder those entries name, when its manifest.json is of NAME and no other repository
    it records (each one a build of it wrote into) still lists variants built from it; a manifest
    that does not record every one since the folder's first build (written before they were, or
    rebuilt from such a one) keeps it (the line says why, and how to delete it). Names
    the runs that measured each variant removed; refuses while a run still being written measures
    one (a sweep, colocate or coldstart --into). `make clean` removes every build.
    """
    from builders.repository.remove import remove_model
    from builders.repository.validate_summary import relative

    done = remove_model(repository, name, dry_run=dry_run)
    verb = "would delete" if dry_run else "deleted"
    gone = len(done.entries) - len(done.folders)
    click.echo(
        f"{verb} {count(len(done.folders), 'variant folder')} of {name}"
        + (f": {', '.join(str(f) for f in done.folders)}" if done.folders else "")
    )
    if gone:
        click.echo(f"  ({count(gone, 'other index entry', 'other index entries')} of {name} had no folder already)")
    builds = ", ".join(relative(str(b), Path.cwd()) for b in done.builds)  # as the variant folders: from here
    click.echo(f"{verb} {count(len(done.builds), 'build folder')}" + (f": {builds}" if builds else ""))
    for line in done.kept:
        click.echo(f"kept build folder {line}")
    drop = "would drop" if dry_run else "dropped"
    click.echo(f"{drop} {count(len(done.entries), 'entry', 'entries')} of {name} from {repository}/index.json")
    for line in done.runs:
        click.echo(f"  {line}")
    if dry_run:
        click.echo(f"nothing deleted (--dry-run): run `builders remove {name} -r {repository}` to delete it")
