"""The cores of the host a co-location run was measured on: what its p99s are judged with (how much of the host
other processes took, and so how far a p99 over its budget the load can explain:
:meth:`perf.analysis.ranking.budget_latency.Judged.far_over`), as a sweep's are with its own
(:func:`perf.analysis.ranking.budget_latency.host_cores`). Each session records them in the run's environment
(:data:`CORES_KEY`); a report of the run, on any host, judges with them (the judge read ``os.cpu_count()``
of the host the report was written on). A run recorded before they were is judged with this host's, said
(:func:`cores_words`).
"""

from __future__ import annotations

from perf.measure.environment import cores as this_host
from perf.records.colocation import ColocationRecord

#: The run's :attr:`ColocationRecord.environment` key of its host's cores (the sweep's ``results.json`` key).
CORES_KEY = "cpu_count"


def recorded(record: ColocationRecord) -> int | None:
    """The cores ``record``'s sessions recorded (the last session's); ``None``: a run saved before they were."""
    got = record.environment.get(CORES_KEY)
    return got if isinstance(got, int) and got > 0 else None


def cores(record: ColocationRecord) -> int | None:
    """The cores ``record``'s p99s are judged with: the recorded ones, else this host's (:func:`cores_words` says
    it); ``None``: neither known."""
    return recorded(record) or this_host()


def cores_words(record: ColocationRecord) -> str | None:
    """For a run that recorded no cores: that its p99s are judged with this host's; ``None`` when it recorded them."""
    if recorded(record) is not None:
        return None
    return (
        f"this run recorded no host cores (saved before they were): its p99s are judged with this host's "
        f"({this_host() or 'unknown'}), which the host that measured it need not have had"
    )
