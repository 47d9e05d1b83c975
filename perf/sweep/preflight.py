"""What a sweep checks before it starts anything or writes its run folder (issue 26): a sweep
that cannot measure anything fails before a server starts and leaves no run folder, and a folder
that a failed start left holding no measurement is taken again by a plain rerun.

* :func:`check_runtime`: the runtime's server is there (a local ``tritonserver``, a Docker
  engine that answers, the bundled wheel): ``--runtime local`` without one left a run folder
  that neither ``--resume`` (which keeps the run's runtime) nor the same ``--run-id`` could use;
  and it has each variant's backend (:func:`clients.runtimes.servable.refuse_unservable`: a
  ``--serving native`` ONNX variant needs ``onnxruntime``, which the bundled server lacks), so a
  sweep of nothing the server can load starts no server and writes no folder; on servers the toolkit did not
  start, variants every one of which someone else's model of that name holds there
  (:func:`clients.runtimes.tenancy.refuse_foreign`) are refused so too. A co-location run
  (:mod:`perf.colocate.run`) runs the same check.
* :func:`require_plannable`: some variant has a level to measure (``--batch-sizes 128`` above
  every variant's max_batch_size started a server to measure nothing).
* :func:`check_axes`: every ``--shapes`` axis is a dynamic axis of some variant's build.
* :func:`check_shape_beside_sweep`: no ``--shape`` sizes an axis ``--shapes`` sweeps.
* :func:`unmeasured_folder`: a run folder whose ``results.json`` holds no measurement, or
  that a sweep stopped before its first save left without one.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from builders.repository.view import Repository
from clients.runtimes.choose import ignored_flags, resolve_runtime
from clients.runtimes.options import ServerOptions
from clients.runtimes.remote import RemoteRuntime
from clients.runtimes.servable import refuse_unservable
from clients.runtimes.server_flags import server_arg_refusal
from clients.runtimes.tenancy import refuse_foreign
from core.console import interrupted_words
from core.errors import FlagError, PerfError, ToolkitError
from core.names import require_known
from core.records import is_temp_of
from perf.measure.batch_limits import batch_sizes_error
from perf.measure.inputs import user_file
from perf.records import colocation, results
from perf.records.results import MIXED
from perf.records.run_lock import RunHold, hold_run
from perf.search.plan import VariantPlan

log = logging.getLogger(__name__)


def check_runtime(
    server: ServerOptions, names: Sequence[str] = (), resumed: bool = False, every: str | None = None
) -> dict[str, str]:
    """The runtime's server is available and can start now (:meth:`clients.runtimes.base.Runtime.check`,
    :meth:`~clients.runtimes.base.Runtime.check_can_start`), and has the backend of some variant
    of ``names`` (:func:`clients.runtimes.servable.refuse_unservable`, the rule of every command that
    starts a server for named models), before any run folder is
    written. A resumed run keeps the runtime it was started with (its numbers and the new ones are
    ranked together, so they come from one kind of server): its refusal says so, since the
    runtime's own hint (``--runtime bundled``) would be ignored on ``--resume``.

    Args:
        server: The server options (``server.repository`` holds ``names``).
        names: The variants to measure.
        resumed: A resumed run (its runtime is the saved one).
        every: Set when the run needs every one of ``names`` (a co-location run's search): one it
            cannot load refuses the run, and this says where they were named (``"--model"``).

    Returns:
        The variants its server cannot load, each with why (the caller fails them unloaded);
        empty for servers the toolkit does not start (each says so at its load).

    Raises:
        ServerError: the runtime's server is not there (the runtime's message and hint), or it
            can load none of ``names`` (each one's reason).
        FlagError: a ``--server-arg`` the toolkit does not let through (:mod:`clients.runtimes.server_flags`).
    """
    # the tritonserver flags passed through (a sweep checked them first; a server it does not start takes none)
    if (refused := server_arg_refusal(server.extra_args, "remote" if server.urls else None, resumed)) is not None:
        raise refused
    if server.urls:  # servers the toolkit does not start: the sweep's server pool connects to each (one or several)
        if (unread := ignored_flags(server, RemoteRuntime.name, "--url given")) is not None:
            raise unread  # a flag of a runtime that starts a server (--tag, --tritonserver...) would be ignored
        if server.deploy and not server.replace_models and not resumed:  # every variant someone else's there (T28-14)
            refuse_foreign(server.urls, names, "nothing was started or measured, and no run folder was written")
        return {}
    try:
        runtime, reason = resolve_runtime(server)
        if runtime.launches:
            runtime.check()
            runtime.check_can_start()
        return refuse_unservable(
            runtime,
            reason,
            Path(server.repository),
            names,
            every=f"the {every} patterns" if every else None,
            nothing="nothing was started or measured, and no run folder was written",
        )
    except ToolkitError as e:
        if resumed and not isinstance(e, FlagError):  # the runtime's hint (``--runtime bundled``): ignored on --resume
            e.hint = _resumed_hint(server)
        raise


def _resumed_hint(server: ServerOptions) -> str:
    return (
        f"--resume keeps the run's --runtime {server.runtime} (its numbers and the new ones are ranked together, "
        "so they come from one kind of server): make that server available again, or measure with another "
        "--runtime in a new run (another --run-id)"
    )


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
    raise batch_sizes_error(
        limits, batch_sizes, "this sweep", "nothing was started or measured, and no run folder was written", errors
    )


def check_size_flags(
    repository: Repository,
    names: Sequence[str],
    sweep_axes: Mapping[str, Sequence[object]],
    shapes: Mapping[str, Sequence[int]],
    batch_sizes: Sequence[int],
    input_data: object,
) -> None:
    """The checks of the flags that say what sizes are sent (``--shapes``, ``--shape``, ``--input-data``,
    ``--batch-sizes``), before anything starts: :func:`check_axes`, :func:`check_shape_beside_sweep`,
    :func:`check_mixed`.

    Raises:
        FlagError: what those refuse.
    """
    check_axes(repository, names, sweep_axes)
    check_shape_beside_sweep(repository, names, sweep_axes, shapes)
    check_mixed(sweep_axes, batch_sizes, input_data, shapes)


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


def check_shape_beside_sweep(
    repository: Repository, names: Sequence[str], sweep_axes: Mapping[str, Sequence[object]], shapes: Mapping[str, Sequence[int]]
) -> None:
    """No ``--shape`` sizes an axis that ``--shapes`` sweeps (issue 26): a ``--shape`` wins over the
    sizes of the build's spec (:func:`clients.shapes.resolve`, the user's dims first), which is how a
    level's size is sent (:func:`perf.measure.mixed.spec_at`), so ``--shapes H=64,256 --shape
    image:3,64,64`` sent 64 at the levels labelled ``H=256``. A ``--shape`` of an input without a swept
    axis stays (what it sizes is not swept); the axes a variant's build names say which (a variant
    without a build record sweeps no axis, :func:`check_axes`).

    Raises:
        FlagError: each such ``--shape``, the axes it sizes and the ``--shapes`` that sweep them, before
            anything starts; the hint gives the sizes with ``--shapes`` only.
    """
    if not sweep_axes or not shapes:
        return
    sized: dict[str, dict[str, int]] = {}  # --shape input -> the axes it sizes in some variant's build
    for name in names:
        try:
            spec = repository.variant(name).served_spec
        except ToolkitError:
            continue
        if spec is None:  # no build record: it sweeps no axis
            continue
        for given, dims in shapes.items():
            sized.setdefault(given, {}).update(spec.sizes_of({given: dims}))
    clash = {given: [a for a in axes if a in sweep_axes] for given, axes in sized.items()}
    clash = {given: axes for given, axes in clash.items() if axes}
    if not clash:
        return

    fixed = {a: n for given in clash for a, n in sized[given].items() if a not in sweep_axes}
    raise FlagError(
        "; ".join(
            f"--shape {given}:{','.join(map(str, shapes[given]))} sizes {'axis' if len(axes) == 1 else 'axes'} "
            f"{', '.join(axes)}, which {_swept(sweep_axes, axes)} {'sweeps' if len(axes) == 1 else 'sweep'}"
            for given, axes in clash.items()
        )
        + ": a --shape wins over a level's size, so a level labelled with another size would send the --shape's",
        flag="--shape",
        hint=f"give the sizes with --shapes only ({_swept(sweep_axes, dict.fromkeys(a for v in clash.values() for a in v))}"
        + "".join(f" --shapes {a}={n}" for a, n in fixed.items())
        + "), or drop --shapes",
    )


def _swept(sweep_axes: Mapping[str, Sequence[object]], axes: Iterable[str]) -> str:
    """``"--shapes H=64,256"``: the ``--shapes`` flags that sweep ``axes``."""
    return " ".join(f"--shapes {a}={','.join(map(str, sweep_axes[a]))}" for a in axes)


def check_mixed(
    sweep_axes: Mapping[str, Sequence[object]],
    batch_sizes: Sequence[int],
    input_data: object,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> None:
    """A user's file of inputs (``--input-data`` FILE) says the sizes sent, so no ``--shapes`` and no
    ``--shape`` (``shapes``) is taken beside it (a folder of raw files and perf_analyzer's own
    ``random``/``zero`` take them). perf_analyzer 2.51, run on a file whose entries carry their shape
    (every user file is written so, :func:`perf.measure.inputs.write_user_data`): a ``--shape`` that
    differs fails every level at its start ("Failed to init manager inputs: The supplied shape of [120]
    for input "x" is incompatible with the model's input shape of [400]"), one that agrees changes
    nothing; so neither wins silently, and the sweep refuses it before anything starts (R2).
    A mixed workload (``--shapes time=LO..HI``, :mod:`perf.measure.mixed`) is sent at client batch
    size 1, from generated inputs: perf_analyzer makes a request of ``-b N`` from consecutive entries
    of its input file, and refuses entries of different shapes in one request ("can not batch tensors
    with different shapes together"); a user's ``--input-data`` already says what is sent.

    Raises:
        FlagError: ``--shapes`` or ``--shape`` with a file of inputs; a mix with a client batch size above 1;
            before anything starts.
    """
    if user_file(input_data) and shapes:
        given = " ".join(f"--shape {n}:{','.join(map(str, dims))}" for n, dims in shapes.items())
        raise FlagError(
            f"{given} with --input-data {input_data}: the file's entries carry their own shapes, which are what is "
            "sent; perf_analyzer refuses a --shape that differs from them at every level's start, and one that agrees "
            "changes nothing",
            flag="--shape",
            hint="drop --shape to send the file's entries at their shapes, or drop --input-data to send generated "
            "inputs at that --shape",
        )
    if user_file(input_data):
        fixed = [f"{a}={x}" for a, sizes in sweep_axes.items() for x in sizes if MIXED not in str(x)]
        if fixed:  # trial 12 break test, B6: the numbers were labelled time=400, the file sent 120 samples
            raise FlagError(
                f"--shapes {', '.join(fixed)} with --input-data {input_data}: the file's entries carry their own "
                "shapes, which are what is sent, so every number would be labelled with a size that was not sent",
                flag="--shapes",
                hint="drop --shapes to send the file (its shapes name the inputs), or drop --input-data to send "
                "generated inputs at those sizes",
            )
    mixed = [f"{a}={x}" for a, sizes in sweep_axes.items() for x in sizes if MIXED in str(x)]
    if not mixed:
        return
    if input_data is not None:
        raise FlagError(
            f"--shapes {', '.join(mixed)} (a mix of sizes) with --input-data {input_data}: the file's entries are what is sent",
            flag="--shapes",
            hint="drop --input-data to send a generated mix, or give your mix of sizes in the file and drop the range",
        )
    if above := [b for b in batch_sizes if b > 1]:
        raise FlagError(
            f"--shapes {', '.join(mixed)} (a mix of sizes) is sent at client batch size 1 only; --batch-sizes asks for "
            f"{', '.join(map(str, above))}: perf_analyzer makes one request of consecutive input entries, which "
            "must share one shape",
            flag="--batch-sizes",
            hint="give --batch-sizes 1 with the mix, or sweep fixed sizes (--shapes AXIS=SIZE,...) at larger batch sizes",
        )


#: The folder a sweep or co-location run makes first, before its record's first save.
RAW_DIR = "raw"
#: A record's temp file (:func:`core.records.write_record`): a first save cut short.
_RECORDS = (results.RESULTS_FILE, colocation.COLOCATION_FILE)


def never_saved(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a run folder stopped before its record's first save (Ctrl-C or a
    crash between making the folder and writing ``results.json`` / ``colocation.json``): it has
    the ``raw`` folder a run makes first, no record, and no file but a first save's temp file.
    Such a folder holds no measurement (every run saves before it starts a server)."""
    if not (run_dir / RAW_DIR).is_dir() or any((run_dir / r).exists() for r in _RECORDS):
        return False
    return all(p.is_dir() or (p.parent == run_dir and any(is_temp_of(p.name, r) for r in _RECORDS)) for p in run_dir.rglob("*"))


def unmeasured_folder(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a run folder holding no measurement: one stopped before its first
    save (:func:`never_saved`), a sweep's whose ``results.json`` reads and records no level with
    numbers and no round (a start that failed before the first level), or a co-location run's
    whose ``colocation.json`` records no visit and no GPU memory. A plain rerun with the same
    ``--run-id`` takes it again (:func:`take_again`)."""
    if never_saved(run_dir):
        return True
    try:
        if colocation.is_colocation(run_dir):
            rec = colocation.load(run_dir)
            return not rec.visits and not rec.gpu_memory
        run = results.load(run_dir)
    except ToolkitError:
        return False
    rounds = run.rounds.measured() if run.rounds is not None else []
    return not rounds and not any(lv.ok for v in run.variants for lv in v.levels)


def take_again(run_dir: Path, resume: str = "--resume") -> None:
    """Refuse an existing run folder unless it holds no measurement (:func:`unmeasured_folder`),
    which is emptied for the new run (its server logs said why the earlier start failed).

    Args:
        run_dir: The run folder.
        resume: The flags that continue a run, for the hint (``"--resume --run-id ID"``).

    Raises:
        PerfError: the folder holds measurements (or is not a run folder).
    """
    if not unmeasured_folder(run_dir):
        raise PerfError(
            f"run folder {run_dir} already exists", hint=f"pass {resume} to continue it, or another --run-id", flag="--run-id"
        )
    why = "stopped before its first save" if never_saved(run_dir) else "its start failed before the first level"
    log.info("run folder %s holds no measurement (%s): it is started again", run_dir, why)
    for p in run_dir.iterdir():  # emptied, not removed: the folder this command holds (perf.records.run_lock) stays
        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()


def new_run_folder(run_dir: Path, what: str, resume: str = "--resume") -> RunHold:
    """Make run folder ``run_dir`` for a new run of command ``what`` (``"this sweep"``) and hold it
    (:mod:`perf.records.run_lock`) before an existing one is taken again (:func:`take_again`): a
    second command under one run id stops instead of emptying the first's folder.

    Raises:
        PerfError: another command holds the folder, or it holds measurements (``resume``: the flags
            that continue it, for the hint).
    """
    existed = run_dir.exists()
    run_dir.mkdir(parents=True, exist_ok=True)
    hold = hold_run(run_dir, what)
    try:
        if existed:
            take_again(run_dir, resume)
        (run_dir / RAW_DIR).mkdir(exist_ok=True)  # the first thing in a run folder (never_saved)
    except BaseException:
        hold.release()
        raise
    return hold


def interrupted_text(run_dir: Path, again: str, resume: str, holds: str | None = None, during: str = "") -> str:
    """The line a Ctrl-C (or SIGTERM, SIGHUP: named) of a sweep or co-location run prints, from the run folder as it is then
    (trial 8, F20: a Ctrl-C during the loads said "measurements so far are kept" with no level
    measured yet).

    Args:
        run_dir: The run folder.
        again: The command that starts the run again in the same folder, in words.
        resume: The command that continues it (``--resume``), in words.
        holds: What the run holds, in words (``"1 visit in 1 round; ..."``); ``None``: not said.
        during: What the stop cut, after its words (``" in the in-process baseline, ..."``); ``""``: not said.

    Returns:
        Nothing saved yet: only ``again`` starts it (``--resume`` finds nothing to continue). No
        measurement yet (:func:`unmeasured_folder`): nothing measured, and either command starts it
        again. Else: what it holds is kept there, and ``resume`` continues it.
    """
    where, stop = Path(run_dir).resolve(), interrupted_words() + during  # what stopped it named (break-it F4)
    if not any((run_dir / r).is_file() for r in _RECORDS):  # never saved (or not even made)
        return f"{stop} before the run's first save: nothing was measured; {again} starts it again in {where}"
    if unmeasured_folder(run_dir):
        return (
            f"{stop} before its first measurement: nothing was measured yet (its settings are saved in {where}); "
            f"{again} starts it again, as does {resume}"
        )
    return f"{stop}: {f'it holds {holds}, ' if holds else 'what it measured is '}kept in {where}; continue with {resume}"
