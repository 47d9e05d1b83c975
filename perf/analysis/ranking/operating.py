"""Operating points of a rounds sweep and their paired comparisons: one side of a comparison, a
level's records per round, a comparison by the paired rule, round-adjusted throughput and each
variant's operating point (the ranking that orders them: :mod:`perf.analysis.ranking.rank`).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Iterable

from core.wording import count, sentence
from perf.analysis.ranking.budget_latency import Judged, judged, within
from perf.analysis.ranking.leader import choose
from perf.analysis.stats.paired import ALPHA, GAP_ROUNDS, Paired, min_rounds, paired, sign_test_p
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.workloads import workload

#: Paired rounds the rule needs before it can call a difference (6 at 5 %).
MIN_ROUNDS = min_rounds(ALPHA)


@dataclasses.dataclass(frozen=True)
class Side:
    """One side of a comparison: a variant at one concurrency level (client batch size, shape)."""

    variant: str
    concurrency: int
    batch_size: int = 1
    shape: str | None = None

    def describe(self) -> str:
        """```mlp_onnx_cpu1_db500_mbs64` at concurrency 8``."""
        batch = f" (batch {self.batch_size})" if self.batch_size != 1 else ""
        return f"`{self.variant}` at concurrency {self.concurrency}{batch}" + (f" [{self.shape}]" if self.shape else "")

    def level(self) -> str:
        """``"c=8"``, ``"c=8, b=4"``: its level as the tables write it, what a comparison's words name beside a
        variant (trial 24, T24-15: two lines said opposite things of one rival, each of another of its levels)."""
        return f"c={self.concurrency}" + (f", b={self.batch_size}" if self.batch_size != 1 else "")


def records(vr: VariantResult, side: Side) -> list[LevelResult]:
    """``side``'s level's records, one per round (concurrency levels only)."""
    key = (None, side.concurrency, side.batch_size, side.shape)
    return [lv for lv in vr.levels if (lv.request_rate, lv.concurrency, lv.batch_size, lv.shape) == key]


def per_round(vr: VariantResult, side: Side, metric: str = THROUGHPUT) -> dict[int, float]:
    """Round -> ``metric`` of ``side``'s level in that round (levels with numbers only)."""
    out = {}
    for lv in records(vr, side):
        v = getattr(lv, metric)
        if lv.ok and v is not None and (metric != THROUGHPUT or v > 0):
            out[lv.trial] = float(v)
    return out


