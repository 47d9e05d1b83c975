"""Flags `clients infer` and `clients check` accepted and passed over without a word (issue 26, K1): each is refused,
exit 2, naming the flag, why it would be ignored and what to do, before any request is sent; a flag the run reads,
and a default, are not."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from clients.cli.main import cli

CLOSED = "127.0.0.1:9"  # nothing listens: a refusal must come before the server is asked anything


def _infer(*args: str):
    return CliRunner().invoke(cli, ["infer", "m", *args], terminal_width=400)


@pytest.fixture
def inputs(tmp_path):
    path = tmp_path / "in.npz"
    np.savez(path, x=np.zeros((1, 4), np.float32))
    return str(path)


def test_infer_seed_with_input_data_is_refused(inputs) -> None:
    """`--seed 5 --input-data FILE` sent the file's values: only generated inputs are seeded."""
    res = _infer("--url", CLOSED, "--input-data", inputs, "--seed", "5")
    assert res.exit_code == 2, res.output
    assert f"--seed would be ignored: --input-data {inputs} gives the inputs; only generated inputs are seeded" in res.output
    assert "drop --seed, or drop --input-data" in res.output


def test_infer_shape_with_input_data_is_refused_by_the_rule(inputs) -> None:
    """`--shape x:4 --input-data FILE` was refused by its own usage error (no hint line, not named with the other
    flags --input-data makes unread); the one rule now (s19)."""
    res = _infer("--url", CLOSED, "--input-data", inputs, "--shape", "x:4", "--seed", "5")
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said
    assert f"--shape would be ignored: --input-data {inputs} gives the inputs themselves; --shape sizes generated ones" in said
    assert "drop --shape, or drop --input-data to send generated inputs of that size" in said and "--seed would be" in said


def test_infer_protocol_other_than_the_url_scheme_is_refused() -> None:
    """`--url http://HOST:PORT --protocol grpc` sent over HTTP: the scheme replaced --protocol without a word."""
    res = _infer("--url", f"http://{CLOSED}", "--protocol", "grpc")
    assert res.exit_code == 2, res.output
    assert "--protocol would be ignored: --url http://... sets the protocol (http), not --protocol grpc" in res.output
    same = _infer("--url", f"grpc://{CLOSED}", "--protocol", "grpc")  # the same protocol twice: read
    assert "would be ignored" not in same.output


def test_infer_no_cast_with_generated_inputs_is_refused(inputs) -> None:
    """Generated inputs have the model's dtypes: --no-cast holds nothing to them."""
    res = _infer("--url", CLOSED, "--no-cast")
    assert res.exit_code == 2, res.output
    assert "--no-cast would be ignored: generated inputs have the model's own dtypes" in res.output
    read = _infer("--url", CLOSED, "--no-cast", "--input-data", inputs)
    assert "would be ignored" not in read.output


def test_infer_concurrency_above_requests_is_refused() -> None:
    """`--concurrency 4` with one request had at most one in flight (said only for more than one request)."""
    res = _infer("--url", CLOSED, "--concurrency", "4")
    assert res.exit_code == 2, res.output
    assert "--concurrency would be ignored: --requests 1 puts at most 1 in flight, not 4" in res.output
    read = _infer("--url", CLOSED, "--concurrency", "4", "--requests", "8")
    assert "would be ignored" not in read.output


def test_infer_flags_ignored_for_one_reason_are_named_together(inputs) -> None:
    res = _infer("--url", f"http://{CLOSED}", "--protocol", "grpc", "--seed", "1", "--input-data", inputs)
    assert res.exit_code == 2, res.output
    assert "--protocol would be ignored" in res.output and "; --seed would be ignored" in res.output


@pytest.mark.parametrize(
    ("protocol", "unread", "read"), [("http", "--grpc-url", "--http-url"), ("grpc", "--http-url", "--grpc-url")]
)
def test_check_url_of_a_protocol_not_checked_is_refused(tmp_path, protocol, unread, read) -> None:
    """`clients check --protocol http --http-url A --grpc-url B` checked A over HTTP only; B was never asked."""
    args = ["check", "-r", str(tmp_path), "--protocol", protocol, "--http-url", CLOSED, "--grpc-url", "127.0.0.1:10"]
    res = CliRunner().invoke(cli, args, terminal_width=400)
    assert res.exit_code == 2, res.output
    assert f"{unread} would be ignored: --protocol {protocol} checks over {protocol} only, at {read}" in res.output
    alone = CliRunner().invoke(cli, ["check", "-r", str(tmp_path), "--protocol", protocol, unread, CLOSED])
    assert "would be ignored" not in alone.output  # alone, the checked protocol's endpoint is derived from it
