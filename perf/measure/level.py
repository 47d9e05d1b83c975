"""Measuring one level: perf_analyzer runs, the samplers beside them, and the level's status.

One level is one variant at one load (concurrency, or a fixed request rate), client batch
size and trial. :func:`measure_level` runs perf_analyzer (retrying an unstable level with
longer windows, then accepting any variation and flagging it), samples the server's metrics,
local GPUs and the host's CPU while it runs, and returns a :class:`~perf.records.levels.LevelResult`
whose :attr:`~perf.records.levels.LevelResult.status` says how far its numbers can be trusted:

- ``failed``: perf_analyzer exited with an error, printed request errors (whatever its exit
  status) or completed no inference;
- ``not achieved``: a request-rate level that ran below the offered rate by more than the
  stability tolerance (``stability_pct``);
- ``host busy``: other processes used more than ``host_busy_threshold_pct`` of a core during
  the level, in a first measurement and again in a second one after a pause;
- ``unstable``: perf_analyzer's windows never agreed within the stability tolerance.

Which window each number covers: throughput, latencies and the server's batch size
(inference / execution counts) are perf_analyzer's, over its last three (merged) windows;
CPU/GPU utilisation, GPU memory, the server's own CPU (``server_cpu_cores``) and the host's
other CPU use are averaged over the span of
those same windows, timed from perf_analyzer's per-window lines
(:meth:`perf.measure.analyzer_output.RunOutcome.stable_span`); ``windows_span_s`` records that span's length
(null when the lines were absent and the whole run was used).
"""

from __future__ import annotations

import dataclasses
import logging
import shlex
import time
from collections.abc import Callable
from pathlib import Path

from clients.server import TritonServer
from core.errors import PerfError
from perf.markdown import fmt_given
from perf.measure import analyzer
from perf.measure.analyzer_output import STABILITY_WINDOWS, RunOutcome
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT, HostSampler, is_host_busy, own_roots
from perf.measure.metrics import MetricsSampler, NvmlSampler
from perf.records.levels import NO_STABLE_WINDOWS_NOTE, SPREAD_NOTE, LevelResult
from perf.records.settings import MeasureSettings

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Load:
    """What one level asks of the server.

    Attributes:
        model: Variant (model) name.
        concurrency: perf_analyzer concurrency (0 for a request-rate level).
        batch_size: Client batch size (``-b``).
        trial: Repetition index.
        request_rate: Offered requests/s of a request-rate level; ``None`` otherwise.
        shape: Swept dynamic-axis sizes (``"seq=64"``), ``None`` when not swept.
    """

    model: str
    concurrency: int
    batch_size: int = 1
    trial: int = 0
    request_rate: float | None = None
    shape: str | None = None

    def describe(self) -> str:
        """``"concurrency 4"`` or ``"request rate 200/s"`` (``" at seq=64"`` in a shape sweep)."""
        load = f"request rate {fmt_given(self.request_rate, 0)}/s" if self.request_rate else f"concurrency {self.concurrency}"
        return load + (f" at {self.shape}" if self.shape else "")


#: Default pause (s) before a level measured on a busy host is measured again.
HOST_BUSY_PAUSE_S = 2.0


@dataclasses.dataclass(frozen=True)
class HostCheck:
    """The busy-host rule.

    Attributes:
        threshold_pct: Other processes' mean CPU use (% of one core) above which a level is
            measured again (default :data:`perf.measure.metrics.HOST_BUSY_THRESHOLD_PCT`, 10).
        pause_s: Pause before the second measurement (default 2 s).
    """

    threshold_pct: float = HOST_BUSY_THRESHOLD_PCT
    pause_s: float = HOST_BUSY_PAUSE_S


Recorder = Callable[[str, str], None]


