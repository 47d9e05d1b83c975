"""``make demo``'s ``DEMO_*`` settings checked before its first step (trial 12, F18: ``DEMO_TIME_BUDGET=2min``
was refused only at step 3, after the build and the served check, and the error named ``--time-budget``,
which make demo cannot be given).

Each value is parsed by the flag it becomes (``triton-perf sweep``'s own parameters, so no second parser)
and a refusal names the variable: ``make demo: DEMO_TIME_BUDGET=2min: time budget '2min' is not a duration``.
``scripts/demo.sh`` runs it once, with its list of ``VARIABLE --flag VALUE`` triples::

    python -m perf.cli.demo_settings DEMO_TIME_BUDGET --time-budget 2min DEMO_BUDGET_MS --latency-budget-ms 25
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from core.names import file_problem


def problems(knobs: Sequence[tuple[str, str, str]], spec: str | None = None) -> list[str]:
    """What is wrong with each setting, in words that name its variable; empty when every one parses.

    Args:
        knobs: ``(variable, flag, value)`` per setting the demo passes to ``triton-perf sweep``.
        spec: ``DEMO_SPEC``'s value (a file ``builders build --spec`` reads), when set.
    """
    from perf.cli.main import cli

    sweep = cli.commands["sweep"]
    out = []
    for var, flag, value in knobs:
        try:
            sweep.make_context("sweep", [flag, value])
        except click.UsageError as e:
            words = e.message.replace(f"'{flag}'", var).replace(flag, var)
            out.append(f"{var}={value}: {words}")
    if spec and (problem := file_problem(Path(spec), "DEMO_SPEC", "*.json")):
        out.append(f"{problem[0]}  -> {problem[1]}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Check ``VARIABLE --flag VALUE`` triples (and ``DEMO_SPEC`` from the environment): each problem one
    ``make demo:`` line on stderr, exit 2 (a usage error) when there is one, else 0 silently."""
    import os

    args = list(sys.argv[1:] if argv is None else argv)
    knobs = [(args[i], args[i + 1], args[i + 2]) for i in range(0, len(args) - 2, 3)]
    found = problems(knobs, os.environ.get("DEMO_SPEC") or None)
    for line in found:
        click.echo(f"make demo: {line}", err=True)
    if found:
        click.echo("make demo: nothing was built or started; set the variable(s) above and run it again", err=True)
    return 2 if found else 0


if __name__ == "__main__":
    sys.exit(main())
