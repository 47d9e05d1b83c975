"""The host's load as a covariate of every number the toolkit measures.

Every measurement — a sweep level, an in-process baseline point, a precision-study row, a
cold start's first requests — records what other processes did on this host while it ran
(:class:`perf.measure.host.HostSampler`): three fields with the same names in each record:

- ``host_busy_pct``: CPU used by processes other than the measurement's own, in % of one core
  (mean over the measurement); ``None`` when not sampled;
- ``host_busy``: ``host_busy_pct`` above the threshold (:func:`perf.measure.metrics.is_host_busy`:
  one rule, one threshold for all of them);
- ``host_not_sampled``: why ``host_busy_pct`` is ``None`` (:data:`core.host_load.NOT_SAMPLED_ELSEWHERE`...).

A flagged number carries :data:`HOST_BUSY` as its status into every table, plot and sentence
(:func:`perf.markdown.flag_mark`).
"""

from __future__ import annotations

from typing import Literal

#: The status of a number other processes' CPU moved: never evidence on its own.
HOST_BUSY: Literal["host busy"] = "host busy"


def load_status(status: str, host_busy: bool) -> str:
    """The status a record's number is marked with: :data:`HOST_BUSY` for a measured one
    (``status`` ``"ok"`` or ``"measured"``) taken on a busy host, else ``status`` itself."""
    return HOST_BUSY if host_busy and status in ("ok", "measured") else status
