"""Pieces every CLI shares: error handling, logging set-up, list parsing."""

from __future__ import annotations

import functools
import logging
import sys
from typing import Any, Callable

import click

from core.errors import ToolkitError


def run_cli(group: click.Group) -> None:
    """Run a click group; a :class:`ToolkitError` becomes one message and exit code 1."""
    try:
        code = group.main(standalone_mode=False)
        if isinstance(code, int) and code:  # ctx.exit(N) returns N when standalone_mode is off
            sys.exit(code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except ToolkitError as e:
        click.secho(f"error ({e.stage}): {e}", fg="red", err=True)
        sys.exit(1)


def verbosity_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``-v/--verbose`` (repeatable) configures logging for the library code."""

    @click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
    @functools.wraps(fn)
    def wrapper(*args: Any, verbose: int = 0, **kwargs: Any) -> Any:
        level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
        from rich.logging import RichHandler

        logging.basicConfig(level=level, format="%(message)s", handlers=[RichHandler(show_path=False)], force=True)
        return fn(*args, **kwargs)

    return wrapper


def int_list(text: str, what: str) -> tuple[int, ...]:
    """Parse ``"1,2,4"`` into ``(1, 2, 4)``.

    Raises:
        click.BadParameter: a part is not an integer.
    """
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{what}: expected comma-separated integers such as 1,2,4, got {text!r}") from None
