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
* the **rounds**: each variant's levels per round as its ladder walks them
  (:func:`levels_by_round`: :mod:`perf.search.ladder`'s own start and growth over its coarse
  levels, 1, 4, 16, 64; an explicit list whole); the
  paired rule needs :data:`perf.analysis.ranking.operating.MIN_ROUNDS` rounds (6) before anything can be
  called, so the plan sizes one more round than that;
* **unloading** each variant after its rounds: :data:`UNLOAD_S` before any unload is measured, then the run's
  measured unloads (:func:`perf.sweep.load_cuts.unload_s`; the scheduler keeps that much of the budget for it:
  no round starts that would leave less);
* the in-process **baseline**: what the caller's estimate of it says (a :data:`BaselineCost`; the
  sweep's is :func:`perf.profile.estimate.estimate`, from the points it will time), else
  :data:`BASELINE_S` per variant (the Python API without a repository).

:func:`fit` first lowers the ladder's top (fewer levels per round) until the planned rounds
fit, then, only when not even the rounds a verdict needs fit, drops variants from the end of
:func:`perf.search.promise.by_measurements`'s order (at least 2 stay): those not measured yet first, spread
so that every value of every setting keeps a variant, then the measured ones, lowest throughput first, each client
workload ranked on its own (one that leads at any workload kept longest); the baseline yields to the sweep: no level or variant is cut for it,
but when the rounds a verdict needs fit beside it its time is kept from the rounds up front
(:attr:`Fit.reserve_s`), else it runs on what the rounds leave (:func:`perf.sweep.baseline_words.baseline_fits`); each cut is returned as a
:class:`~perf.records.rounds.Cut` (the sweep records them, the report lists them). While it
runs, the scheduler re-estimates from the visits it has timed and starts no round that would
end past the budget (:mod:`perf.search.rounds`). The plan's estimate is a bound (every
variant planned for 7 rounds, the cost model's constants), so the rounds often end early:
:func:`perf.search.late.late` then re-makes the plan for the cut variants from what the rounds measured (visit
and load times, the tie set's visits) and the sweep measures those the time left fits in a
final group with the tie set (:mod:`perf.sweep.rounds`); the others' cuts give those numbers.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from collections.abc import Collection, Sequence

from core.errors import PerfError
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.markdown import apart, fmt
from perf.records.results import VariantResult
from perf.records.rounds import Cut, RoundRules
from perf.records.search import SearchRules
from perf.search import ladder as ladders
from perf.search.baseline_time import BASELINE_S, BaselineCost, baseline_cost
from perf.search.plan import plan_levels
from perf.search.shrink import rounds_within, shrink

log = logging.getLogger(__name__)

#: perf_analyzer's start, connection and exit around a visit's windows (s).
VISIT_OVERHEAD_S = 0.35
#: Loading and preparing one variant: load, first requests, warm-up (s).
LOAD_S = 5.0
#: What a priced load covers, said beside its time (trial 16, T16-9: the console's "loaded in 9.6 s" is the load alone).
LOAD_WORDS = "to load and warm up"
#: Unloading one variant after its rounds and checking it is gone (s; 3.4 s each for the demo's
#: 7 variants under two CPU burners, where the server's python-backend stubs exit slowly; 3.2 s
#: each for 5 tiny variants at load 5, where 3.0 left a 2 m budget 0.5 s over). The worst seen.
UNLOAD_S = 3.5
#: Windows perf_analyzer merges in one visit.
WINDOWS = 3

_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}


def parse_duration(text: str | float | None) -> float | None:
    """``"10m"``, ``"90s"``, ``"1h"``, ``"1m30s"`` or plain seconds (``"300"``) -> seconds;
    ``"none"`` -> ``None`` (no budget). A typed number without a unit is read as seconds and
    said so in a warning (``--time-budget 3`` ran as 3 s without a word).

    Raises:
        PerfError: anything else, or a duration that is not positive.
    """
    if text is None:
        return None
    given_as_number = isinstance(text, (int, float))  # a saved budget (s), not typed
    if isinstance(text, (int, float)):
        text = f"{text:g}"
    t = text.strip().lower()
    if t in ("none", "off", "unlimited"):
        return None
    if re.fullmatch(r"\d+(\.\d+)?", t):
        total = float(t)
        if not given_as_number:  # typed without a unit: said, not silently taken as seconds
            log.warning("time budget %r has no unit: read as %s s (write %ss, %sm or %sh)", text, t, t, t, t)
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


