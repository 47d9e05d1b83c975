"""The plan re-made after the rounds (:func:`late`): the variants the time budget's plan cut that
the time the rounds left fits, measured in a final group with the rounds' tie set, and the one
price of that final group, from its first load to its last.

The same function prices the group when the rounds end and again before each of its loads
(``loaded``: the group's members loaded already, their loads spent), so the group is never said to
fit at one price and then cut at another (trial 17, T17-2: "about 75 s for the 6 rounds a verdict
needs", then, one line later, cut by the first plan's re-fit over its whole ladder, "3 variants
need about 94 s"). A load is priced at its format's measured mean where the run's formats load at
different speeds (``prices``: :func:`perf.sweep.load_cuts.format_prices`; trial 18, T18-5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence

from core.wording import count
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.markdown import apart, fmt
from perf.records.rounds import Cut
from perf.search.budget import UNLOAD_S, not_measured


@dataclasses.dataclass
class Late:
    """What the time left after the rounds fits of the variants the plan cut (:func:`late`).

    Attributes:
        variants: The cut variants measured now, most promising first (with the tie set, in a final group).
        estimate_s: Estimated wall time of that final group (s; 0 when none fits).
        reason: Why the final group is one (recorded with it), ``""`` when none fits.
        cuts: The variants still cut, each with the real numbers it was judged on.
        said: The console's words for ``cuts`` when no final group fits, what they share said once (a cut's own
            reason in :attr:`cuts` is whole, for results.json and report.md); ``""`` otherwise.
    """

    variants: list[str]
    estimate_s: float
    reason: str
    cuts: list[Cut]
    said: str = ""


@dataclasses.dataclass(frozen=True)
class Final:
    """What a final group of the variants the plan cut was priced on, kept to price it again before
    each of its loads (:func:`late`'s arguments but the times, which are measured anew each time).

    Attributes:
        variants: The cut variants the final group measures, most promising first.
        tie: The tie set measured with them (loaded first).
        tie_visits: Visits of one round over ``tie``.
        visits: Visits of one cut variant in each of its rounds.
        measured: Cut variants with numbers from an earlier session.
        done: The rounds a final group of the first ``k`` of ``variants`` counts already, at ``k - 1`` (a final group
            stopped part-way: its rounds count towards the next one's, :meth:`~perf.records.rounds.RoundsRecord.rounds_of`).
    """

    variants: list[str]
    tie: list[str]
    tie_visits: int
    visits: list[int]
    measured: frozenset[str] = frozenset()
    done: tuple[int, ...] = ()


def late(
    cut: Sequence[str],
    tie: Sequence[str],
    tie_visits: int,
    visits: Sequence[int],
    load_s: float,
    visit_s: float,
    left_s: float,
    unload_s: float = UNLOAD_S,
    measured: Collection[str] = (),
    prices: Mapping[str, float] | None = None,
    loaded: Collection[str] = (),
    done: Sequence[int] = (),
) -> Late:
    """The plan re-made after the rounds, from what they measured: the cut variants (most
    promising first) that fit the time left, measured in a final group with the rounds' tie set
    (their verdicts against it then rest on rounds measured together).

    A final with ``k`` of them is estimated as every member not loaded yet loaded (``load_s``, measured:
    a group's load time per variant; a member's own ``prices`` entry where its format's loads differ), the
    :data:`~perf.analysis.ranking.operating.MIN_ROUNDS` rounds a verdict needs (each cut variant's
    ``visits`` per round, :attr:`perf.search.budget.Fit.visits`, and the tie set's ``tie_visits``, the
    visits its ladders make next, at ``visit_s``, the mean measured visit) and every member unloaded
    (``unload_s``, measured, :data:`~perf.search.budget.UNLOAD_S` before any is); the largest ``k`` whose
    estimate fits ``left_s`` is taken, never fewer than the cut variants ``loaded`` already. Nothing is
    started that the estimate says would end past the budget.

    Args:
        cut: The variants the plan cut, most promising first.
        tie: The tie set the rounds left (leader first).
        tie_visits: Visits of one round over ``tie``.
        visits: Visits of one cut variant in each of its rounds.
        load_s: Measured load and preparation time per variant (s).
        visit_s: Measured mean visit time (s).
        left_s: Time left of the budget (s).
        unload_s: Measured unload time per variant (s).
        measured: Cut variants with numbers from an earlier session (:func:`perf.search.budget.not_measured`).
        prices: A member's load time (s) where it is not ``load_s`` (default: none).
        loaded: Members of the final group loaded already (default: none, the group not started).
        done: The rounds a final group of ``cut[:k]`` counts already, at ``k - 1`` (:attr:`Final.done`): only the
            rounds it lacks are priced (default: none).
    """

    def counted(k: int) -> int:
        return min(done[k - 1], MIN_ROUNDS) if 0 < k <= len(done) else 0

    def rounds(k: int) -> str:
        """``"the 6 rounds a verdict needs"``, or of a final group with rounds counted ``"the 4 rounds of the 6 ..."``."""
        return f"the {MIN_ROUNDS - counted(k)} rounds of the {MIN_ROUNDS}" if counted(k) else f"the {MIN_ROUNDS} rounds"

    def cost(k: int) -> float:
        members = [*tie, *cut[:k]]
        total = sum((prices or {}).get(n, load_s) for n in members if n not in loaded) + len(members) * unload_s
        for r in range(counted(k), MIN_ROUNDS):
            total += (k * (visits[min(r, len(visits) - 1)] if visits else 1) + tie_visits) * visit_s
        return total

    floor = sum(1 for n in cut if n in loaded)
    k = len(cut)
    while k > floor and cost(k) > left_s:
        k -= 1
    spread = sorted({round(p, 1) for n, p in (prices or {}).items() if n in [*tie, *cut] and round(p, 1) != round(load_s, 1)})
    other = f" ({' or '.join(fmt(p, 1) for p in spread)} s for another format's)" if spread else ""
    costs = f"measured: {fmt(visit_s, 2)} s a visit, {fmt(load_s, 1)} s a load{other}, {fmt(unload_s, 1)} s an unload"
    tie_set = f"the tie set {', '.join(f'`{n}`' for n in tie)}" if tie else ""
    # each cut names a tie set of more than 2 by its size: the reason (or the rounds' end) names it once (T23-13)
    tie_said = tie_set if len(tie) <= 2 else f"the {count(len(tie), 'variant')} of the tie set"
    when = f"after the rounds and {count(len(loaded), 'load')} of the final group" if loaded else "after the rounds"
    d = max((apart(cost(i + 1), max(left_s, 0.0)) for i in range(k, len(cut))), default=0)  # T19-8
    left = f"{fmt(max(left_s, 0.0), d)} s of the time budget"
    cuts = [
        Cut(
            "variant",
            f"{not_measured(name in measured)}: {when} {left} were left; measuring it{_with(i, tie_said)} in a final group "
            f"needs about {fmt(cost(i + 1), d)} s for {rounds(i + 1)} a verdict needs ({costs})",
            name,
            need_s=round(cost(i + 1), 1),
            final=True,
        )
        for i, name in enumerate(cut)
        if i >= k
    ]
    if not k:  # the console's line: when, what was left, who the group holds and the costs, said once (T25: ~1,800 chars)
        said = (
            f"{count(len(cuts), 'variant')} not measured: {when} {left} were left; a final group"
            f"{' with ' + tie_said if tie_said else ''} needs about {_growing(cuts, d)} for {rounds(1)} a verdict needs ({costs})"
            if len({rounds(i + 1) for i in range(len(cut))}) == 1 and not measured
            else ""
        )
        return Late([], 0.0, "", cuts, said)
    names = ", ".join(f"`{n}`" for n in cut[:k])
    reason = (
        f"{when}: {left} left fit {names} (cut by the plan)" + (f" with {tie_set}" if tie else "") + ": about "
        f"{fmt(cost(k), 0)} s for {rounds(k)} a verdict needs ({costs})"
    )
    return Late(list(cut[:k]), cost(k), reason, cuts)


def _growing(cuts: Sequence[Cut], digits: int) -> str:
    """What a final group of the first 1, 2... cut variants needs: ``"60 s (`a`) or 81 s (with `b` too)"`` (s22z,
    Z-11: ``"needs about a 60 s, b 81 s"`` read the names as part of the words around them)."""
    said = [f"{fmt(c.need_s, digits)} s (" + (f"with `{c.variant}` too)" if i else f"`{c.variant}`)") for i, c in enumerate(cuts)]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}"


def _with(before: int, tie_set: str) -> str:
    """``" with 2 more promising cut variants and the tie set `a`"``: who a cut variant's final would hold."""
    parts = ([count(before, "more promising cut variant")] if before else []) + ([tie_set] if tie_set else [])
    return f" with {' and '.join(parts)}" if parts else ""