@dataclasses.dataclass(frozen=True)
class Comparison:
    """A paired comparison of ``a`` and ``b`` over the rounds both were measured in.

    Attributes:
        a, b: The two sides.
        rounds: The rounds used (both sides have numbers).
        result: The paired rule's result on the throughput ratios ``a / b`` (``None``: no common round).
        latency_diffs_ms: Latency percentile ``a - b`` per round (ms), where both have one.
        rounds_left: Rounds its group could still have had (:func:`perf.analysis.ranking.standing.rounds_left`; ``None``: unknown).
        a_rounds, b_rounds: The rounds each side was measured in with numbers (what :attr:`rounds` is the overlap
            of: the words say why the others did not count; trial 24, T24-9).
    """

    a: Side
    b: Side
    rounds: tuple[int, ...]
    result: Paired | None
    latency_diffs_ms: tuple[float, ...] = ()
    rounds_left: int | None = None
    a_rounds: tuple[int, ...] = ()
    b_rounds: tuple[int, ...] = ()

    @property
    def verdict(self) -> str:
        """``"a"`` (a beats b), ``"b"`` (b beats a) or ``"not distinguishable"``."""
        return {"higher": "a", "lower": "b"}.get(self.result.verdict if self.result else "", "not distinguishable")

    @property
    def median_ratio(self) -> float | None:
        """The median throughput ratio ``a / b`` over the rounds; ``None`` without a common round."""
        return self.result.median if self.result else None

    @property
    def median_latency_diff_ms(self) -> float | None:
        """The median latency percentile difference ``a - b``, ms; ``None`` without one."""
        return statistics.median(self.latency_diffs_ms) if self.latency_diffs_ms else None

    def can_separate(self, rounds_left: int) -> bool:
        """Whether ``rounds_left`` more rounds, all going one way, could still reach the rule's level
        (the sign test, or the large-gap tier while every round so far agrees)."""
        if self.verdict != "not distinguishable":
            return False
        w, lo = (self.result.wins, self.result.losses) if self.result else (0, 0)
        gap = min(w, lo) == 0 and w + lo + rounds_left >= GAP_ROUNDS and rounds_left > 0  # the large-gap tier still may
        return gap or min(sign_test_p(w + rounds_left, lo), sign_test_p(w, lo + rounds_left)) <= ALPHA

    def verdict_words(self) -> str:
        """``"`A` beats `B`"``, ``"`B` beats `A`"`` or ``"not distinguishable at this noise"``
        (with the rounds it had, when fewer than the rule needs); where every round went one way, that and
        why the rule did not call it (:meth:`perf.analysis.stats.paired.Paired.uncalled`), never "not distinguishable"."""
        if self.verdict == "a":
            return f"`{self.a.variant}` beats `{self.b.variant}`"
        if self.verdict == "b":
            return f"`{self.b.variant}` beats `{self.a.variant}`"
        if self.result is not None and (why := self.result.uncalled()) is not None:  # every round one way (trial 15, T15-2)
            ahead, behind = (self.a, self.b) if self.result.wins else (self.b, self.a)
            every = "the one round" if self.result.rounds == 1 else f"each of the {self.result.rounds} rounds"
            return f"`{ahead.variant}` ahead of `{behind.variant}` in {every}, but not called: {why}"
        if (n := len(self.rounds)) < GAP_ROUNDS:
            return f"not distinguishable at this noise ({count(n, 'round')}; a verdict needs {GAP_ROUNDS} on a large gap, else {MIN_ROUNDS})"  # fmt: skip
        return "not distinguishable at this noise" + (
            f" ({n} rounds; a verdict needs {MIN_ROUNDS} unless the gap is large)" if n < MIN_ROUNDS else ""
        )

    def sentence(self) -> str:
        """The comparison in one sentence, every number from the rounds."""
        r = self.result
        if r is None:
            return f"{self.a.describe()} vs {self.b.describe()}: never measured in the same round."
        text = f"{self.a.describe()} vs {self.b.describe()}: throughput ratio {r.spread_text()}"
        if self.latency_diffs_ms:
            text += f"; latency difference {self.median_latency_diff_ms:+.2f} ms median"
        return text + f": {sentence(self.verdict_words())}"


def side_of(vr: VariantResult, p: Point) -> Side:
    """``p`` (a level of ``vr`` folded over its rounds) as a side of a paired comparison: its
    concurrency, client batch size and the swept size its records hold (trial 12, F5: a side built
    without the size found no record of a shape sweep's series, and its levels read "never measured
    in a round with" each other although they shared 5)."""
    at = (None, p.concurrency, p.batch_size)
    shape = next((lv.shape for lv in vr.levels if (lv.request_rate, lv.concurrency, lv.batch_size) == at), None)
    return Side(vr.name, p.concurrency, p.batch_size, shape)


def shared(
    va: VariantResult, a: Side, vb: VariantResult, b: Side, metric: str = THROUGHPUT
) -> tuple[tuple[int, ...], list[float], list[float]]:
    """The rounds ``a`` (a level of ``va``) and ``b`` (of ``vb``) shared, both with ``metric``, and
    each one's ``metric`` in them (in round order): the one answer to "which rounds did two levels
    share" that every comparison and every sentence saying so reads."""
    xa, xb = per_round(va, a, metric), per_round(vb, b, metric)
    rounds = tuple(sorted(set(xa) & set(xb)))
    return rounds, [xa[r] for r in rounds], [xb[r] for r in rounds]


