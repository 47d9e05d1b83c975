"""Which variant of a rounds sweep leads the paired ranking (:func:`perf.analysis.ranking.rank.rank_variants`), and
which level of a variant is its best (:func:`perf.analysis.ranking.operating.best_of`): one rule for both (issue 26:
a variant's best level was the round-adjusted throughput's first alone, behind another of its levels in 2 of 3
shared rounds).

Rule: among the operating points no other beats by the paired rule (:mod:`perf.analysis.stats.paired`),
the one with the highest round-adjusted throughput (:class:`perf.analysis.ranking.operating.Adjusted`) is
the first candidate; a candidate behind another unbeaten one in their shared rounds' throughput ratios, one-sidedly
(:func:`favoured`, below), gives its place to the one furthest ahead of it, until no unbeaten
variant is ahead of the candidate (or the medians go round in a circle: then the round-adjusted
order decides). The round-adjusted throughput mixes every round of a variant, also rounds
the other never had (a late group, a level added later); the median of the shared rounds is
what the tie-set table shows, so the variant named first is never one that trailed another
member in the rounds both had (a trial's report named a pick "for its higher round-adjusted
throughput" above a runner-up ahead of it in 3 of 3 shared rounds, median ratio 0.73).
When every variant is beaten by another (a cycle of verdicts), the round-adjusted order decides.
Fewer than :data:`~perf.analysis.stats.paired.GAP_ROUNDS` shared rounds move no one (trial 19,
T19-20: after a resume's final group, one shared round, 1,001 against 926 infer/s on a busy host, named a
variant of 755 infer/s over 3 rounds first above one of 1,567 over 7): the fewest rounds any tier of the rule
calls a difference on.
A leader another unbeaten one **overtakes** gives it its place (:func:`overtaken`; trial 21, T21-9; trial 30, F10):
the other has the higher median throughput and the lower median latency (the Pareto frontier's rule, each over its
own rounds), they shared at least one round, and those rounds are not one-sided in the leader's favour
(:func:`favoured`), whatever the rounds each has. Better on both medians is what a Triton user reads as "best", and
the report's own Pareto section says it; the round adjustment, a fit, is not evidence against the medians where the
rounds the two shared do not side with the leader (trial 30, F10: a pick of 512.0 infer/s and p99 25.45 ms named
first, by its round-adjusted throughput, over a member of 527.7 infer/s and p99 10.43 ms, the pick ahead in 2 of
the 4 rounds they shared; trial 21: a 1-round level of round-adjusted 190.0 infer/s named above one of 234.9
infer/s and a lower p99 that was ahead in the one round they shared). Naming the other first (not naming none)
keeps the project's rule that the leader is always named, with the tie set beside it and "not decided" where the
rule did not separate them.
Under a latency budget, a leader also gives its place to an unbeaten one at its **knee** (:func:`knee`; trial 22,
F-mixed-pick): one the rule did not separate from it, whose median throughput is as high or short of it by less than
:data:`~perf.analysis.stats.paired.GAP_MIN` (the least gap the rule ever calls), whose median latency is
:data:`~perf.analysis.stats.paired.FAR_GAP` times lower or more, and lower in every round they shared (at least one).
Throughput the rule cannot tell apart is not worth a latency that far higher (Triton's practice: the knee, not the
flat top); a mixed-size run named ``db500`` c=16 (1,652.4 infer/s, p99 28.32 ms) its best under a 50 ms budget above
``nodb`` c=4 (1,656.3 infer/s, p99 7.78 ms) and its own c=4 (1,634.5 infer/s, p99 7.68 ms), the rule calling
neither. The same rule names a variant's best level under a budget (:func:`perf.analysis.ranking.operating.best_of`)
and the leading variant; a best peak is the most throughput whatever its latency (no knee).
Shared rounds move the leader only when they are **one-sided** (:func:`favoured`): as one-sided by the sign test as
:data:`~perf.analysis.stats.paired.GAP_ROUNDS` rounds all one way (3 of 3, 4 of 4, 5 of 6, 6 of 7, 8 of 10;
:data:`ONE_SIDED_P`), the fewest any tier of the rule calls a difference on; 2 of 3 or 3 of 4 is a coin's toss
(trial 28, T28-1: after a resume, ``nodb`` c=4, 1,634.1 infer/s and p99 16.04 ms over 3 rounds, was named "best
measured throughput" above ``db500`` c=4, 1,980.8 infer/s and p99 8.36 ms over 14 rounds, for being ahead in 2 of
the 3 rounds they shared, one of them a one-off 3,271 infer/s, while the same report said the other was ahead on
both medians). And a leader gives its place to an unbeaten one with **better-supported** throughput
(:func:`supported`): a higher median over more rounds, at least one round shared with it, the shared rounds not
one-sided in the leader's favour; over as many rounds, only where it also has the lower latency median and leads the
median of their shared rounds (a mixed-size run's pick, 2,074.1 infer/s and p99 9.79 ms over 4 rounds, first by
round-adjusted throughput, below one of 2,248.0 and 7.43 ms over the same 4, 2 of them each's). Where the rule does not separate two levels, the median over more rounds is the
better evidence of which serves more: the pick is never one the report shows behind another on its own criterion,
throughput, with more rounds behind that one. The tie set and "not decided" stay beside the pick.
Under a budget the knee comes first: a leader at the other's knee keeps its place whatever that one's rounds (a
median higher by less than :data:`~perf.analysis.stats.paired.GAP_MIN` is no lead; the two rules held of each other
for ``db500`` c=4, 1,634.5 infer/s and p99 7.68 ms over 4 rounds, and c=16, 1,652.4 and 28.32 ms over 6, and the
one listed second was named), and the pick never depends on the order the candidates come in (:func:`choose`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from perf.analysis.stats.paired import FAR_GAP, GAP_MIN, GAP_ROUNDS, Paired, sign_test_p

#: :class:`perf.analysis.ranking.operating.Operating` (not imported: the ranking imports this module).
Op = TypeVar("Op")
#: The sign test's two-sided p at or below which shared rounds are one-sided (:func:`favoured`): that of
#: :data:`~perf.analysis.stats.paired.GAP_ROUNDS` rounds all one way (0.25 for 3 of 3).
ONE_SIDED_P = sign_test_p(GAP_ROUNDS, 0)


def choose(ops: Sequence[Op], cmp: Callable[[Op, Op], Any], order: Callable[[Op], tuple[Any, ...]] | None = None) -> Op | None:
    """The leader of ``ops`` by the module rule: of variants' operating points, or of one variant's levels. The same
    whatever order ``ops`` come in (s23r, M1: two levels gave each other's name by the order they were listed): they
    are taken in ``order`` (default: the highest round-adjusted throughput first), ties by :func:`standing`.

    Args:
        ops: Operating points (:class:`perf.analysis.ranking.operating.Operating`).
        cmp: The paired comparison of two of them (:func:`perf.analysis.ranking.operating.compare`: ``a`` vs ``b``).
        order: The key of the first candidate's order (smallest first) before :func:`standing`'s: the ranking of
            variants orders them by their peaks' round-adjusted throughput.
    """
    ops = sorted(ops, key=lambda o: (*(order(o) if order else ()), *standing(o)))
    unbeaten = unbeaten_of(ops, cmp)
    if not unbeaten:
        return ops[0] if ops else None
    return overtaken(_by_medians(unbeaten, cmp), unbeaten, cmp)


def standing(o: Any) -> tuple[Any, ...]:
    """The sort key of the order :func:`choose` takes candidates in: the highest round-adjusted throughput first, then
    the lower latency, the higher median throughput, more rounds; last the variant and level named (no two alike)."""
    s = o.side
    return (
        -o.adjusted_infer_per_s,
        o.latency_ms or 0.0,
        -o.throughput_infer_per_s,
        -o.rounds,
        s.variant,
        s.batch_size,
        s.shape or "",
        s.concurrency,
    )


def unbeaten_of(ops: Sequence[Op], cmp: Callable[[Op, Op], Any]) -> list[Op]:
    """The members of ``ops`` no other beats by the paired rule, in ``ops``' order."""
    return [o for o in ops if not any(cmp(other, o).verdict == "a" for other in ops if other is not o)]


def overtaken(first: Op, rivals: Sequence[Op], cmp: Callable[[Op, Op], Any]) -> Op:
    """``first``, or the member of ``rivals`` that overtakes it (module docstring: higher median throughput, lower
    median latency, ahead in every shared round; one of better-supported throughput, :func:`supported`; under a
    budget, also one at its knee: :func:`knee`), the one with the most infer/s, again until none does.

    Args:
        first: The leader named so far (an :class:`perf.analysis.ranking.operating.Operating`).
        rivals: The others that may be named first instead (unbeaten ones, of the same client workload).
        cmp: The paired comparison of two of them (``a`` vs ``b``).
    """
    seen = {id(first)}
    while True:
        ahead = [r for r in rivals if id(r) not in seen and _ahead(r, first, cmp)]
        if not ahead:
            return first
        first = max(ahead, key=lambda r: r.throughput_infer_per_s)  # type: ignore[attr-defined]
        seen.add(id(first))


def _ahead(r: Any, first: Any, cmp: Callable[[Any, Any], Any]) -> bool:
    """Whether ``r`` is named first over ``first`` (module docstring): it overtakes it, has better-supported
    throughput, or is at its knee."""
    return _overtakes(r, first, cmp) or supported(r, first, cmp) or knee(r, first, cmp)


def favoured(result: Paired | None) -> str | None:
    """``"a"`` or ``"b"``: the side a comparison's shared rounds (``result``, of ``a / b``) favour as one-sidedly
    as :data:`~perf.analysis.stats.paired.GAP_ROUNDS` rounds all one way (the sign test's two-sided p at most
    :data:`ONE_SIDED_P`: 3 of 3, 4 of 4, 5 of 6, 6 of 7, 8 of 10); ``None`` for fewer or less one-sided rounds
    (2 of 3, 3 of 4: evidence of neither; trial 28, T28-1) or none."""
    if result is None or result.wins == result.losses or sign_test_p(result.wins, result.losses) > ONE_SIDED_P:
        return None
    return "a" if result.wins > result.losses else "b"


def supported(r: Any, first: Any, cmp: Callable[[Any, Any], Any]) -> bool:
    """Whether ``r`` has better-supported throughput than ``first`` (module docstring): a higher median over more
    rounds (over as many: also a latency median as low and ahead in the median of their shared rounds), at least one round shared with it, the rule not putting ``first`` ahead and the shared rounds not
    one-sided in ``first``'s favour (:func:`favoured`); never where ``first`` is at ``r``'s knee (:func:`knee`: the
    knee rule comes first, a median higher by less than :data:`GAP_MIN` is no lead worth a latency far higher)."""
    if not r.throughput_infer_per_s > first.throughput_infer_per_s or r.rounds < first.rounds:
        return False
    c = cmp(first, r)
    if c.result is None or c.verdict == "a" or favoured(c.result) == "a" or knee(first, r, cmp):
        return False  # ``first`` at ``r``'s knee: as much throughput at a far lower latency stays first (s23r, M1)
    if r.rounds > first.rounds:
        return True
    # as many rounds: only where every median says so, its latency's too (the Pareto frontier's) and their shared rounds'
    return (
        r.latency_ms is not None and first.latency_ms is not None and r.latency_ms <= first.latency_ms and c.result.median < 1.0
    )


def _overtakes(r: Any, first: Any, cmp: Callable[[Any, Any], Any]) -> bool:
    """Whether ``r`` overtakes ``first`` (module docstring): better on both medians (the Pareto frontier's rule, each
    over its own rounds), at least one round shared with it, the rule not putting ``first`` ahead and the shared
    rounds not one-sided in ``first``'s favour (:func:`favoured`), whatever the rounds each has (trial 30, F10)."""
    tr, tf, lr, lf = r.throughput_infer_per_s, first.throughput_infer_per_s, r.latency_ms, first.latency_ms
    if lr is None or lf is None or not (tr >= tf and lr <= lf and (tr > tf or lr < lf)):
        return False
    c = cmp(first, r)
    return c.result is not None and bool(c.result.ratios) and c.verdict != "a" and favoured(c.result) != "a"


def overtakes(r: Any, first: Any, cmp: Callable[[Any, Any], Any]) -> bool:
    """:func:`_overtakes`, for the words of what a pick is named first by (:mod:`perf.analysis.ranking.named_first`)."""
    return _overtakes(r, first, cmp)


def knee(r: Any, first: Any, cmp: Callable[[Any, Any], Any]) -> bool:
    """Whether ``r`` is at ``first``'s knee under a latency budget (module docstring): both operating points judged
    under a budget (:attr:`perf.analysis.ranking.operating.Operating.within_budget`), the rule not putting ``first``
    ahead, ``r``'s median throughput short of ``first``'s by less than :data:`GAP_MIN`, its median latency
    :data:`FAR_GAP` times lower or more and lower in every round they shared."""
    if r.within_budget is None or first.within_budget is None or r.latency_ms is None or first.latency_ms is None:
        return False
    if r.throughput_infer_per_s * GAP_MIN <= first.throughput_infer_per_s or first.latency_ms < FAR_GAP * r.latency_ms:
        return False
    c = cmp(first, r)
    return c.verdict != "a" and bool(c.latency_diffs_ms) and all(d > 0 for d in c.latency_diffs_ms)


def _by_medians(unbeaten: list[Op], cmp: Callable[[Op, Op], Any]) -> Op:
    """The first of ``unbeaten`` that no other is ahead of in one-sided shared rounds (module rule, :func:`favoured`)."""
    leader, seen = unbeaten[0], {id(unbeaten[0])}
    while True:
        shared = [(o, c.result) for o in unbeaten if o is not leader and (c := cmp(leader, o)).result is not None]
        ahead = [(r.median, o) for o, r in shared if favoured(r) == "b"]
        if not ahead:
            return leader
        nxt = min(ahead, key=lambda t: t[0])[1]
        if id(nxt) in seen:  # the medians go round: the round-adjusted order decides
            return unbeaten[0]
        leader = nxt
        seen.add(id(nxt))
