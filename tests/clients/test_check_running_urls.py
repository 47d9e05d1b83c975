"""``clients check --http-url HOST:PORT`` alone (the README's example) checks over both
protocols: gRPC follows Triton's layout (HTTP port + 1), said in a line, as ``--help`` says
(new-user trial: it stopped with "--protocol both needs --grpc-url")."""

from __future__ import annotations

from click.testing import CliRunner

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from clients.check import running_urls
from clients.cli.main import cli
from clients.runtimes.host import HeldPorts
from core.errors import ClientError


def test_the_missing_endpoint_follows_triton_s_layout_and_is_said():
    urls = running_urls("localhost:18000", None, ("http", "grpc"))
    assert urls.urls == {"http": "localhost:18000", "grpc": "localhost:18001"}
    assert urls.derived[0].startswith("grpc endpoint: localhost:18001 (--http-url's port + 1, Triton's default layout")
    urls = running_urls(None, "10.0.0.5:9001", ("http", "grpc"))
    assert urls.urls == {"http": "10.0.0.5:9000", "grpc": "10.0.0.5:9001"} and "--grpc-url's port - 1" in urls.derived[0]
    assert running_urls("a:1", "b:2", ("http", "grpc")).derived == ()
    assert running_urls("a:1", None, ("http",)) == running_urls("a:1", None, ("http",))
    assert running_urls("a:1", None, ("http",)).urls == {"http": "a:1"}


def test_the_readme_s_http_url_example_runs_as_its_help_says(fake_build):
    repo = fake_build(ModelSpec.from_flags(["x:float32:4"], ["y"]), Variant("m", "onnx", max_batch_size=8))
    help_text = " ".join(CliRunner().invoke(cli, ["check", "--help"]).output.split())
    assert "with --protocol both and no --grpc-url, gRPC is its port + 1 (Triton's layout" in help_text
    held = HeldPorts([0])  # held, never listening: refused while the test runs, whatever else starts
    port = held.ports[0]  # nothing listens: the command gets as far as asking the derived endpoint
    res = CliRunner().invoke(cli, ["check", "-r", str(repo), "--http-url", f"localhost:{port}"])
    text = " ".join(res.output.split())
    assert f"grpc endpoint: localhost:{port + 1} (--http-url's port + 1, Triton's default layout" in text
    assert isinstance(res.exception, ClientError) and "no Triton server answers at localhost" in res.exception.message
    assert "needs --grpc-url" not in text
