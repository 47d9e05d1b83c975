"""Run-to-run comparison: two sweeps (before/after, or two machines) level by level.

Levels are matched by variant name and (concurrency, batch size); each side is the median
over its trials, or over its rounds in a rounds run (:func:`perf.analysis.stats.points.aggregate`).
Which rule calls a change depends on how the two runs measured (:func:`rule_text` says it in
the comparison):

- **two rounds runs**: their rounds ran at different times and cannot be paired round by round,
  so each run's paired rule (:mod:`perf.analysis.stats.paired`) does not apply across them; an exact
  rank-sum test on the two runs' per-round values does (:mod:`perf.analysis.stats.unpaired`): a change
  is "higher"/"lower" at p <= 5 %, else *not distinguishable at this noise*, and with too few
  rounds on a side *too few rounds to tell*.
- **otherwise** (a sequential run on either side): :mod:`perf.analysis.stats.points`'s noise rule, a
  rounds run's rounds standing as its trials: *significant* only when both runs measured the
  level in at least 2 trials and the change exceeds both min–max spreads; a level measured once
  on either side has an unknown spread, and the comparison suggests ``--trials``.

A level flagged host busy (:func:`perf.analysis.stats.fair.unfair`: one busy round flags it) is, between
two rounds runs, judged by the same rank-sum test on the rounds of each run that were not busy,
when each has enough of them; otherwise, and always in the sequential case, it is *not measured
fairly*, and the summary says what would measure it (one sweep of both, or a quiet host). A
variant a run never measured (cut for time, failed, skipped) is listed as such, never as a
result of that run alone.
"""

from __future__ import annotations

import logging

from core.wording import count, sentence
from perf.analysis.stats.fair import unfair
from perf.analysis.stats.points import MIN_TRIALS_FOR_SPREAD, Delta, Point, delta, run_points
from perf.analysis.stats.unpaired import RULE as RANK_SUM_RULE
from perf.analysis.stats.unpaired import rank_sum
from perf.markdown import errors_text
from perf.records.results import RunResult

log = logging.getLogger(__name__)

#: Counters of one metric's verdicts: B higher, B lower, no call, no rule applies, not fair.
HIGHER, LOWER, NO_CALL, UNKNOWN, UNFAIR = range(5)


def _measurement(run: RunResult, outcomes: bool = True) -> str:
    """How ``run`` measured a level, in its design's own terms; ``outcomes=False``: its settings alone, without how many
    rounds a rounds run ran (an outcome of its budget and verdicts, not a setting: trial 28, T28-9)."""
    if run.rounds is not None:
        ran = f"{count(len(run.rounds.measured()), 'round')}, " if outcomes else ""
        return f"rounds design: {ran}visits of {run.rounds.rules.window_ms} ms windows"
    s = run.settings
    window = (
        f"{s.get('measurement_request_count', '?')}-request windows"
        if s.get("measurement_mode") == "count_windows"
        else f"{s.get('measurement_interval_ms', '?')} ms windows"
    )
    return f"sequential design: {window}, {count(int(s.get('trials') or 1), 'trial')}"


def env_line(run: RunResult, outcomes: bool = True) -> dict[str, str]:
    """The run's environment in the comparison's rows: host, CPU, GPUs, server, perf_analyzer, protocol, measurement;
    ``outcomes=False``: what two runs are told apart by ("(differs)"), their settings without what they ran to
    (:func:`_measurement`)."""
    env = run.environment
    server = env.get("server") or {}
    gpus = ", ".join(g.get("name", "?") for g in env.get("gpus") or []) or "none"
    return {
        "host": str(env.get("host", "?")),
        "cpu": f"{env.get('cpu', '?')} ({env.get('cpu_count', '?')} cores)",
        "gpus": gpus,
        "server runtime": f"{server.get('runtime', '?')} {server.get('version') or ''}".strip(),
        "perf_analyzer": str((env.get("perf_analyzer") or {}).get("version", "?")),
        "protocol": str(run.settings.get("protocol", "?")),
        "measurement": _measurement(run, outcomes),
    }


def both_rounds(a: RunResult, b: RunResult) -> bool:
    """Whether both runs measured in interleaved rounds (the rank-sum rule applies)."""
    return a.rounds is not None and b.rounds is not None