def compare(va: VariantResult, a: Side, vb: VariantResult, b: Side, latency_metric: str = "latency_p99_ms") -> Comparison:
    """Compare ``a`` (a level of ``va``) with ``b`` (a level of ``vb``) by the paired rule over the rounds they shared (:func:`shared`)."""
    rounds, ta, tb = shared(va, a, vb, b)
    each = tuple(sorted(per_round(va, a))), tuple(sorted(per_round(vb, b)))  # what rounds is the overlap of (T24-9)
    la, lb = per_round(va, a, latency_metric), per_round(vb, b, latency_metric)
    diffs = tuple(la[r] - lb[r] for r in rounds if r in la and r in lb)
    return Comparison(a, b, rounds, paired(ta, tb) if rounds else None, diffs, None, *each)


class Adjusted:
    """Round-adjusted throughput of every level of some variants (module docstring), fitted within
    each client workload (:func:`perf.records.workloads.workload`: a series of a run split by
    workload; a variant of a run of one is one workload): workloads are never compared, so one
    workload's levels never move another's round effects, and a series' levels are ordered alike
    whether the fit holds its workload alone (a workload's recommendation, the search's ranking) or
    the run's every series (the console table's best level, the report's first pick; trial 12, F5:
    the table named c=2 of a series and the report c=1, each fitted over other series).

    Args:
        variants: The variants whose levels are fitted together (one round effect per round and workload).
        iterations: Median-polish sweeps (each: round effects, then level effects).
    """

    def __init__(self, variants: Iterable[VariantResult], iterations: int = 10):
        groups: dict[str | None, dict[tuple[str, Side], dict[int, float]]] = {}
        for vr in variants:
            cells = groups.setdefault(workload(vr), {})
            for s in levels_of(vr):
                vals = per_round(vr, s)
                if vals:
                    cells[(vr.name, s)] = {r: math.log(v) for r, v in vals.items()}
        self.effect: dict[tuple[str, Side], float] = {}
        for cells in groups.values():
            self.effect |= _polish(cells, iterations)

    def of(self, side: Side) -> float | None:
        """``side``'s throughput in the median round (infer/s); ``None`` when it has none."""
        e = self.effect.get((side.variant, side))
        return None if e is None else math.exp(e)


def _polish(cells: dict[tuple[str, Side], dict[int, float]], iterations: int) -> dict[tuple[str, Side], float]:
    """Tukey's median polish of log throughput ``cells`` (level -> round -> log infer/s): each level's effect."""
    rounds = sorted({r for per in cells.values() for r in per})
    round_effect = {r: 0.0 for r in rounds}
    effect = {u: statistics.median(per.values()) for u, per in cells.items()}
    for _ in range(iterations):
        for r in rounds:
            round_effect[r] = statistics.median(per[r] - effect[u] for u, per in cells.items() if r in per)
        mid = statistics.median(round_effect.values()) if rounds else 0.0
        round_effect = {r: e - mid for r, e in round_effect.items()}
        effect = {u: statistics.median(v - round_effect[r] for r, v in per.items()) for u, per in cells.items()}
    return effect


@dataclasses.dataclass(frozen=True)
class Operating:
    """A variant's operating point (module docstring).

    Attributes:
        side: The variant and level.
        throughput_infer_per_s: Median throughput over its rounds.
        latency_ms: The budget's latency percentile as the budget judges it (ms, :attr:`latency`), ``None`` when not measured.
        rounds: Rounds with numbers at this level.
        within_budget: Rounds whose latency was within the budget (``None`` without a budget).
        adjusted_infer_per_s: Round-adjusted throughput (:class:`Adjusted`; the median when not adjusted).
        latency: How :attr:`latency_ms` was taken (:mod:`perf.analysis.ranking.budget_latency`; ``None``: not measured).
    """

    side: Side
    throughput_infer_per_s: float
    latency_ms: float | None
    rounds: int
    within_budget: int | None = None
    adjusted_infer_per_s: float = 0.0
    latency: Judged | None = None


