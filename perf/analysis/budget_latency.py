"""The latency a level is judged on against a latency budget, with the host's load as its covariate.

A latency budget is an absolute number: other processes' CPU on the host inflates every
latency of the round they ran in, and unlike throughput (compared as paired ratios within a
round, :mod:`perf.analysis.ranking`) an absolute percentile cannot be paired away. The budget
is a property of the variant on the host it will be deployed on, not of this host's other
jobs; load only ever adds latency. So the budget is judged on the level's **quieter rounds**:

* when none of the level's rounds was flagged host busy
  (:attr:`perf.records.levels.LevelResult.host_busy`), on the median over all its rounds (a
  quiet host: nothing changes);
* when some were, on the median over the rounds whose other-process CPU
  (:attr:`~perf.records.levels.LevelResult.host_busy_pct`) was at or below the median of its
  rounds' (the quieter half, at least half of them): the rounds closest to the deployment host;
* when the load was not sampled in every round (a server on another host), on all rounds.

A sequential (trials) run is ranked on each level's median over its trials
(:class:`perf.analysis.stats.Point`): its trials are not paired, so no quieter half is taken
(:func:`level_judged` with ``paired=False``). Whether a level is within the budget is
:func:`within` of that number, everywhere: the ranking, the recommendation and the
deployment's caveat (session 6: the caveat judged a rounds run's level on every round).

The number always carries how it was taken (:meth:`Judged.basis`): the quieter-round median
is shown beside the median over every round, and the level keeps its host-busy flag. Under
a load that lasted through every round the quieter half is loaded too: the verdict is then the
loaded host's, and the flag says so.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable

from core.errors import PerfError
from core.wording import count
from perf.markdown import fmt
from perf.records.levels import LevelResult
from perf.records.results import RunResult

#: Client latency percentiles a budget may be set on (``--latency-percentile``; Model
#: Analyzer's ``perf_latency_p90``/``p95``/``p99`` constraints), and the default.
LATENCY_PERCENTILES = (50, 90, 95, 99)
DEFAULT_LATENCY_PERCENTILE = 99


def latency_metric(percentile: int) -> str:
    """The :class:`perf.records.levels.LevelResult` field of a client latency percentile: 95 -> ``latency_p95_ms``.

    Raises:
        PerfError: not one of :data:`LATENCY_PERCENTILES`.
    """
    if percentile not in LATENCY_PERCENTILES:
        raise PerfError(
            f"latency percentile {percentile} is not one perf_analyzer reports",
            hint=f"choose one of {', '.join(map(str, LATENCY_PERCENTILES))}",
        )
    return f"latency_p{percentile}_ms"


@dataclasses.dataclass(frozen=True)
class Judged:
    """A level's latency percentile as the budget judges it (module rule).

    Attributes:
        ms: The value judged (ms): median over :attr:`rounds` rounds.
        rounds: Rounds it rests on (the quieter ones when :attr:`quieter`).
        all_ms: Median over every round with a value (ms).
        all_rounds: Rounds with a value.
        busy_rounds: Of those, rounds flagged host busy.
    """

    ms: float
    rounds: int
    all_ms: float
    all_rounds: int
    busy_rounds: int

    @property
    def quieter(self) -> bool:
        """Judged on fewer rounds than it has: the quieter ones."""
        return self.rounds < self.all_rounds

    def basis(self) -> str:
        """How :attr:`ms` was taken: ``"median of 6 rounds"``, or ``"median of its 3 rounds with the
        least other load of 6 (2 host busy; 27.10 ms over all 6)"``."""
        if not self.quieter:
            return f"median of {count(self.all_rounds, 'round')}"
        return (
            f"median of its {count(self.rounds, 'round')} with the least other load of {self.all_rounds} "
            f"({self.busy_rounds} host busy; {fmt(self.all_ms, 2)} ms over all {self.all_rounds})"
        )

    def picked_on(self, percentile: int, budget_ms: float) -> str | None:
        """Why a level is within ``budget_ms`` (ms) only on its quieter rounds, in words, with how
        the number was taken; ``None`` when its median over every round is within it too (the basis
        changed nothing)."""
        said = self.picked_note(percentile, budget_ms)
        return f"{said}, {self.basis()}" if said else None

    def picked_note(self, percentile: int, budget_ms: float) -> str | None:
        """:meth:`picked_on` without the basis (:func:`quieter_note`): for a table cell or a
        console note beside the all-rounds number (trial 7: "best under budget" beside a p99 of
        14.15 ms under a 10 ms budget, the 9.36 ms it was judged on unsaid)."""
        if not self.quieter or self.all_ms <= budget_ms:
            return None
        return quieter_note(percentile, self.ms)

    def verdict_note(self, percentile: int, budget_ms: float) -> str | None:
        """The phrase for a table cell beside the median over every round where the budget's verdict,
        taken on the quieter rounds, goes the other way (trial 10, F3: a p99 of 23.91 ms shown under a
        25 ms budget for a level ruled out on its 28.71 ms): ``"over the budget on its quieter rounds:
        p99 28.71 ms"`` or :meth:`picked_note`'s; ``None`` when both numbers say the same."""
        if not self.quieter or (self.all_ms <= budget_ms) == (self.ms <= budget_ms):
            return None
        return quieter_note(percentile, self.ms, self.ms <= budget_ms)


