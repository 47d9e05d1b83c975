"""A command that loads the variants itself, on a server it starts in explicit model control, offers
no flag for what it sets (issue 26: `clients check --load-model X` was shown in its help and ignored:
check_with_server replaced it with nothing loaded, as the sweep, colocate and coldstart omit it)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from clients.cli.main import cli as clients_cli
from perf.cli.main import cli as perf_cli


@pytest.mark.parametrize(
    ("cli", "command"),
    [(clients_cli, "check"), (perf_cli, "sweep"), (perf_cli, "colocate"), (perf_cli, "coldstart")],
    ids=["clients check", "sweep", "colocate", "coldstart"],
)
def test_a_command_that_loads_each_variant_itself_offers_no_load_model_or_model_control(cli, command) -> None:
    helped = CliRunner().invoke(cli, [command, "--help"], terminal_width=200)
    assert helped.exit_code == 0, helped.output
    assert "--load-model" not in helped.output and "--model-control" not in helped.output
    refused = CliRunner().invoke(cli, [command, "--load-model", "mlp_*"])
    assert refused.exit_code == 2 and "No such option '--load-model'" in refused.output
