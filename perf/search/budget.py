"""The time budget of a sweep (``--time-budget``): parsing it, estimating a sweep's cost from its
window settings, and fitting the rounds to it.

Cost model (each number is the setting it comes from, or a constant measured on the project's
2-core VM and named here):

* one **visit** (one perf_analyzer run of a round) = its 3 merged windows of ``window_ms`` plus
  :data:`VISIT_OVERHEAD_S` (perf_analyzer's start, its connection and its exit: 0.25–0.35 s
  there with 300 and 500 ms windows);
* one **variant's preparation** = :data:`LOAD_S` (the load request until ready, ~2.2 s for a
  python-backend model on a quiet VM, its first requests and the warm-up run; 7.4 s each for
  the demo's 8 variants while other jobs loaded it);
* the **rounds**: an adaptive ladder measures at most ``first_levels + flat_window`` levels per
  variant in its first rounds (coarse levels, then those next to its best: an upper bound) and
  about ``flat_window + 1`` once the levels behind the best retire; the
  paired rule needs :data:`perf.analysis.ranking.MIN_ROUNDS` rounds (6) before anything can be
  called, so the plan sizes one more round than that;
* **unloading** each variant after its rounds: :data:`UNLOAD_S` (the scheduler keeps that much
  of the budget for it: no round starts that would leave less);
* the in-process **baseline**: :data:`BASELINE_S` per variant it measures (its targets' model
  loads and timing points: 58 s for 6, then 106 s and 172 s for 8 demo variants on the VM as
  other jobs loaded it more and more; the baseline is not this module's to stop once started).

:func:`fit` first lowers the ladder's top (fewer levels per round) until the planned rounds
fit, then, only when not even the rounds a verdict needs fit, drops the least promising
variants (at least 2 stay); the baseline yields to the sweep (it is in the estimate, but no
level or variant is cut for it: it is skipped when what is left would not cover it); each cut is returned as a
:class:`~perf.records.rounds.Cut` (the sweep records them, the report lists them). While it
runs, the scheduler re-estimates from the visits it has timed and starts no round that would
end past the budget (:mod:`perf.search.rounds`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from core.errors import PerfError
from perf.analysis.ranking import MIN_ROUNDS
from perf.markdown import fmt
from perf.records.rounds import Cut, RoundRules
from perf.records.search import SearchRules

#: perf_analyzer's start, connection and exit around a visit's windows (s).
VISIT_OVERHEAD_S = 0.35
#: Loading and preparing one variant: load, first requests, warm-up (s).
LOAD_S = 5.0
#: The in-process baseline, per variant measured (s).
BASELINE_S = 15.0
#: Unloading one variant after its rounds and checking it is gone (s; 3.4 s each for the demo's
#: 7 variants under two CPU burners, where the server's python-backend stubs exit slowly).
UNLOAD_S = 3.0
#: Windows perf_analyzer merges in one visit.
WINDOWS = 3

_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}


def parse_duration(text: str | float | None) -> float | None:
    """``"10m"``, ``"90s"``, ``"1h"``, ``"1m30s"`` or plain seconds (``"300"``) -> seconds;
    ``"none"`` -> ``None`` (no budget).

    Raises:
        PerfError: anything else, or a duration that is not positive.
    """
    if text is None:
        return None
    if isinstance(text, (int, float)):
        text = f"{text:g}"
    t = text.strip().lower()
    if t in ("none", "off", "unlimited"):
        return None
    if re.fullmatch(r"\d+(\.\d+)?", t):
        total = float(t)
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)([hms])", t)
        if not parts or "".join(n + u for n, u in parts) != t:
            raise PerfError(
                f"time budget {text!r} is not a duration",
                hint="write it as 10m, 90s, 1h, 1m30s or a number of seconds; 'none' for no budget",
            )
        total = sum(float(n) * _UNITS[u] for n, u in parts)
    if total <= 0:
        raise PerfError(f"time budget {text!r} is not positive", hint="give a duration above 0, or 'none'")
    return total


def visit_s(window_ms: int) -> float:
    """Estimated cost of one visit (s): its windows plus perf_analyzer's start."""
    return WINDOWS * window_ms / 1000.0 + VISIT_OVERHEAD_S


