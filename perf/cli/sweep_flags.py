"""The flags ``triton-perf sweep`` would pass over, refused (exit 2) before anything is measured (issue 26, K1:
"a flag accepted and ignored"): each case listed once for :func:`core.flag_refusals.refuse_unread`, one rule for a
fresh sweep and a ``--resume``, whose servers and plan are the run's own (break-it F11, F14: a resume took
``--allow-shared-host`` for a one-server run, saved it and said "given again"; one that measured nothing took
``--time-budget`` and said "0 s on the clock of the 30 s time budget")."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from core.flag_refusals import Unread, refuse_unread


def refuse_unread_sweep(given: Collection[str], sweep: Any) -> None:
    """Refuse the typed flags this sweep would not read: ``--allow-shared-host`` where it measures on fewer than two
    servers (its own one, or one ``--url``: a resumed run's saved ones), and, on a ``--resume`` that measures
    nothing whatever its time budget (its rounds had ended with no variant left without numbers, or every planned
    level has numbers) and owes no in-process baseline, ``--time-budget``, which would time nothing.

    Args:
        given: The parameters typed (:func:`core.options.given_fields` of :class:`perf.sweep.options.SweepOptions`).
        sweep: A :class:`perf.sweep.run.Sweep` (``opts``: after ``--resume``, the run's saved settings) or, for a
            fresh sweep before it makes its run folder, anything whose ``opts`` are the options typed.

    Raises:
        FlagError: one or more typed flags it would pass over (exit 2), each named with why and what to do.
    """
    o = sweep.opts
    one = "reaches one at --url" if o.server.urls else "starts its own one"
    why = getattr(sweep, "rounds_ended", None) or "every planned level has numbers"
    refuse_unread(
        given,
        [
            Unread(
                "allow_shared_host",
                "--allow-shared-host",
                len(o.server.urls) < 2,
                "it lets several --url servers on one host or GPU be measured in parallel, and "
                + (
                    f"run {o.run_id} measures on {'one at --url' if o.server.urls else 'a server of its own'}"
                    if o.resume
                    else f"this sweep {one}"
                ),
                "drop --allow-shared-host"
                + ("" if o.resume else ", or give the servers to measure on in parallel: --url HOST:PORT,HOST:PORT"),
            ),
            Unread(
                "time_budget_s",
                "--time-budget",
                _measures_nothing(sweep),
                f"this resume of run {o.run_id} measures nothing ({why}; its in-process baseline is not owed)",
                "drop --time-budget; a new --run-id measures the variants again",
            ),
        ],
    )


def _measures_nothing(sweep: Any) -> bool:
    """Whether a resume measures nothing whatever its time budget: no round, no final group (a variant without
    numbers that a longer budget fits would be measured: the budget decides that), and no in-process baseline
    owed (the sweep's own rule, :func:`perf.sweep.resuming.baseline_missing`)."""
    from perf.sweep.resuming import baseline_missing

    if not (sweep.opts.resume and sweep.nothing_to_measure):
        return False
    group = getattr(sweep, "final_group", None)  # perf.sweep.final.ResumedRounds: its variants without numbers
    return not (group is not None and group.variants) and not baseline_missing(sweep.run, sweep.opts)
