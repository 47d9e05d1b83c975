"""What a sweep checks before it starts anything or writes its run folder (issue 26): a sweep
that cannot measure anything fails before a server starts and leaves no run folder, and a folder
that a failed start left holding no measurement is taken again by a plain rerun.

* :func:`check_runtime`: the runtime's server is there (a local ``tritonserver``, a Docker
  engine that answers, the bundled wheel): ``--runtime local`` without one left a run folder
  that neither ``--resume`` (which keeps the run's runtime) nor the same ``--run-id`` could use.
* :func:`require_plannable`: some variant has a level to measure (``--batch-sizes 128`` above
  every variant's max_batch_size started a server to measure nothing).
* :func:`check_axes`: every ``--shapes`` axis is a dynamic axis of some variant's build.
* :func:`unmeasured_folder`: a run folder whose ``results.json`` holds no measurement.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from builders.repository.view import Repository
from clients.runtimes.choose import resolve_runtime
from clients.runtimes.options import ServerOptions
from core.errors import FlagError, PerfError, ToolkitError
from core.names import require_known
from perf.records import results
from perf.search.plan import VariantPlan

log = logging.getLogger(__name__)


def check_runtime(server: ServerOptions, resumed: bool = False) -> None:
    """The runtime's server is available and can start now (:meth:`clients.runtimes.base.Runtime.check`,
    :meth:`~clients.runtimes.base.Runtime.check_can_start`), before any run folder is written. A resumed run keeps the runtime it was started with (its numbers
    and the new ones are ranked together, so they come from one kind of server): its refusal says
    so, since the runtime's own hint (``--runtime bundled``) would be ignored on ``--resume``.

    Raises:
        ServerError: the runtime's server is not there (the runtime's message and hint).
    """
    if server.urls:  # servers the toolkit does not start: the sweep's server pool connects to each (one or several)
        return
    try:
        runtime, _ = resolve_runtime(server)
        if runtime.launches:
            runtime.check()
            runtime.check_can_start()
    except ToolkitError as e:
        if resumed:  # the runtime's own hint (``or use --runtime bundled``) would be ignored on --resume
            e.hint = (
                f"--resume keeps the run's --runtime {server.runtime} (its numbers and the new ones are ranked together, "
                "so they come from one kind of server): make that server available again, or measure with another "
                "--runtime in a new run (another --run-id)"
            )
        raise


def require_plannable(plans: Mapping[str, VariantPlan], batch_sizes: Sequence[int]) -> None:
    """Some variant has a level to measure; else the sweep is refused before it starts.

    Raises:
        FlagError: ``--batch-sizes`` above every variant's max_batch_size (naming each limit).
        PerfError: no variant's ``config.pbtxt`` could be read (naming each error).
    """
    if not plans or any(p.levels for p in plans.values()):
        return
    limits = {n: int((p.config or {}).get("max_batch_size", 0)) for n, p in plans.items() if p.error is None}
    errors = [f"{n}: {p.error}" for n, p in plans.items() if p.error is not None]
    if not limits:
        raise PerfError(f"no variant can be measured: {'; '.join(errors)}", hint="rebuild them with `builders build`")
    top = max(max(1, m) for m in limits.values())
    each = ", ".join(f"{n} {m}" + (" (batch 1 only)" if m == 0 else "") for n, m in sorted(limits.items()))
    raise FlagError(
        f"{'batch sizes' if len(batch_sizes) > 1 else 'batch size'} {', '.join(map(str, batch_sizes))} "
        f"{'are' if len(batch_sizes) > 1 else 'is'} above the max_batch_size of every variant of this sweep ({each})"
        + (f"; not readable: {'; '.join(errors)}" if errors else "")
        + ": nothing was started or measured, "
        "and no run folder was written",
        flag="--batch-sizes",
        hint=f"give --batch-sizes {top} or less, or build variants with a larger max_batch_size "
        "(`builders build --max-batch-sizes`)",
    )


def check_axes(repository: Repository, names: Sequence[str], sweep_axes: Mapping[str, object]) -> None:
    """Every ``--shapes`` axis is a dynamic axis of some variant's build (a variant without it
    is measured at its own shape, noted); an axis none has is a mistake in the flag.

    Raises:
        FlagError: names the axis and the axes the builds have.
    """
    known: set[str] = set()
    for name in names if sweep_axes else ():
        try:
            spec = repository.variant(name).spec
        except ToolkitError:
            continue
        known |= set(spec.dynamic_axes if spec else ())
    require_known(
        "--shapes",
        sweep_axes,
        sorted(known),
        kind="dynamic axis",
        owner="the builds of this sweep's variants",
        hint="name an axis the builds have (as in --shapes seq=16,64), or drop --shapes",
    )


def unmeasured_folder(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a run folder holding no measurement: its ``results.json`` reads
    and records no level with numbers and no round (a start that failed before the first
    level). A plain rerun with the same ``--run-id`` takes it again (:func:`take_again`)."""
    try:
        run = results.load(run_dir)
    except ToolkitError:
        return False
    rounds = run.rounds.rounds if run.rounds is not None else []
    return not rounds and not any(lv.ok for v in run.variants for lv in v.levels)


def take_again(run_dir: Path) -> None:
    """Refuse an existing run folder unless it holds no measurement (:func:`unmeasured_folder`),
    which is emptied for the new run (its server logs said why the earlier start failed).

    Raises:
        PerfError: the folder holds measurements (or is not a run folder).
    """
    if not unmeasured_folder(run_dir):
        raise PerfError(f"run folder {run_dir} already exists", hint="pass --resume to continue it, or another --run-id")
    log.info("run folder %s holds no measurement (its start failed before the first level): it is started again", run_dir)
    shutil.rmtree(run_dir)
