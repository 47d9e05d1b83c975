"""A run measured with a flag passed through that this version refuses, in words: one sentence for
every use of a run's numbers (``triton-perf report``'s console line and report.md, ``compare``,
``export-deployment``'s refusal and its bundle's README).

Recheck of trial 16, R16-10: a run recorded with ``--perf-analyzer-arg=--concurrency-range=1:4``
(measured 1..4 for every level, filed under c=16: T16-6) was refused on ``--resume``, but its report
and its deployment bundle were built from those mislabelled levels without a word. The refusals are
the resume's own (:func:`perf.sweep.analyzer_flags.pass_through_refusal`,
:func:`clients.runtimes.server_flags.server_arg_refusal`), made from the flags the run recorded
(``results.json`` ``settings``: ``extra_args`` and ``server.extra_args``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clients.runtimes.server_flags import server_arg_refusal
from perf.records.results import RunResult
from perf.sweep.analyzer_flags import pass_through_refusal

#: What the numbers of such a run are, said after the refusal.
MAY_BE_MISLABELLED = "its numbers may not be what they are labelled (a level, a window or a model other than the one named)"
#: What to do, said with it.
MEASURE_AGAIN = "measure it again without that flag (a new sweep: --run-id NEW)"


def refused_flags(settings: Mapping[str, Any], runtime: str | None = None) -> list[str]:
    """The refusals (each one message) of the flags a run's ``settings`` passed through that this
    version refuses, perf_analyzer's first; none when every one goes through.

    Args:
        settings: The run's saved settings (``results.json`` ``settings``).
        runtime: The runtime that started its server (``None``: as the settings say). A server the
            toolkit did not start (``remote``) never got the tritonserver flags: they are not judged.
    """
    out = []
    if (pa := pass_through_refusal(tuple(settings.get("extra_args") or ()))) is not None:
        out.append(pa.message)
    server = settings.get("server") or {}
    runtime = "remote" if server.get("urls") else runtime or server.get("runtime")
    if runtime != "remote" and (srv := server_arg_refusal(tuple(server.get("extra_args") or ()), runtime)) is not None:
        out.append(srv.message)
    return out


def measured_with_refused(run: RunResult, subject: str | None = None) -> str | None:
    """``None`` when the run passed through no flag this version refuses; else that it was measured
    with such a flag, which and why, and that its numbers may not be what they are labelled
    (:func:`refused_flags_text` without what to do: a refusal says that as its hint).

    Args:
        run: The run.
        subject: Who was measured so [default: ``run `RUN_ID```].
    """
    server = run.environment.get("server") if isinstance(run.environment, Mapping) else None
    said = refused_flags(run.settings, (server or {}).get("runtime"))
    if not said:
        return None
    return f"{subject or f'run `{run.run_id}`'} was measured with a flag this version refuses: {'; '.join(said)}; {MAY_BE_MISLABELLED}"


def refused_flags_text(run: RunResult, subject: str | None = None) -> str | None:
    """``None`` when the run passed through no flag this version refuses; else the sentence every use
    of its numbers says first: that it was measured with such a flag, which and why, that its numbers
    may not be what they are labelled, and what to do (:data:`MEASURE_AGAIN`).

    Args:
        run: The run.
        subject: Who was measured so [default: ``run `RUN_ID```].

    Example: ``"run `th` was measured with a flag this version refuses: --perf-analyzer-arg=--concurrency-range=1:4
    is refused: perf_analyzer's --concurrency-range is a level's concurrency, ...; its numbers may not be what
    they are labelled (...); measure it again without that flag (a new sweep: --run-id NEW)"``.
    """
    said = measured_with_refused(run, subject)
    return None if said is None else f"{said}; {MEASURE_AGAIN}"
