"""Cold start of one variant: its load time and its first requests (issue 17).

Measured in every sweep right after the sweep loads a variant alone (:func:`load`, then
:func:`first_requests`, before the sweep's own warm-up run), and by ``triton-perf coldstart`` on its
own (:func:`measure`):

- **load time**: from the repository API's load request to its answer (explicit model
  control answers once the model is ready, or failed), and from the server log's
  ``loading: <model>`` line to its ``successfully loaded`` line; the log also times the
  instances' creation plus ``model_warmup`` (first ``ModelInstanceInitialize`` line to
  ``successfully loaded``).
- **first requests**: single requests (one in flight, tritonclient, the sweep's protocol) at
  batch 1, then at each other batch size and dynamic shape the sweep will use, each
  followed by more at the same size until their latency settles (the settle rule,
  :func:`perf.records.coldstart.settles`), so that the first can be compared with a steady latency
  (:class:`perf.records.coldstart.FirstRequests`). At most :data:`MAX_REQUESTS` requests or
  :data:`POINT_BUDGET_S` per size in a sweep (which compares with its own steady levels),
  :data:`STANDALONE_BUDGET_S` in ``triton-perf coldstart``; requests that did not settle by then are said
  so, and no ratio is drawn from them.
  The host's load is sampled while they are sent, as during a sweep level
  (:mod:`perf.records.load`).

Where the server cannot show a backend's cold start (TensorRT engines deserialised at load
and built per shape on first request, onnxruntime's TensorRT accelerator building engines
on first request: a GPU and Triton's native backends are needed), the record says "not
measured on this host" and why (:func:`engine_note`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.repository.view import RepositoryVariant
from clients.infer import make_client, model_io
from clients.inputs import ModelSignature, generate_inputs, request_inputs
from clients.runtimes.served import Loaded
from clients.server import TritonServer
from core import gpu
from core.errors import PerfError, ServerError, ToolkitError
from perf.analysis.stats.pairs import variant_of
from perf.measure.batch_limits import fits
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT, HostLoad, HostSampler, own_roots
from perf.measure.inputs import describe_dynamic
from perf.measure.mixed import first_size
from perf.records.coldstart import ColdStart, FirstRequests, settles
from perf.records.results import RunResult, VariantResult

log = logging.getLogger(__name__)

#: Most requests sent at one batch size and shape (the first one and those it is compared with); sending
#: stops earlier once their latency settles (:func:`perf.records.coldstart.settles`). TorchScript's profiling
#: executor optimises a graph over its first few calls; 200 leaves room for many more.
MAX_REQUESTS = 200
#: Fewest requests sent at one batch size and shape (the count of requests before steady needs a few).
MIN_REQUESTS = 5
#: In a sweep, after this long at one batch size and shape (s), no more requests are sent once
#: :data:`MIN_REQUESTS` were: the sweep compares the first with its own steady level there, and its time budget
#: pays for this.
POINT_BUDGET_S = 1.0
#: The same for ``triton-perf coldstart`` without a sweep's levels (s): its only steady reference is the
#: latency its requests settle at, so they get longer (the trial 16 model's requests took 100-750 ms for a while).
STANDALONE_BUDGET_S = 10.0
#: What "not measured on this host" starts with (the report's row for such a variant).
NOT_MEASURED_HERE = "not measured on this host"

# glog lines: "I1201 03:45:27.555599 18727 model_lifecycle.cc:472] "loading: name:1""
_GLOG = re.compile(r"^[IWE](?P<md>\d{4}) (?P<t>\d\d:\d\d:\d\d\.\d+) \d+ \S+\] \"?(?P<msg>.*?)\"?$")


def engine_note(params: Variant | None, srv: TritonServer | None) -> str | None:
    """Why this host cannot show ``params``'s cold start, or ``None`` when it can.

    TensorRT plans (format ``trt``) and ONNX with onnxruntime's TensorRT accelerator build or
    deserialise engines on a GPU, at load and on the first request at a new shape; a server
    without Triton's native backends (the bundled one: python only) or a host without a GPU
    cannot show that.
    """
    if params is None or not (params.format == "trt" or params.trt_accelerator):
        return None
    what = "TensorRT engines" if params.format == "trt" else "onnxruntime's TensorRT accelerator (engines built on first request)"
    have = srv.runtime_impl.backends if srv is not None else None
    if have is not None:
        return f"{NOT_MEASURED_HERE}: {what} need Triton's native backends; the {srv.runtime} server has only {', '.join(have)}"  # type: ignore[union-attr]
    if not gpu.gpu_available():
        return f"{NOT_MEASURED_HERE}: {what} need an NVIDIA GPU; this host has none"
    return None


def wanted(vr: VariantResult) -> bool:
    """Whether loading ``vr`` now should measure its cold start: it has no record, or a record
    that is not :attr:`~perf.records.coldstart.ColdStart.complete` (a session interrupted while it
    loaded, or before its first requests: trial 7, F11). A complete record from an earlier
    session stands (the report says which session it is from)."""
    return vr.cold_start is None or not vr.cold_start.complete


def load(srv: TritonServer, vr: VariantResult, session: int | None = None) -> Loaded:
    """Load ``vr`` through the repository API (:meth:`TritonServer.load`: checked to be the
    variant) and record how long the load request took in ``vr.cold_start`` (client side and
    from the server log), stamped with ``session`` (the run's session, 1 first).

    A record this load leaves without a measurement (the load failed, or was interrupted) never
    replaces an earlier one that has one (:attr:`~perf.records.coldstart.ColdStart.measured`).

    Returns:
        What the server runs for it (the caller stamps the measurement with it).

    Raises:
        ServerError: the load failed (recorded first: the record says why nothing was measured).
    """
    params = variant_of(vr)
    earlier = vr.cold_start
    record = ColdStart(variant=vr.name, warmup=params.warmup if params else None, session=session)
    vr.cold_start = record
    offset = _size(srv.log_path)
    try:
        loaded = srv.load(vr.name)
        record.load_s = loaded.request_s
    except ServerError as e:
        record.not_measured = engine_note(params, srv) or f"not measured: the load failed ({e.message.splitlines()[0]})"
        raise
    finally:  # failed or interrupted (KeyboardInterrupt too): an earlier measurement stands
        if record.load_s is None and earlier is not None and earlier.measured:
            vr.cold_start = earlier
    record.others_loaded = list(loaded.served.others_loaded)  # "loaded alone" only when it was
    record.load_log_s, record.instances_log_s = log_load_times(_read_from(srv.log_path, offset), vr.name)
    return loaded


def first_requests(
    srv: TritonServer,
    vr: VariantResult,
    config: dict[str, Any],
    variant: RepositoryVariant,
    points: Iterable[tuple[int, str | None]],
    protocol: str = "http",
    shapes: Mapping[str, Sequence[int]] | None = None,
    spec_at: Callable[[ModelSpec | None, str | None], ModelSpec | None] | None = None,
    host_busy_threshold_pct: float = HOST_BUSY_THRESHOLD_PCT,
    budget_s: float = POINT_BUDGET_S,
) -> ColdStart:
    """Send the first requests to the just-loaded ``vr`` at batch 1, then at each of ``points``
    (``(batch size, swept shape)``, in the sweep's order) and record them in ``vr.cold_start``.
    A failed request is recorded (``error``), never raised: the sweep goes on.

    Args:
        srv: The server ``vr`` was loaded on by :func:`load`.
        vr: The variant; its ``cold_start`` is filled in (made when :func:`load` was not used).
        config: Its served model config (JSON).
        variant: The variant as its repository records it (spec, value ranges).
        points: Batch sizes and shapes the sweep will use (duplicates ignored).
        protocol: ``"http"`` or ``"grpc"``.
        shapes: The user's ``--shape`` values (input name -> dims).
        spec_at: The served spec at a swept shape (the sweep's own rule); default: unchanged.
        host_busy_threshold_pct: Other processes' CPU (% of one core) above which the
            requests of a size are flagged host busy (:func:`perf.measure.host.is_host_busy`;
            sampled as a sweep level is: :func:`perf.measure.host.own_roots`).
        budget_s: Longest time spent at one size unless its latency settles first (:func:`send`).
    """
    record = vr.cold_start or ColdStart(variant=vr.name)
    vr.cold_start = record
    record.protocol = protocol
    note = engine_note(variant.params, srv)
    if note:
        record.not_measured = note
        return record
    todo = list(dict.fromkeys(points))
    first_shape = todo[0][1] if todo else None
    todo = list(dict.fromkeys([(1, first_shape), *todo]))
    url = srv.grpc_url if protocol == "grpc" else srv.http_url
    sig = ModelSignature.from_config(config)
    try:
        served = variant.served_spec
    except ToolkitError:  # an unreadable build record: sizes from --shape only
        served = None
    roots, not_sampled = own_roots(srv)
    unswept = any(shape is None for _, shape in todo)  # a swept size is said by its own shape (trial 19, T19-18)
    record.sizes = describe_dynamic(config, served, shapes or {}) if unswept else None  # where none is swept (T16-11)
    for batch, shape in todo:
        sent = first_size(
            shape, served.multiple_of if served else None
        )  # a mix: its first entry, as perf_analyzer sends it (never the spec's opt, unsaid)
        fr = FirstRequests(
            batch_size=batch if sig.max_batch_size > 0 else 1, shape=shape, sent_shape=sent if sent != shape else None
        )
        if record.at(fr.batch_size, shape) is not None:
            continue
        record.first.append(fr)
        try:
            inputs = generate_inputs(sig, fr.batch_size, spec_at(served, sent) if spec_at else served, shapes=shapes)
            with HostSampler(roots or []) as hosts:
                fr.latencies_ms = send(url, protocol, vr.name, inputs, budget_s)
            load = hosts.load(None, host_busy_threshold_pct) if roots else HostLoad.of(None, why_not=not_sampled)
            load.fill(fr)
        except Exception as e:  # ToolkitError, tritonclient's InferenceServerException, transport errors: recorded
            fr.error = _why(e)
        if fr.error:
            log.warning(
                "%s: first requests at batch %d%s failed: %s", vr.name, batch, f" [{fr.size_text}]" if shape else "", fr.error
            )
    return record


def send(url: str, protocol: str, model: str, inputs: dict[str, np.ndarray], budget_s: float = POINT_BUDGET_S) -> list[float]:
    """Send the same request one at a time on one tritonclient connection opened before the first
    (a liveness call, not timed) until their latency settles (:func:`keep_sending`); returns each
    request's latency in ms, in order."""
    if protocol == "grpc":
        import tritonclient.grpc as m
    else:
        import tritonclient.http as m
    with contextlib.closing(make_client(url, protocol)) as client:
        client.is_server_live()
        request = request_inputs(m, inputs)
        out: list[float] = []
        start = time.perf_counter()
        while keep_sending(out, time.perf_counter() - start, budget_s):
            t0 = time.perf_counter()
            client.infer(model, request)
            out.append((time.perf_counter() - t0) * 1e3)
    return out


def keep_sending(latencies_ms: list[float], elapsed_s: float, budget_s: float = POINT_BUDGET_S) -> bool:
    """Whether to send one more request at a size: until the latencies settle
    (:func:`perf.records.coldstart.settles`) and :data:`MIN_REQUESTS` were sent, at most :data:`MAX_REQUESTS`,
    and no more after ``budget_s`` once :data:`MIN_REQUESTS` were (requests that did not settle by then are
    recorded as such: :attr:`perf.records.coldstart.FirstRequests.not_settled`)."""
    n = len(latencies_ms)
    if n < MIN_REQUESTS:
        return True
    return n < MAX_REQUESTS and elapsed_s < budget_s and not settles(latencies_ms)


def measure(
    srv: TritonServer,
    variant: RepositoryVariant,
    batch_sizes: Sequence[int] = (1,),
    protocol: str = "http",
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> ColdStart:
    """``triton-perf coldstart``: load ``variant`` alone, send its first requests at each of
    ``batch_sizes`` (those above its max_batch_size left out), unload it.

    Raises:
        ServerError: the server lost the model while unloading (not a failed load: that is
            recorded in the result).
    """
    vr = VariantResult(variant.name, variant.entry.params if variant.entry else None)
    try:
        load(srv, vr)
    except ServerError:
        assert vr.cold_start is not None
        return vr.cold_start
    try:
        with contextlib.closing(make_client(srv.http_url, "http")) as c:
            config = model_io(c, variant.name, "http", srv.http_url)
        mbs = int(config.get("max_batch_size", 0))
        points = [(b, None) for b in batch_sizes if fits(b, mbs)]  # the sizes no variant takes: refused before
        left = [b for b in batch_sizes if (b, None) not in points]
        if left:
            log.warning(
                "%s: %s %s not sent: %s",
                variant.name,
                "batch size" if len(left) == 1 else "batch sizes",
                ", ".join(map(str, left)),
                f"above its max_batch_size {mbs}" if mbs else "it does not batch (max_batch_size 0): batch 1 only",
            )
        return first_requests(srv, vr, config, variant, points, protocol, shapes, budget_s=STANDALONE_BUDGET_S)
    finally:
        if not srv.unload(variant.name):
            log.warning("%s was still loaded after its unload request", variant.name)


def log_load_times(text: str, model: str) -> tuple[float | None, float | None]:
    """``(load_log_s, instances_log_s)`` of ``model`` from server log text (Triton's glog
    lines, which carry month, day and time to the µs): ``loading: <model>:<version>`` to
    ``successfully loaded '<model>'``, and the first ``ModelInstanceInitialize: <model>_<g>_<i>``
    to the same end. ``None`` for a span the log does not show."""
    loading = instances = loaded = None
    instance = re.compile(rf"ModelInstanceInitialize: {re.escape(model)}_\d+_\d+\b")
    for line in text.splitlines():
        m = _GLOG.match(line.strip())
        if not m:
            continue
        msg, at = m["msg"], _at(m["md"], m["t"])
        if loading is None and msg.startswith(f"loading: {model}:"):
            loading = at
        elif instances is None and loading is not None and instance.search(msg):
            instances = at
        elif loading is not None and msg == f"successfully loaded '{model}'":
            loaded = at
            break
    if loaded is None:
        return None, None
    return _span(loading, loaded), _span(instances, loaded)


def _at(month_day: str, clock: str) -> dt.datetime:
    return dt.datetime.strptime(f"2000{month_day} {clock}", "%Y%m%d %H:%M:%S.%f")  # a leap year: 29 Feb parses


def _span(a: dt.datetime | None, b: dt.datetime) -> float | None:
    if a is None:
        return None
    s = (b - a).total_seconds()
    return s if s >= 0 else s + 86400.0  # past midnight (the log has no year; a load is shorter than a day)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read_from(path: Path, offset: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _why(e: Exception) -> str:
    """One line saying why a request failed (a ToolkitError's message, tritonclient's ``message()``)."""
    if isinstance(e, ToolkitError):
        return e.message.splitlines()[0]
    said = getattr(e, "message", None)
    msg = said() if callable(said) else str(e)
    return f"{type(e).__name__}: {msg}".splitlines()[0]


def held(vr: VariantResult) -> bool:
    """Whether the run has a cold start of ``vr`` that ``coldstart --into`` keeps unless ``--replace``: a
    complete record (not :func:`wanted`) with a measurement (trial 14, T14-8: the sweep's own was replaced)."""
    return not wanted(vr) and vr.cold_start is not None and vr.cold_start.measured


def file_into(run: RunResult, records: Sequence[ColdStart]) -> list[str]:
    """``triton-perf coldstart --into RUN``: put ``records`` in ``run`` as its variants' cold starts.
    A record without a measurement (a failed load) never replaces one with (the sweep's own rule,
    :func:`load`); a measured one it replaces (``--replace``, or an incomplete record) is kept in the
    variant's ``replaced_cold_starts``, never lost. Returns a line for each record kept out.

    Raises:
        PerfError: no record holds a measurement: nothing is filed (the run keeps what it had).
    """
    if not any(r.measured for r in records):
        why = "; ".join(f"{r.variant}: {r.why_not_measured}" for r in records) or "no variant"
        raise PerfError(
            f"no cold start was measured ({why}); run {run.run_id}'s results.json keeps what it held",
            hint="fix what the reasons name, then run it again",
        )
    lines = []
    for rec in records:
        vr = run.variant(rec.variant)
        if vr is None:  # the caller refuses variants that are not the run's
            continue
        earlier = vr.cold_start
        if earlier is not None and earlier.measured and not rec.measured:
            lines.append(f"{rec.variant}: the run's cold start is kept (this one was not measured: {rec.why_not_measured})")
            continue
        if earlier is not None and earlier.measured:
            vr.replaced_cold_starts.append(earlier)
        vr.cold_start = rec
    return lines
