"""The latency a level is judged on against a latency budget, with the host's load as its covariate.

A latency budget is an absolute number: other processes' CPU on the host inflates every
latency of the round they ran in, and unlike throughput (compared as paired ratios within a
round, :mod:`perf.analysis.ranking.rank`) an absolute percentile cannot be paired away. The budget
is a property of the variant on the host it will be deployed on, not of this host's other
jobs; load only ever adds latency. So the budget is judged on the level's **quieter rounds**
where it has enough of them:

* when none of the level's rounds was flagged host busy
  (:attr:`perf.records.levels.LevelResult.host_busy`), on the median over all its rounds (a
  quiet host: nothing changes); with fewer than :data:`MIN_QUIET_ROUNDS` of them (a quiet run
  of 2 rounds: their median is their mean) a level over the budget is **not verified here**,
  as below (:attr:`Judged.short`);
* when some were, on the median over the rounds **not** flagged host busy, when there are at
  least :data:`MIN_QUIET_ROUNDS` of them: the rounds closest to the deployment host;
* else (fewer rounds not host busy, or none), and when the load was not sampled in every round
  (a server on another host), on the median over all rounds. Load only adds latency, so a level
  within the budget there is within it; a level over it is **not verified here**: a quiet host
  might meet the budget, and this host gave no quiet rounds enough to tell
  (:meth:`Judged.unverified_note`). Trial 11 (F23): the rule took the less loaded half of 3
  rounds, all 3 host busy, whose "median" of 2 was the mean of one round within the budget and
  one over it, and called the level within the budget.

A sequential (trials) run is ranked on each level's median over its trials
(:class:`perf.analysis.stats.points.Point`): its trials are not paired, so no quieter rounds are taken
(:func:`level_judged` with ``paired=False``). Whether a level is within the budget is
:func:`within` of that number, everywhere: the ranking, the recommendation and the
deployment's caveat (session 6: the caveat judged a rounds run's level on every round).

The number always carries how it was taken (:meth:`Judged.basis`): the quieter-round median
is shown beside the median over every round, a median over rounds some of which were host
busy says how many, and the level keeps its host-busy flag.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable, Iterator

from core.errors import PerfError
from core.wording import count, some_of
from perf.markdown import apart, fmt, times
from perf.records.levels import LevelResult
from perf.records.results import RunResult

#: Client latency percentiles a budget may be set on (``--latency-percentile``; Model
#: Analyzer's ``perf_latency_p90``/``p95``/``p99`` constraints), and the default.
LATENCY_PERCENTILES = (50, 90, 95, 99)
DEFAULT_LATENCY_PERCENTILE = 99

#: The fewest rounds not flagged host busy that a level's budget verdict may rest on alone
#: (module rule). With 3, the median is a measured round and at least 2 of the 3 are at or below
#: it: one round cannot set it. With 2 it is the mean of a round within the budget and one over
#: it (trial 11, F23); with 1 it is one round.
MIN_QUIET_ROUNDS = 3

#: The module rule in words, for a note or a label that states which number a verdict used.
RULE_WORDS = (
    "the median of its rounds; where some were host busy, of those not host busy when at least "
    f"{MIN_QUIET_ROUNDS} were, else of every round"
)


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
        rounds: Rounds it rests on (those not host busy when :attr:`quieter`).
        all_ms: Median over every round with a value (ms).
        all_rounds: Rounds with a value.
        busy_rounds: Of those, rounds flagged host busy.
        short: A rounds run's quiet level of fewer than :data:`MIN_QUIET_ROUNDS` rounds (:func:`judged`):
            a verdict over the budget is not verified here, as on a loaded host's.
        load_pct: The most CPU other processes used in a round :attr:`ms` rests on (% of one core);
            ``None`` where a round's load was not sampled.
        cores: The host's cores (the run's environment), for :func:`load_slowdown`; ``None``: unknown.
    """

    ms: float
    rounds: int
    all_ms: float
    all_rounds: int
    busy_rounds: int
    short: bool = False
    load_pct: float | None = None
    cores: int | None = None

    @property
    def quieter(self) -> bool:
        """Judged on fewer rounds than it has: those not host busy."""
        return self.rounds < self.all_rounds

    @property
    def loaded(self) -> bool:
        """Judged on every round although some were host busy: too few were not (module rule)."""
        return self.busy_rounds > 0 and not self.quieter

    def basis(self) -> str:
        """How :attr:`ms` was taken: ``"median of 6 rounds"``; ``"median of its 4 rounds not host
        busy of 6 (2 host busy; 27.10 ms over all 6)"``; ``"median of 3 rounds, all 3 host busy"``;
        ``"median of 4 rounds, 3 of them host busy (1 not: fewer than the 3 the budget is judged on
        alone)"``."""
        if self.quieter:
            return (
                f"median of its {count(self.rounds, 'round')} not host busy of {self.all_rounds} "
                f"({self.busy_rounds} host busy; {fmt(self.all_ms, 2)} ms over all {self.all_rounds})"
            )
        said = f"median of {count(self.all_rounds, 'round')}"
        if not self.loaded:
            return said
        if self.busy_rounds == self.all_rounds:
            return f"{said}, all {self.all_rounds} host busy" if self.all_rounds > 1 else f"{said}, host busy"
        quiet = self.all_rounds - self.busy_rounds
        return (
            f"{said}, {self.busy_rounds} of them host busy ({quiet} not: fewer than the "
            f"{MIN_QUIET_ROUNDS} the budget is judged on alone)"
        )

    def unverified_why(self, percentile: int, budget_ms: float | None) -> str | None:
        """Why a level over ``budget_ms`` (ms) on rounds that were (nearly) all host busy
        (:attr:`loaded`), or on too few quiet ones (:attr:`short`), is not verified here, with its number:
        ``"every round host busy; p99 5.89 ms over all 3"``, ``"1 of 4 rounds not host busy, fewer than
        the 3 the budget is judged on alone; p99 5.89 ms over all 4"``, ``"2 rounds, fewer than the 3 the
        budget is judged on alone; p99 5.89 ms over all 2"``; ``None`` when the level is within the budget, or over it
        on enough rounds not host busy (module rule: a quiet host might meet it)."""
        if budget_ms is None or not (self.loaded or self.short) or self.ms <= budget_ms or self.far_over(percentile, budget_ms):
            return None
        over = f" over all {self.all_rounds}" if self.all_rounds > 1 else ""
        return f"{self.too_few_quiet()}; p{percentile} {fmt(self.ms, 2)} ms{over}"

    def far_over(self, percentile: int, budget_ms: float | None) -> str | None:
        """Where the CPU this host's load took cannot explain the miss on average (a single call can still wait
        longer on one preemption: the words claim no more than that bound; trial 13, T13-15: "a quiet host might meet the
        budget" said of p99s 13-120x the budget): :attr:`ms` over ``budget_ms`` by more than the most the
        load of its rounds can slow a level (:func:`load_slowdown`), in words: ``"far over the budget; more than
        the CPU host load took explains (p99 13.36 ms, 13x the budget; other processes used at most 1.1 of 2 cores,
        which slows a level's work at most 2.2x on average)"``; ``None`` otherwise, or when the load or the cores are unknown."""
        detail = self.far_detail(percentile, budget_ms)
        return f"far over the budget; more than the CPU host load took explains ({detail})" if detail else None

    def far_detail(self, percentile: int, budget_ms: float | None) -> str | None:
        """:meth:`far_over`'s numbers alone: ``"p99 13.36 ms, 13x the budget; other processes used at most
        1.1 of 2 cores, which slows a level's work at most 2.2x on average"``; ``None`` where :meth:`far_over` is, and for a level not
        :attr:`loaded` (a quiet level of too few rounds is not verified for its rounds, not for load)."""
        bound = load_slowdown(self.load_pct, self.cores)
        if not self.loaded or budget_ms is None or budget_ms <= 0 or bound is None or self.ms <= budget_ms * bound:
            return None
        ratio = self.ms / budget_ms  # over the bound: both with the decimals that show it (trial 19, T19-3: "1×")
        d = apart(ratio, bound, 1)
        said = times(ratio) if ratio >= 10 else f"{ratio:.{d}f}×"
        own = times(bound)  # never "1.0×" for a bound of 1.02 (s17b's re-render): its own decimals, or the pair's
        slows = own if len(own.rstrip("×").partition(".")[2]) >= d else f"{bound:.{d}f}×"
        return (
            f"p{percentile} {fmt(self.ms, 2)} ms, {said} the budget; other processes used at most "
            f"{(self.load_pct or 0.0) / 100:.1f} of {self.cores} cores, which slows a level's work at most {slows} on average"
        )

    def too_few_quiet(self) -> str:
        """Why a :attr:`loaded` (or :attr:`short`) level was judged on every round: ``"every round host busy"``
        (``"its one round host busy"``), ``"1 of 4 rounds not host busy, fewer than the 3 the budget is judged
        on alone"``, ``"2 rounds, fewer than the 3 the budget is judged on alone"``."""
        quiet = self.all_rounds - self.busy_rounds
        if self.short and quiet == self.all_rounds:
            return f"{count(self.all_rounds, 'round')}, fewer than the {MIN_QUIET_ROUNDS} the budget is judged on alone"
        if quiet == 0:
            return "every round host busy" if self.all_rounds > 1 else "its one round host busy"
        return f"{quiet} of {count(self.all_rounds, 'round')} not host busy, fewer than the {MIN_QUIET_ROUNDS} the budget is judged on alone"

    def might_meet(self) -> str:
        """What might meet the budget that this level was not verified over (:meth:`unverified_why`): ``"a quiet
        host might meet it"`` (:attr:`loaded`), or ``"more rounds might meet it"`` (:attr:`short`: the host was quiet)."""
        return "a quiet host might meet it" if self.loaded else "more rounds might meet it"

    def unverified_note(self, percentile: int, budget_ms: float | None) -> str | None:
        """:meth:`unverified_why` as a verdict: ``"not verified here (every round host busy; p99 5.89
        ms over all 3)"``, where "over the budget" would be a loaded host's verdict (trial 11, F23)."""
        why = self.unverified_why(percentile, budget_ms)
        return f"not verified here ({why})" if why else None

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
        p99 28.71 ms"`` or :meth:`picked_note`'s; also of a level over the budget on its quieter rounds
        and over every round, the number its exclusion rests on (trial 12, F12: a row ruled out on its
        30.31 ms showed 26.84 ms beside the pick's 29.25 ms, within on its quieter rounds, and no reason);
        ``None`` when not judged on its quieter rounds, or within the budget on both numbers."""
        inside = self.ms <= budget_ms
        if not self.quieter or (inside and self.all_ms <= budget_ms):
            return None
        return quieter_note(percentile, self.ms, inside)


def quieter_note(percentile: int, ms: float, inside: bool = True) -> str:
    """The one phrase of a level within (``inside``) or over the budget only on its quieter rounds,
    with the number the verdict used: ``"within the budget on its quieter rounds: p99 9.36 ms"``."""
    return f"{'within' if inside else 'over'} the budget on its quieter rounds: p{percentile} {fmt(ms, 2)} ms"


def _levels(run: RunResult, metric: str) -> Iterator[tuple[str, int, int, Judged]]:
    """``(series, batch size, concurrency, judged)`` of every concurrency level of ``run`` with a
    value of ``metric``, in the run's order (its variants, each level by batch size, concurrency)."""
    for v in run.variants:
        keys = sorted({(lv.batch_size, lv.concurrency) for lv in v.levels if lv.request_rate is None})
        for bs, c in keys:
            levels = [lv for lv in v.levels if (lv.batch_size, lv.concurrency, lv.request_rate) == (bs, c, None)]
            if (j := level_judged(levels, metric, run.rounds is not None, cores=host_cores(run))) is not None:
                yield v.name, bs, c, j


def host_cores(run: RunResult) -> int | None:
    """The cores of the host ``run`` was measured on (its environment's ``cpu_count``), ``None`` unknown."""
    env = run.environment
    cores = env.get("cpu_count") if isinstance(env, dict) else getattr(env, "cpu_count", None)
    return int(cores) if cores else None


def verdict_notes(run: RunResult, percentile: int, budget_ms: float | None) -> dict[tuple[str, int, int], str]:
    """:meth:`Judged.verdict_note` of every concurrency level of ``run`` (its series, as the report
    shows them) judged on its quieter rounds where that number is not what its median over every
    round says (the verdict goes the other way, or an exclusion rests on it), keyed
    ``(series, batch size, concurrency)``: what a table showing that median says beside it."""
    if budget_ms is None:
        return {}
    got = ((name, bs, c, j.verdict_note(percentile, budget_ms)) for name, bs, c, j in _levels(run, latency_metric(percentile)))
    return {(name, bs, c): note for name, bs, c, note in got if note}


def unverified_words(run: RunResult, percentile: int, budget_ms: float | None, named: int = 3) -> str | None:
    """:func:`unverified_sentences` in one text (the console's), ``None`` when there is none."""
    return " ".join(unverified_sentences(run, percentile, budget_ms, named)) or None


def unverified_sentences(run: RunResult, percentile: int, budget_ms: float | None, named: int = 3) -> list[str]:
    """The levels of ``run`` over ``budget_ms`` (ms) that this host cannot judge
    (:meth:`Judged.unverified_why`), counted and the first named, in one sentence: ``"1 level over
    the p99 budget of 5.00 ms is not verified here: its host gave fewer than 3 rounds not host busy
    to judge it on, and a quiet host might meet the budget: `a` at concurrency 1 (every round host
    busy; p99 5.89 ms over all 3)."``; a quiet level of too few rounds in its own sentence, which names no host
    load: ``"... is not verified here: measured on a quiet host in fewer than the 3 rounds the budget is judged on,
    and more rounds might meet the budget: ..."`` (trial 15, T15-3: a quiet run's 1-round levels were said to blame
    the host); one sentence per kind (report.md gives each its bullet: trial 19, T19-17), none when there is none.
    ``named``: the levels each sentence
    names before it counts the rest (the console names 1: trial 14, its two sentences ran to 1,000+
    characters each, printed twice by the demo)."""
    if budget_ms is None:
        return []
    levels = list(_levels(run, latency_metric(percentile)))
    at = {(name, bs, c): f"`{name}` at concurrency {c}" + (f" (batch {bs})" if bs != 1 else "") for name, bs, c, _ in levels}
    found = [
        (f"{at[name, bs, c]} ({why})", j.loaded) for name, bs, c, j in levels if (why := j.unverified_why(percentile, budget_ms))
    ]
    far = [f"{at[name, bs, c]} ({why})" for name, bs, c, j in levels if (why := j.far_detail(percentile, budget_ms))]
    budget = f"over the p{percentile} budget of {fmt(budget_ms, 2)} ms"
    far_words = (
        f"{count(len(far), 'level')} {budget} {'is' if len(far) == 1 else 'are'} far over it; "
        f"more than the CPU host load took explains: {some_of(far, named)}."
        if far
        else ""
    )
    loaded, few = [w for w, busy in found if busy], [w for w, busy in found if not busy]
    said = []
    if loaded:  # its rounds host busy: the host is the cause
        one = len(loaded) == 1
        said.append(
            f"{count(len(loaded), 'level')} {budget} {'is' if one else 'are'} not verified here: {'its' if one else 'their'} "
            f"host gave fewer than {MIN_QUIET_ROUNDS} rounds not host busy to judge {'it' if one else 'them'} on, and a quiet "
            f"host might meet the budget: {some_of(loaded, named)}."
        )
    if few:  # quiet rounds, too few of them (trial 15, T15-3: a quiet run's 1-round levels were said to blame the host)
        one = len(few) == 1
        said.append(
            f"{count(len(few), 'level')} {budget} {'is' if one else 'are'} not verified here: measured on a quiet host in "
            f"fewer than the {MIN_QUIET_ROUNDS} rounds the budget is judged on, and more rounds might meet the budget: "
            f"{some_of(few, named)}."
        )
    return [*said, *([far_words] if far_words else [])]


def load_slowdown(load_pct: float | None, cores: int | None) -> float | None:
    """The most a host's load can have slowed a level: ``cores / (cores - load)``, ``load`` the cores'
    worth of CPU other processes used (``load_pct`` / 100); ``None`` when either is unknown or the load
    fills the host (no bound).

    Why: other processes that used ``load`` cores on average left the level's own processes (server,
    perf_analyzer) at least ``cores - load`` of the ``cores`` a quiet host gives them, so work that needs
    the same CPU time takes at most ``cores / (cores - load)`` times as long. It bounds the CPU share a
    level lost, averaged over its windows, taken at the most loaded round its number rests on; a single
    call can wait longer on one preemption, which is why a level is called "far over" only beyond it.
    """
    if load_pct is None or not cores:
        return None
    free = cores - load_pct / 100
    return cores / free if free > 0 else None


def within(judge: Judged | None, budget_ms: float | None) -> bool:
    """Whether a level is within ``budget_ms`` (ms) as the budget judges it (module rule): always
    without a budget, never without a latency."""
    return budget_ms is None or (judge is not None and judge.ms <= budget_ms)


def level_judged(levels: Iterable[LevelResult], metric: str, paired: bool, *, cores: int | None) -> Judged | None:
    """The budget's latency of one level (module rule) by the run's design.

    Args:
        levels: The level's records, one per round or trial.
        metric: The latency percentile field (``latency_p99_ms``).
        paired: A rounds run (:func:`judged`); ``False``: a sequential run, the median over its trials.
        cores: The host's cores (:func:`host_cores`, :attr:`Judged.cores`); ``None``: unknown. Required: without
            them a level far over the budget cannot be called so (trial 17, T17-3).
    """
    if paired:
        return judged(levels, metric, cores=cores)
    return judge([(getattr(lv, metric), None, False) for lv in levels if lv.ok], cores=cores)


def judged(levels: Iterable[LevelResult], metric: str, *, cores: int | None) -> Judged | None:
    """The budget's latency of one level (module rule) from its rounds' records.

    Args:
        levels: One (variant, concurrency, batch size, shape) level's records, one per round.
        metric: The latency percentile field (``latency_p99_ms``).
        cores: The host's cores (:func:`host_cores`, :attr:`Judged.cores`); ``None``: unknown. Required (keyword
            only, no default): without them a level far over the budget, more than the host's load explains, is
            "not verified here" (trial 17, T17-3: five callers left them out).

    Returns:
        ``None`` when no round has a value; a quiet level of fewer than :data:`MIN_QUIET_ROUNDS` rounds
        is :attr:`Judged.short` (module rule).
    """
    return judge_rounds(((getattr(lv, metric), lv.host_busy_pct, lv.host_busy) for lv in levels if lv.ok), cores=cores)


def judge_rounds(rounds: Iterable[tuple[float | None, float | None, bool]], *, cores: int | None) -> Judged | None:
    """:func:`judge` on a rounds design's rounds (a level's records, :func:`judged`, or a co-location step's
    model, :func:`perf.colocate.judge.judged_p99`): a quiet level of fewer than :data:`MIN_QUIET_ROUNDS`
    rounds is :attr:`Judged.short` (module rule). ``cores``: the host's, as :func:`judged`'s."""
    j = judge(rounds, cores=cores)
    if j is not None and j.busy_rounds == 0 and j.all_rounds < MIN_QUIET_ROUNDS:
        return dataclasses.replace(j, short=True)
    return j


def judge(rounds: Iterable[tuple[float | None, float | None, bool]], *, cores: int | None) -> Judged | None:
    """The module rule on ``(latency ms, other processes' CPU %, host busy)`` per round (a
    co-location step's model, :mod:`perf.colocate.judge`, or a level's records); rounds without a
    latency are left out; ``None`` when none has one. ``cores``: the host's (:attr:`Judged.cores`), as :func:`judged`'s."""
    rows = [(float(v), pct, busy) for v, pct, busy in rounds if v is not None]
    if not rows:
        return None
    every = statistics.median(v for v, _, _ in rows)
    busy = sum(1 for _, _, b in rows if b)
    loads = [pct for _, pct, _ in rows]
    quiet = [v for v, _, b in rows if not b]
    if busy == 0 or any(x is None for x in loads) or len(quiet) < MIN_QUIET_ROUNDS:
        most = None if any(x is None for x in loads) else max(x for x in loads if x is not None)
        return Judged(every, len(rows), every, len(rows), busy, load_pct=most, cores=cores)
    most = max(pct or 0.0 for _, pct, b in rows if not b)
    return Judged(statistics.median(quiet), len(quiet), every, len(rows), busy, load_pct=most, cores=cores)
