"""The trade-off plot of a co-location run: every combination measured, its weighted throughput
against its slowest model's p99 (medians over the rounds of the last step that measured it; a p99 as
the budget judges it, :func:`perf.colocate.judge.budget_p99`, the x axis saying which), the
pick marked, the p99 budget drawn, each point labelled with its variants. When the models have
different budgets, the x axis is the largest p99 / its own model's budget (1: at the budget). A search the
time budget cut before it decided has no pick: the combination that led in the rounds measured is
marked "leading after N rounds (not decided)", never as the pick (:mod:`perf.colocate.verdict`; trial 15,
T15-10: the starting point was starred as the pick below and left of a combination ahead on both axes). Under
``--objective fewest-instances`` each label and the pick's legend entry say the combination's instances in all, and
the title says the pick is ranked by them (trial 19, T19-16: the pick, 3 instances, was the lowest point, below
4-instance combinations, with nothing on the plot saying what it was ranked by)."""

from __future__ import annotations

from pathlib import Path

from perf.colocate import judge, verdict
from perf.colocate.near import status
from perf.markdown import fmt_given
from perf.plots.canvas import Drawn, finish, panels, place_labels
from perf.plots.palette import ALERT, CONTEXT, DARK, REFERENCE
from perf.records.colocation import ColocationRecord, step_number

#: The plot's file name in the run folder.
TRADEOFF_FILE = "colocation_tradeoff.png"


def _budget_axis(record: ColocationRecord) -> tuple[dict[str, float], float | None, bool]:
    """The budgets given, the one budget every model shares (``None``: not one for all), and whether
    the x axis is each p99 over its own model's budget (budgets differ, or some models have none)."""
    budgets = {k: v for k, v in record.budgets.items() if v is not None}
    values = set(budgets.values())
    one_budget = next(iter(values)) if len(values) == 1 and len(budgets) == len(record.models) else None
    return budgets, one_budget, bool(budgets) and one_budget is None


def x_words(record: ColocationRecord) -> str:
    """What the x axis is: ``"the largest p99 / its model's budget"`` where budgets differ, else
    ``"the slowest model's p99"`` (trial 11, F24: the title said the latter over the former's axis)."""
    return "the largest p99 / its model's budget" if _budget_axis(record)[2] else "the slowest model's p99"


def tradeoff_title(record: ColocationRecord) -> str:
    """The plot's title, and the report's words for it: weighted throughput vs :func:`x_words`."""
    return f"co-located combinations: weighted throughput vs {x_words(record)}"


def _point(c: judge.Measured, budgets: dict[str, float], relative: bool) -> tuple[float, float] | None:
    """``c``'s (x, y) on the plot: its largest p99 (over its model's budget where ``relative``) and its
    weighted throughput; ``None`` without numbers for every model."""
    p99s = [p for p in c.p99_ms.values() if p is not None]
    if c.weighted is None or len(p99s) != len(c.combination):
        return None
    if not relative:
        return max(p99s), c.weighted
    x = max((p / budgets[m] for m, p in c.p99_ms.items() if p is not None and m in budgets), default=None)
    return None if x is None else (x, c.weighted)


def _rounds_words(record: ColocationRecord, at: int) -> str:
    """Which rounds a point is the median of: ``"step 3, 6 rounds"`` (``at``: the step's index; said as every
    output numbers steps, :func:`perf.records.colocation.step_number`)."""
    step = next(s for s in record.steps if s.index == at)
    return f"step {step_number(at)}, {step.rounds} rounds"


#: The title's second line under ``--objective fewest-instances``: what the pick is ranked by.
FEWEST_WORDS = "the objective: fewest instances in all (each label's count), then weighted throughput"


def _instances(record: ColocationRecord, c: judge.Measured) -> str:
    """``"3 instances, "`` before a point's rounds where the objective is fewest-instances, else ``""``."""
    return f"{c.instances} instances, " if record.objective == "fewest-instances" else ""


def _pick_beside(
    record: ColocationRecord,
    chosen: judge.Combination,
    drawn_from: set[int],
    last: int,
    budgets: dict[str, float],
    relative: bool,
):
    """The pick's (x, y, step) in each earlier step that measured it and that other points are drawn
    from: the rounds those points were compared with it in (trial 17, T17-7: the pick's final 6 rounds
    at 1,770 weighted infer/s stood 1.87x above a combination the paired rule tied with it in their
    shared 3 rounds)."""
    out = []
    for step in record.steps:
        shared = step.index in drawn_from and step.index != last and step.rounds
        if shared and any(judge.key(t) == judge.key(chosen) for t in step.targets):
            xy = _point(judge.measured_in(record, step.index, step.rounds, chosen), budgets, relative)
            if xy is not None:
                out.append((*xy, step.index))
    return out


