"""Which variants of a run still owe their in-process baseline: the one answer, per variant, of every place that
decides whether a run's baseline is done (trial 29, T29-1: a resume skipped the baseline for the two variants it added,
and the report said the skip "was measured since", ``triton-perf baseline RUN`` refused the run as having "its
in-process baseline", because each asked only whether any point was measured).

- the report's "Cut for time" and its "measured since" line (:mod:`perf.report.sections.rounds_budget`);
- a resume's "owes its in-process baseline" (:func:`perf.sweep.resuming.baseline_missing`, and through it
  ``--time-budget``'s "its in-process baseline is not owed");
- ``triton-perf baseline RUN``'s refusal (:func:`perf.profile.replacing.held_parts`) and what it measures then: the
  variants this names, the rest of the baseline kept (:func:`perf.profile.replacing.add_owed`);
- what a sweep's baseline after its levels (a resume's) measures of a run that has one: the variants it does not keep
  (:func:`baseline_kept`), the rest kept (s24b: a resume owing some variants' baseline measured every variant's again).
"""

from __future__ import annotations

from perf.records.results import RunResult
from perf.records.workloads import variant_name


def ranked(run: RunResult) -> list[str]:
    """The variants of ``run`` with a level with numbers (ok, or pending a resume's settling): those its report ranks,
    and a baseline stands beside; of a run split per client workload (:func:`perf.records.workloads.split_by_workload`,
    as report.md reads it), the variants of its series (review s23r, M5: ``VARIANT [b=4]`` is no target's name)."""
    ok = (v for v in run.variants if v.status in ("ok", "pending") and any(lv.ok for lv in v.levels))
    return list(dict.fromkeys(variant_name(v) for v in ok))


def baseline_owed(run: RunResult) -> list[str]:
    """The variants of ``run`` (:func:`ranked`) whose in-process baseline was never timed: the run has none, it has no
    target for the variant (a later session measured the variant, its baseline skipped or not asked), or none of the
    target's points was recorded (the time budget ran out before it). A target whose points failed or were "not run
    on this host" was measured as far as it can be: not owed, as a variant the baseline cannot run at all is not
    (its ``unmeasurable``: no build record or no artifact the toolkit runs; review s23r, M6). Empty: every ranked
    variant has its baseline."""
    b = run.baseline
    if b is None:
        return ranked(run)
    if not b.targets and not b.unmeasurable:  # a record without targets (older, by hand) tells none apart: any point is all
        return [] if any(p.ok for p in b.points) else ranked(run)
    recorded = {p.key for p in b.points}
    owed = (n for n in ranked(run) if n not in b.unmeasurable)
    return [n for n in owed if (t := b.target(n)) is None or t.key not in recorded]


def baseline_kept(run: RunResult) -> set[str]:
    """The variants whose in-process baseline a sweep's baseline after its levels (a resume's) keeps from ``run``'s and
    does not measure again: those with a target whose key has points, of a model timed in every round it planned (one
    :meth:`~perf.records.baseline.BaselineResult.cut_short` is timed again), and those the baseline cannot run
    (``unmeasurable``). Empty (every variant measured, the earlier baseline kept in ``replaced_baselines``) when the run
    has none with a measured point, or one without targets (older: it tells none apart)."""
    b = run.baseline
    if b is None or not b.targets or not any(p.ok for p in b.points):
        return set()
    short, recorded = b.cut_short(), {p.key for p in b.points}
    return {t.variant for t in b.targets if t.key in recorded and t.key.model not in short} | set(b.unmeasurable)
