"""What the in-process baseline measures (:func:`plan_targets`): for each variant of a run (or of a repository), its
served artifact's key (format, device, the intra-op threads one served instance gets), the input sizes its client
workloads sent and the batch sizes its dynamic batcher formed; a variant it cannot run in-process gets no target, only
the reason. :class:`BaselineOptions` holds what one baseline is asked (:mod:`perf.profile.baseline` measures it).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass
from tritonclient.grpc import model_config_pb2 as mc

from builders.backends import for_config, served_artifact
from builders.config.pbtxt import read_config
from builders.repository.view import Repository, RepositoryVariant
from core.errors import ToolkitError
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT
from perf.profile.runners import other_weights, reference_size
from perf.profile.timing import SWEEP_BUDGET, TimingSettings
from perf.records import results
from perf.records.baseline import BaselineKey, BaselineSize, BaselineTarget
from perf.records.results import RunResult, mixed_axes
from perf.records.workloads import input_size

#: What a variant the in-process baseline cannot run is (:func:`plan_targets` gives it no target, only the reason).
UNMEASURABLE = "not measurable in-process"


@dataclass(config=ConfigDict(arbitrary_types_allowed=True))
class BaselineOptions:
    """One in-process baseline.

    Checked when made (a pydantic dataclass): ``repository`` may be a ``str`` (it becomes a
    ``Path``); a value of the wrong type raises ``pydantic.ValidationError`` naming the field.

    Attributes:
        repository: The model repository whose variants are measured.
        run: The sweep whose variants, input sizes and formed batch sizes are measured (``None``: every
            variant of ``variants`` at its reference inputs' size, at batch 1, ``batch_sizes`` and max_batch_size).
        sizes: Each variant's client workloads' input sizes (shape texts, ``None``: not swept), where the
            caller knows them before the run measured them (a sweep's plans, for its estimate); a variant
            not in it: the sizes of the run's usable levels, else the reference inputs' size.
        variants: Variant names or patterns (default: the run's, else every indexed one).
        batch_sizes: Extra batch sizes measured for every variant (within max_batch_size).
        timing: How long each point is timed.
        eager: Also measure the build's eager model beside each artifact (default True).
        cpu_count: The server host's cores, for the python backend's thread rule (default
            this host's: the bundled and local servers run here).
        deadline: ``time.monotonic()`` of the time budget: no model's timing starts after it, and a
            model's rounds stop there (at least one; noted). ``None``: none.
        budget: Whose time budget ``deadline`` is, as the cut notes name it (:data:`perf.profile.timing.SWEEP_BUDGET`,
            or ``triton-perf baseline``'s :data:`~perf.profile.timing.COMMAND_BUDGET`).
        host_busy_threshold_pct: Other processes' CPU (% of one core) above which a point is
            flagged host busy (the run's ``host_busy_threshold_pct`` when a run is given).
    """

    repository: Path
    run: RunResult | None = None
    sizes: Mapping[str, Sequence[str | None]] = dataclasses.field(default_factory=dict)
    variants: Sequence[str] = ()
    batch_sizes: Sequence[int] = ()
    timing: TimingSettings = dataclasses.field(default_factory=TimingSettings)
    eager: bool = True
    cpu_count: int | None = dataclasses.field(default_factory=os.cpu_count)
    host_busy_threshold_pct: float = HOST_BUSY_THRESHOLD_PCT
    deadline: float | None = None
    budget: str = SWEEP_BUDGET


def formed_batches(run: RunResult | None, variant: str, shapes: Collection[str | None] | None = None) -> list[int]:
    """The batch sizes the dynamic batcher formed for ``variant`` in ``run``: every usable
    level's ``avg_server_batch_size`` rounded half up to an integer (>= 1), deduplicated, sorted;
    ``shapes``: of the levels sent at those shape texts only (``None``: at any)."""
    vr = run.variant(variant) if run else None
    if vr is None:
        return []
    formed = [lv.avg_server_batch_size for lv in vr.levels if lv.usable and (shapes is None or lv.shape in shapes)]
    return sorted({max(1, int(b + 0.5)) for b in formed if b})


def workload_sizes(opts: BaselineOptions, variant: str) -> list[str | None]:
    """The input sizes ``variant``'s client workloads sent (shape texts, ``None``: not swept): the
    caller's (:attr:`BaselineOptions.sizes`), else the run's usable levels', else ``[None]``."""
    if variant in opts.sizes:
        return list(dict.fromkeys(opts.sizes[variant]))
    vr = opts.run.variant(variant) if opts.run else None
    sent = [lv.shape for lv in vr.levels if lv.usable] if vr else []
    return list(dict.fromkeys(sent)) or [None]


def timed_sizes(opts: BaselineOptions, variant: str, reference: str | None, batches: set[int], mbs: int) -> list[BaselineSize]:
    """The sizes ``variant`` is timed at (trial 12, F23: one reference size, while the clients sent others):
    each fixed input size its workloads sent (:func:`workload_sizes`, every axis named by
    :func:`perf.records.workloads.input_size` against its ``reference`` size), at ``batches`` and the batch
    sizes its batcher formed at that size (within ``mbs``); a mixed range at none (its requests hold many sizes)."""
    sent = [s for s in workload_sizes(opts, variant) if not mixed_axes(s)]
    out = []
    for size in dict.fromkeys(input_size(s, reference) for s in sent):
        formed = formed_batches(opts.run, variant, [s for s in sent if input_size(s, reference) == size])
        out.append(BaselineSize(size, sorted(b for b in {*batches, *formed} if b == 1 or 0 < b <= mbs)))
    return out


def given_size(run: RunResult | None, rv: RepositoryVariant) -> str | None:
    """The dynamic-axis sizes the run's ``--shape`` flags (``settings["shapes"]``: served input name -> dims)
    gave ``rv``'s requests (``"seq=16"``), which a level not swept sent instead of the reference inputs'
    sizes; ``None`` without any (or without a build spec to read the axes from)."""
    given = (run.settings.get("shapes") or {}) if run is not None else {}
    try:
        spec = rv.served_spec if given else None
    except ToolkitError:
        spec = None
    return (results.shape_text(spec.sizes_of(given)) or None) if spec is not None else None


def plan_targets(
    opts: BaselineOptions,
    repo: Repository | None = None,
    configs: dict[str, mc.ModelConfig] | None = None,
    shapes: bool = True,
    left: dict[str, str] | None = None,
) -> tuple[list[tuple[BaselineTarget, RepositoryVariant, str, str]], list[str]]:
    """The variants to measure: ``(target, variant, artifact format, artifact file)`` each,
    and notes on those left out (no artifact the toolkit can run, an unreadable config: "NAME: not measurable
    in-process: why"), each also put in ``left`` (variant -> why; the record's
    :attr:`~perf.records.baseline.BaselineResult.unmeasurable`: such a variant owes no baseline). A caller that read
    them already passes ``opts.repository`` as ``repo`` and each variant's parsed ``config.pbtxt`` in ``configs`` (a
    sweep's, read once): neither is read again; ``shapes=False`` leaves ``shape`` out (no reference inputs read:
    each target's :attr:`~perf.records.baseline.BaselineTarget.sizes` are then the swept sizes as sent).

    Raises:
        RepositoryError: the repository has no such variants.
    """
    repo = repo or Repository(opts.repository)
    if opts.variants:
        names = repo.names(opts.variants, indexed=False)
    elif opts.run is not None:
        names = [v.name for v in opts.run.variants if v.status == "ok"]
    else:
        names = repo.names(indexed=False)
    planned, notes, left = [], [], {} if left is None else left
    for name in names:
        try:
            rv = repo.variant(name)
            cfg = configs[name] if configs and name in configs else read_config(rv.folder / "config.pbtxt")
        except ToolkitError as e:
            left[name] = e.message
            notes.append(f"{name}: {UNMEASURABLE}: {e.message}")
            continue
        artifact, backend = served_artifact(cfg), for_config(cfg)
        if artifact is None or backend is None or not rv.inputs:
            left[name] = "no build record or no artifact the toolkit runs"
            notes.append(f"{name}: {UNMEASURABLE}: {left[name]}")
            continue
        gpu = any(g.kind == g.KIND_GPU for g in cfg.instance_group)
        params = rv.params
        key = BaselineKey(
            model=params.model if params else (rv.manifest.model if rv.manifest else name),
            format=artifact[0],
            precision=params.precision if params else "fp32",
            device="cuda" if gpu else "cpu",
            threads=backend.instance_threads(cfg, opts.cpu_count),
        )
        mbs = int(cfg.max_batch_size)
        instances = sum(g.count or 1 for g in cfg.instance_group) or 1
        try:
            shape = reference_size(rv) if shapes else None
        except ToolkitError:  # no reference data: its points say so when they fail to load it
            shape = None
        shape = input_size(given_size(opts.run, rv), shape)  # what a level not swept sent: --shape's sizes win
        sizes = timed_sizes(opts, name, shape, {1, *opts.batch_sizes, *([mbs] if mbs > 0 else [])}, mbs)
        batches = sorted({b for z in sizes for b in z.batch_sizes})
        target = BaselineTarget(name, key, instances, batches, rv.serving, shape, sizes)
        notes += [f"{name}: {why}" for why in [other_weights(rv)] if why and opts.eager]  # T24-16: not its model
        planned.append((target, rv, artifact[0], artifact[1]))
    return planned, notes
