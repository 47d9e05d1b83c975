"""Check every variant of a repository against its PyTorch reference on a real server.

Either a server started here (explicit model control, nothing loaded at start; each variant
is loaded, checked over the asked protocols and unloaded in turn, so that variants do not
compete), or a running server given by URL (a variant that is not ready there is loaded
through the repository API and unloaded afterwards; one that cannot be loaded fails).
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
from pathlib import Path
from typing import Callable, Sequence

from core.errors import ClientError, ServerError, ToolkitError
from clients.infer import CheckResult, check_variant
from clients.server import ServerOptions, TritonServer, unload_and_wait

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


def repository_variants(repository: Path, only: Sequence[str] = ()) -> list[tuple[str, Path | None, float]]:
    """``(variant, build folder or None, rtol)`` for each variant in ``<repository>/index.json``.

    ``only`` holds names or shell patterns (``mlp_*``); empty = every variant.

    The tolerance is :attr:`core.precision.Precision.rtol` for the variant's precision
    (fp32 1e-4, fp16/bf16 1e-2).

    Raises:
        ClientError: no index (not a toolkit repository), or a name in ``only`` is not listed.
    """
    from builders.repository import INDEX_FILE, read_index
    from core import precision as precisions

    index = read_index(Path(repository))
    if not index:
        raise ClientError(f"{repository} has no {INDEX_FILE} listing its variants",
                          hint="build one with `builders build`, or pass the repository that build wrote")
    names: list[str] = []
    missing = []
    for pattern in only:
        hits = fnmatch.filter(sorted(index), pattern)
        missing += [] if hits else [pattern]
        names += [h for h in hits if h not in names]
    if missing:
        raise ClientError(f"no variant in {repository}/{INDEX_FILE} matches {missing}", hint=f"known: {', '.join(sorted(index))}")
    names = names or sorted(index)
    return [(n, Path(index[n]["build"]) if index[n].get("build") else None,
             precisions.get(index[n].get("precision", "fp32")).rtol) for n in names]


def served_names(repository: Path, variant: str) -> dict[str, dict[str, str]] | None:
    """Tensor names the server uses for ``variant`` when they differ from the reference's:
    TorchScript variants with native serving are served under the names Triton's PyTorch backend
    expects, recorded in the build manifest as ``exports[].extra.triton_names``."""
    import json

    from builders.repository import read_index

    entry = read_index(Path(repository)).get(variant) or {}
    if entry.get("serving") != "native" or entry.get("format") != "torchscript" or not entry.get("build"):
        return None
    try:
        manifest = json.loads((Path(entry["build"]) / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    for export in manifest.get("exports", []):
        if export.get("format") == "torchscript" and export.get("precision") == entry.get("precision", "fp32"):
            return (export.get("extra") or {}).get("triton_names")
    return None


def _check_one(repository: Path, name: str, build: Path | None, rtol: float, urls: dict[str, str]) -> list[CheckResult]:
    if build is None:
        return [CheckResult(name, p, False, [], "the index names no build folder (no reference data)") for p in urls]
    names = served_names(repository, name)
    return [check_variant(url, protocol, name, build, rtol, names) for protocol, url in urls.items()]


def check_with_server(server_opts: ServerOptions, protocols: Sequence[str] = ("http", "grpc"), only: Sequence[str] = (),
                      progress: Progress | None = None) -> list[CheckResult]:
    """Start a server on ``server_opts`` (forced to explicit model control, nothing loaded at
    start) and check each variant of its repository in turn.

    Returns:
        One :class:`CheckResult` per variant and protocol; a variant that fails to load gets
        a failed result carrying Triton's reason, and the next one is checked.

    Raises:
        ServerError: the server does not start.
        ClientError: the repository lists no variants.
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
        for name, build, rtol in variants:
            say(f"{name}: loading")
            try:
                srv.load(name)
            except ServerError as e:
                results += [CheckResult(name, p, False, [], f"load failed: {e.message}") for p in urls]
                continue
            try:
                results += _check_one(server_opts.repository, name, build, rtol, urls)
            finally:
                srv.unload(name)
    return results


def check_running(repository: Path, urls: dict[str, str], only: Sequence[str] = (),
                  progress: Progress | None = None) -> list[CheckResult]:
    """Check each variant of ``repository`` on a running server.

    Args:
        repository: Local repository whose ``index.json`` lists variants and their builds
            (the server may serve a copy of it).
        urls: Protocol -> ``host:port`` (``{"http": "localhost:8000", "grpc": ...}``).
        only: Variant names to check (default all).

    Raises:
        ClientError: no server answers, or the repository lists no variants.
    """
    from clients.infer import _connect, make_client

    say = progress or (lambda _m: None)
    variants = repository_variants(repository, only)
    proto, url = next(iter(urls.items()))
    results: list[CheckResult] = []
    with contextlib.closing(make_client(url, proto)) as client:
        _connect(client, url, proto)
        for name, build, rtol in variants:
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
                results += _check_one(repository, name, build, rtol, urls)
            finally:
                if loaded_here:
                    with contextlib.suppress(ToolkitError, Exception):
                        unload_and_wait(client, name)
    return results
