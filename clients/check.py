"""Check every variant of a repository against its PyTorch reference on a real server.

Either a server started here (explicit model control, nothing loaded at start; each variant
is loaded, checked over the asked protocols and unloaded in turn, so that variants do not
compete), or a running server given by URL (a variant that is not ready there is loaded
through the repository API and unloaded afterwards; one that cannot be loaded fails). Either
way a variant is checked only when the server runs its config: a served config that differs
from the variant's ``config.pbtxt`` or name fails the variant, naming the fields
(:func:`clients.runtimes.served.variant_differences`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from builders.repository.view import Repository, RepositoryVariant
from builders.verify.compare import compare_outputs
from builders.verify.verdicts import kernel_precision
from clients.check_load import load_variant
from clients.check_stop import done_line, interrupted, stopping_line
from clients.check_summary import check_summary as check_summary
from clients.check_summary import checked_sizes as checked_sizes
from clients.infer import infer
from clients.runtimes.models import UNLOAD_WAIT_S, unload_and_wait
from clients.server import ServerOptions, TritonServer
from clients.shapes import batch_sizes_of
from core import precision as precisions
from core.errors import ClientError, ServerError, ToolkitError

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


@dataclasses.dataclass
class CheckResult:
    """A served variant's outputs compared with the PyTorch reference."""

    variant: str
    protocol: str
    passed: bool
    outputs: list[dict[str, Any]]
    error: str | None = None
    #: Why a pass does not vouch for the variant's precision: the server's kernels compute it in
    #: another one (:func:`precision_not_exercised`); ``None`` when they compute in it.
    not_exercised: str | None = None
    #: What was sent: the size of the batch and of each dynamic axis of the build's one saved
    #: reference batch (:func:`clients.shapes.batch_sizes_of`); empty when no reference was read.
    sizes: dict[str, int] = dataclasses.field(default_factory=dict)


def precision_not_exercised(variant: RepositoryVariant) -> str | None:
    """Why outputs of ``variant`` that match the reference say nothing about its precision.

    The served kernels are the ones of the variant's format on its instance kind (KIND_CPU ->
    cpu, KIND_GPU -> cuda); where they compute a reduced precision in another one
    (:data:`builders.verify.verdicts.KERNEL_PRECISION`: a fp16 ONNX on onnxruntime's CPU provider runs
    in fp32), a match is real but its rounding was never exercised - the same words the build
    gives its "not verified in fp16 on this host" verdict.

    Returns:
        ``None`` when the kernels compute in the variant's precision (or nothing is known of
        the variant's parameters), else the reason in words.
    """
    params = variant.params
    if params is None:
        return None
    device = "cuda" if params.kind == "gpu" else "cpu"
    kernels = kernel_precision(params.format, params.precision, device)
    if kernels.computes_in == params.precision:
        return None
    return f"{params.precision} not exercised: on {device} the server computes it in {kernels.computes_in} ({kernels.why})"