@dataclasses.dataclass(frozen=True)
class Prices:
    """What a plan prices one visit, one load and one unload at (s): the cost model's (:func:`model_prices`), or a
    resumed run's measured means (:func:`perf.sweep.budget_scope.run_prices`, the one source a resume's plan, its
    advice and its time-budget words read: trial 29, T29-5, a resume planned 1.25 s visits where the run had
    measured 5.9 s). ``visits``: how many measured visits ``visit_s`` is the mean of (0: the cost model's)."""

    visit_s: float
    load_s: float = LOAD_S
    unload_s: float = UNLOAD_S
    visits: int = 0

    def visit_words(self) -> str:
        """``"1.25 s visits"``; measured: ``"5.90 s visits (the run's mean of 25)"``."""
        return f"{fmt(self.visit_s, 2)} s visits" + (f" (the run's mean of {self.visits})" if self.visits else "")


def model_prices(window_ms: int) -> Prices:
    """The cost model's prices (module docstring): :func:`visit_s`, :data:`LOAD_S`, :data:`UNLOAD_S`."""
    return Prices(visit_s(window_ms))


def wanted(rules: RoundRules, done: int = 0) -> tuple[int, int]:
    """The rounds a plan sizes the ladder for and those a verdict needs, of a session after ``done`` rounds the run
    has of its variants together (a resume's; a first session: 0): ``(7, 6)`` then ``(7 - done, 6 - done)``, at
    least 1, within ``max_rounds``."""
    return max(1, min(rules.max_rounds, MIN_ROUNDS + 1) - done), max(1, MIN_ROUNDS - done)


def verdict_words(done: int = 0) -> str:
    """``"the 6 rounds a verdict needs"``; after ``done`` rounds (a resume's): ``"the 5 of the 6 rounds a verdict needs
    that the run lacks"``."""
    if done <= 0:
        return f"the {MIN_ROUNDS} rounds a verdict needs"
    return f"the {max(1, MIN_ROUNDS - done)} of the {MIN_ROUNDS} rounds a verdict needs that the run lacks"


@dataclasses.dataclass
class Fit:
    """What :func:`fit` planned.

    Attributes:
        estimate_s: Estimated wall time of the sweep (s): loads, the planned rounds, unloads.
        rounds: Rounds the plan expects.
        cap: The highest concurrency kept (``None``: the ladder's own top).
        variants: The variants kept, in the given order (kept longest first).
        cuts: What was cut to fit.
        visit_s, load_s: The costs used.
        baseline_s: Estimated in-process baseline after the sweep (s); ``reserve_s``: the budget kept for it
            up front (``baseline_s`` when the rounds a verdict needs fit beside it, else 0).
        visits: Visits of one variant in each round of its own (:func:`levels_by_round` times the
            visits per level), up to ``max_rounds``: what :func:`perf.search.late.late` plans a cut variant with.
        floor: The highest concurrency the run measured before (a resume's earlier sessions; 0:
            none): ``cap`` is never below it (:func:`perf.search.shrink.shrink`), here and when
            fitted again (:func:`perf.search.refit.refit`).
        unload_s: The unload price used (:class:`Prices`).
        done: The rounds the run had of the variants together before this plan (a resume's): ``rounds`` are
            this session's, sized for the rounds a verdict still needs (:func:`wanted`).
        visits_measured: How many measured visits ``visit_s`` is the mean of (0: the cost model's).
    """

    estimate_s: float
    rounds: int
    cap: int | None
    variants: list[str]
    cuts: list[Cut]
    visit_s: float
    load_s: float
    baseline_s: float = 0.0
    visits: list[int] = dataclasses.field(default_factory=list)
    reserve_s: float = 0.0
    floor: int = 0
    unload_s: float = UNLOAD_S
    done: int = 0
    visits_measured: int = 0

    @property
    def prices(self) -> Prices:
        """The prices this plan was made with (a plan fitted again keeps them, its loads measured)."""
        return Prices(self.visit_s, self.load_s, self.unload_s, self.visits_measured)

    @property
    def cut_variants(self) -> list[str]:
        """The variants cut, the last cut first (the one the cut order kept longest)."""
        return [c.variant for c in self.cuts if c.kind == "variant" and c.variant][::-1]