def measure_level(
    pa: Path,
    srv: TritonServer,
    load: Load,
    in_args: list[str],
    settings: MeasureSettings,
    run_dir: Path,
    record_command: Recorder,
    host: HostCheck = HostCheck(),
) -> LevelResult:
    """Measure one level; measure it once more after ``host.pause_s`` when other processes
    used the host, and flag it ``host busy`` when they still did.

    Args:
        pa: perf_analyzer binary.
        srv: The running server (the variant loaded).
        load: The level.
        in_args: perf_analyzer's input flags (:func:`perf.measure.inputs.input_args`).
        settings: Measurement settings.
        run_dir: The run folder (raw CSVs go to ``raw/``).
        record_command: ``(what, command line)`` -> written to ``commands.txt``.
        host: The busy-host rule.

    Returns:
        The level, its :attr:`~perf.records.levels.LevelResult.status` settled.
    """
    level = _measure_once(pa, srv, load, in_args, settings, run_dir, record_command)
    first = level.host_busy_pct
    if level.ok and is_host_busy(first, host.threshold_pct):
        log.warning(
            "%s %s: other processes used %.0f %% of one core during the measurement (threshold %g %%); measuring again in %g s",
            load.model,
            load.describe(),
            first,
            host.threshold_pct,
            host.pause_s,
        )
        time.sleep(host.pause_s)
        again = _measure_once(pa, srv, load, in_args, settings, run_dir, record_command)
        again.attempts += level.attempts
        busy = again.host_busy_pct
        if not again.ok:  # keep the busy numbers, flagged, rather than lose the level
            level.attempts = again.attempts
            level.host_busy = True
            level.notes.append(
                f"other processes used {first:.0f} % of one core during the level (threshold "
                f"{host.threshold_pct:g} %); the re-measurement failed: {again.error}"
            )
        elif is_host_busy(busy, host.threshold_pct):
            level = again
            level.host_busy = True
            level.notes.append(
                f"other processes used {busy:.0f} % of one core during the level ({first:.0f} % in a "
                f"first measurement; threshold {host.threshold_pct:g} %)"
            )
        else:
            level = again
            level.notes.append(
                f"measured again: other processes used {first:.0f} % of one core during a first "
                f"measurement (threshold {host.threshold_pct:g} %)"
            )
    return level.settle()


def measure_visit(
    pa: Path,
    srv: TritonServer,
    load: Load,
    in_args: list[str],
    settings: MeasureSettings,
    run_dir: Path,
    record_command: Recorder,
    host: HostCheck = HostCheck(),
) -> LevelResult:
    """One visit of a rounds sweep (:mod:`perf.search.rounds`).

    A single perf_analyzer run of its 3 merged windows of ``settings.measurement_interval_ms``,
    kept whatever their spread, never retried or re-measured here: the next round measures the
    level again, and every comparison is paired within a round. ``stable`` says whether the
    windows' throughput spread (max - min) stayed within ``stability_pct`` of their mean; ``host
    busy`` whether other processes used the host (:func:`perf.measure.host.is_host_busy`).
    Arguments as :func:`measure_level`.

    Returns:
        The level, its :attr:`~perf.records.levels.LevelResult.status` settled.
    """
    once = dataclasses.replace(settings, stability_pct=1e6, max_trials=STABILITY_WINDOWS, unstable_retries=0)
    level = _measure_once(pa, srv, load, in_args, once, run_dir, record_command)
    if not level.ok:
        return level
    spread = level.throughput_window_spread_pct
    level.stable = spread is None or spread <= settings.stability_pct
    if not level.stable:
        level.notes.append(f"{SPREAD_NOTE} {spread:.0f} % (more than ±{settings.stability_pct:g} %)")
    busy = level.host_busy_pct
    if is_host_busy(busy, host.threshold_pct):
        level.host_busy = True
        level.notes.append(f"other processes used {busy:.0f} % of one core during the visit (threshold {host.threshold_pct:g} %)")
    return level.settle()


