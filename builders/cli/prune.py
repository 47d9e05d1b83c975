"""``builders prune``: drop the repository index's entries whose variant folder is gone (trial 26, T26-9: a model
removed by hand, ``rm -rf model_repository/bb_* builds/bb``, stayed listed in ``index.json``)."""

from __future__ import annotations

from pathlib import Path

import click

from builders.repository.missing import DEFAULT_REPOSITORY, repository_not_found
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, verbosity_option
from core.wording import count


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

    Deletes no file: to remove one model, delete its variant folders and its build folder first
    (rm -rf model_repository/NAME_{ts,onnx,trt}[_-]* builds/NAME; not NAME_*, which matches
    NAME_v2_* too), then run this. `builders validate` names the entries it would drop; every
    build drops them too.
    """
    from builders.repository.measured_runs import measured_words, measuring_runs, removed_words
    from builders.repository.writer import prune_index

    if not repository.is_dir():
        raise repository_not_found(repository)
    gone = prune_index(repository)
    if not gone:
        click.echo(f"{repository}/index.json lists no variant whose folder is gone: nothing to drop")
        return
    click.echo(f"dropped from {repository}/index.json ({count(len(gone), 'variant')} whose folder is gone): {', '.join(gone)}")
    # the runs that measured them, as make clean names them (trial 27, T27-13: prune said none)
    runs = measuring_runs(repository, gone)
    for name in (n for n in gone if n in runs):
        click.echo(f"  {name}: {removed_words(repository, runs[name])}")
    rest = sum(1 for n in gone if n not in runs)
    if rest:
        click.echo("  " + measured_words(repository, [], "them" if rest == len(gone) else f"the other {count(rest, 'variant')}"))