def levels_by_round(
    ladder: Sequence[int], adaptive: bool, rules: RoundRules, rounds: int, search: SearchRules | None = None
) -> list[int]:
    """Levels one variant measures in each of its first ``rounds`` rounds, the estimate's count.

    An explicit list is measured whole every round. An adaptive ladder is walked by
    :mod:`perf.search.ladder` itself, as it walks a variant with no step measured flat yet:
    :func:`~perf.search.ladder.start` (its first coarse levels), then
    :func:`~perf.search.ladder.update` after each round, which adds the next coarse levels
    until the ladder's top (``ladder`` is the ladder up to the plan's cap). From the
    ``min_rounds``-th round on, refinement adds at most the two doubling levels next to a
    variant's best while retirement drops the levels behind it, so the coarse count stands
    for both (simulated ladders, ``tests/support/simulated_host.py``: 3, 4, 4 levels in the
    first rounds, then 2-6, about 4, on the 1...64 ladder, whose count here is 3, 4, 4, 4...).
    """
    top = tuple(ladder)
    if not adaptive or not top:
        return [len(top)] * rounds
    plan = plan_levels("estimate", 1, top, [1])
    vr, search = VariantResult("estimate"), search or SearchRules()
    lad = ladders.start(plan, top, True, rules, None)
    out = []
    for _ in range(rounds):
        out.append(len(lad.active))
        lad = ladders.update(lad, plan, vr, top, True, search, rules, None, None)
    return out


def estimate(
    n_variants: int,
    ladder: Sequence[int],
    adaptive: bool,
    keys_per_level: int,
    rules: RoundRules,
    rounds: int,
    baseline: bool,
    prices: Prices | None = None,
) -> float:
    """Estimated wall time (s) of ``rounds`` rounds over ``n_variants`` variants (module cost model), each visit, load
    and unload at ``prices`` (default: the cost model's, :func:`model_prices`): the one price of every plan."""
    p = prices or model_prices(rules.window_ms)
    total = n_variants * (p.load_s + p.unload_s) + (n_variants * BASELINE_S if baseline else 0.0)
    for per_variant in levels_by_round(ladder, adaptive, rules, rounds):
        total += n_variants * per_variant * keys_per_level * p.visit_s
    return total


def not_measured(before: bool) -> str:
    """How a cut begins: ``"not measured"``, or for a variant with numbers from an earlier
    session of the run (``before``), ``"not measured further in this session"``: its numbers
    stand, and it is no "variant not measured"."""
    return "not measured further in this session" if before else "not measured"


def ladder_rounds(want: int, done: int = 0) -> str:
    """The rounds the ladder's top is lowered for, in words: ``want`` is the rounds a verdict needs
    (:data:`perf.analysis.ranking.operating.MIN_ROUNDS`) and one to spare, said so, beside the cuts that
    name the verdict's rounds alone (trial 22: "7 rounds" and "the 6 rounds a verdict needs" in one line);
    ``done``: the rounds the run had before (a resume's), the verdict's then those it lacks (:func:`wanted`)."""
    need = MIN_ROUNDS - done
    spare = want - need
    if done > 0 and spare > 0:
        return f"{want} rounds (the {need} of the {MIN_ROUNDS} a verdict needs that the run lacks and {spare} to spare)"
    if spare <= 0:
        return verdict_words(done) if want == need else f"{want} rounds"
    return f"{want} rounds (the {MIN_ROUNDS} a verdict needs and {spare} to spare)"


def left_text(left_s: float, digits: int = 0) -> str:
    """``"the 119 s left of the time budget"``: the time :func:`fit` plans in, named as what it is
    (the budget less what the sweep spent before the plan), so a line never calls it the budget
    beside the budget's own number; ``digits``: its decimals (those of a need said against it, :func:`perf.markdown.apart`)."""
    return f"the {fmt(left_s, digits)} s left of the time budget"


