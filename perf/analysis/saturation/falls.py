"""Whether throughput fell or still grew between two levels of a variant, as the noise judges it:
one rule (:func:`step`) for every sentence that says so, and the cause of a fall said only beyond
the noise (:func:`fall`; whether a level is a peak: :mod:`perf.analysis.saturation.peaks`).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from core.wording import count
from perf.analysis.ranking.operating import Side, records, shared, side_of
from perf.analysis.stats.curves import Interference, falls
from perf.analysis.stats.paired import p_words, paired
from perf.analysis.stats.points import THROUGHPUT, Point, delta, spread_unknown
from perf.markdown import fmt
from perf.records.levels import HOST_BUSY
from perf.records.results import RunResult, VariantResult

#: The cause a fall beyond the noise is said with (:meth:`Fall.describe`), and the short forms for counts over many variants.
CAUSE = "interference (the load competing with the server for the host, or other work), not a knee"


INTERFERENCE, NOT_TOLD = (
    "interference: throughput fell as load rose (not a knee)",
    "neither a knee nor a fall told: a lower median at a higher level, not beyond the noise",
)


@dataclasses.dataclass(frozen=True)
class Step:
    """How throughput changed from one level of a variant to another, as the noise judges it (:func:`step`).

    Attributes:
        change: ``"rose"`` or ``"fell"`` beyond the noise; ``None``: not told apart from it.
        evidence: What it was judged on: ``"c=2 ahead in 8 of 8 rounds; p = 0.0078, sign test"``,
            ``"2 rounds, host busy"``, ``"within the levels' spread over 3 trials"``, ``"spread unknown (1 trial)"``.
        unknown: A run of trials with one on a side: its spread is unknown, so the change is neither
            beyond the noise nor within it (:mod:`perf.analysis.stats.points`' noise rule).
        one_way: A rounds run's change every shared round pointed to that the paired rule did not call:
            :attr:`evidence` says so and why (``"c=4 ahead in each of the 3 rounds, but not called: by too
            uneven an amount ..."``).
    """

    change: Literal["rose", "fell"] | None
    evidence: str
    unknown: bool = False
    one_way: bool = False

    def said(self) -> str:
        """The evidence in words: beside a change, :attr:`evidence`; else ``"not distinguishable from
        noise (2 rounds, host busy)"``, ``"spread unknown (1 trial)"``, or, where every round went one way
        but the paired rule did not call it (:attr:`one_way`), that and why, never "not distinguishable"
        (:meth:`perf.analysis.stats.paired.Paired.uncalled`)."""
        if self.change is not None or self.unknown or self.one_way:
            return self.evidence
        return f"not distinguishable from noise ({self.evidence})"


@dataclasses.dataclass(frozen=True)
class Fall:
    """A fall of a variant's median throughput as load rose (:func:`perf.analysis.stats.curves.falls`), as :func:`fall` judges it.

    Attributes:
        drop: The medians' fall (its best level before, the level it fell to, by how much).
        step: The noise rule's judgement of it (:func:`step`): a finding, whose cause is said, only
            when the level before is higher beyond the noise.
    """

    drop: Interference
    step: Step

    @property
    def finding(self) -> bool:
        """Whether the fall is beyond the noise (:attr:`step`)."""
        return self.step.change == "fell"

    def difference(self) -> str:
        """The medians with what they were judged on: ``"c=2's median is 14 % below c=1's (1,342.7 vs
        1,553.1 infer/s), not distinguishable from noise (2 rounds, host busy)"`` (not a finding), or
        ``"throughput fell 20 % from c=2 (300.0 infer/s) to c=8 (240.0 infer/s) as load rose (...)"``."""
        b, a, pct = self.drop.before, self.drop.after, f"{self.drop.drop_pct:.0f} %"
        if self.finding:
            return (
                f"throughput fell {pct} from c={b.concurrency} ({fmt(b.get(THROUGHPUT))} infer/s) to c={a.concurrency} "
                f"({fmt(a.get(THROUGHPUT))} infer/s) as load rose ({self.step.said()})"
            )
        return (
            f"c={a.concurrency}'s median is {pct} below c={b.concurrency}'s ({fmt(a.get(THROUGHPUT))} vs "
            f"{fmt(b.get(THROUGHPUT))} infer/s), {self.step.said()}"
        )

    def describe(self) -> str:
        """:meth:`difference` with what it tells: the cause (:data:`CAUSE`) of a finding, else that neither a knee nor a fall is told."""
        return f"{self.difference()}: {CAUSE if self.finding else 'neither a knee nor a fall is told'}"

    def short(self) -> str:
        """:data:`INTERFERENCE` or :data:`NOT_TOLD`, for counts over many variants."""
        return INTERFERENCE if self.finding else NOT_TOLD


def fall(run: RunResult, points: list[Point], batch_size: int | None = None) -> Fall | None:
    """The module's rule for every sentence that says throughput fell as load rose, or names its cause
    (interference): the falls of the medians of ``points``, one variant's series in ``run``
    (:func:`perf.analysis.stats.curves.falls`: a dip that a higher level climbs back from is none), judged
    against the noise: in a rounds sweep the level before and the level after are compared paired
    (:func:`perf.analysis.ranking.operating.compare`: the levels of one variant are measured in the same rounds),
    else by their spread over trials (:func:`perf.analysis.stats.points.delta`). The first fall beyond the
    noise (largest first), else the largest, not a finding; ``None`` without a fall (trial 11, F14:
    "throughput fell 14 % ... as load rose: interference" of 2 host-busy rounds a level)."""
    judged = [Fall(f, step(run, f.before, f.after)) for f in falls(points, batch_size)]
    return next((f for f in judged if f.finding), judged[0] if judged else None)


def falls_all(run: RunResult, points: dict[str, list[Point]]) -> dict[str, Fall]:
    """:func:`fall` of every variant that has one."""
    return {name: f for name, pts in points.items() if (f := fall(run, pts)) is not None}


def step(run: RunResult, before: Point, after: Point, metric: str = THROUGHPUT) -> Step:
    """The module's noise rule for a change of ``metric`` (throughput; p99 for the p99 trend words:
    :func:`perf.analysis.saturation.rises.p99_step`) between two levels of one variant's series in ``run``
    (``before`` at a lower concurrency), which every sentence that says throughput fell or still grew
    from level to level reads: in a rounds sweep the two are compared paired (:func:`paired_step`: the
    levels of one variant are measured in the same rounds), else by their spread over trials
    (:func:`perf.analysis.stats.points.delta`: beyond both spreads)."""
    vr = run.variant(before.variant) if run.rounds is not None else None
    if vr is None:
        return _unpaired(before, after, metric)
    return paired_step(vr, side_of(vr, before), side_of(vr, after), metric)


def paired_step(vr: VariantResult, before: Side, after: Side, metric: str = THROUGHPUT) -> Step:
    """:func:`step` in a rounds sweep, on two levels of ``vr`` as sides (the search's ladder has them so):
    ``metric`` per round compared by the paired rule (:func:`perf.analysis.stats.paired.paired`) over the
    rounds both were measured in (:func:`perf.analysis.ranking.operating.shared`); the evidence names the
    rounds and the p-value either way (``"3 rounds, host busy; p = 0.25, sign test"`` where the rule does
    not tell them apart)."""
    rounds, ta, tb = shared(vr, before, vr, after, metric)
    r = paired(ta, tb) if rounds else None
    if r is None:
        return Step(None, "never measured in the same round")
    p = p_words(r.decided_p, r.tier)
    if r.significant:
        ahead, wins = (before, r.wins) if r.verdict == "higher" else (after, r.losses)
        word = "ahead" if metric == THROUGHPUT else "higher"
        return Step(
            "fell" if r.verdict == "higher" else "rose", f"c={ahead.concurrency} {word} in {wins} of {r.rounds} rounds; {p}"
        )
    busy = {lv.trial for s in (before, after) for lv in records(vr, s) if lv.host_busy} & set(rounds)
    said = "" if not busy else ", host busy" if len(busy) == r.rounds else f", {len(busy)} host busy"
    why = r.uncalled()
    if why is not None:  # every round one way, not called: said as such, with why (trial 15, T15-2)
        ahead = before if r.wins else after
        word = "ahead" if metric == THROUGHPUT else "higher"
        every = "in the one round" if r.rounds == 1 else f"in each of the {r.rounds} rounds"
        flag = f" ({said.removeprefix(', ')})" if said else ""
        return Step(None, f"c={ahead.concurrency} {word} {every}{flag}, but not called: {why}", one_way=True)
    return Step(None, f"{count(r.rounds, 'round')}{said}; {p}")


def _unpaired(before: Point, after: Point, metric: str = THROUGHPUT) -> Step:
    """:func:`step` in a run of trials: beyond both levels' spread over trials (:func:`perf.analysis.stats.points.delta`)."""
    d = delta(before, after, metric)
    busy = ", host busy" if HOST_BUSY in (before.status, after.status) else ""
    if d is None or d.significant is None:
        return Step(None, spread_unknown(min(before.trials, after.trials)) + busy, unknown=True)
    n = count(min(before.trials, after.trials), "trial")
    if not d.significant:
        return Step(None, f"within the levels' spread over {n}{busy}")
    return Step("rose" if d.b > d.a else "fell", f"more than both levels' spread over {n}{busy}")
