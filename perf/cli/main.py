"""``triton-perf``: concurrency sweeps with perf_analyzer, reports and comparisons.

One module per command (or family) in this package: :mod:`perf.cli.sweep`,
:mod:`perf.cli.report` (report, compare), :mod:`perf.cli.baseline`, :mod:`perf.cli.coldstart`,
:mod:`perf.cli.deploy`, :mod:`perf.cli.colocate`; this one makes the group (``triton-perf``, ``python -m perf``,
``python -m perf.cli.main``).
"""

from __future__ import annotations

from builders.serving.torch_env import apply_torch_cpu_env
from core.cli import group, run_cli
from perf.cli.baseline import baseline
from perf.cli.coldstart import coldstart
from perf.cli.colocate import colocate
from perf.cli.deploy import export_deployment
from perf.cli.report import compare, report
from perf.cli.sweep import sweep

__all__ = ["cli", "main", "sweep_script"]


@group()
def cli() -> None:
    """Sweep request concurrency over Triton config variants and compare them."""


for command in (sweep, report, compare, export_deployment, baseline, coldstart, colocate):
    cli.add_command(command)


def main() -> None:
    """Entry point of ``triton-perf`` (and ``python -m perf``, ``python -m perf.cli.main``, which ``make demo``
    runs): usage lines name ``triton-perf``, the command a user types, never the module. torch is given the served
    model's OpenMP wait policy before anything imports it (:mod:`builders.serving.torch_env`): the in-process baseline
    times what the server runs."""
    apply_torch_cpu_env()
    run_cli(cli, prog_name="triton-perf")


def sweep_script() -> None:
    """Entry point of ``perf/run_sweep.sh``: the sweep command alone, its usage lines named for the script."""
    apply_torch_cpu_env()
    run_cli(sweep, prog_name="perf/run_sweep.sh")


if __name__ == "__main__":
    main()