def fit(
    names: Sequence[str],
    ladder: Sequence[int],
    adaptive: bool,
    keys_per_level: int,
    rules: RoundRules,
    search: SearchRules,
    budget_s: float | None,
    baseline: bool | BaselineCost,
    measured: Collection[str] = (),
    floor: int = 0,
    *,
    prices: Prices | None = None,
    done: int = 0,
) -> Fit:
    """Fit the sweep to ``budget_s`` (module docstring); with no budget, the plan as asked.

    Args:
        names: Variants, most promising first (the last ones are cut first): in the order of
            :func:`perf.search.promise.by_measurements`, whose rule the cut reasons name.
        ladder: The concurrency ladder (or the explicit list).
        adaptive: ``--concurrency auto``.
        keys_per_level: Visits per concurrency level (batch sizes x swept shapes, plus request rates).
        rules: The rounds' thresholds.
        search: The search's thresholds (the ladder's start).
        budget_s: The time the plan may take (s): the budget less what the sweep spent before it
            (:func:`left_text` names it), ``None`` for no budget.
        baseline: The in-process baseline is measured after the rounds: its estimate for the
            variants kept (a :data:`BaselineCost`), or ``True`` for :data:`BASELINE_S` a variant.
        measured: Variants the run has numbers for from before (a resumed run): a cut says
            "not measured further in this session", never "not measured".
        floor: The highest concurrency the run measured before (a resume's,
            :func:`perf.search.promise.measured_top`): the ladder's top is not lowered below it, so
            no cut says a level with numbers was not measured and the rounds measure what the plan says.
        prices: What a visit, a load and an unload cost (default: the cost model's; a resume: the run's measured
            ones, :func:`perf.sweep.budget_scope.run_prices`).
        done: The rounds the run has of ``names`` together (a resume's): the plan sizes those a verdict still
            needs (:func:`wanted`), as its cuts say.
    """
    p = prices or model_prices(rules.window_ms)
    want, verdict = wanted(rules, done)
    kept, levels, cuts = list(names), list(ladder), []

    def cost(n: int, lv: Sequence[int], rounds: int) -> float:  # the sweep's own: the baseline yields to it
        return estimate(n, lv, adaptive, keys_per_level, rules, rounds, False, p)

    if budget_s is not None:
        shrunk = shrink(kept, levels, cost, budget_s, want, rules.first_levels, adaptive, floor, verdict)
        levels, kept = shrunk.levels, shrunk.kept
        for gone, n, need in shrunk.dropped:
            cuts.append(
                Cut(
                    "variant",
                    f"{not_measured(gone in measured)}: {n} variants need about {fmt(need, d := apart(need, budget_s))} s for "
                    f"{verdict_words(done)}, over {left_text(budget_s, d)}",
                    gone,
                    need_s=round(need, 1),
                )
            )
    cap = levels[-1] if levels and levels[-1] != ladder[-1] else None
    if cap is not None and budget_s is not None:  # only a budget lowers the ladder's top
        cuts.insert(
            0,
            Cut(
                "levels",
                f"concurrency above {cap} not measured: the ladder up to {ladder[-1]} would not leave time for "
                f"{ladder_rounds(want, done)} within {left_text(budget_s)}",
                concurrency=levels[-1] * search.growth,
            ),
        )
    after = baseline_cost(baseline)(kept)  # kept up front when the verdict's rounds fit beside it
    keep = after if budget_s is not None and cost(len(kept), levels, verdict) + after <= budget_s else 0.0
    rounds = want if budget_s is None else rounds_within(cost, len(kept), levels, want, budget_s - keep)
    visits = [n * keys_per_level for n in levels_by_round(levels, adaptive, rules, max(rules.max_rounds, MIN_ROUNDS), search)]
    est = cost(len(kept), levels, rounds)
    return Fit(est, rounds, cap, kept, cuts, p.visit_s, p.load_s, after, visits, keep, floor, p.unload_s, done, p.visits)


def keeps_baseline(
    names: Sequence[str],
    ladder: Sequence[int],
    adaptive: bool,
    keys_per_level: int,
    rules: RoundRules,
    search: SearchRules,
    spent_s: float,
    above_s: float,
    measured: Collection[str] = (),
    floor: int = 0,
    baseline: bool | BaselineCost = True,
    *,
    prices: Prices | None = None,
    done: int = 0,
) -> int:
    """The time budget, in whole minutes above ``above_s``, whose plan (:func:`fit`, with what this
    invocation spent before it, ``spent_s``) keeps the in-process baseline's time from the start
    (:attr:`Fit.reserve_s`): the one number both the plan line and a skipped baseline name (trial 8,
    F9: "--time-budget 8m keeps it" before the rounds, "--time-budget 7m gives it" after them). At
    the latest the budget of every variant over the whole ladder for the rounds wanted, which keeps it. ``prices``,
    ``done``: the plan's (:func:`fit`)."""
    want = wanted(rules, done)[0]
    rounds_s = estimate(len(names), ladder, adaptive, keys_per_level, rules, want, False, prices)
    whole = spent_s + rounds_s + baseline_cost(baseline)(names)
    first, last = int(above_s // 60) + 1, max(1, math.ceil(whole / 60))
    args = (names, ladder, adaptive, keys_per_level, rules, search)
    for m in range(first, last):
        if fit(*args, m * 60 - spent_s, baseline, measured, floor, prices=prices, done=done).reserve_s:
            return m
    return max(first, last)