def plot_tradeoff(record: ColocationRecord, path: Path) -> Drawn | None:
    """Draw the trade-off (module docstring) to ``path`` (PNG); ``None`` (no file) without a
    combination that has numbers for every model. Each point is labelled with the step whose rounds it
    is the median of; the pick is also drawn (hollow star) in each earlier step's rounds that other points
    come from, so a point is compared with the pick's in the same rounds."""
    budgets, one_budget, relative = _budget_axis(record)  # relative: budgets differ, each p99 against its own
    rows = [(*xy, c) for c in judge.measured_combinations(record) if (xy := _point(c, budgets, relative)) is not None]
    if not rows:
        return None
    fig, (ax,) = panels(1, 5.5)
    ax.set_title(tradeoff_title(record) + (f"\n({FEWEST_WORDS})" if record.objective == "fewest-instances" else ""))
    # each point's marker and legend words are the table's status (perf.colocate.near.status; re-check 19, NEW-2: the
    # legend said "a model over its budget" of combinations under the p99 budget that missed a required throughput;
    # trial 21, T21-5: a combination the table said "not verified here" was marked a miss): a mark for each status
    statuses = [(x, y, status(record, c)) for x, y, c in rows]
    each = "each the median of its last step's rounds (label)"
    # a status, not a variant: greys (a colour of SERIES is a variant's in every plot, perf.plots.palette)
    for met, verified, marker, color in ((True, True, "o", DARK), (False, False, "+", CONTEXT), (False, True, "x", CONTEXT)):
        got = [(x, y, st) for x, y, st in statuses if st.met is met and st.verified is verified]
        if got:
            ax.plot([x for x, _, _ in got], [y for _, y, _ in got], marker, color=color, label=f"{got[0][2].label}, {each}")
    chosen = verdict.decided_pick(record)
    picked = next(((x, y, c) for x, y, c in rows if chosen and judge.key(c.combination) == judge.key(chosen)), None)
    beside = []
    if picked is not None and chosen is not None:
        x, y, c = picked
        ax.plot(
            [x], [y], "*", markersize=16, color=ALERT, label=f"the pick ({_instances(record, c)}{_rounds_words(record, c.step)})"
        )
        beside = _pick_beside(record, chosen, {o.step for _, _, o in rows}, c.step, budgets, relative)
        if beside:
            ax.plot(
                [b[0] for b in beside],
                [b[1] for b in beside],
                "*",
                markersize=13,
                markerfacecolor="none",
                color=ALERT,
                label="the pick in the rounds of the points it was compared with (label: step)",
            )
    lead = verdict.lead(record) if chosen is None and verdict.undecided(record) else None
    if lead is not None and lead.leader is not None:
        at = next(((x, y) for x, y, c in rows if judge.key(c.combination) == judge.key(lead.leader.combination)), None)
        if at is not None:
            ax.plot([at[0]], [at[1]], "*", markersize=16, markerfacecolor="none", color=ALERT, label=lead.label())
    if one_budget is not None:
        ax.axvline(one_budget, color=REFERENCE, linestyle="--", linewidth=1, label=f"p99 budget {fmt_given(one_budget, 0)} ms")
    elif relative:
        ax.axvline(1.0, color=REFERENCE, linestyle="--", linewidth=1, label="p99 at its model's budget")
    said = judge.p99_words(any(c.p99_quieter for _, _, c in rows))  # what the x of every point drawn is
    ax.set_xlabel(
        f"{x_words(record)} ({said}; models without a budget left out)" if relative else f"{x_words(record)} (ms, {said})"
    )
    ax.set_ylabel(f"weighted throughput (infer/s),\n{judge.WEIGHTED_WORDS}")
    names = [(x, y, "\n".join(c.combination[m.name] for m in record.models if m.name in c.combination), c) for x, y, c in rows]
    ax.margins(x=0.06, y=0.16)  # room for a 3-line label above the top point and below the lowest
    place_labels(  # a variant a line: a label as narrow as its longest name (trial 19, T19-9: one line of both did not fit)
        ax,
        [(x, y, f"{n}\n({_instances(record, c)}{_rounds_words(record, c.step)})") for x, y, n, c in names]
        + [(x, y, f"the pick (step {step_number(at)})") for x, y, at in beside],
        what="combination label",
        listed='report.md\'s "Every combination measured" lists each',
        apart=True,  # each point a combination of its own: a label never nearer another (trial 19, T19-9)
    )
    return finish(fig, [ax], path)
