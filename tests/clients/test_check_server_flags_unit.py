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


def test_check_on_a_running_server_refuses_the_flags_of_one_it_would_start(tmp_path) -> None:
    """`clients check --http-url HOST:PORT --runtime bundled --http-port 8000` checked the running server and
    ignored the flags of the server it did not start; they are refused, named, before anything is sent."""
    res = CliRunner().invoke(
        clients_cli,
        ["check", "-r", str(tmp_path), "--http-url", "127.0.0.1:9", "--runtime", "bundled", "--http-port", "8000"],
        terminal_width=400,
    )
    assert res.exit_code == 2, res.output
    said = " ".join(res.output.split())  # the one rule of unread flags (core.flag_refusals.refuse_unread), s19
    assert (
        "--http-port and --runtime would be ignored: --http-url names the running server check checks; they set up the "
        "server it starts otherwise" in said
    )
    assert "drop --http-port and --runtime, or drop --http-url to have check start a server" in said
    alone = CliRunner().invoke(clients_cli, ["check", "-r", str(tmp_path), "--grpc-url", "127.0.0.1:9"])
    assert "set up a server" not in alone.output  # -r is the repository checked against, taken
    one = CliRunner().invoke(clients_cli, ["check", "-r", str(tmp_path), "--grpc-url", "127.0.0.1:9", "--log-verbose", "2"])
    assert (
        one.exit_code == 2
        and "--log-verbose would be ignored: --grpc-url names the running server check checks; it sets up"
        in (" ".join(one.output.split()))
    )


@pytest.mark.parametrize(
    ("typed", "said", "then"),
    [
        (
            ["--metrics-url", "127.0.0.1:2"],
            "--metrics-url would be ignored: --http-url names the running server check checks; it is for a server at "
            "--url, which check reaches otherwise",
            ["--url", "127.0.0.1:9", "--metrics-url", "127.0.0.1:2"],
        ),
        (
            ["--no-deploy", "--remote-repository", "/models"],
            "--no-deploy and --remote-repository would be ignored: --http-url names the running server check checks; "
            "they are for a server at --url",
            ["--url", "127.0.0.1:9", "--no-deploy", "--remote-repository", "/models"],
        ),
        (
            ["--url", "127.0.0.1:3"],
            "--url would be ignored: --http-url names the running server check checks; it is for a server at --url",
            ["--url", "127.0.0.1:3"],
        ),
        (
            ["--tag", "24.08"],
            "--tag would be ignored: --http-url names the running server check checks; it sets up the server it starts "
            "otherwise with --runtime container",
            ["--tag", "24.08", "--runtime", "container"],
        ),
        (["--log-verbose", "1"], "it sets up the server it starts otherwise", ["--log-verbose", "1"]),
    ],
    ids=["metrics-url", "remote flags", "url", "tag", "a started server's"],
)
def test_each_refusal_beside_a_running_server_says_why_and_a_command_check_takes(
    tmp_path, monkeypatch, typed: list[str], said: str, then: list[str]
) -> None:
    """Break-it F2: `clients check --http-url H --metrics-url M` said --metrics-url "sets up the server it starts",
    which it never does (it is a --url server's), and its hint (drop --http-url) was refused next: each flag is said
    with what it is for, and the hint's command is taken (its runtime resolved, nothing started here)."""
    from clients import check
    from clients.runtimes.choose import resolve_runtime

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no tritonserver or docker here: auto is the bundled server
    res = CliRunner().invoke(clients_cli, ["check", "-r", str(tmp_path), "--http-url", "127.0.0.1:9", *typed], terminal_width=400)
    out = " ".join(res.output.split())
    assert res.exit_code == 2 and said in out, out
    monkeypatch.setattr(check, "check_with_server", lambda opts, *a, **k: [resolve_runtime(opts)][:0])
    taken = CliRunner().invoke(clients_cli, ["check", "-r", str(tmp_path), *then], terminal_width=400)
    assert taken.exit_code == 0, taken.output
