"""Which variants a run measured, and which its time budget cut with or without numbers: the facts
every place that words a cut reads (:mod:`perf.analysis.recommendation.cuts` words them; the
ranking's words count them: trial 14, T14-5). Moved from :mod:`perf.analysis.recommendation.cuts`
so that the ranking reads them without an import cycle.

Every function here takes the run as loaded or as the report and the console show it, one series
per variant and client workload (:func:`perf.records.workloads.split_by_workload`), and finds a
variant's numbers in either (trial 11, F13: the split view has no record named after the variant, so
a variant measured in 2 rounds read "not measured (cut for time)" beside its numbers).
"""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import RunResult
from perf.records.workloads import variant_name


def has_numbers(run: RunResult, name: str) -> bool:
    """Whether ``run`` holds a measured level (one with a throughput) of variant or series ``name``,
    a variant's own record or any of its series (module docstring)."""
    return bool(_measured(run, name))


def rounds_measured(run: RunResult, name: str) -> int:
    """The rounds (a sequential run's trials) in which ``run`` measured variant ``name``, its series together."""
    return len({lv.trial for lv in _measured(run, name)})


def _measured(run: RunResult, name: str) -> list[LevelResult]:
    """The measured levels of variant ``name`` in ``run``, or of its series in a split view (module docstring)."""
    return [lv for v in run.variants if name in (v.name, variant_name(v)) for lv in v.levels if lv.ok]


def cut_variants(run: RunResult) -> tuple[list[str], list[str]]:
    """``(never measured, measured before)``: the variants ``run``'s time budget cut, in its cut order."""
    cuts = run.rounds.cuts if run.rounds else []  # a variant cut in two sessions (a resume) is one variant
    names = list(dict.fromkeys(c.variant for c in cuts if c.kind == "variant" and c.variant))
    return [n for n in names if not has_numbers(run, n)], [n for n in names if has_numbers(run, n)]
