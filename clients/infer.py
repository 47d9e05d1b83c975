"""Inference requests over HTTP and gRPC (tritonclient): one, or many at a concurrency."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import numpy as np

from builders.model.spec import ModelSpec
from clients.inputs import ModelSignature, casts, infer_input, request_inputs, validate_inputs
from clients.request_refusals import GRPC_MAX_MESSAGE_BYTES as GRPC_MAX_MESSAGE_BYTES
from clients.request_refusals import INDEX_PAST_TABLE as INDEX_PAST_TABLE
from clients.request_refusals import refusal as _refusal
from clients.request_stats import RequestsInterrupted, RequestStats
from clients.request_stats import own_processes as _own_processes
from clients.runtimes.host import log_where
from clients.shared_memory import Regions, output_shapes, shared_memory_module
from core.console import stop_name
from core.errors import ClientError
from core.host_load import HostLoad, HostSampler
from core.names import close_names

log = logging.getLogger(__name__)

PROTOCOLS = ("http", "grpc")


class UnknownModelError(ClientError):
    """A model name the server does not know (the did-you-mean names the closest it has): where the user typed the
    name (``clients infer MODEL``), a usage error of it (exit 2: the CLI sets :attr:`flag`); elsewhere found while working."""


def _module(protocol: str) -> Any:
    if protocol == "http":
        import tritonclient.http as m
    elif protocol == "grpc":
        import tritonclient.grpc as m
    else:
        raise ClientError(f"unknown protocol {protocol!r}", hint="use 'http' or 'grpc'")
    return m


def make_client(url: str, protocol: str) -> Any:
    """A tritonclient ``InferenceServerClient`` for ``url`` (``host:port``).

    gRPC channels get send/receive limits of :data:`GRPC_MAX_MESSAGE_BYTES` (gRPC's default
    receive limit of 4 MiB would refuse e.g. a ``[64, 512, 512]`` fp32 output); HTTP
    clients a 120 s network timeout.

    Raises:
        ClientError: unknown protocol.
    """
    m = _module(protocol)
    if protocol == "grpc":
        opts = [
            ("grpc.max_send_message_length", GRPC_MAX_MESSAGE_BYTES),
            ("grpc.max_receive_message_length", GRPC_MAX_MESSAGE_BYTES),
        ]
        return m.InferenceServerClient(url, channel_args=opts)
    return m.InferenceServerClient(url, network_timeout=120)


def _connect(client: Any, url: str, protocol: str) -> None:
    """Raise a ClientError unless a live server answers at ``url``."""
    try:
        live = client.is_server_live()
    except Exception as e:  # connection refused, DNS, TLS...: all mean "nobody there"
        other = "grpc" if protocol == "http" else "http"
        if _answers(url, other):
            raise ClientError(
                f"the Triton server at {url} speaks {other}, not {protocol}",
                hint=f"pass --protocol {other} (or --url {other}://{url}), or the server's {protocol} port",
            ) from e
        raise ClientError(
            f"no Triton server answers at {url} ({protocol})",
            hint="start one with scripts/launch_tritonserver.sh, or check the address and port",
        ) from e
    if not live:
        raise ClientError(f"the Triton server at {url} is not live", hint=log_where(url, protocol))


def _answers(url: str, protocol: str) -> bool:
    """Whether a live Triton server answers at ``url`` over ``protocol`` (one short probe, for
    the error of a port given with the other protocol: 8001 is gRPC beside HTTP's 8000)."""
    try:
        m = _module(protocol)
        if protocol == "grpc":  # the gRPC client takes its timeout per call, the HTTP one per connection
            with contextlib.closing(m.InferenceServerClient(url)) as probe:
                return bool(probe.is_server_live(client_timeout=2))
        with contextlib.closing(m.InferenceServerClient(url, network_timeout=2)) as probe:
            return bool(probe.is_server_live())
    except Exception:  # noqa: BLE001 - nobody there either way
        return False


def _repository_index(client: Any, protocol: str) -> list[dict[str, Any]]:
    """The entries (``name``, ``state``, ``reason``) of the server's repository index; ``[]``
    where it cannot be read (older servers or restricted APIs: no extra detail then)."""
    try:
        idx = client.get_model_repository_index(as_json=True) if protocol == "grpc" else client.get_model_repository_index()
    except Exception:  # noqa: BLE001
        return []
    models = idx.get("models", []) if isinstance(idx, dict) else idx
    return [m for m in models if m.get("name")]


def model_io(client: Any, model: str, protocol: str, url: str) -> dict[str, Any]:
    """The served model's config as a dict (``input``, ``output``, ``max_batch_size``...) from ``client``, a client of
    the server at ``url`` (``host:port``: where its log is, :func:`clients.runtimes.host.log_where`).

    Raises:
        ClientError: the model is unknown to the server (:class:`UnknownModelError`), or known but not ready
            (loading, unloaded, failed: Triton's reason is quoted).
    """
    from tritonclient.utils import InferenceServerException

    try:
        if not client.is_model_ready(model):
            index = _repository_index(client, protocol)
            entry = next((m for m in index if m.get("name") == model), None)
            if entry is None:
                close = close_names(model, sorted(str(m["name"]) for m in index), n=1)
                raise UnknownModelError(
                    f"model {model!r} is unknown to the server" + (f" (did you mean {close[0]!r}?)" if close else ""),
                    hint="check the name (clients check lists the repository's variants) and the server's --model-repository",
                )
            why = f" ({entry.get('reason')})" if entry.get("reason") else ""
            raise ClientError(
                f"model {model!r} is not ready on the server: state {entry.get('state') or 'UNLOADED'}{why}",
                hint=f"load it first (explicit model control: --load-model or the repository API); {log_where(url, protocol)}",
            )
        cfg = client.get_model_config(model, as_json=True) if protocol == "grpc" else client.get_model_config(model)
    except InferenceServerException as e:
        raise ClientError(
            f"could not read the config of model {model!r}: {e.message()}",
            hint=f"check that the model is loaded and ready (curl http://{url}/v2/models/{model}/config shows what the server "
            f"gives); {log_where(url, protocol)}",
        ) from e
    except (OSError, ConnectionError) as e:  # the server went away
        raise ClientError(
            f"could not read the config of model {model!r}: the server did not answer ({type(e).__name__}: {e})",
            hint=f"check that the server is still running and start it again; {log_where(url, protocol)}",
        ) from e
    return cfg.get("config", cfg)


def model_signature(url: str, protocol: str, model: str) -> ModelSignature:
    """The served model's inputs/outputs/max_batch_size, read from the server's model config.

    Raises:
        ClientError: server down, model unknown or not ready.
    """
    with contextlib.closing(make_client(url, protocol)) as client:
        _connect(client, url, protocol)
        return ModelSignature.from_config(model_io(client, model, protocol, url))


def infer(
    url: str,
    protocol: str,
    model: str,
    inputs: dict[str, np.ndarray],
    output_names: list[str] | None = None,
    cast: bool = True,
    shared_memory: bool = False,
) -> dict[str, np.ndarray]:
    """Send one request and return its outputs.

    Args:
        url: ``host:port`` of the HTTP or gRPC endpoint.
        protocol: ``"http"`` or ``"grpc"``.
        model: Model (variant) name.
        inputs: Input name -> array, shape ``[batch, *dims]`` for batching models.
        output_names: Outputs to request (default: all in the model config).
        cast: Dtype policy of :func:`clients.inputs.validate_inputs` (float64 given for a
            ``TYPE_FP32`` input is cast with a logged note; ``False`` refuses it).
        shared_memory: Pass tensors through system shared memory (same host only).

    Raises:
        ClientError: server unreachable, model unknown or not ready, an input with the
            wrong name/shape/dtype (named in the message), or the request refused.
    """
    return run_requests(url, protocol, model, inputs, output_names=output_names, cast=cast, shared_memory=shared_memory).outputs


def run_requests(
    url: str,
    protocol: str,
    model: str,
    inputs: dict[str, np.ndarray],
    requests: int = 1,
    concurrency: int = 1,
    output_names: list[str] | None = None,
    cast: bool = True,
    shared_memory: bool = False,
    spec: ModelSpec | None = None,
) -> RequestStats:
    """Send ``requests`` identical requests, ``concurrency`` at a time (one client per thread).

    Inputs are validated once against the server's model config before anything is sent.
    With ``shared_memory``, each worker registers system shared-memory regions
    (``tritonclient.utils.shared_memory``; Triton docs, "Shared-Memory Extension") for its
    inputs and for every output whose size is known before the request (its config's dims, or
    the build's record of it in the inputs' axes: :func:`clients.shared_memory.output_shapes`),
    and unregisters and destroys them at the end; the other outputs come back in the response
    body (:attr:`RequestStats.shm_outputs` says which, and why).

    Args:
        url: ``host:port`` of the HTTP or gRPC endpoint.
        protocol: ``"http"`` or ``"grpc"``.
        model: Model (variant) name.
        inputs: Input name -> array, shape ``[batch, *dims]`` for batching models.
        requests: Number of requests (>= 1).
        concurrency: Worker threads, each with its own client (>= 1, at most ``requests``).
        output_names: Outputs to request (default: all in the model config).
        cast: Dtype policy of :func:`clients.inputs.validate_inputs` (a cast logged in
            :func:`clients.inputs.cast_words`' words; ``False`` refuses a dtype other than the config's).
        shared_memory: Pass tensors through system shared memory (same host only).
        spec: The build's spec under the served names (:func:`clients.inputs.spec_for`): sizes the
            shared-memory regions of outputs whose config dims hold ``-1``.

    Raises:
        ClientError: as :func:`infer`; also when every request failed (the first error is
            raised as is) or when ``requests``/``concurrency`` are below 1.
        RequestsInterrupted: Ctrl-C, once the requests in flight ended, with the stats of those that ended.
    """
    import concurrent.futures
    import threading
    import time

    if requests < 1 or concurrency < 1:
        raise ClientError(
            f"requests ({requests}) and concurrency ({concurrency}) must be >= 1",
            hint="pass --requests N and --concurrency N of at least 1",
            flag="--requests",
        )
    concurrency = min(concurrency, requests)
    with contextlib.closing(make_client(url, protocol)) as client:
        _connect(client, url, protocol)
        sig = ModelSignature.from_config(model_io(client, model, protocol, url))
    notes = casts(sig, inputs)
    inputs = validate_inputs(sig, inputs, cast=cast)
    for name, words in notes.items():  # arrays passed in Python; a file's casts its reader says (clients infer's line)
        log.warning("input %r is %s", name, words)
    sent = {k: (list(v.shape), str(v.dtype)) for k, v in inputs.items()}
    known_out = [o.name for o in sig.outputs]
    names = output_names or known_out
    bad = [n for n in names if n not in known_out]
    if bad:
        raise ClientError(
            f"{model}: unknown {'output' if len(bad) == 1 else 'outputs'} {', '.join(bad)}; the model has {', '.join(known_out)}",
            hint="name outputs of the served config (--output NAME), or leave --output out to get them all",
            flag="--output",
        )
    outs = [(t.name, t.dims, t.dtype) for t in sig.outputs if t.name in names]
    shapes = output_shapes(outs, sig.max_batch_size > 0, spec, {k: v.shape for k, v in inputs.items()}) if shared_memory else {}
    lock = threading.Lock()
    latencies: list[float] = []
    failures: list[str] = []
    errors: list[ClientError] = []
    last: dict[str, np.ndarray] = {}
    counts = [requests // concurrency + (1 if i < requests % concurrency else 0) for i in range(concurrency)]

    stop = threading.Event()  # Ctrl-C: each thread ends after its request in flight (T17-16)

    def worker(index: int, n: int) -> None:
        with _Worker(url, protocol, sig, inputs, names, shapes if shared_memory else None, index) as w:
            for _ in range(n):
                if stop.is_set():
                    return
                t0 = time.perf_counter()
                try:
                    out = w.infer()
                except ClientError as e:
                    with lock:
                        failures.append(str(e))
                        errors.append(e)
                    continue
                dt = (time.perf_counter() - t0) * 1e3
                with lock:
                    latencies.append(dt)
                    last.clear()
                    last.update(out)

    # one request is a check, not a measurement: no sampler thread, no socket scan (clients check sends many)
    roots, why_not = _own_processes(url) if requests > 1 else (None, "not sampled (one request: not a measurement)")
    with contextlib.ExitStack() as stack:
        sampler = stack.enter_context(HostSampler(roots)) if roots else None
        t0 = time.perf_counter()
        try:
            if concurrency == 1:
                worker(0, requests)
            else:
                with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
                    try:
                        for f in [pool.submit(worker, i, n) for i, n in enumerate(counts)]:
                            f.result()
                    except KeyboardInterrupt:  # said before the pool waits for the requests in flight
                        stop.set()
                        log.warning("stopping (%s): waiting for the requests in flight (at most %d)", stop_name(), concurrency)
                        raise
        except KeyboardInterrupt:
            stop.set()
        wall = time.perf_counter() - t0
    load = sampler.load() if sampler else HostLoad.of(None, why_not=why_not)
    rows = next(iter(inputs.values())).shape[0] if sig.max_batch_size > 0 and inputs else 1
    if stop.is_set():
        done = len(latencies) + len(failures)
        stats = RequestStats(dict(last), done, concurrency, latencies, wall, failures, int(rows), load, sent, shapes)
        raise RequestsInterrupted(stats if latencies or failures else None, requests) from None
    if not latencies:
        raise errors[0]
    if failures:
        log.warning("%d of %d requests to %s failed; first: %s", len(failures), requests, model, failures[0])
    return RequestStats(dict(last), requests, concurrency, latencies, wall, failures, int(rows), load, sent, shapes)


class _Worker:
    """One client with its prepared request for one thread (and shared-memory regions: ``shapes``, each output's
    shape or why it is not known, :func:`clients.shared_memory.output_shapes`; ``None``: no shared memory)."""

    def __init__(
        self,
        url: str,
        protocol: str,
        sig: ModelSignature,
        inputs: dict[str, np.ndarray],
        names: list[str],
        shapes: dict[str, tuple[int, ...] | str] | None,
        index: int,
    ):
        self.url, self.protocol, self.sig, self.names = url, protocol, sig, names
        self.m = _module(protocol)
        self.client = make_client(url, protocol)
        self.regions = Regions(self.client, url, index)
        self.out_regions: dict[str, Any] = {}
        self.inputs = inputs
        self.shapes = shapes

    def __enter__(self) -> _Worker:
        try:
            if self.shapes is None:
                self.req = request_inputs(self.m, self.inputs)
            else:
                self.req = []
                for name, arr in self.inputs.items():
                    t = infer_input(self.m, name, arr)
                    region, handle = self.regions.create(name, arr.nbytes)
                    shared_memory_module().set_shared_memory_region(handle, [arr])
                    t.set_shared_memory(region, arr.nbytes)
                    self.req.append(t)
            self.outs = []
            for name in self.names:
                o = self.m.InferRequestedOutput(name)
                info = next(t for t in self.sig.outputs if t.name == name)
                if self.shapes is not None and not isinstance(shape := self.shapes[name], str):
                    nbytes = int(np.prod(shape)) * np.dtype(info.dtype).itemsize
                    region, handle = self.regions.create(name, nbytes)
                    o.set_shared_memory(region, nbytes)
                    self.out_regions[name] = (handle, info.dtype)
                self.outs.append(o)
        except BaseException:
            self.close()
            raise
        return self

    def infer(self) -> dict[str, np.ndarray]:
        from tritonclient.utils import InferenceServerException

        try:
            result = self.client.infer(self.sig.name, self.req, outputs=self.outs)
        except InferenceServerException as e:
            raise _refusal(self.sig.name, e.message(), self.inputs, log_where(self.url, self.protocol)) from e
        except Exception as e:  # connection dropped mid-request
            raise ClientError(
                f"{self.sig.name}: request to {self.url} ({self.protocol}) failed: {e}",
                hint=f"check that the server is still running, then send again; {log_where(self.url, self.protocol)}",
            ) from e
        out = {}
        for name in self.names:
            if name in self.out_regions:
                handle, dtype = self.out_regions[name]
                o = result.get_output(name)
                shape = o["shape"] if isinstance(o, dict) else list(o.shape)
                out[name] = np.array(shared_memory_module().get_contents_as_numpy(handle, np.dtype(dtype), shape))
            else:
                out[name] = result.as_numpy(name)
        return out

    def close(self) -> None:
        self.regions.close()
        with contextlib.suppress(Exception):
            self.client.close()  # an open HTTP connection would hold the server's shutdown

    def __exit__(self, *exc: object) -> None:
        self.close()
