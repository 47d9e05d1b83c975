"""The bundled server serves every variant of a tiny build and the outputs match PyTorch."""

from __future__ import annotations

import pytest

from builders.repository.view import Repository
from clients.check import check_variant

pytestmark = pytest.mark.integration


def test_every_tiny_variant_loads_and_matches_pytorch(bundled_server, tiny_build, tiny_repo):
    for name in tiny_build.manifest["variants"]:
        bundled_server.load(name)
        try:
            for protocol, url in (("http", bundled_server.http_url), ("grpc", bundled_server.grpc_url)):
                result = check_variant(url, protocol, Repository(tiny_repo).variant(name))
                assert result.passed, (name, protocol, result)
        finally:
            bundled_server.unload(name)
