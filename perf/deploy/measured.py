"""What a run measured of the variant a bundle deploys, so that the deployment is what was measured.

From the run's records (:mod:`perf.records.results`):

- **threads per instance**: the variant's stamp (``VariantResult.served``, read back from the
  server after its load): a python-served variant ran the toolkit's ``model.py``, which divides
  the server host's cores among the instances; its native config gets that number written into
  the backend's thread parameters (:func:`builders.backends.base.NativeBackend.configure`:
  ``intra_op_thread_count``/``inter_op_thread_count`` for ``onnxruntime_onnx``,
  ``INTRA_OP_THREAD_COUNT`` for ``pytorch_libtorch``), since without them ONNX Runtime and LibTorch
  use every core in each instance;
- **server CPU**: the server's own CPU in cores at the chosen level (``server_cpu_cores``,
  median over its trials), which the container's CPU request is sized from
  (:func:`perf.deploy.k8s.resources`) instead of one core per instance;
- **instance groups and batching**: the bundle's config must state the ones the server ran
  (:func:`check_as_measured`); every other difference (the backend, its parameters) is listed
  in the bundle's README with how to verify it (:func:`difference_lines`), the tensor names a
  client asks for first (a native PyTorch config serves ``probs`` as ``probs__1``).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence

from clients.runtimes.served import ServedModel, ServedSettings, differences
from core.errors import PerfError
from core.wording import count
from perf.analysis.recommendation.choice import Choice
from perf.records.results import RunResult
from perf.records.workloads import series_name, workload_of, workload_text

#: Fields whose served value the bundle's config must keep: what the numbers depend on.
AS_MEASURED = ("max_batch_size", "instance_group", "dynamic_batching")


@dataclasses.dataclass(frozen=True)
class Measured:
    """What the run measured of the deployed variant.

    Attributes:
        served: What the server ran for it (its first stamp); ``None`` in runs saved before
            schema 3, which did not record it.
        server_cpu_cores: The server's own CPU at the chosen level, in cores (median over
            trials); ``None`` when not measured (a server on another host).
        level: The chosen level, in words.
        others_cpu_cores: CPU other processes used on the host while the level was measured, in
            cores (median over its trials), where the host was busy then (the server's own CPU is
            then what they left it: a floor, not its need); ``None`` on a quiet host or unsampled.
        shape: The ``--shapes`` size of the chosen level's series (``"time=4000"``), ``None``: not swept.
    """

    served: ServedModel | None
    server_cpu_cores: float | None
    level: str
    others_cpu_cores: float | None = None
    shape: str | None = None

    @property
    def threads(self) -> int | None:
        """Intra-op threads per instance the server ran (``None``: not known, or the library default)."""
        return self.served.threads_per_instance if self.served else None


def measured(run: RunResult, variant: str, level: Choice) -> Measured:
    """The records of ``variant`` behind ``level``: its levels at the level's concurrency and client
    workload (a series name carries its swept size and client batch size, ``"v [seq=64, b=8]"``:
    :func:`perf.records.workloads.series_name`)."""
    vr = run.variant(variant)
    levels = [
        lv
        for lv in (vr.levels if vr else [])
        if lv.concurrency == level.concurrency
        and lv.batch_size == level.batch_size
        and series_name(variant, workload_of(run, lv)) == level.variant
        and lv.ok
    ]
    cores = [lv.server_cpu_cores for lv in levels if lv.server_cpu_cores is not None]
    shape = levels[0].shape if levels else None
    first = next((s for s in (vr.served if vr else []) if s.moment == "after load"), None)
    where = f"concurrency {level.concurrency}, batch {level.batch_size}" + (
        f", {', '.join(workload_text(part, None) for part in shape.split(','))}" if shape else ""
    )
    busy = [lv.host_busy_pct / 100 for lv in levels if lv.host_busy and lv.host_busy_pct is not None]
    return Measured(first, statistics.median(cores) if cores else None, where, statistics.median(busy) if busy else None, shape)


def cpu_request_cores(m: Measured) -> float | None:
    """The CPU request: the measured server CPU rounded up to a tenth of a core (at least 0.1);
    ``None`` when it was not measured, or measured while other processes kept the host busy
    (:attr:`Measured.others_cpu_cores`: it is then what they left the server, not what it needs;
    trial 18, T18-9: 0.4 cores requested for two instances measured with 1.5 of 2 cores taken)."""
    if m.server_cpu_cores is None or m.others_cpu_cores is not None:
        return None
    return max(0.1, math.ceil(m.server_cpu_cores * 10 - 1e-9) / 10)


def busy_words(m: Measured) -> str | None:
    """Why a measured server CPU is not the request (:func:`cpu_request_cores`), in words; ``None`` when it is."""
    if m.server_cpu_cores is None or m.others_cpu_cores is None:
        return None
    return (
        f"the server's own CPU at {m.level}, {m.server_cpu_cores:.2f} cores, was measured while other processes used "
        f"{m.others_cpu_cores:.1f} cores of the host: what they left it, not what it needs on a node of its own"
    )


def check_as_measured(m: Measured, bundle: ServedSettings, variant: str) -> None:
    """Refuse a bundle whose config states other instance groups, batching or max_batch_size
    than the server ran (:data:`AS_MEASURED`).

    Raises:
        PerfError: names the fields.
    """
    if m.served is None:
        return
    wrong = [d for d in differences(m.served.settings, bundle, "measured", "bundle") if d.split(":")[0] in AS_MEASURED]
    if wrong:
        raise PerfError(
            f"the bundle's config of {variant} would differ from what the run measured ({'; '.join(wrong)})",
            hint="export the variant the run measured (pass --repository with the repository the run swept)",
        )


def difference_lines(m: Measured, bundle: ServedSettings, renamed: Sequence[str] = ()) -> list[str]:
    """README lines: every difference between what the server ran and the bundle's config, in
    words, or why none can be listed.

    Args:
        m: What the run measured.
        bundle: The bundle config's settings.
        renamed: The tensor names the bundle serves differently from the measured config
            (:func:`builders.config.settings.tensor_name_differences`): listed first, in bold,
            since a client written against the measured server fails on them.
    """
    names = [f"- **{d}**" for d in renamed]
    if m.served is None:
        lines = [
            "What the server ran was not recorded by this run (saved before schema 3): the bundle's config is the variant's."
        ]
        return [*lines, "What differs from what was measured:", *names] if names else lines
    diffs = differences(m.served.settings, bundle, "measured", "bundle")
    threads = (
        f"{count(m.threads, 'intra-op thread')} per instance ({m.served.threads_rule})"
        if m.threads is not None
        else f"threads per instance: {m.served.threads_rule}"
    )
    lines = [
        f"Measured with {threads}; instance groups {m.served.settings.instance_groups or '(the server chose)'}, "
        f"dynamic batching {m.served.settings.dynamic_batching or 'off'}, max_batch_size {m.served.settings.max_batch_size}: "
        "the bundle's config states the same."
    ]
    if not diffs and not names:
        return [*lines, "The bundle's config differs from what was measured in nothing else."]
    return [*lines, "What differs from what was measured:", *names, *(f"- {d}" for d in diffs)]