def rule_text(a: RunResult, b: RunResult, label_a: str = "A", label_b: str = "B") -> str:
    """The rule the comparison of ``a`` and ``b`` calls a change by, in words (module docstring)."""
    if both_rounds(a, b):
        return sentence(f"Both runs measured in interleaved rounds: {RANK_SUM_RULE}")
    rounds = [label for label, run in ((label_a, a), (label_b, b)) if run.rounds is not None]
    stand = (
        f" {rounds[0]} measured in rounds and the other one level after another: its rounds stand as its trials "
        "(rounds cannot be paired with another run's trials)."
        if rounds
        else ""
    )
    return (
        f"Values are medians over trials [min–max].{stand} **Significant** means both runs measured the level in at "
        f"least {MIN_TRIALS_FOR_SPREAD} trials and the change exceeds both min–max trial spreads; with fewer trials "
        "the spread is unknown and no noise level is assumed."
    )


def _sig(d: Delta | None, why: str | None = None) -> str:
    """``yes``/``no``/``spread unknown (...)``, or ``not measured fairly (host busy)`` where a side
    was measured on a busy host (:func:`perf.analysis.stats.fair.unfair`)."""
    if d is None:
        return "—"
    if why:
        return "not measured fairly (host busy)"
    return d.unknown_note if d.significant is None else ("yes" if d.significant else "no")


def _pct(d: Delta | None) -> str:
    return "—" if d is None or d.change_pct is None else f"{d.change_pct:+.1f}"


def _round_values(run: RunResult, p: Point, metric: str, quiet: bool = False) -> list[float]:
    """``metric`` of ``p``'s level in every round (trial) that measured it; ``quiet``: only the
    rounds not flagged host busy."""
    v = run.variant(p.variant)
    return [
        x
        for lv in (v.levels if v else [])
        if lv.request_rate is None and (lv.concurrency, lv.batch_size) == (p.concurrency, p.batch_size) and lv.ok
        if not (quiet and lv.host_busy)
        if (x := getattr(lv, metric)) is not None
    ]


def _quiet_verdict(a: RunResult, b: RunResult, p: Point, q: Point, metric: str) -> tuple[str, str, int]:
    """A level one side of which was flagged host busy (one busy round flags it): judged again on the
    rounds of each run that were not busy, by the same rank-sum rule, when there are enough of them
    (a busy host flags a few rounds of most levels, and "not measured fairly" everywhere answered
    nothing, trial 9 F24); else ``not measured fairly``, with the quiet rounds each run has."""
    qa, qb = _round_values(a, p, metric, quiet=True), _round_values(b, q, metric, quiet=True)
    r = rank_sum(qa, qb)
    if r is None or not r.callable:
        return (
            _pct(delta(p, q, metric)),
            f"not measured fairly (host busy; quiet rounds {len(qa)} in A, {len(qb)} in B: too few)",
            UNFAIR,
        )
    pct = "—" if r.change_pct is None else f"{r.change_pct:+.1f} q"
    kind = NO_CALL if r.verdict == "not distinguishable" else HIGHER if r.verdict == "higher" else LOWER
    return pct, f"{r.describe()} on its quiet rounds ({len(qa)} in A, {len(qb)} in B)", kind


def judge(a: RunResult, b: RunResult, p: Point, q: Point, metric: str) -> tuple[str, str, int | None]:
    """One metric of one matched level: the change in % (B − A) / A, the verdict's cell and its
    counter (:data:`HIGHER`... ; ``None`` when a side lacks the metric), by :func:`rule_text`'s rule."""
    d = delta(p, q, metric)
    if d is None:
        return "—", "—", None
    why = unfair(p, q)
    up = HIGHER if d.b > d.a else LOWER
    if both_rounds(a, b):
        r = rank_sum(_round_values(a, p, metric), _round_values(b, q, metric))
        if r is None:
            return _pct(d), "—", None
        if why:
            return _quiet_verdict(a, b, p, q, metric)
        if not r.callable:
            return _pct(d), r.describe(), UNKNOWN
        return _pct(d), r.describe(), NO_CALL if r.verdict == "not distinguishable" else up
    kind = UNFAIR if why else UNKNOWN if d.significant is None else up if d.significant else NO_CALL
    return _pct(d), _sig(d, why), kind


def measured(run: RunResult) -> list[str]:
    """The variants ``run`` has numbers for (at least one level with a throughput), in its order."""
    pts = run_points(run)
    return [n for n in pts if any(p.ok for p in pts[n])]


def not_measured(run: RunResult) -> dict[str, list[str]]:
    """The variants ``run`` lists but has no numbers for, by why (cut for time, failed, skipped,
    not reached): a variant never measured is not a result of that run."""
    have = set(measured(run))
    out: dict[str, list[str]] = {}
    for v in run.variants:
        if v.name not in have:
            why = errors_text(v.error) or ("not reached: the run stopped before it" if v.status == "pending" else v.status)
            out.setdefault(why, []).append(v.name)
    return out
