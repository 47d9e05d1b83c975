"""perf_analyzer's output, parsed here and only here.

- its CSV (``-f out.csv --verbose-csv``), columns (µs unless said): Concurrency (or
  Request Rate), Inferences/Second, Client Send, Network+Server Send/Recv, Server Queue,
  Server Compute Input, Server Compute Infer, Server Compute Output, Client Recv,
  p50/p90/p95/p99 latency, Avg latency, and with ``--collect-metrics`` Avg GPU Utilization
  (fraction), Avg GPU Power Usage (W), Max GPU Memory Usage (bytes). Empty cells mean "not
  measured on this host".
- its console summary (:func:`parse_output`): request errors (``Thread [0] had error: ...``),
  the request-rate warning ("not able to keep up with the desired request rate. X% of the
  requests were delayed", printed above perf_analyzer's 1 % ``DELAY_PCT_THRESHOLD``, with
  the "Avg send request rate"), and the server's inference and execution counts.
- its per-window lines (``-v``: ``Pass [N] throughput: ...``), timed as they arrive
  (:class:`Window`): perf_analyzer reports the merge of the last
  :data:`STABILITY_WINDOWS` windows, so their start and end say over which span server
  and host samples must be averaged to match its numbers.

All of those numbers (throughput, latencies, server counts) cover the same merged windows
(perf_analyzer 2.51, ``InferenceProfiler::ProfileHelper``: ``stability_window = 3``).
:mod:`perf.measure.analyzer` runs it.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path

from clients.request_refusals import past_table_line

UNSTABLE_MARK = "Failed to obtain stable measurement"
#: Windows perf_analyzer merges into its reported numbers (its ``stability_window``, fixed at 3).
STABILITY_WINDOWS = 3


@dataclasses.dataclass(frozen=True)
class Summary:
    """perf_analyzer's console summary of one run (the merged windows).

    Attributes:
        errors: Request errors it printed (``Thread [0] had error: ...``, ``error: ...``).
        delayed_pct: Share of requests sent late in request-rate mode (%); ``None`` when it
            printed no warning, i.e. at most its 1 % threshold, or in concurrency mode.
        send_rate_per_s: "Avg send request rate" (requests/s; printed with the warning only).
        client_request_count: Requests completed by the client in the merged windows.
        server_inference_count, server_execution_count: The server's counts over the same
            windows (statistics API deltas): their ratio is the batch size it formed.
        server_success_count: Successful requests the server counted (0 when it printed
            "Request count: 0" under "Server:").
    """

    errors: tuple[str, ...] = ()
    delayed_pct: float | None = None
    send_rate_per_s: float | None = None
    client_request_count: int | None = None
    server_inference_count: int | None = None
    server_execution_count: int | None = None
    server_success_count: int | None = None

    @property
    def avg_server_batch_size(self) -> float | None:
        """Inferences / executions over the merged windows; ``None`` without both counts."""
        if self.server_inference_count is None or not self.server_execution_count:
            return None
        return self.server_inference_count / self.server_execution_count


_ERROR_LINE = re.compile(r"(had error:|^\s*error:|cb::Error)", re.IGNORECASE)
_DELAYED = re.compile(r"not able to keep up with the desired request rate\.\s*([\d.]+)% of the requests were delayed")
_SEND_RATE = re.compile(r"Avg send request rate:\s*([\d.]+)")
_COUNTS = {
    "client_request_count": re.compile(r"^\s*Request count:\s*(\d+)"),
    "server_inference_count": re.compile(r"^\s*Inference count:\s*(\d+)"),
    "server_execution_count": re.compile(r"^\s*Execution count:\s*(\d+)"),
    "server_success_count": re.compile(r"^\s*Successful request count:\s*(\d+)"),
}


def parse_output(text: str) -> Summary:
    """Errors, the request-rate warning and the counts in perf_analyzer's console output.

    Per-window errors of a verbose run (``Pass [1] cb::Error: No valid requests recorded``)
    are not request errors: a window with no completed request is what they say, and the
    merged numbers tell whether anything completed. The "Request count" under ``Server:``
    is the server's success count when it had none.
    """
    errors: list[str] = []
    found: dict[str, float | int] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line in ("Client:", "Server:"):
            section = line
            continue
        if (_ERROR_LINE.search(raw) and not line.startswith("Pass [")) or past_table_line(line):
            errors.append(line[:300])  # a TorchScript traceback's last line says what its first did not
        if m := _DELAYED.search(raw):
            found["delayed_pct"] = float(m.group(1))
        if m := _SEND_RATE.search(raw):
            found["send_rate_per_s"] = float(m.group(1))
        for field, rx in _COUNTS.items():
            if m := rx.search(raw):
                if field == "client_request_count" and section == "Server:":
                    found["server_success_count"] = int(m.group(1))  # "Request count: 0" on the server side
                else:
                    found.setdefault(field, int(m.group(1)))
    return Summary(errors=tuple(dict.fromkeys(errors)), **found)  # type: ignore[arg-type]


#: A bare status code perf_analyzer prints before its message (``cb::Error  : 3``): it says nothing alone.
_BARE_CODE = re.compile(r"^cb::Error\s*:\s*\d+$")
#: A worker thread's error (``Thread [3] had error: MESSAGE``): every thread says the same MESSAGE.
_THREAD = re.compile(r"^Thread \[\d+\] had error:\s*")


def error_text(errors: tuple[str, ...]) -> str:
    """What perf_analyzer said, every distinct message in full, joined by ``"; "`` (trial 11, F21:
    "cb::Error : 3 (and 1 more error line)" kept the bare status code and hid the message,
    ``error: Failed to init manager inputs: failed to parse the specified json file ...``). A worker
    thread's message is said once however many threads had it; a bare status code follows the
    messages in parentheses."""
    codes = [e for e in errors if _BARE_CODE.match(e)]
    said: dict[str, str] = {}
    for e in errors:
        if e not in codes:
            said.setdefault(_THREAD.sub("", e), e)
    text = "; ".join(said.values()) or ", ".join(codes)
    return f"{text} ({', '.join(codes)})" if said and codes else text


@dataclasses.dataclass(frozen=True)
class Window:
    """One measurement window of a verbose run, timed on this host's monotonic clock (s).

    Attributes:
        end_s: When its ``Pass [N]`` line arrived.
        throughput_infer_per_s: Its throughput; ``None`` for a window with an error.
    """

    end_s: float
    throughput_infer_per_s: float | None


_PASS = re.compile(r"^\s*Pass \[(\d+)\]\s*(?:throughput:\s*([\d.eE+-]+))?")
_LOAD_START = re.compile(r"^(Request concurrency|Request Rate):")


@dataclasses.dataclass
class RunOutcome:
    """What one perf_analyzer run produced.

    Attributes:
        returncode: perf_analyzer's exit status.
        unstable: It printed "Failed to obtain stable measurement".
        rows: Its CSV rows (:func:`parse_csv`); empty when it wrote none.
        output_tail: The last 2,000 characters of its output (stdout and stderr).
        summary: :func:`parse_output` of the whole output.
        started_s, ended_s: When it started and exited (monotonic clock, s).
        load_started_s: When it started loading the server (its "Request concurrency:" /
            "Request Rate:" line); ``None`` if not seen.
        windows: Its measurement windows, in order (verbose runs only).
    """

    returncode: int
    unstable: bool
    rows: list[dict[str, float | None]]
    output_tail: str
    summary: Summary = dataclasses.field(default_factory=Summary)
    started_s: float = 0.0
    ended_s: float = 0.0
    load_started_s: float | None = None
    windows: list[Window] = dataclasses.field(default_factory=list)

    def stable_span(self) -> tuple[float, float, bool]:
        """``(start, end, merged)`` on the monotonic clock: the span of the last
        :data:`STABILITY_WINDOWS` windows (what perf_analyzer's numbers cover, ``merged``
        True), else the whole run (``merged`` False, when no window lines were seen)."""
        if len(self.windows) >= 1:
            n = len(self.windows)
            first = n - STABILITY_WINDOWS
            start = self.windows[first - 1].end_s if first >= 1 else (self.load_started_s or self.started_s)
            return start, self.windows[-1].end_s, True
        return self.started_s, self.ended_s, False

    def window_spread_pct(self) -> float | None:
        """Max - min throughput over the merged windows, in % of their mean; ``None``
        without window lines (or with a failed window among them)."""
        thr = [w.throughput_infer_per_s for w in self.windows[-STABILITY_WINDOWS:]]
        if len(thr) < 2 or any(t is None for t in thr):
            return None
        mean = sum(thr) / len(thr)  # type: ignore[arg-type]
        return (max(thr) - min(thr)) / mean * 100.0 if mean > 0 else None  # type: ignore[type-var, operator]

    def problem(self) -> str | None:
        """Why this run's numbers must not be used, or ``None``: request errors printed
        (whatever the exit status), a non-zero exit, or no completed inference."""
        if self.summary.errors:
            return f"perf_analyzer reported request errors: {error_text(self.summary.errors)}"
        if self.returncode != 0:
            return None  # the caller words it (unstable, or the last error line)
        thr = self.rows[0].get("throughput_infer_per_s") if self.rows else None
        if self.rows and (thr is None or thr <= 0):
            return "perf_analyzer completed no inference in its measurement windows (0 infer/s)"
        if self.summary.server_success_count == 0:
            return "the server counted no successful request in perf_analyzer's measurement windows"
        return None


def parse_run(returncode: int, lines: list[tuple[float, str]], csv_path: Path, started_s: float, ended_s: float) -> RunOutcome:
    """What one finished perf_analyzer run produced.

    Args:
        returncode: Its exit status.
        lines: Its output lines (stdout and stderr), each with when it arrived (monotonic clock, s).
        csv_path: The CSV it was asked to write (``-f``); read when it exists.
        started_s: When it was started (monotonic clock, s).
        ended_s: When it exited (monotonic clock, s).

    Returns:
        Its CSV rows, console summary, measurement windows and the time it started loading
        the server.
    """
    out = "".join(text for _, text in lines)
    rows = parse_csv(csv_path) if csv_path.is_file() else []
    windows, load_started = [], None
    for t, text in lines:
        if m := _PASS.match(text):
            windows.append(Window(t, float(m.group(2)) if m.group(2) else None))
        elif load_started is None and _LOAD_START.match(text):
            load_started = t
    return RunOutcome(
        returncode, UNSTABLE_MARK in out, rows, out[-2000:], parse_output(out), started_s, ended_s, load_started, windows
    )


#: CSV column -> (LevelResult field, factor to the field's unit).
_COLUMNS: dict[str, tuple[str, float]] = {
    "Concurrency": ("concurrency", 1),
    "Inferences/Second": ("throughput_infer_per_s", 1),
    "Client Send": ("client_send_us", 1),
    "Network+Server Send/Recv": ("network_server_us", 1),
    "Server Queue": ("server_queue_us", 1),
    "Server Compute Input": ("server_compute_input_us", 1),
    "Server Compute Infer": ("server_compute_infer_us", 1),
    "Server Compute Output": ("server_compute_output_us", 1),
    "Client Recv": ("client_recv_us", 1),
    "p50 latency": ("latency_p50_ms", 1e-3),
    "p90 latency": ("latency_p90_ms", 1e-3),
    "p95 latency": ("latency_p95_ms", 1e-3),
    "p99 latency": ("latency_p99_ms", 1e-3),
    "Avg latency": ("latency_avg_ms", 1e-3),
    "Avg GPU Utilization": ("gpu_utilization_pct", 100),
    "Avg GPU Power Usage": ("gpu_power_w", 1),
    "Max GPU Memory Usage": ("gpu_memory_used_bytes", 1),
}


def parse_csv(path: Path) -> list[dict[str, float | None]]:
    """Rows of a perf_analyzer CSV as ``{LevelResult field: value}`` in the fields' units.

    Empty cells (metrics this host lacks) become ``None``. Multi-GPU metric cells
    (``gpu0:0.5;gpu1:0.7;``) are averaged (utilisation) or summed (power, memory).
    """
    rows = []
    with open(path, newline="") as f:
        for raw in csv.DictReader(f):
            row: dict[str, float | None] = {}
            for col, (field, factor) in _COLUMNS.items():
                if col in raw:
                    v = _cell(raw[col], average=field == "gpu_utilization_pct")
                    row[field] = None if v is None else round(v * factor, 6)
            rows.append(row)
    return rows


def _cell(text: str | None, average: bool) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    if ":" in text:  # per-GPU values "uuid:value;uuid:value;"
        vals = [float(part.rsplit(":", 1)[1]) for part in text.split(";") if ":" in part]
        if not vals:
            return None
        return sum(vals) / len(vals) if average else sum(vals)
    return float(text)
