"""The in-process baseline: what each served artifact does without a server (``triton-perf baseline``,
and the end of every sweep unless ``--no-baseline``).

For each variant of a run (or of a repository), the same artifact runs in this process with the intra-op
threads one of its served instances gets (the backend's rule, :meth:`builders.backends.base.BackendConfig.instance_threads`)
on its device, beside the build's eager PyTorch model under the same threads, at each input size the sweep's clients
sent (:func:`perf.profile.plan.plan_targets`; a mixed range is timed at none), each at batch 1, at the batch sizes the sweep's dynamic
batcher formed at that size (each level's ``avg_server_batch_size``, rounded, deduplicated) and at max_batch_size.
The points of one model are timed together, interleaved in rounds
(:func:`perf.profile.timing.time_interleaved`), with the host's load recorded on each;
:mod:`perf.profile.runners` says what runs. A point this host cannot run (TensorRT or a
KIND_GPU variant without a GPU) is recorded "not run on this host" with the reason.

Python API::

    result = run_baseline(BaselineOptions(repository=Path("model_repository"), run=results.load(run_dir)))
    baseline_for_run(run_dir)          # measures and stores it as results.json's "baseline"
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builders.repository.view import RepositoryVariant
from builders.serving.torch_env import wait_policy_words
from core.errors import PerfError, ToolkitError
from core.records import RecordKind, write_record
from core.versions import package_versions
from perf.analysis.baseline_owed import baseline_kept
from perf.analysis.efficiency import SIZES_APART_HINT, sent_sizes, sizes_apart
from perf.profile.checks import BASELINE_DOING, refuse_nothing_measured, refuse_unusable, run_repository
from perf.profile.plan import UNMEASURABLE, BaselineOptions, plan_targets
from perf.profile.points import At, measure_keys
from perf.profile.replacing import add_owed, file_baseline, owed_line, owed_only, refuse_replacing, set_aside
from perf.profile.runners import baseline_keys, torch_threads_kept
from perf.profile.stopped import BaselineInterrupted, interrupted_parts, kept_in
from perf.profile.timing import ORDER_SEED, OutOfTime, TimingSettings
from perf.records import results
from perf.records.baseline import (
    BaselineKey,
    BaselinePoint,
    BaselineResult,
    BaselineSettings,
)
from perf.records.results import RunResult
from perf.records.run_lock import holding_run

log = logging.getLogger(__name__)

#: The standalone file ``triton-perf baseline REPOSITORY`` writes (a run keeps it in results.json).
BASELINE_FILE = "baseline.json"
BASELINE_KIND: RecordKind[BaselineResult] = RecordKind(
    "in-process baseline file", BaselineResult, 1, hint="measure it again with `triton-perf baseline`"
)
#: How long a sweep's baseline times each point: half of ``triton-perf baseline``'s default (about half a
#: minute for the demo's 29 points; the settings are recorded). Tests shorten it further.
SWEEP_TIMING = TimingSettings(min_run_time_s=0.1)
#: Called with one event per point: ``{"event": "baseline_point", "point": BaselinePoint, "done": i, "total": n}``,
#: as each round of a model's interleaved timing starts (``"baseline_rounds"``), as its loads and warm-up start
#: (``"baseline_loading"``), and of a model cut short (``"baseline_cut"``).
Progress = Callable[[dict[str, Any]], None]


def run_baseline(opts: BaselineOptions, progress: Progress | None = None) -> BaselineResult:
    """Measure every planned key at its input and batch sizes; returns the record (not saved).

    The points of one model (its eager module and every artifact, at every input and batch size) are
    timed together, interleaved in rounds (:func:`perf.profile.timing.time_interleaved`), with
    the host's load sampled over them (:class:`perf.measure.host.HostSampler`) and judged by the
    sweep's busy-host rule (:func:`perf.measure.host.is_host_busy`). Points that cannot run here
    are recorded "not run on this host"; a point whose runner fails is recorded "failed" with
    the error, and the others are still measured.

    Raises:
        RepositoryError: unknown variants.
        BaselineInterrupted: Ctrl-C, with the record of what it measured (:mod:`perf.profile.stopped`).
    """
    left: dict[str, str] = {}  # the variants it cannot run in-process: they owe no baseline (review s23r, M6)
    planned, notes = plan_targets(opts, left=left)
    jobs: dict[BaselineKey, tuple[RepositoryVariant, str, set[At]]] = {}  # key -> (a variant serving it, file, points)
    for target, rv, _fmt, file in planned:
        for key in baseline_keys(target.key, rv, opts.eager):
            jobs.setdefault(key, (rv, file, set()))[2].update((z.shape, b) for z in target.sizes for b in z.batch_sizes)
    total = sum(len(b) for *_, b in jobs.values())
    points: list[BaselinePoint] = []
    models = list(dict.fromkeys(k.model for k in jobs))
    stop, planned_notes = None, len(notes)
    with torch_threads_kept():
        try:
            for model in models:
                if opts.deadline is not None and time.monotonic() >= opts.deadline:
                    notes.append(f"`{model}`: not measured: {opts.budget} was spent before it")
                    continue
                group = {
                    k: (rv, f, sorted(b, key=lambda a: (a[0] or "", a[1]))) for k, (rv, f, b) in jobs.items() if k.model == model
                }
                tell = None if progress is None else _rounds_event(progress, model, len(points), total)
                if progress:  # its loads and warm-up come before its first round's line (trial 14, T14-4: 49 s unsaid)
                    n = sum(len(b) for *_, b in group.values())
                    progress({"event": "baseline_loading", "model": model, "keys": len(group), "points": n})
                try:
                    timed = measure_keys(group, opts.timing, busy_threshold(opts), opts.deadline, tell)
                except OutOfTime as e:  # no round it cannot finish starts (trial 13, T13-16)
                    notes.append(f"`{model}`: not measured: {e.words(opts.budget)}")
                    if progress:
                        progress({"event": "baseline_cut", "model": model, "text": notes[-1]})
                    continue
                rounds = BaselineResult.rounds_timed(timed, opts.timing.rounds)
                cut = f"`{model}`: timed in {rounds} of {opts.timing.rounds} rounds: {opts.budget} ran out"
                if rounds < opts.timing.rounds:  # on the console too (trial 12, F15: only the appendix said it)
                    notes.append(cut)
                    if progress:
                        progress({"event": "baseline_cut", "model": model, "text": cut})
                for p in timed:
                    points.append(p)
                    if progress:
                        progress({"event": "baseline_point", "point": p, "done": len(points), "total": total})
        except KeyboardInterrupt as e:  # what was timed is kept (the rounds timed whole), the rest named (issue 26)
            timed_whole, more = interrupted_parts(e, points, notes[planned_notes:], models, opts.timing.rounds)
            points, notes, stop = points + timed_whole, notes + more, e
    targets = [t for t, *_ in planned]
    result = BaselineResult(time.strftime("%Y-%m-%dT%H:%M:%S%z"), baseline_settings(opts), targets, points, notes, left)
    if stop is not None:
        raise BaselineInterrupted(result) from None
    return result


def _rounds_event(progress: Progress, model: str, done: int, total: int) -> Callable[[int, int, int], None]:
    """A :func:`perf.profile.points.measure_keys` ``on_round`` that says each round as a ``baseline_rounds`` event:
    the points of a model are timed together, so their own events come after its last round."""
    return lambda r, n, k: progress(
        {"event": "baseline_rounds", "model": model, "round": r, "rounds": n, "points": k, "done": done, "total": total}
    )


def busy_threshold(opts: BaselineOptions) -> float:
    """The busy-host threshold: the run's (``host_busy_threshold_pct``), else the options'."""
    if opts.run is not None and opts.run.settings.get("host_busy_threshold_pct") is not None:
        return float(opts.run.settings["host_busy_threshold_pct"])
    return opts.host_busy_threshold_pct


def baseline_settings(opts: BaselineOptions) -> BaselineSettings:
    """The settings record of ``opts`` (timer, durations, thread rule, library versions)."""
    t = opts.timing
    return BaselineSettings(
        timer="torch.utils.benchmark, each model's points interleaved in rounds (shuffled order): Timer.timeit(1) per "
        "call (p50, p99; throughput = batch / p50) and Timer.timeit(N) blocks (median and IQR)",
        min_run_time_s=t.min_run_time_s,
        warmup_s=t.warmup_s,
        warmup_runs=t.warmup_runs,
        max_runs=t.max_runs,
        inputs="the build's reference inputs (reference.npz) repeated along the batch axis; at another input size "
        "a client workload sent, inputs drawn from the build's spec at that size as the reference inputs were",
        cpu_count=opts.cpu_count,
        threads_rule="each variant's backend rule for one instance: the python backend's intra_op_threads, else "
        f"cores ({opts.cpu_count}) / instances; a native backend's thread parameter, else the library default; "
        f"torch's OpenMP threads wait with {wait_policy_words()} (the served model.py sets PASSIVE too, unless the server's environment names a policy)",
        versions=package_versions(("torch", "onnxruntime", "numpy", "tensorrt")),
        rounds=t.rounds,
        order_seed=ORDER_SEED,
        host_busy_threshold_pct=busy_threshold(opts),
    )


def baseline_for_run(
    run_dir: Path,
    opts: BaselineOptions | None = None,
    progress: Progress | None = None,
    repository: Path | None = None,
    replace: bool = False,
) -> BaselineResult:
    """Measure the baseline of the sweep in ``run_dir`` (its repository, variants and formed
    batches) and store it in its ``results.json`` (``baseline``); returns it.

    Args:
        run_dir: A run folder.
        opts: Options; ``repository`` and ``run`` are taken from the run (default options otherwise).
        progress: Called with one event dict per measured point; ``None``: silent.
        repository: The repository holding the run's variants [default: the one the run swept].
        replace: Measure it again when the run has one (kept in ``replaced_baselines``); without it
            that is refused (:func:`perf.profile.replacing.refuse_replacing`).

    Raises:
        PerfError: the run has a baseline and not ``replace``, its variants are not there or changed, its levels were all sent at mixed sizes, which
            no in-process call runs (:func:`perf.analysis.efficiency.sizes_apart`: nothing measured),
            or nothing was measured (the run is left as it was).
        PerfError: another command is writing the run (:mod:`perf.records.run_lock`): nothing was measured.
        RecordError: ``results.json`` cannot be read.
        BaselineInterrupted: Ctrl-C; what it measured is then the run's baseline (:func:`perf.profile.stopped.kept_in`).
    """
    with holding_run(Path(run_dir), "this baseline"):  # from its read to its save: no other's measurements lost
        return _baseline_for_run(Path(run_dir), opts, progress, repository, replace)


def _baseline_for_run(
    run_dir: Path, opts: BaselineOptions | None, progress: Progress | None, repository: Path | None, replace: bool
) -> BaselineResult:
    """:func:`baseline_for_run`, the run folder held."""
    run = results.load(run_dir)
    owed = [] if replace else owed_only(run, opts.variants if opts else ())  # the variants it lacks (T29-1)
    owed = measurable(run, owed, run_repository(run, repository)) if owed else owed
    # --variants of one the plan just found unmeasurable (a record from before it held them): said so, why (s24b)
    refuse_replacing(run, baseline=not replace, variants=opts.variants if opts else ())
    repo = run_repository(run, repository)
    opts = dataclasses.replace(opts or BaselineOptions(repo), repository=repo, run=run)
    opts = dataclasses.replace(opts, variants=owed) if owed else opts
    refuse_unusable(run, opts.variants, repo, BASELINE_DOING)
    if why := sizes_apart(sent_sizes(run)):  # trial 12, F23
        raise PerfError(f"no in-process baseline for run {run.run_id}: {why}", hint=SIZES_APART_HINT)
    kept = f"run {run.run_id}'s results.json keeps what it held"
    file = add_owed if owed else file_baseline  # owed: the rest of the run's baseline kept, these added
    with kept_in(run, run_dir, file):  # Ctrl-C: what it measured is filed the same way (perf.profile.stopped)
        new = refuse_nothing_measured(run_baseline(opts, progress), kept, "the run has no measured variant")
    file(run, new)
    results.save(run, run_dir)
    return new


def measurable(run: RunResult, owed: list[str], repo: Path) -> list[str]:
    """The ``owed`` variants of ``run`` (:func:`~perf.profile.replacing.owed_only`) the in-process baseline can run
    (:func:`~perf.profile.plan.plan_targets`, its one rule); the others are said once and put in the run's
    baseline's ``unmeasurable`` (review s23r, M6: a record from before it held them owed them forever, and
    ``baseline RUN`` measured nothing)."""
    left: dict[str, str] = {}
    plan_targets(BaselineOptions(repo, run=run), shapes=False, left=left)
    left = {n: why for n, why in left.items() if n in owed}
    for name, why in left.items():
        log.warning("%s: %s: %s (it owes no in-process baseline)", name, UNMEASURABLE, why)
    if run.baseline is not None:
        run.baseline.unmeasurable.update(left)
    return [n for n in owed if n not in left]


def write_baseline(result: BaselineResult, out_dir: Path) -> Path:
    """Write ``out_dir/baseline.json`` (a repository's baseline without a run; refused when it measured
    nothing); an earlier one there is kept as ``baseline.previous-N.json`` (:func:`perf.profile.replacing.set_aside`)."""
    result = refuse_nothing_measured(result, "nothing was written")
    set_aside(Path(out_dir) / BASELINE_FILE)
    return write_record(Path(out_dir) / BASELINE_FILE, BASELINE_KIND, result)


def measure_after_sweep(
    run: RunResult, run_dir: Path, repository: Path, progress: Progress | None = None, deadline: float | None = None
) -> None:
    """The sweep's hook (after its last level, the server stopped): measure the baseline of
    the run's measured variants, within the sweep's time budget (``deadline``,
    :attr:`BaselineOptions.deadline`), and save it in ``results.json``: of a run that has one (a resume's), only
    the variants it does not keep (:func:`~perf.analysis.baseline_owed.baseline_kept`), added to it as ``triton-perf
    baseline RUN`` adds them (s24b: every variant's was measured again). A problem is logged and
    left in the run's notes, never failing the finished sweep."""
    measured = [v.name for v in run.variants if v.status == "ok"]
    kept = baseline_kept(run)
    owed = [n for n in measured if n not in kept]
    if not owed:
        return
    opts = BaselineOptions(repository, run=run, timing=SWEEP_TIMING, deadline=deadline, variants=owed if kept else ())
    file = add_owed if kept else file_baseline  # a run's that holds none of these: the earlier one kept beside it
    said = owed_line(run.baseline, owed) if run.baseline is not None and kept else "measuring the in-process baseline"
    log.info("%s (triton-perf baseline; --no-baseline skips it)", said)
    try:
        with kept_in(run, run_dir, file):  # Ctrl-C: what it measured is kept in the run (the sweep says the rest)
            new = run_baseline(opts, progress)
        file(run, new)
    except ToolkitError as e:
        log.warning("in-process baseline not measured: %s", e.message)
        return
    results.save(run, run_dir)