def _measure_once(
    pa: Path, srv: TritonServer, load: Load, in_args: list[str], m: MeasureSettings, run_dir: Path, record_command: Recorder
) -> LevelResult:
    """perf_analyzer until a stable measurement, at most ``unstable_retries`` retries with
    doubled windows, then one run that accepts any variation (the level flagged unstable)."""
    url = srv.grpc_url if m.protocol == "grpc" else srv.http_url
    tag = f"r{load.request_rate:g}" if load.request_rate else f"c{load.concurrency}"
    shape = "_" + load.shape.replace("=", "").replace(",", "-") if load.shape else ""
    csv = run_dir / "raw" / f"{load.model}_b{load.batch_size}_{tag}{shape}_t{load.trial}.csv"
    attempts = m.unstable_retries + 2
    last_error = "perf_analyzer produced no measurement"
    roots, not_sampled = own_roots(srv)  # a server on another host: its load is not this host's
    for attempt in range(attempts):
        final = attempt == attempts - 1
        scale = 2 ** min(attempt, m.unstable_retries)
        cmd = analyzer.build_command(
            pa,
            load.model,
            url,
            load.concurrency,
            load.batch_size,
            csv,
            m,
            srv.metrics_url,
            in_args,
            interval_scale=scale,
            stability_pct=1e6 if final else None,
            max_trials=3 if final else None,
            request_rate=load.request_rate,
            metrics_interval_ms=srv.opts.metrics_interval_ms,
        )
        record_command(
            f"{load.model} {load.describe()} batch {load.batch_size} trial {load.trial} attempt {attempt + 1}", shlex.join(cmd)
        )
        window_s = (m.measurement_interval_ms * scale / 1000) if m.measurement_mode == "time_windows" else 10 * scale
        hosts = HostSampler(roots or [])
        try:
            with MetricsSampler(srv.metrics_url) as sampler, NvmlSampler(enabled=srv.runtime_impl.launches) as nvml, hosts:
                outcome = analyzer.run_perf_analyzer(
                    cmd, csv, timeout_s=60 + 3 * window_s * (m.max_trials + 2), on_start=hosts.add_root
                )
        except PerfError as e:  # a hung perf_analyzer fails this level, not the variant
            last_error = str(e).splitlines()[0]
            break
        problem = outcome.problem()
        if problem:
            last_error = problem
            break
        if outcome.returncode == 0 and outcome.rows:
            level = LevelResult(
                concurrency=load.concurrency,
                batch_size=load.batch_size,
                trial=load.trial,
                request_rate=load.request_rate,
                shape=load.shape,
                stable=not final and not outcome.unstable,
                attempts=attempt + 1,
                csv=str(csv.relative_to(run_dir)),
            )
            _fill(level, outcome, m, sampler, nvml, hosts if roots else None, roots[1] if roots else None)
            level.host_not_sampled = not_sampled
            level.settle()
            if final:
                log.warning(
                    "%s %s: no stable measurement in %d tries; the last, accepting any variation, is kept and flagged unstable",
                    load.model,
                    load.describe(),
                    attempt + 1,
                )
            return level
        if not outcome.unstable:
            last_error = _error_line(outcome.output_tail)
            break
        last_error = "no stable measurement"
        log.info(
            "%s %s: unstable, retrying with a %dx window", load.model, load.describe(), 2 ** min(attempt + 1, m.unstable_retries)
        )
    return LevelResult(
        concurrency=load.concurrency,
        batch_size=load.batch_size,
        trial=load.trial,
        request_rate=load.request_rate,
        shape=load.shape,
        stable=False,
        attempts=attempt + 1,
        error=last_error,
    ).settle()


def _fill(
    level: LevelResult,
    outcome: RunOutcome,
    m: MeasureSettings,
    sampler: MetricsSampler,
    nvml: NvmlSampler,
    hosts: HostSampler | None,
    server_pid: int | None,
) -> None:
    """Copy perf_analyzer's numbers into ``level`` and average the samples over the span of
    its merged windows; judge a request-rate level's achieved rate."""
    for k, v in outcome.rows[0].items():
        if k != "concurrency":
            setattr(level, k, v)
    start, end, merged = outcome.stable_span()
    span = (start, end)
    level.windows_span_s = round(end - start, 3) if merged else None
    level.throughput_window_spread_pct = outcome.window_spread_pct()
    for k, v in sampler.summary(span).items():
        if getattr(level, k) is None:  # perf_analyzer's own GPU metrics take precedence
            setattr(level, k, v)
    level.nvml_gpu_utilization_pct = nvml.mean_pct(span)
    if level.gpu_memory_used_bytes is None:  # the server's metrics had none: NVML's
        level.gpu_memory_used_bytes = nvml.max_memory_bytes(span)
    level.avg_server_batch_size = outcome.summary.avg_server_batch_size
    level.host_busy_pct = None if hosts is None else hosts.other_pct(span)
    level.server_cpu_cores = None if hosts is None else hosts.cores(server_pid, span)
    if not level.stable:
        spread = level.throughput_window_spread_pct
        level.notes.append(
            f"{NO_STABLE_WINDOWS_NOTE} within ±{m.stability_pct:g} % of each other"
            + (f" (the kept run's last three spread {spread:.0f} % in throughput)" if spread is not None else "")
        )
    offered = level.request_rate
    if offered:
        completed = (level.throughput_infer_per_s or 0.0) / max(1, level.batch_size)
        sent = outcome.summary.send_rate_per_s
        level.achieved_rate_per_s = round(min(completed, sent) if sent is not None else completed, 3)
        level.delayed_pct = outcome.summary.delayed_pct
        level.rate_achieved = level.achieved_rate_per_s >= offered * (1 - m.stability_pct / 100.0)
        if not level.rate_achieved:
            late = f"; perf_analyzer sent {level.delayed_pct:.0f} % of the requests late" if level.delayed_pct is not None else ""
            level.notes.append(
                f"achieved {level.achieved_rate_per_s:,.0f} of {offered:,.0f} requests/s offered "
                f"(more than the {m.stability_pct:g} % tolerance below){late}"
            )


def _error_line(output: str) -> str:
    """The last line of perf_analyzer's output that names an error (else its last line)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "error" in ln.lower() or "failed" in ln.lower():
            return ln[:300]
    return (lines[-1] if lines else "perf_analyzer failed")[:300]