@dataclasses.dataclass
class Fit:
    """What :func:`fit` planned.

    Attributes:
        estimate_s: Estimated wall time of the sweep (s): loads, the planned rounds, unloads.
        rounds: Rounds the plan expects.
        cap: The highest concurrency kept (``None``: the ladder's own top).
        variants: The variants kept, in the given (most promising first) order.
        cuts: What was cut to fit.
        visit_s, load_s: The costs used.
        baseline_s: Estimated in-process baseline after the sweep (s; run when the budget has it left).
    """

    estimate_s: float
    rounds: int
    cap: int | None
    variants: list[str]
    cuts: list[Cut]
    visit_s: float
    load_s: float
    baseline_s: float = 0.0


def _levels_per_round(ladder: Sequence[int], adaptive: bool, rules: RoundRules, early: bool) -> int:
    if not adaptive:
        return len(ladder)
    n = rules.first_levels + rules.flat_window if early else rules.flat_window + 1
    return min(len(ladder), n)


def estimate(
    n_variants: int,
    ladder: Sequence[int],
    adaptive: bool,
    keys_per_level: int,
    rules: RoundRules,
    rounds: int,
    baseline: bool,
) -> float:
    """Estimated wall time (s) of ``rounds`` rounds over ``n_variants`` variants (module cost model)."""
    v = visit_s(rules.window_ms)
    total = n_variants * (LOAD_S + UNLOAD_S) + (n_variants * BASELINE_S if baseline else 0.0)
    for r in range(rounds):
        per_variant = _levels_per_round(ladder, adaptive, rules, r < rules.min_rounds)
        total += n_variants * per_variant * keys_per_level * v
    return total


def left_text(left_s: float) -> str:
    """``"the 119 s left of the time budget"``: the time :func:`fit` plans in, named as what it is
    (the budget less what the sweep spent before the plan), so a line never calls it the budget
    beside the budget's own number."""
    return f"the {fmt(left_s, 0)} s left of the time budget"


def fit(
    names: Sequence[str],
    ladder: Sequence[int],
    adaptive: bool,
    keys_per_level: int,
    rules: RoundRules,
    search: SearchRules,
    budget_s: float | None,
    baseline: bool,
) -> Fit:
    """Fit the sweep to ``budget_s`` (module docstring); with no budget, the plan as asked.

    Args:
        names: Variants, most promising first (the last ones are cut first).
        ladder: The concurrency ladder (or the explicit list).
        adaptive: ``--concurrency auto``.
        keys_per_level: Visits per concurrency level (batch sizes x swept shapes, plus request rates).
        rules: The rounds' thresholds.
        search: The search's thresholds (the ladder's start).
        budget_s: The time the plan may take (s): the budget less what the sweep spent before it
            (:func:`left_text` names it), ``None`` for no budget.
        baseline: The in-process baseline is measured after the rounds.
    """
    want = min(rules.max_rounds, MIN_ROUNDS + 1)
    kept, levels, cuts = list(names), list(ladder), []

    def cost(n: int, lv: Sequence[int], rounds: int) -> float:  # the sweep's own: the baseline yields to it
        return estimate(n, lv, adaptive, keys_per_level, rules, rounds, False)

    if budget_s is not None and adaptive:
        while cost(len(kept), levels, want) > budget_s and len(levels) > rules.first_levels:
            levels.pop()
    if budget_s is not None:
        while cost(len(kept), levels, MIN_ROUNDS) > budget_s and len(kept) > 2:
            gone = kept.pop()
            need = fmt(cost(len(kept) + 1, levels, MIN_ROUNDS), 0)
            cuts.append(
                Cut(
                    "variant",
                    f"not measured: {len(kept) + 1} variants need about {need} s for the {MIN_ROUNDS} rounds a verdict "
                    f"needs, over {left_text(budget_s)} (the least promising go first)",
                    gone,
                )
            )
    cap = levels[-1] if levels and levels[-1] != ladder[-1] else None
    if cap is not None and budget_s is not None:  # only a budget lowers the ladder's top
        cuts.insert(
            0,
            Cut(
                "levels",
                f"concurrency above {cap} not measured: the ladder up to {ladder[-1]} would not leave time for "
                f"{want} rounds within {left_text(budget_s)}",
                concurrency=levels[-1] * search.growth,
            ),
        )
    rounds = want
    if budget_s is not None:
        while rounds > 1 and cost(len(kept), levels, rounds) > budget_s:
            rounds -= 1
    after = len(kept) * BASELINE_S if baseline else 0.0
    return Fit(cost(len(kept), levels, rounds), rounds, cap, kept, cuts, visit_s(rules.window_ms), LOAD_S, after)
