"""The closest combination when none meets every target, and why it is the closest, in words.

One rule names it, the one the search moves by: the last held combination gives way only to one the paired
rule calls nearer its targets (:func:`perf.colocate.near.nearer`: the worst ratio of a number to its target,
round by round), judged as the search judges: only between two combinations a step measured in the same
rounds; the numbers of different steps were measured under different host load (trial 9, F29: the verdict
compared last-step numbers of different rounds and named a combination the search had set aside in the same
rounds as farther). A difference of the medians the rule does not call is said as not distinguishable, never
as nearer (recheck of trial 16, R16-9). The combinations are looked at nearest first by their last step's
medians (:func:`perf.colocate.judge.nearness`).
"""

from __future__ import annotations

import dataclasses

from core.wording import sentence
from perf.analysis.stats.paired import RULE_SHORT, Paired
from perf.colocate import near as nearer_rule
from perf.colocate.judge import Measured, describe, key, last_held, measured_combinations, nearness
from perf.records.colocation import ColocationRecord, step_number

#: What a record written before the verdict and the search shared one rule said after the last held
#: combination: a closest named by another rule, on numbers of different rounds. The report and the
#: console say the closest themselves (:func:`closest_lines`), so :func:`reason` leaves it out.
_OLD_CLOSEST = "; the closest measured: "
#: A run without a pick and without a closest combination: no verdict (not "not achieved", an answer
#: exit 0), an error (exit 1; trial 16, T16-12: the console said both).
NOTHING_MEASURED = "no combination was measured with numbers for every model"


def reason(record: ColocationRecord) -> str:
    """The record's pick reason, without the closest an older record named by another rule."""
    return record.pick_reason.split(_OLD_CLOSEST)[0]


@dataclasses.dataclass(frozen=True)
class Comparison:
    """The closest combination against another one, by :func:`nearness`.

    Attributes:
        other: The other combination, with its numbers from its last step.
        step: The step that measured both in the same rounds (the latest one), where the closest was
            nearer; ``None``: no step did (the two were not compared).
        ratio, other_ratio: The closest's and the other's :func:`worst_ratio` in that step; without
            one, each one's from its last step (different rounds, where the other looks nearer).
        paired: In that step, the closest's closeness to its targets against the other's, round by round
            (:func:`perf.colocate.near.nearer`; ``None``: no step, or no round with numbers of both).
    """

    other: Measured
    step: int | None
    ratio: float
    other_ratio: float
    paired: Paired | None = None


@dataclasses.dataclass(frozen=True)
class Closest:
    """The combination nearest its targets when none meets them, and why it is.

    Attributes:
        measured: Its numbers, from the last step that measured it.
        versus: Each combination whose last-step numbers look nearer, and why it is not the closest.
    """

    measured: Measured
    versus: list[Comparison]


def _shared(
    record: ColocationRecord, a: Measured, b: Measured
) -> tuple[int, tuple[float, int], tuple[float, int], Paired | None] | None:
    """``a``'s and ``b``'s :func:`nearness` on the latest step that measured both with numbers (the
    same rounds), and ``a`` against ``b`` there by the paired rule (:func:`perf.colocate.near.nearer`);
    ``None`` when no step did."""
    for step in reversed(record.steps):
        keys = {key(t) for t in step.targets}
        if not step.rounds or key(a.combination) not in keys or key(b.combination) not in keys:
            continue
        na = nearness(record.visits, step.index, a.combination, step.rounds, record)
        nb = nearness(record.visits, step.index, b.combination, step.rounds, record)
        if na is not None and nb is not None:
            p = nearer_rule.nearer(record.visits, step.index, a.combination, b.combination, step.rounds, record.models)
            return step.index, na, nb, p
    return None


def closest(record: ColocationRecord) -> Closest | None:
    """Of the combinations measured that miss a target, the nearest to its targets by
    :func:`nearness` (the rule the search moves by), judged as the search judges: only between
    two combinations a step measured in the same rounds (the numbers of different steps were
    measured under different host load). It starts from the last held combination (where the
    search's moves, each judged in the same rounds, ended; brute force: the nearest by its one
    step) and is replaced by each combination the paired rule calls nearer than it in a step that measured
    both (:func:`perf.colocate.near.nearer`), the others taken nearest by their last step first. :attr:`Closest.versus` lists every combination
    whose last-step numbers look nearer, with the comparison that decided (or none: no step
    measured both). ``None`` when no combination missing a target was measured with numbers."""
    missing = sorted(
        (c for c in measured_combinations(record) if c.over and c.worst is not None),
        key=lambda c: (c.worst or 0.0, c.instances),
    )
    if not missing:
        return None
    held = last_held(record)
    best = next((c for c in missing if held is not None and key(c.combination) == key(held)), missing[0])
    for c in missing:
        same = None if c is best else _shared(record, c, best)
        if same is not None and nearer_rule.called_nearer(same[3]):
            best = c
    versus = []
    for c in missing:
        if c is best or (c.worst or 0.0, c.instances) >= (best.worst or 0.0, best.instances):
            continue
        same = _shared(record, best, c)
        if same is None:
            versus.append(Comparison(c, None, best.worst or 0.0, c.worst or 0.0))
        else:
            versus.append(Comparison(c, same[0], same[1][0], same[2][0], same[3]))
    return Closest(best, versus)