def check_variant(url: str, protocol: str, variant: RepositoryVariant) -> CheckResult:
    """Send the build's saved reference inputs and compare served outputs, output by output.

    Tensors are matched by identity: each reference input is sent under its served name,
    and each served output is compared with the reference output it is bound to
    (:attr:`builders.repository.view.RepositoryVariant.outputs`), with the tolerance recorded at
    build time (:attr:`~builders.repository.view.RepositoryVariant.tolerances`: the build's
    ``--rtol``, else the precision's default).

    Args:
        url: ``host:port`` for ``protocol``.
        protocol: ``"http"`` or ``"grpc"``.
        variant: The variant, as read from its repository.

    Returns:
        The result; each output's record carries the ``rtol`` it was compared with.
    """
    try:  # the reference data and the build record: a broken one fails this check, not the others
        inputs, expected = variant.reference()
        in_names = {b.name: b.served for b in variant.inputs}
        out_names = {b.name: b.served for b in variant.outputs}
        tolerances = variant.tolerances or precisions.get(variant.params.precision if variant.params else "fp32").rtol
    except ToolkitError as e:
        return CheckResult(variant.name, protocol, False, [], str(e))
    if variant.params is not None and variant.params.max_batch_size == 0:  # its config serves one row (pbtxt.unbatched_dims)
        inputs, expected = first_row(inputs, variant.inputs), first_row(expected, variant.outputs)
    sizes = batch_sizes_of([b.spec for b in variant.inputs], inputs)
    try:
        served = infer(
            url,
            protocol,
            variant.name,
            {in_names.get(k, k): v for k, v in inputs.items()},
            [out_names.get(k, k) for k in expected],
        )
    except (ClientError, ValueError) as e:  # tritonclient raises ValueError on malformed responses
        return CheckResult(variant.name, protocol, False, [], str(e), sizes=sizes)
    actual = {k: served[out_names.get(k, k)] for k in expected}
    comps = compare_outputs(actual, expected, tolerances)
    passed = all(c.passed for c in comps)
    caveat = precision_not_exercised(variant) if passed else None
    return CheckResult(variant.name, protocol, passed, [c.to_json() for c in comps], not_exercised=caveat, sizes=sizes)


def first_row(arrays: dict[str, Any], bindings: Sequence[Any]) -> dict[str, Any]:
    """The first sample of the build's reference batch (``arrays``, by spec name), taken along each tensor's batch
    axis (:attr:`builders.model.tensor.TensorSpec.batch_axis`; one without a batch axis is kept whole): what a
    max_batch_size 0 variant is sent and compared on, its config's batch dim being 1 (trial 30, F5's fix: the
    reference's 4 rows were refused by the server)."""
    axes = {b.name: b.spec.batch_axis for b in bindings}
    return {k: v if axes.get(k, 0) is None else v.take([0], axis=axes.get(k, 0)) for k, v in arrays.items()}


