"""Shared fixtures: a tiny model built once per session, and a real bundled tritonserver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from builders.build import BuildOptions, BuildResult, build
from builders.config.variants import VariantGrid

#: pytest-timeout limit (s) of a test marked ``integration`` (a real tritonserver/perf_analyzer;
#: setup included, so the shared server's start counts for the first test that uses it).
INTEGRATION_TIMEOUT_S = 300


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every ``integration`` test without its own ``timeout`` mark the integration limit
    (other tests get the ``timeout`` in pyproject's pytest options)."""
    for item in items:
        if item.get_closest_marker("integration") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(INTEGRATION_TIMEOUT_S))


@pytest.fixture(scope="session", autouse=True)
def fast_tier_guard(request: pytest.FixtureRequest):
    """In a run that deselects ``slow`` and ``integration`` (``make test-unit``), a real export or
    a pip/ruff/mypy/lint-imports run fails its test, saying to mark it ``slow``
    (tests/support/fast_tier.py), so the fast tier stays fast. Set up before the other session
    fixtures: it catches ``tiny_build`` too."""
    markexpr = request.config.getoption("markexpr") or ""
    if "not slow" not in markexpr or "not integration" not in markexpr:
        yield
        return
    import fast_tier

    with fast_tier.guard():
        yield


@pytest.fixture(scope="session", autouse=True)
def server_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Servers started without --log-file (launcher subprocesses included) log into a session
    folder, not the user's cache."""
    import os

    from clients.runtimes.options import SERVER_LOG_DIR_ENV

    folder = tmp_path_factory.mktemp("server-logs")
    old = os.environ.get(SERVER_LOG_DIR_ENV)
    os.environ[SERVER_LOG_DIR_ENV] = str(folder)
    yield folder
    if old is None:
        os.environ.pop(SERVER_LOG_DIR_ENV, None)
    else:
        os.environ[SERVER_LOG_DIR_ENV] = old


@pytest.fixture(autouse=True)
def signal_state() -> Iterator[None]:
    """Each test leaves the test process's stop handling as it found it: a command run in-process by
    ``core.cli.run_cli`` installs SIGTERM/SIGHUP handlers, marks the process a CLI's (so a later interrupted command
    sets Ctrl-C, SIGTERM and SIGHUP to ignored, which every child process then inherits) and a finalizer hook that
    sends a swallowed stop again; a later test's signals then went nowhere (tests/core/test_held_stops.py and
    test_stops.py failed in the whole suite, passed alone)."""
    import signal
    import sys

    from core import console

    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    in_cli, hook = console._IN_CLI["process"], sys.unraisablehook
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            if handler is not None:
                signal.signal(sig, handler)
        console._IN_CLI["process"], sys.unraisablehook = in_cli, hook
        console.reset_stop()


@pytest.fixture(autouse=True)
def quick_sweep_baseline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep in a test times each in-process baseline point briefly (its perf_analyzer
    windows are short too), so the baseline adds about a second to each sweep."""
    from perf.profile import baseline

    monkeypatch.setattr(baseline, "SWEEP_TIMING", baseline.TimingSettings(min_run_time_s=0.02, warmup_s=0.01))


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


@pytest.fixture
def fake_build(tmp_path: Path):
    """A factory writing a small but valid build record without exporting anything:
    ``make(spec, variant, *, rtol={}, extra={}, serving="python", value_ranges={}) -> repository path`` writes
    ``<tmp>/builds/<model>/manifest.json`` (one export of the variant's format and precision),
    ``<tmp>/repo/index.json`` and an empty ``<tmp>/repo/<variant>/config.pbtxt``."""
    from builders.model.spec import ModelSpecRecord
    from builders.repository.records import INDEX_KIND, MANIFEST_KIND, BuildManifest, ExportRecord, IndexEntry, RepositoryIndex
    from core.records import write_record

    def make(spec, variant, *, rtol=None, extra=None, serving="python", value_ranges=None) -> Path:
        build_dir = tmp_path / "builds" / variant.model
        export = ExportRecord(
            format=variant.format,
            file="model",
            precision=variant.precision,
            strategy="fake",
            export_s=0.0,
            size_bytes=0,
            sha256="0",
            extra=extra or {},
        )
        manifest = BuildManifest(
            model=variant.model,
            source=variant.model,
            created="now",
            spec=ModelSpecRecord.from_spec(spec),
            max_batch_size=variant.max_batch_size,
            rtol=rtol or {},
            value_ranges=value_ranges or {},
            exports=[export],
            variants=[variant.name],
        )
        write_record(build_dir / "manifest.json", MANIFEST_KIND, manifest)
        repo = tmp_path / "repo"
        (repo / variant.name).mkdir(parents=True, exist_ok=True)
        (repo / variant.name / "config.pbtxt").write_text("")
        write_record(repo / "index.json", INDEX_KIND, RepositoryIndex(variants=[IndexEntry.of(variant, serving, str(build_dir))]))
        return repo

    return make
