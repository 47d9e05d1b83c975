"""A sweep's messages said once (trial 8, F8: the demo console printed "rounds: fitted again ..."
twice, as a ``WARNING`` log line and as the plan event the CLI prints).

Rule: a message the sweep sends as a progress event (``plan``, ``spent``, ``search_decision``,
``level_changed``, ``variant_failed``) is not logged as well: the listener (the CLI) says it. With no listener (the
Python API, :class:`perf.search.rounds.Rounds` on its own) :func:`log_event` is the listener: it
logs the event's words, a warning where the event says ``"warn": True`` or a variant failed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from perf.records.search import LevelChange
from perf.records.workloads import series_name

log = logging.getLogger(__name__)


def log_event(e: Mapping[str, Any]) -> None:
    """Log the words of a progress event ``e`` (module rule); events without words are not logged."""
    kind = e.get("event")
    if kind in ("plan", "spent"):
        log.log(logging.WARNING if e.get("warn") else logging.INFO, "%s", e["text"])
    elif kind == "search_decision" and e.get("decision") is not None and not e.get("provisional"):
        log.info("%s: %s", subject(e), e["decision"].words(past=False))
    elif kind == "search_decision" and e.get("reopened") and e.get("why"):  # a drop taken back (perf.search.drops)
        log.info("%s: measured again, no longer dropped: %s", e["variant"], e["why"])
    elif kind == "level_changed":
        log.info("%s", change_words(e["change"]))
    elif kind == "variant_failed":
        log.warning("variant %s failed: %s", e["variant"], e["error"])


#: How the console says each kind of :class:`perf.records.search.LevelChange`.
CHANGE_WORDS = {"retired": "no longer measured", "joined": "joins its ladder", "measured again": "measured again"}


def change_words(ch: LevelChange) -> str:
    """A change of the levels a ladder measures in words (:func:`perf.search.retirement.changes`): ``"v c=1
    seq=128 b=1: no longer measured: its p99 30.00 ms (median of 3 rounds, none host busy) is over the budget of 25 ms"``."""
    shape = f" {ch.shape}" if ch.shape else ""
    return f"{ch.variant} c={ch.concurrency}{shape} b={ch.batch_size}: {CHANGE_WORDS[ch.change]}: {ch.why}"


def loaded_words(variant: str, seconds: float, including: str = "") -> str:
    """The console's line for one variant loaded, in the sweep and in colocate (trial 21, T21-2: colocate loaded 8
    variants in ~70 s without a word): ``"loaded v in 3.4 s"``, ``including`` what the seconds also hold
    (``"its inputs made and its warm-up"``) in brackets after them."""
    return f"loaded {variant} in {seconds:.1f} s" + (f" ({including})" if including else "")


def subject(e: Mapping[str, Any]) -> str:
    """Whose stop a ``search_decision`` event says: the variant, or at one of several client workloads its series
    (``"v [seq=128]"``: each workload's ladder stops on its own, :mod:`perf.search.ladder`)."""
    return series_name(e["variant"], e.get("workload"))