def _loaded_before(server: TritonServer, opts: ServerOptions) -> set[str]:
    """The models ready on a server the toolkit did not start when it first reached it (a
    launcher's ``--load-model``, say): checked where they are, as ``--http-url`` checks them,
    never reloaded; empty for a server started here or with ``--replace-models`` (which asks
    for the variant to be loaded over it)."""
    if server.runtime_impl.launches or server.tenancy is None or opts.replace_models:
        return set()
    return {m for m, state in server.tenancy.found.items() if state == "READY"}


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
        ServerError: the server does not start, or it could load none of the variants (their backends
            or plans, said before it starts: :meth:`clients.server.TritonServer.refuse_unservable`).
        RepositoryError: the repository lists no variants.
        CheckInterrupted: Ctrl-C, with the rows of the variants checked whole (:mod:`clients.check_stop`).
    """
    import dataclasses

    say = progress or (lambda _m: None)
    variants = repository_variants(server_opts.repository, only)
    opts = dataclasses.replace(server_opts, model_control="explicit", load_models=())
    results: list[CheckResult] = []
    server = TritonServer(opts)
    server.refuse_plans([v.name for v in variants])  # TensorRT plans against the serving release, before it starts
    server.refuse_unservable([v.name for v in variants], "nothing was started or checked")  # the sweep's rule (T15-9)
    done = False
    try:
        with server as srv:
            say(f"server ready ({srv.runtime}): http {srv.http_url}, grpc {srv.grpc_url}")
            urls = {"http": srv.http_url, "grpc": srv.grpc_url}
            urls = {p: urls[p] for p in protocols}
            found = _loaded_before(srv, opts)
            for v in variants:
                try:
                    results += _check_in_turn(srv, opts.repository, v, v.name in found, urls, say)
                except KeyboardInterrupt:  # said before the slow part, then the rows kept go to the caller (T17-16)
                    how = f"stopping tritonserver, which unloads it (up to {srv.runtime_impl.stop_wait_s():g} s)"
                    if not srv.runtime_impl.launches:
                        how = f"leaving the server at {srv.http_url} with the models it was found with"
                    say(stopping_line(v.name, how))
                    raise interrupted(results, variants) from None
            done = True
    except KeyboardInterrupt:
        if not done:
            raise
        raise interrupted(results, variants) from None  # a stop while the server stopped (held till then): every row kept
    return results


def _check_in_turn(
    srv: TritonServer, repository: Path, v: RepositoryVariant, found: bool, urls: dict[str, str], say: Progress
) -> list[CheckResult]:
    """Check ``v`` on ``srv``: as it is served when it was ``found`` loaded there, else loaded, checked
    and unloaded (a Ctrl-C leaves the unload to the server's stop, said by the caller)."""
    if found:
        say(
            f"{v.name}: already loaded on the server at {srv.http_url} before this check (by whoever started "
            "it): checked as it is served, once its served config is the variant's; not reloaded or unloaded"
        )
        from clients.infer import make_client

        with contextlib.closing(make_client(srv.http_url, "http")) as client:
            done = _check_as_served(client, "http", repository, v, urls, say)
        say(done_line(v.name, done))
        return done
    say(f"{v.name}: loading")
    try:
        srv.load(v.name)  # waits at most the launcher's --start-timeout
    except ServerError as e:
        say(f"{v.name}: load failed: {e.message}" + (f"\n  -> {e.hint}" if e.hint else ""))
        return [CheckResult(v.name, p, False, [], f"load failed: {e.message}") for p in urls]
    try:
        done = _check_one(v, urls)
    except Exception:
        srv.unload(v.name)
        raise
    srv.unload(v.name)
    say(done_line(v.name, done))
    return done


@dataclasses.dataclass(frozen=True)
class RunningUrls:
    """The endpoints ``clients check`` uses on a running server.

    Attributes:
        urls: Protocol -> ``host:port``, one per protocol checked, in ``("http", "grpc")`` order.
        derived: One line per endpoint that was not given but follows Triton's layout.
    """

    urls: dict[str, str]
    derived: tuple[str, ...] = ()


def running_urls(http_url: str | None, grpc_url: str | None, protocols: Sequence[str]) -> RunningUrls:
    """The endpoints of each protocol in ``protocols`` from ``--http-url`` / ``--grpc-url``: the
    one not given follows Triton's default layout (gRPC = HTTP port + 1, as ``--url`` takes it,
    :func:`clients.runtimes.remote.parse_endpoint`), and a line says so.

    Raises:
        ServerError: a URL that is not ``HOST:PORT``.
    """
    from clients.runtimes.remote import parse_endpoint

    given = {"http": http_url, "grpc": grpc_url}
    other = {"http": "grpc", "grpc": "http"}
    urls: dict[str, str] = {}
    derived: list[str] = []
    for p in protocols:
        if given[p]:
            urls[p] = str(given[p])
            continue
        source = other[p]
        end = parse_endpoint(f"{source}://{given[source]}")
        urls[p] = end.grpc_url if p == "grpc" else end.http_url
        derived.append(
            f"{p} endpoint: {urls[p]} (--{source}-url's port {'+' if p == 'grpc' else '-'} 1, Triton's default layout; "
            f"--{p}-url sets it, --protocol {source} checks over {source.upper() if source == 'http' else 'gRPC'} only)"
        )
    return RunningUrls({p: urls[p] for p in ("http", "grpc") if p in urls}, tuple(derived))


def check_running(
    repository: Path,
    urls: dict[str, str],
    only: Sequence[str] = (),
    progress: Progress | None = None,
    timeout_s: float = 120.0,
) -> list[CheckResult]:
    """Check each variant of ``repository`` on a running server.

    A variant whose served config differs from its ``config.pbtxt`` (the server's repository
    holds another copy, say) fails, the differing fields named, and its outputs are not checked.

    Args:
        repository: Local repository whose ``index.json`` lists variants and their builds
            (the server may serve a copy of it).
        urls: Protocol -> ``host:port`` (``{"http": "localhost:8000", "grpc": ...}``).
        only: Variant names to check (default all).
        progress: Called with one line per step (a variant not ready is loaded); ``None``: silent.
        timeout_s: How long a load it asks for may wait (``--start-timeout``, default 120 s); a load the server says
            failed (its repository index) ends the wait at once (:func:`clients.check_load.load_variant`).

    Raises:
        ClientError: no server answers.
        RepositoryError: the repository lists no variants.
        CheckInterrupted: Ctrl-C, with the rows of the variants checked whole (:mod:`clients.check_stop`).
    """
    from clients.infer import _connect, make_client

    say = progress or (lambda _m: None)
    variants = repository_variants(repository, only)
    for p, u in list(urls.items())[1:]:  # every endpoint answers (one may follow Triton's layout) before any check
        with contextlib.closing(make_client(u, p)) as other:
            _connect(other, u, p)
    proto, url = next(iter(urls.items()))
    results: list[CheckResult] = []
    with contextlib.closing(make_client(url, proto)) as client:
        _connect(client, url, proto)
        for v in variants:
            name, loaded_here = v.name, False
            try:
                if not client.is_model_ready(name):
                    say(f"{name}: not ready, asking the server to load it")
                    # the one wait for a load (trial 30, F21), not asked where the folder cannot load (trial 31, F13)
                    why = load_variant(repository, name, url, proto, timeout_s, lambda: make_client(url, proto))
                    if why is not None:
                        results += [CheckResult(name, p, False, [], why) for p in urls]
                        continue
                    loaded_here = True
                done = _check_as_served(client, proto, repository, v, urls, say)
            except BaseException as e:
                if isinstance(e, KeyboardInterrupt):  # said before the unload, which may wait (T17-16)
                    how = (
                        f"unloading it, which this check loaded (up to {UNLOAD_WAIT_S:g} s)"
                        if loaded_here
                        else "nothing to unload"
                    )
                    say(stopping_line(name, how))
                if loaded_here:
                    with contextlib.suppress(ToolkitError, Exception):
                        unload_and_wait(client, name)
                if isinstance(e, KeyboardInterrupt):
                    raise interrupted(results, variants) from None
                raise
            if loaded_here:
                with contextlib.suppress(ToolkitError, Exception):
                    unload_and_wait(client, name)
            results += done
            say(done_line(name, done))
    return results


def _check_as_served(
    client: Any, protocol: str, repository: Path, variant: RepositoryVariant, urls: dict[str, str], say: Progress
) -> list[CheckResult]:
    """Check ``variant`` as the server serves it now, when its served config is the variant's;
    else one failed result per protocol naming the fields that differ (nothing is sent)."""
    wrong = _served_differences(client, protocol, repository, variant.name, urls.get(protocol) or next(iter(urls.values())))
    if wrong:
        say(f"{variant.name}: {wrong}")
        return [CheckResult(variant.name, p, False, [], wrong) for p in urls]
    return _check_one(variant, urls)


def _served_differences(client: Any, protocol: str, repository: Path, name: str, url: str) -> str | None:
    """Why the served model ``name`` is not the variant of that name in ``repository``: the
    fields in which its served config differs from the variant's ``config.pbtxt`` and name
    (:func:`clients.runtimes.served.variant_differences`, the comparison the sweep refuses a
    variant on), or that its config could not be read; ``None`` when they agree."""
    from clients.infer import model_io
    from clients.runtimes.served import settings_of_json, variant_differences

    try:
        have = settings_of_json(model_io(client, name, protocol, url))
    except ClientError as e:
        return f"failed: the served config could not be read, so what the server runs is not known ({e.message})"
    wrong = variant_differences(repository, name, have)
    if not wrong:
        return None
    return (
        f"failed: the server runs another config than {name}'s config.pbtxt ({'; '.join(wrong)}); its outputs would "
        "not be the variant's, so they were not checked"
    )
