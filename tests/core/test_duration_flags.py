"""Every duration flag reads its unit typed or not, one rule (trial 30, F15: ``--round-window 300ms`` was
refused as "not a valid integer range" while ``--latency-budget-ms 50ms`` was accepted): ``300`` and
``300ms`` alike, another time unit refused saying what it is in the flag's (:class:`core.units.Duration`)."""

from __future__ import annotations

import click
import pytest

from clients.cli.main import cli as clients_cli
from perf.cli.main import cli as perf_cli

#: (command, flag, its parameter, as typed, as read).
READ = [
    (perf_cli, ["sweep"], "--round-window", "round_window_ms", "300ms", 300),
    (perf_cli, ["sweep"], "--round-window", "round_window_ms", "300", 300),
    (perf_cli, ["sweep"], "--measurement-interval", "measure_measurement_interval_ms", "1500 ms", 1500),
    (perf_cli, ["sweep"], "--latency-budget-ms", "latency_budget_ms", "50ms", 50.0),
    (perf_cli, ["colocate"], "--round-window", "window_ms", "250ms", 250),
    (clients_cli, ["serve"], "--start-timeout", "start_timeout_s", "90s", 90.0),
    (clients_cli, ["serve"], "--metrics-interval-ms", "metrics_interval_ms", "250ms", 250),
]


def _context(group: click.Group, path: list[str], args: list[str]) -> click.Context:
    ctx = click.Context(group)
    cmd = group
    for name in path:
        cmd = cmd.commands[name]  # type: ignore[attr-defined]
    return cmd.make_context(path[-1], args, parent=ctx)


@pytest.mark.parametrize(("group", "path", "flag", "param", "typed", "read"), READ, ids=[f"{r[2]} {r[4]}" for r in READ])
def test_a_duration_is_read_with_or_without_its_unit(group, path, flag, param, typed, read) -> None:
    params = _context(group, path, [flag, typed]).params
    found = next(v for k, v in params.items() if k.endswith(param) or k == param)
    assert found == read and type(found) is type(read)


@pytest.mark.parametrize(
    ("group", "path", "flag", "typed", "said"),
    [
        (
            perf_cli,
            ["sweep"],
            "--round-window",
            "0.3s",
            "--round-window '0.3s' is in s: it is given in milliseconds (write 300 or 300ms)",
        ),
        (perf_cli, ["sweep"], "--round-window", "20ms", "--round-window '20ms' is outside 50.. milliseconds"),
        (perf_cli, ["sweep"], "--round-window", "300.5", "is not a whole number of milliseconds"),
        (
            clients_cli,
            ["serve"],
            "--start-timeout",
            "2m",
            "--start-timeout '2m' is in m: it is given in seconds (write 120 or 120s)",
        ),
    ],
)
def test_another_unit_or_a_value_out_of_range_is_a_usage_error(group, path, flag, typed, said) -> None:
    with pytest.raises(click.BadParameter) as e:
        _context(group, path, [flag, typed])
    assert said in e.value.format_message()
