"""Check every variant of a repository against its PyTorch reference on a real server.

Either a server started here (explicit model control, nothing loaded at start; each variant
is loaded, checked over the asked protocols and unloaded in turn, so that variants do not
compete), or a running server given by URL (a variant that is not ready there is loaded
through the repository API and unloaded afterwards; one that cannot be loaded fails).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from builders.repository.view import Repository, RepositoryVariant
from clients.infer import CheckResult, check_variant
from clients.server import ServerOptions, TritonServer, unload_and_wait
from core.errors import ServerError, ToolkitError

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


def repository_variants(repository: Path, only: Sequence[str] = ()) -> list[RepositoryVariant]:
    """The variants of ``repository`` to check (:meth:`builders.repository.view.Repository.variants`).

    ``only`` holds names or shell patterns (``mlp_*``); empty = every variant in the index.

    Raises:
        RepositoryError: no index (not a toolkit repository), or a name in ``only`` is not listed.
        RecordError: the index or a build manifest cannot be read.
    """
    return Repository(repository).variants(only)


def _check_one(variant: RepositoryVariant, urls: dict[str, str]) -> list[CheckResult]:
    if variant.build_dir is None:
        return [CheckResult(variant.name, p, False, [], "the index names no build folder (no reference data)") for p in urls]
    return [check_variant(url, protocol, variant) for protocol, url in urls.items()]


def check_with_server(
    server_opts: ServerOptions,
    protocols: Sequence[str] = ("http", "grpc"),
    only: Sequence[str] = (),
    progress: Progress | None = None,
) -> list[CheckResult]:
    """Start a server on ``server_opts`` (forced to explicit model control, nothing loaded at
    start) and check each variant of its repository in turn.

    Returns:
        One :class:`CheckResult` per variant and protocol; a variant that fails to load gets
        a failed result carrying Triton's reason, and the next one is checked.

    Raises:
        ServerError: the server does not start.
        RepositoryError: the repository lists no variants.
    """
    import dataclasses

    say = progress or (lambda _m: None)
    variants = repository_variants(server_opts.repository, only)
    opts = dataclasses.replace(server_opts, model_control="explicit", load_models=())
    results: list[CheckResult] = []
    with TritonServer(opts) as srv:
        say(f"server ready ({srv.runtime}): http {srv.http_url}, grpc {srv.grpc_url}")
        urls = {"http": srv.http_url, "grpc": srv.grpc_url}
        urls = {p: urls[p] for p in protocols}
        for v in variants:
            say(f"{v.name}: loading")
            try:
                srv.load(v.name)  # waits at most the launcher's --start-timeout
            except ServerError as e:
                say(f"{v.name}: load failed: {e.message}" + (f"\n  -> {e.hint}" if e.hint else ""))
                results += [CheckResult(v.name, p, False, [], f"load failed: {e.message}") for p in urls]
                continue
            try:
                results += _check_one(v, urls)
            finally:
                srv.unload(v.name)
    return results


def check_running(
    repository: Path, urls: dict[str, str], only: Sequence[str] = (), progress: Progress | None = None
) -> list[CheckResult]:
    """Check each variant of ``repository`` on a running server.

    Args:
        repository: Local repository whose ``index.json`` lists variants and their builds
            (the server may serve a copy of it).
        urls: Protocol -> ``host:port`` (``{"http": "localhost:8000", "grpc": ...}``).
        only: Variant names to check (default all).
        progress: Called with one line per step (a variant not ready is loaded); ``None``: silent.

    Raises:
        ClientError: no server answers.
        RepositoryError: the repository lists no variants.
    """
    from clients.infer import _connect, make_client

    say = progress or (lambda _m: None)
    variants = repository_variants(repository, only)
    proto, url = next(iter(urls.items()))
    results: list[CheckResult] = []
    with contextlib.closing(make_client(url, proto)) as client:
        _connect(client, url, proto)
        for v in variants:
            name = v.name
            loaded_here = False
            if not client.is_model_ready(name):
                say(f"{name}: not ready, asking the server to load it")
                try:
                    client.load_model(name)
                    loaded_here = True
                except Exception as e:  # noqa: BLE001 - any refusal is that variant's failure
                    msg = e.message() if hasattr(e, "message") and callable(e.message) else str(e)
                    results += [CheckResult(name, p, False, [], f"not ready and could not be loaded: {msg}") for p in urls]
                    continue
            try:
                results += _check_one(v, urls)
            finally:
                if loaded_here:
                    with contextlib.suppress(ToolkitError, Exception):
                        unload_and_wait(client, name)
    return results