def quieter_note(percentile: int, ms: float, inside: bool = True) -> str:
    """The one phrase of a level within (``inside``) or over the budget only on its quieter rounds,
    with the number the verdict used: ``"within the budget on its quieter rounds: p99 9.36 ms"``."""
    return f"{'within' if inside else 'over'} the budget on its quieter rounds: p{percentile} {fmt(ms, 2)} ms"


def verdict_notes(run: RunResult, percentile: int, budget_ms: float | None) -> dict[tuple[str, int, int], str]:
    """:meth:`Judged.verdict_note` of every concurrency level of ``run`` (its series, as the report
    shows them) whose budget verdict goes the other way from its median over every round, keyed
    ``(series, batch size, concurrency)``: what a table showing that median says beside it."""
    if budget_ms is None:
        return {}
    metric, notes = latency_metric(percentile), {}
    for v in run.variants:
        keys = {(lv.batch_size, lv.concurrency) for lv in v.levels if lv.request_rate is None}
        for bs, c in keys:
            levels = [lv for lv in v.levels if (lv.batch_size, lv.concurrency, lv.request_rate) == (bs, c, None)]
            j = level_judged(levels, metric, run.rounds is not None)
            if j is not None and (note := j.verdict_note(percentile, budget_ms)):
                notes[(v.name, bs, c)] = note
    return notes


def within(judge: Judged | None, budget_ms: float | None) -> bool:
    """Whether a level is within ``budget_ms`` (ms) as the budget judges it (module rule): always
    without a budget, never without a latency."""
    return budget_ms is None or (judge is not None and judge.ms <= budget_ms)


def level_judged(levels: Iterable[LevelResult], metric: str, paired: bool) -> Judged | None:
    """The budget's latency of one level (module rule) by the run's design.

    Args:
        levels: The level's records, one per round or trial.
        metric: The latency percentile field (``latency_p99_ms``).
        paired: A rounds run (:func:`judged`); ``False``: a sequential run, the median over its trials.
    """
    if paired:
        return judged(levels, metric)
    return judge([(getattr(lv, metric), None, False) for lv in levels if lv.ok])


def judged(levels: Iterable[LevelResult], metric: str) -> Judged | None:
    """The budget's latency of one level (module rule) from its rounds' records.

    Args:
        levels: One (variant, concurrency, batch size, shape) level's records, one per round.
        metric: The latency percentile field (``latency_p99_ms``).

    Returns:
        ``None`` when no round has a value.
    """
    return judge([(getattr(lv, metric), lv.host_busy_pct, lv.host_busy) for lv in levels if lv.ok])


def judge(rounds: Iterable[tuple[float | None, float | None, bool]]) -> Judged | None:
    """The module rule on ``(latency ms, other processes' CPU %, host busy)`` per round (a
    co-location step's model, :mod:`perf.colocate.judge`, or a level's records); rounds without a
    latency are left out; ``None`` when none has one."""
    rows = [(float(v), pct, busy) for v, pct, busy in rounds if v is not None]
    if not rows:
        return None
    every = statistics.median(v for v, _, _ in rows)
    busy = sum(1 for _, _, b in rows if b)
    loads = [pct for _, pct, _ in rows]
    if busy == 0 or any(x is None for x in loads):
        return Judged(every, len(rows), every, len(rows), busy)
    cut = statistics.median(x for x in loads if x is not None)
    quiet = [v for v, pct, _ in rows if (pct or 0.0) <= cut]
    return Judged(statistics.median(quiet), len(quiet), every, len(rows), busy)
