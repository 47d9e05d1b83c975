"""Shared fixtures: a tiny model built once per session, and a real bundled tritonserver."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.build import BuildOptions, BuildResult, build
from builders.variants import VariantGrid

#: pytest-timeout limit (s) of a test marked ``integration`` (a real tritonserver/perf_analyzer;
#: setup included, so the shared server's start counts for the first test that uses it).
INTEGRATION_TIMEOUT_S = 300


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every ``integration`` test without its own ``timeout`` mark the integration limit
    (other tests get the ``timeout`` in pyproject's pytest options)."""
    for item in items:
        if item.get_closest_marker("integration") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(INTEGRATION_TIMEOUT_S))


@pytest.fixture(scope="session")
def tiny_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """``tiny`` (16->32->8 MLP) exported to TorchScript and ONNX; 8 python-serving variants
    (KIND_CPU x1/x2, dynamic batching off/500 µs, max_batch_size 8).

    Read-only for tests: copy before changing anything.
    """
    root = tmp_path_factory.mktemp("tiny")
    opts = BuildOptions(
        "tiny",
        grid=VariantGrid(counts=(1, 2), queue_delays_us=(None, 500), max_batch_sizes=(8,)),
        repository=root / "model_repository",
        build_dir=root / "builds",
    )
    return build(opts)


@pytest.fixture(scope="session")
def tiny_repo(tiny_build: BuildResult) -> Path:
    return Path(tiny_build.manifest["repository"])


@pytest.fixture(scope="session")
def tiny_build_dir(tiny_build: BuildResult) -> Path:
    return tiny_build.manifest_path.parent


@pytest.fixture(scope="session")
def bundled_server(tiny_repo: Path, tmp_path_factory: pytest.TempPathFactory):
    """A real bundled tritonserver on free ports over ``tiny_repo`` (explicit model control,
    nothing loaded). Shared by the session: tests load and unload their own variants."""
    from clients.server import ServerOptions, TritonServer

    log = tmp_path_factory.mktemp("server") / "tritonserver.log"
    with TritonServer(ServerOptions(tiny_repo, runtime="bundled", log_file=log, start_timeout_s=120)) as srv:
        yield srv
