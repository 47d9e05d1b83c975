"""The run folder a command reads (``report``, ``compare``, ``export-deployment``, ``baseline``,
``coldstart --into``): :class:`RunFolder` takes the folder (``results/t7a``) or the bare run id of
one under the default results folder (``t7a``), and refuses anything else naming where runs live
and the newest ones there; :func:`extra_argument_hint` is what ``perf/run_sweep.sh RUN`` (a run
folder given to the sweep, which takes options only) hears instead of click's bare "Got
unexpected extra argument".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from builders.repository.records import INDEX_FILE
from core.cli import ToolkitCommand
from perf.records.results import RESULTS_FILE
from perf.records.unfinished import resume_command

#: Where a sweep writes its run folders unless ``--results-dir`` says otherwise (the sweep's default).
DEFAULT_RESULTS_DIR = Path("results")
#: Run ids a refusal lists (the newest first).
LISTED = 5


def runs_in(results_dir: Path) -> list[str]:
    """The run folders (with a ``results.json``) in ``results_dir``, newest first."""
    if not results_dir.is_dir():
        return []
    runs = [d for d in results_dir.iterdir() if (d / RESULTS_FILE).is_file()]
    return [d.name for d in sorted(runs, key=lambda d: d.stat().st_mtime, reverse=True)]


def unsaved_in(results_dir: Path) -> list[str]:
    """The folders in ``results_dir`` without a ``results.json`` yet (a run being started, or whose start failed)."""
    if not results_dir.is_dir():
        return []
    return sorted(d.name for d in results_dir.iterdir() if d.is_dir() and not (d / RESULTS_FILE).is_file())


def where_runs_live(results_dir: Path = DEFAULT_RESULTS_DIR) -> str:
    """``"a run folder is results/<run-id> (newest there: t7b, t7a)"``, or what is true of ``results_dir`` when no run is
    there: none, from which directory, and the folders there that are not runs yet (trial 23, T23-2: "no run in
    results/ here" while results/ held a finished run and one just started)."""
    runs = runs_in(results_dir)
    if runs:
        there = f"newest there: {', '.join(runs[:LISTED])}"
    elif not results_dir.is_dir():
        there = f"no folder {results_dir}/ in {Path.cwd()}: a relative path is from the current directory"
    else:
        unsaved = unsaved_in(results_dir)
        there = f"no run with a {RESULTS_FILE} in {(Path.cwd() / results_dir)}/" + (
            f"; {', '.join(unsaved[:LISTED])}: no {RESULTS_FILE} yet (a run being started, or whose start failed)"
            if unsaved
            else ""
        )
    return f"a run folder is {results_dir}/<run-id>, or the run id alone for one in {results_dir}/ ({there})"


class RunFolder(click.ParamType):
    """A run folder argument: an existing folder, or the id of a run in :data:`DEFAULT_RESULTS_DIR`.

    Args:
        also: What else the argument may be, for the refusal (``"or a model repository"``).
    """

    name = "run_folder"

    def __init__(self, also: str = "") -> None:
        self.also = also

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        """The folder ``value`` names.

        Raises:
            click.BadParameter: neither a folder nor a run id under the default results folder.
        """
        if not str(value).strip():  # Path("") is ".": never a run given by accident
            self.fail(f"an empty run folder: {where_runs_live()}", param, ctx)
        path = Path(value)
        places = [path] + ([DEFAULT_RESULTS_DIR / path] if not path.is_absolute() else [])
        # a run's folder (it holds results.json) first: a run id never resolves to a local folder of that name
        found = next((d for d in places if (d / RESULTS_FILE).is_file()), None) or next((d for d in places if d.is_dir()), None)
        if found is not None and not (found / RESULTS_FILE).is_file() and (found.parent / RESULTS_FILE).is_file():
            self.fail(  # a what-if report's folder (report RUN --latency-budget-ms N writes it): re-check 20, NEW-6
                f"{str(value)!r} is a folder inside run {found.parent} (a what-if report's, which holds no "
                f"{RESULTS_FILE}), not a run folder: pass {found.parent}, with --latency-budget-ms for another budget",
                param,
                ctx,
            )
        if found is not None and not (found / RESULTS_FILE).is_file() and (runs := runs_in(found)):
            self.fail(  # the results folder itself (T25-26: said "writing the report ..." then "no results.json", exit 1)
                f"{str(value)!r} is a folder of runs, not a run: pass one of them, e.g. {found / runs[0]} "
                f"(newest there: {', '.join(runs[:LISTED])})",
                param,
                ctx,
            )
        if found is not None:
            return found
        what = "a file, not a folder" if path.exists() else "not a folder here"
        self.fail(f"{str(value)!r} is {what}: {where_runs_live()}{(' ' + self.also) if self.also else ''}", param, ctx)


def run_named(given: str, results_dir: Path, flag: str = "--resume") -> tuple[Path, str]:
    """The results folder and run id of the run ``given`` names where a command takes a run id (``--resume``): a
    bare run id in ``results_dir``, or a run folder's path (``results/rc19b``, ``/abs/results/rc19b``), as
    ``report`` takes it (re-check 19: ``--resume results/rc19b`` was refused, "there is no run 'results/rc19b'").

    Raises:
        click.BadParameter: a folder's path whose parent is not ``results_dir`` when ``--results-dir`` was typed
            (its default value too: re-check 20, NEW-5, `--resume /elsewhere/t20a --results-dir results` resumed the
            run in the other folder and rewrote its report) or is not the default.
    """
    path = Path(given)
    if not path.name or (len(path.parts) == 1 and not path.is_absolute()):  # "rc19b" (or nothing to resolve)
        return results_dir, given
    parent = path.parent
    ctx = click.get_current_context(silent=True)
    source = ctx.get_parameter_source("results_dir") if ctx is not None else None
    typed = source is not None and source is not click.core.ParameterSource.DEFAULT  # `--results-dir results` typed too
    if (typed or Path(results_dir) != DEFAULT_RESULTS_DIR) and Path(results_dir).resolve() != parent.resolve():
        raise click.BadParameter(
            f"{given} is a run folder in {parent}, but --results-dir names {results_dir}: pass the run id with "
            f"--results-dir, or the folder alone",
            param_hint=flag,
        )
    return parent, path.name


def extra_argument_hint(args: list[str]) -> str | None:
    """What a positional argument given to the sweep (which takes options only) was meant for:
    a run folder -> the ``--resume`` command; a model repository -> ``--repository``; None otherwise."""
    for a in args:
        path = Path(a)
        if (path / RESULTS_FILE).is_file() or (DEFAULT_RESULTS_DIR / path / RESULTS_FILE).is_file():
            folder = (path if (path / RESULTS_FILE).is_file() else DEFAULT_RESULTS_DIR / path).resolve()  # "." has no name
            return f"{a} is a run folder; to continue that run: {resume_command(folder.name, folder.parent)}"
        if (path / INDEX_FILE).is_file() or (path.is_dir() and any(path.glob("*/config.pbtxt"))):
            return f"{a} is a model repository; to sweep it: --repository {a}"
    return None


class OptionsOnlyCommand(ToolkitCommand):
    """A command that takes options only (the sweep): a positional argument is refused saying what
    it looks meant for (:func:`extra_argument_hint`), not with click's bare "Got unexpected extra argument"."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse ``args``, refusing positional arguments with a hint.

        Raises:
            click.UsageError: a positional argument was given.
        """
        if not ctx.resilient_parsing:
            try:
                _, extra, _ = self.make_parser(ctx).parse_args(args=list(args))
            except click.UsageError:
                extra = []  # click reports it with its own message when it parses for real
            if extra:
                hint = extra_argument_hint(extra)
                raise click.UsageError(
                    f"got unexpected extra argument{'s' if len(extra) > 1 else ''} ({' '.join(extra)}): "
                    f"{ctx.command_path} takes options only" + (f"; {hint}" if hint else ""),
                    ctx,
                )
        return super().parse_args(ctx, args)
