"""``builders prune``: drop the repository index's entries whose variant folder is gone (trial 26, T26-9: a model
removed by hand, ``rm -rf model_repository/bb_* builds/bb``, stayed listed in ``index.json``)."""

from __future__ import annotations

from pathlib import Path

import click

from builders.repository.missing import DEFAULT_REPOSITORY, repository_not_found
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, verbosity_option


@click.command("prune", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.option(
    "-r",
    "--repository",
    type=click.Path(path_type=Path, file_okay=False),
    default=DEFAULT_REPOSITORY,
    show_default=True,
    help="The model repository whose index.json is pruned.",
)
@verbosity_option
def prune(repository: Path) -> None:
    """Drop the entries of the repository's index.json whose variant folder is gone (removed by hand).

    Deletes no file. To remove one model, run `builders remove NAME` (its variant folders, build
    folder and index entries). `builders validate` names the entries this would drop; every
    build drops them too.
    """
    from builders.repository.records import INDEX_FILE
    from builders.repository.writer import dropped_lines, prune_index

    if not repository.is_dir():
        raise repository_not_found(repository)
    if not (repository / INDEX_FILE).is_file():  # not "index.json lists no variant ..." (s22z, Z-17)
        click.echo(f"{repository} holds no {INDEX_FILE} (no `builders build` wrote into it): nothing to drop")
        return
    gone = prune_index(repository)
    if not gone:
        click.echo(f"{repository}/{INDEX_FILE} lists no variant whose folder is gone: nothing to drop")
        return
    for line in dropped_lines(repository, gone):  # with the runs that measured them (trial 27, T27-13)
        click.echo(line)
