"""The flags ``triton-perf sweep`` would pass over, refused (exit 2) before anything is measured (issue 26, K1:
"a flag accepted and ignored"): each case listed once for :func:`core.flag_refusals.refuse_unread`, one rule for a
fresh sweep and a ``--resume``, whose servers and plan are the run's own (break-it F11, F14: a resume took
``--allow-shared-host`` for a one-server run, saved it and said "given again"; one that measured nothing took
``--time-budget`` and said "0 s on the clock of the 30 s time budget")."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any, NoReturn

import click

from core.flag_refusals import Unread, named_once, refuse_unread


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


def answer_shape_flags(command: click.Command, ctx: click.Context, typed: list[str], error: click.BadParameter) -> NoReturn:
    """Raise ``error``, a refused ``--shape`` or ``--shapes``, answered from the configs and build specs of the variants
    the sweep would measure (``--repository``, ``--variants`` as ``typed``), as clients infer and coldstart answer them
    (s22z, Z-15: the sweep's ``--shape H=16`` got the form's own words; ``--shapes image:3,16,16`` "AXIS the build's
    name of image's dynamic axis" where the build names H and W): :func:`clients.shapes.refuse_shape_flags`;
    :func:`clients.shapes_flag_refusals.shapes_form_refusal`.

    Raises:
        click.BadParameter: always.
    """
    from clients.shape_models import repository_models
    from clients.shapes import refuse_shape_flags
    from clients.shapes_flag_refusals import shapes_form_refusal
    from core.errors import ToolkitError
    from perf.sweep.flags import parse_shapes_flag

    try:
        flags, _, _ = command.make_parser(ctx).parse_args(args=list(typed))
    except click.UsageError:
        raise error from None
    repository = Path(flags.get("server_repository") or "model_repository")
    variants = [v.strip() for text in flags.get("variants") or () for v in text.split(",") if v.strip()]
    if error.param is not None and error.param.name == "shapes":
        refuse_shape_flags(error, flags.get("shapes") or (), lambda: repository_models(repository, variants))
    for text in flags.get("sweep_axes") or ():  # the first one refused decides, as it did
        try:
            parse_shapes_flag(text)
            continue
        except click.BadParameter:
            pass
        try:
            said = next((s for m in repository_models(repository, variants) if (s := shapes_form_refusal(text, *m))), None)
        except ToolkitError:
            break
        if said is not None:
            raise named_once(
                click.BadParameter(str(said), ctx=error.ctx, param=error.param, param_hint=error.param_hint)
            ) from None
        break
    raise error
