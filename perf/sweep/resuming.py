"""The run ``perf/run_sweep.sh --resume RUN_ID`` continues, found or refused before anything starts; what a run
saves of its options (:func:`run_settings`), and what a resumed run takes back from the saved one
(:func:`resumed_options`): every setting it started with, so that it goes on exactly as it started."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from clients.runtimes.options import ServerOptions
from core.errors import PerfError
from core.flag_words import flag_words
from core.options import fields
from perf.analysis.baseline_owed import baseline_owed, ranked
from perf.records import results
from perf.records.results import RunResult
from perf.records.settings import MeasureSettings
from perf.sweep.options import REPORT_SETTINGS, RUN_FLAGS, SERVER_SETTINGS, SweepOptions
from perf.sweep.preflight import never_saved

log = logging.getLogger(__name__)

#: What a run saved before a setting was recorded measured with (other missing settings keep
#: the value passed now).
_BEFORE_RECORDED: dict[str, Any] = {"search": "brute", "request_rates": (), "shapes": {}, "sweep_axes": {}}


def resumed_run(run_id: str | None, results_dir: Path) -> Path:
    """The folder of the run ``--resume`` names (``run_id``) in ``results_dir``, with a saved ``results.json``.

    Raises:
        PerfError: no id, a folder stopped before its first save (:func:`nothing_to_resume`), or no such run:
            each a usage error of ``--resume`` (exit 2, :mod:`core.cli`; trial 17, T17-15: it exited 1).
    """
    if not run_id:
        raise PerfError(
            "resuming needs the id of the run to continue", hint="pass --resume RUN_ID (a folder in results/)", flag="--resume"
        )
    run_dir = results_dir / run_id
    if not (run_dir / results.RESULTS_FILE).is_file():
        if (
            refusal := nothing_to_resume(run_dir, f"the sweep's command with --run-id {run_id} instead of --resume {run_id}")
        ) is not None:
            raise refusal
        have = sorted(p.parent.name for p in results_dir.glob(f"*/{results.RESULTS_FILE}"))
        raise PerfError(
            f"there is no run {run_id!r} to resume in {results_dir}",
            hint=f"runs there: {', '.join(have) or '(none)'}",
            flag="--resume",
        )
    return run_dir


def nothing_to_resume(run_dir: Path, again: str) -> PerfError | None:
    """The refusal of ``--resume`` of a folder stopped before its first save (:func:`never_saved`):
    it holds no measurement and no options to continue with, and ``again`` (the command without
    ``--resume``) takes it again; ``None`` for any other folder."""
    if not never_saved(run_dir):
        return None
    return PerfError(
        f"run {run_dir.name} in {run_dir.parent} was stopped before its first save: it holds no measurement and no "
        "record of its options, so there is nothing to resume",
        hint=f"start it again: {again} takes the folder again",
        flag="--resume",
    )


def baseline_missing(run: RunResult, opts: SweepOptions) -> bool:
    """Whether a resumed run with nothing left to measure owes its in-process baseline (its resume line's, its run's
    and its skip advice's one rule): asked for (``--no-baseline`` not saved nor given again), a variant with numbers, and
    no whole baseline filed: none, one the budget skipped (whose advice names a resume with a longer --time-budget:
    that resume measured nothing) or one stopped part-way (Ctrl-C or the budget). Timed within the resume's budget."""
    if not opts.baseline or not ranked(run):
        return False  # nothing to compare with (one with numbers is settled ok before it: the line is said before that)
    b = run.baseline  # a variant without its baseline (trial 29, T29-1: any point measured was "not owed")
    return b is None or bool(baseline_owed(run) or b.unmeasured_models() or b.cut_short())


def server_settings(server: ServerOptions) -> dict[str, Any]:
    """The :data:`SERVER_SETTINGS` of ``server`` as JSON values (paths as strings, tuples as lists)."""
    return {k: _json(getattr(server, k)) for k in SERVER_SETTINGS}


def run_settings(opts: SweepOptions, variants: list[str], search: str) -> dict[str, Any]:
    """What a run saves of its options (``results.json`` ``settings``; :func:`resumed_options`
    takes it back): every flag of :class:`SweepOptions` but :data:`RUN_FLAGS`, the measurement
    settings flat beside them, the server's :data:`SERVER_SETTINGS` under ``"server"``.

    Args:
        opts: The sweep's options.
        variants: The variant names the patterns matched.
        search: The search mode used (``opts.search`` resolved).
    """
    out: dict[str, Any] = {"repository": str(Path(opts.server.repository).resolve())}
    for f in fields(SweepOptions):
        if not (f.flag.skip or f.flag.nested or f.name in RUN_FLAGS):
            out[f.name] = _json(getattr(opts, f.name))
    out.update(variants=list(variants), search=search, **_json(dataclasses.asdict(opts.measure)))
    out["server"] = server_settings(opts.server)
    return out


def _json(v: Any) -> Any:
    """``v`` as JSON values: paths as strings, tuples as lists (in dicts too)."""
    if isinstance(v, Path):
        return str(v)
    if isinstance(v, (tuple, list)):
        return [_json(x) for x in v]
    if isinstance(v, dict):
        return {k: _json(x) for k, x in v.items()}
    return v


def resumed_options(opts: SweepOptions, settings: dict[str, Any]) -> SweepOptions:
    """``opts`` with every setting of the saved run (:func:`run_settings`): repository,
    variants, levels, trials, measurement (perf_analyzer pass-through flags included), the
    server launch (runtime, image, ports...), the perf_analyzer binary and input data. A
    resumed run goes on exactly as it started. A setting the caller gave (``opts.given``; when
    ``None``: one that differs from the default) and that differs from the saved one is
    ignored with a warning; a latency budget or percentile, ``--no-baseline`` or
    ``--allow-shared-host`` given again replaces the saved one (:data:`REPORT_SETTINGS`: never what
    a level measures), and holds as saved when not given. A run saved before a setting was
    recorded keeps the value passed now, or what it measured with (:data:`_BEFORE_RECORDED`).
    """
    defaults = SweepOptions(server=ServerOptions(repository=opts.server.repository))
    measure_fields = [f.name for f in dataclasses.fields(MeasureSettings)]
    saved_server = settings.get("server") or {}
    server = dataclasses.replace(
        opts.server,
        repository=Path(settings["repository"]),
        given=None,  # its saved flags, not those typed (said by _warn_server); no tag saved: the image says it all
        **{**({"tag": None} if saved_server else {}), **{k: v for k, v in saved_server.items() if k in SERVER_SETTINGS}},
    )
    skipped = (*RUN_FLAGS, *REPORT_SETTINGS)
    taken = [f.name for f in fields(SweepOptions) if not (f.flag.skip or f.flag.nested or f.name in skipped)]
    back = {k: settings[k] if k in settings else _BEFORE_RECORDED.get(k, getattr(opts, k)) for k in taken}
    back["search"] = back["search"] or "brute"  # a run saved before the search measured every level
    resumed = dataclasses.replace(
        opts,
        server=server,
        measure=MeasureSettings(**{k: settings[k] for k in measure_fields if k in settings}),
        **{k: _given_again(opts, defaults, settings, k) for k in REPORT_SETTINGS},
        **back,
    )

    def said(field: str, given: Any, kept: Any, default: Any) -> bool:
        if opts.given is not None:
            return field in opts.given and _as_tuple(given) != _as_tuple(kept)
        return _as_tuple(given) not in (_as_tuple(kept), _as_tuple(default))

    for field in taken:
        given_v, kept, default = getattr(opts, field), getattr(resumed, field), getattr(defaults, field)
        if said(field, given_v, kept, default):
            # a saved None means the default took effect: say the value it stood for
            shown = resumed.rounds_rules.window_ms if field == "round_window_ms" and kept is None else kept
            _ignored(SweepOptions, field, given_v, shown)
    if opts.given is None or "measure" in opts.given:  # one line per measurement flag the user set, not the whole object
        for f in measure_fields:
            given_v, kept, default = getattr(opts.measure, f), getattr(resumed.measure, f), getattr(defaults.measure, f)
            if _as_tuple(given_v) != _as_tuple(kept) and _as_tuple(given_v) != _as_tuple(default):
                _ignored(MeasureSettings, f, given_v, kept)
    _warn_server(opts, resumed, defaults, saved_server)
    moved = Path(opts.server.repository).resolve() != Path(settings["repository"]).resolve()
    if moved and (opts.given is None or "repository" in opts.given):
        _ignored(ServerOptions, "repository", opts.server.repository, settings["repository"])
    return resumed


def _ignored(owner: Any, field: str, given: Any, kept: Any) -> None:
    """Warn that a flag given on resume is ignored, as typed (trial 9, F19: not "round_window_ms 200")."""
    log.warning("resume: %s ignored; the run continues with its saved %s", *(flag_words(owner, field, v) for v in (given, kept)))


def _given_again(opts: SweepOptions, defaults: SweepOptions, settings: dict[str, Any], key: str) -> Any:
    """A :data:`REPORT_SETTINGS` value on resume: the one passed now when its flag was given again
    (``opts.given``; when ``None``: a value other than the default), else the saved one, else (a run
    saved before it was recorded) the one passed now."""
    passed = getattr(opts, key)
    given = key in opts.given if opts.given is not None else passed != getattr(defaults, key)
    if given or settings.get(key) is None:
        return passed
    return settings[key]


def _warn_server(opts: SweepOptions, resumed: SweepOptions, defaults: SweepOptions, saved: dict[str, Any]) -> None:
    """Warn once about the server settings the caller passed that the saved run overrides."""
    if not saved or (opts.given is not None and "server" not in opts.given):
        return
    given, kept, default = server_settings(opts.server), server_settings(resumed.server), server_settings(defaults.server)
    changed = [k for k in SERVER_SETTINGS if k in saved and given[k] != kept[k] and given[k] != default[k]]
    if changed:
        log.warning(
            "resume: %s %s ignored; the run continues with its saved %s (its numbers and the new "
            "ones are ranked together, so one server set-up measures them all: a new --run-id measures with yours)",
            "server setting" if len(changed) == 1 else "server settings",
            ", ".join(flag_words(ServerOptions, k, given[k]) for k in changed),
            ", ".join(flag_words(ServerOptions, k, kept[k]) for k in changed),
        )


def _as_tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else value