def closest_words(record: ColocationRecord, near: Closest) -> str:
    """The closest combination and what it misses, as the report and the console say it:
    ``"a=a1, b=b1 (the last held; 2 instances in all), step 3: it misses a p99 40 ms > 20 ms"``."""
    c = near.measured
    held = last_held(record)
    which = "the last held; " if held is not None and key(held) == key(c.combination) else ""
    return f"{describe(c.combination)} ({which}{c.instances} instances in all), step {step_number(c.step)}: it misses {'; '.join(c.over)}"


def closest_title(record: ColocationRecord, near: Closest) -> str:
    """What :func:`closest` named, as the report and the console lead with it: ``"the closest measured"``
    only where every combination whose numbers look nearer was compared with it in the same rounds and was not
    nearer there by the medians (one nearer by a difference the paired rule did not call leaves it not shown);
    else it is not shown to be the closest (trial 13, T13-14: "the closest" was the last held, the
    worst on every number shown, never measured beside them): ``"where the search stopped"`` (the last
    held), or ``"the nearest of those compared in the same rounds"``."""
    if all(v.step is not None and v.ratio <= v.other_ratio for v in near.versus):
        return "the closest measured"
    held = last_held(record)
    if held is not None and key(held) == key(near.measured.combination):
        return "where the search stopped"
    return "the nearest of those compared in the same rounds"


def closest_lines(record: ColocationRecord, near: Closest) -> list[str]:
    """The closest combination, the rule that names it (the search's), and each comparison a
    reader of the last-step numbers would question, with the rounds it was made on."""
    c = near.measured
    held = last_held(record)
    on_held = held is not None and key(held) == key(c.combination)
    title = closest_title(record, near)
    lead = "**The closest** measured" if title == "the closest measured" else f"**{title[0].upper()}{title[1:]}**"
    unshown = "" if title == "the closest measured" else " (not shown to be the closest: see below)"
    lines = [
        sentence(f"{lead}{unshown}: {closest_words(record, near)}"),
        "",
        "Nearest by the rule the search moves by: the worst ratio to a target (the largest, over its models, of p99 ÷ "
        "budget and required ÷ measured infer/s; 1 = at the target), two combinations compared only on the rounds of a "
        "step that measured both, and one taken as nearer only where the paired rule calls it nearer, round by round "
        f"({RULE_SHORT}).",
        "",
    ]
    for v in near.versus:
        other = f"- against {describe(v.other.combination)}"
        last_theirs, last_mine = _two(v.other.worst or 0.0, c.worst or 0.0)
        looks = f"by each one's last step that one looks nearer ({last_theirs} at step {step_number(v.other.step)} against {last_mine} at step {step_number(c.step)})"
        if v.step is None:
            lines.append(
                f"{other}: no step measured both, so the rule was not applied to them: {looks}, but those numbers were measured "
                "in different rounds"
                + ("; the search's moves, each judged in the same rounds, ended on this one." if on_held else ".")
            )
        else:
            mine, theirs = _two(v.ratio, v.other_ratio)
            lines.append(
                f"{other}: worst ratio {mine} against {theirs} in the same rounds (step {step_number(v.step)}; {_told(v.paired)}); "
                f"{looks}, but those numbers were measured in different rounds."
            )
    return [*lines, ""] if near.versus else lines


def _two(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` with the fewest significant digits (3 at least) that tell them apart."""
    for digits in range(3, 7):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            return x, y
    return x, y


def _told(p: Paired | None) -> str:
    """What the paired rule said of the closest against another in the same rounds (``p``: the closest's
    closeness against the other's, :func:`perf.colocate.near.nearer`)."""
    if p is None:
        return "no round with numbers of both"
    if p.significant:
        return f"its {nearer_rule.CLOSENESS} against that one's: {p.describe('nearer by the paired rule', 'farther by the paired rule')}"
    said = f"its {nearer_rule.CLOSENESS} against that one's: {p.describe('nearer', 'farther')}"
    return f"{said}; the search moves only on a difference the paired rule calls"