def levels_of(vr: VariantResult) -> list[Side]:
    """Every concurrency level of ``vr`` with numbers (request-rate levels are another load model)."""
    keys = {(lv.concurrency, lv.batch_size, lv.shape) for lv in vr.levels if lv.request_rate is None and lv.ok}
    return [Side(vr.name, c, b, sh) for c, b, sh in sorted(keys, key=lambda k: (k[1], k[2] or "", k[0]))]


def summary(
    vr: VariantResult,
    side: Side,
    budget_ms: float | None,
    latency_metric: str,
    adjusted: Adjusted | None = None,
    *,
    cores: int | None,
) -> Operating | None:
    """Medians over ``side``'s rounds (and its round-adjusted throughput); ``None`` when it has no throughput.
    ``cores``: the host's (:func:`perf.analysis.ranking.budget_latency.judged`'s, required there too)."""
    thr = per_round(vr, side)
    if not thr:
        return None
    lat, judge = per_round(vr, side, latency_metric), judged(records(vr, side), latency_metric, cores=cores)
    within = None if budget_ms is None else sum(1 for v in lat.values() if v <= budget_ms)
    med = statistics.median(thr.values())
    adj = adjusted.of(side) if adjusted is not None else None
    return Operating(side, med, judge.ms if judge else None, len(thr), within, med if adj is None else adj, judge)


def operating_point(
    vr: VariantResult,
    budget_ms: float | None = None,
    latency_metric: str = "latency_p99_ms",
    adjusted: Adjusted | None = None,
    backed: bool = True,
    *,
    cores: int | None,
    batch_size: int | None = None,
) -> Operating | None:
    """The variant's operating point (module docstring); ``None`` when no level qualifies. Of its levels that
    qualify, the one :func:`perf.analysis.ranking.leader.choose` names, the rule that names the leading variant: the
    highest round-adjusted throughput unless another level is ahead of it in shared rounds as one-sided as
    :data:`~perf.analysis.stats.paired.GAP_ROUNDS` of them, or has a higher median over more rounds (issue 26: a
    level was named its variant's best by the round-adjusted throughput alone, while the ranking of variants
    named another; trial 28, T28-1: 2 of 3 shared rounds are no evidence). ``adjusted``: the fit to order levels by (default: one over this variant alone);
    ``backed=False``: its best level whatever its rounds (the leader's peak); ``cores``: the host's
    (:func:`summary`); ``batch_size``: of its levels at that client batch size only (default: every level)."""
    adjusted = adjusted or Adjusted([vr])
    cands = [
        s
        for s in (
            summary(vr, side, budget_ms, latency_metric, adjusted, cores=cores)
            for side in levels_of(vr)
            if batch_size in (None, side.batch_size)
        )
        if s is not None
    ]
    if budget_ms is not None:
        cands = [s for s in cands if within(s.latency, budget_ms)]
    enough = [s for s in cands if s.rounds >= GAP_ROUNDS] if backed else []  # levels a verdict can rest on (a large gap's)
    return best_of(vr, enough or cands, latency_metric)


def best_of(vr: VariantResult, levels: Iterable[Operating], latency_metric: str = "latency_p99_ms") -> Operating | None:
    """The best of ``levels`` (operating points of ``vr``'s levels), by the rule that names the leading variant
    (:func:`perf.analysis.ranking.leader.choose`): the highest round-adjusted throughput (the lower latency
    first among equal ones) unless another is ahead of it in one-sided shared rounds or has a higher median over
    more rounds (:mod:`perf.analysis.ranking.leader`); ``None`` for none. The one rule wherever a
    variant's best level is taken: its operating point (:func:`operating_point`) and the search's
    (:func:`perf.search.retirement.best_level`)."""
    return choose(list(levels), lambda x, y: compare(vr, x.side, vr, y.side, latency_metric))
