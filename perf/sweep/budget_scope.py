"""What a sweep's ``--time-budget`` covers and what lies outside it, in measured seconds (trial 17, T17-14: a
``--time-budget 20s`` sweep took 43 s of wall time; the start-up before the budget's clock and the report and
plots after it were in no line).

The budget's clock starts before the server starts (:meth:`perf.sweep.run.Sweep._run_all`) and runs through the
loads, rounds, unloads and the in-process baseline to the end of the sweep (:data:`COVERS`); outside it are the
command's start-up before it (the interpreter, imports, reading the repository and its builds, checking
perf_analyzer) and the report and plots written after it. Each session records all three
(:class:`perf.records.results.Session`): the plan line says the scope (:func:`plan_words`), the sweep's last
console line (:func:`end_line`) and the report's time-budget line (:func:`report_words`) the seconds; the line after a
session's rounds (:func:`spent_words`) its rounds and visits, and what they took of the clock (:func:`budget_spent_s`).

What a rounds plan is priced and sized with, one source for the plan line, its hints and a resume's advice
(trial 29, T29-5: a resume of a run whose time budget had ended its rounds, given ``--time-budget 2m``, planned
"about 7 rounds of 1.25 s visits: estimated 84 s" where the run had measured 5.9 s visits, and lifted the earlier
session's cap of concurrency 4 to 64: the time meant for the 5 rounds its verdict lacked went to new levels, and it
ended with 4 of the 6; the no-budget resume had advised "`--time-budget 3m` ... (about 134 s: the loads and rounds as
measured)", a price the plan did not share).

- **Prices** (:func:`run_prices`): a visit at the mean of the run's measured visits, a load and an unload at the
  means of its recorded groups', each the cost model's (:func:`perf.search.budget.model_prices`) before any was
  measured (a fresh run's first plan).
- **Rounds done** (:attr:`Terms.done`): the rounds the run has of the variants together; the plan sizes those a
  verdict still needs (:func:`perf.search.budget.wanted`).
- **The ladder**: a resume keeps the cap an earlier session's time budget set (:attr:`Terms.cap`) unless its time
  budget fits a whole verdict's rounds, and one to spare, with the ladders above it (:func:`choose`): the rounds the
  verdict lacks come first, and a level above the cap is measured only where its own verdict fits. A longer
  ``--time-budget`` (or none) is how a user asks for more; the plan line says what it keeps, why, and the budget that
  lifts it (:func:`keep_words`).
- **What the rounds a verdict lacks cost** (:func:`lacking`, :func:`lacking_words`): the same estimate at the same
  prices over the kept ladder: the no-budget resume's advice and the plan line's hint say the one number.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

from core.wording import count
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.recommendation.cuts import MARGIN_SAID, suggested_s
from perf.markdown import fmt
from perf.records.results import Session
from perf.records.rounds import RoundsRecord
from perf.search import budget as budgets
from perf.search.budget import Fit, Prices
from perf.sweep import load_cuts

#: What the time budget's clock covers, from its start to the end of the sweep.
COVERS = "the server start, loads, rounds, unloads and in-process baseline"


def process_started() -> float:
    """When this process started, on :func:`time.monotonic`'s clock (``psutil``'s creation time, 10 ms steps):
    the start of a command's start-up; now when it cannot be read."""
    import psutil

    try:
        age = time.time() - psutil.Process().create_time()
    except (psutil.Error, OSError):
        age = 0.0
    return time.monotonic() - max(0.0, age)


def plan_words(startup_s: float | None) -> str:
    """The plan line's clause on the budget's scope: ``startup_s``, the seconds of start-up already spent
    outside it (``None``: not measured)."""
    before = f"the {fmt(startup_s, 0)} s of start-up before it" if startup_s is not None else "the start-up before it"
    return f"; the time budget covers {COVERS}, not {before} nor the report and plots after it"


def end_line(
    session: Session | None, budget_s: float | None, report_s: float | None, total_s: float, whole_s: float | None = None
) -> str:
    """The sweep's last console line: ``total_s`` (the command's wall time so far) split into the seconds on
    the budget's clock and those outside it, each measured (``report_s``: the report and plots, ``None`` when
    none was written; the rest after the clock is the summary lines around them). ``whole_s``: a resumed run's
    own time budget, of which ``budget_s`` is what was left (T24-12: a resume said "0 s on the clock of the 11 s
    time budget" of a 150 s run's last 11 s)."""
    clock = session.budget_clock_s if session is not None else None
    budget = f"the {fmt(budget_s, 0)} s time budget" if budget_s is not None else "the sweep (no time budget)"
    if budget_s is not None and whole_s is not None and fmt(whole_s, 0) != fmt(budget_s, 0):
        spent = BEFORE.format(fmt(whole_s - budget_s, 0))  # the rounds line's number (s22z, Z-10)
        budget = f"the {fmt(budget_s, 0)} s left of the run's {fmt(whole_s, 0)} s time budget after the {spent}"
    if session is None or clock is None:  # never started: nothing was measured
        return f"time: {fmt(total_s, 0)} s in all"
    startup = session.startup_s or 0.0
    after = max(0.0, total_s - startup - clock)
    parts = [f"{fmt(startup, 0)} s of start-up before it"]
    if report_s is not None:
        parts.append(f"{fmt(report_s, 0)} s for the report and plots after it")
    rest = after - (report_s or 0.0)
    if rest >= 0.5:
        parts.append(f"{fmt(rest, 0)} s for the summary after it")
    return (
        f"time: {fmt(total_s, 0)} s in all: {fmt(clock, 0)} s on the clock of {budget} ({COVERS}); "
        f"outside it {fmt(startup + after, 0)} s: {', '.join(parts)}"
    )


#: How the time a resumed run's earlier sessions spent of its time budget is said, one quantity wherever it is (its rounds
#: and loads, and its in-process baseline: what :func:`perf.records.resumed.resumed_budget` takes off the budget). s22z,
#: Z-10: the rounds line's "84 s before this resume" (rounds only) beside the end line's "the 120 s left of the run's
#: 208 s time budget" (88 s spent) read as two numbers for one thing.
BEFORE = "{} s spent before this resume"


def before_words(rounds_s: float | None, baseline_s: float | None) -> str:
    """The rounds line's clause on what a resumed run's earlier sessions spent of its time budget (``rounds_s``: their
    rounds and loads, ``None`` for a run's first session; ``baseline_s``: their in-process baseline), :data:`BEFORE`'s
    number, each part named: ``"; 88 s of the run's time budget spent before this resume (84 s of rounds and loads,
    4 s of the in-process baseline)"``; ``""`` for a first session or none spent."""
    if rounds_s is None or (total := rounds_s + (baseline_s or 0.0)) < 0.5:
        return ""
    parts = (
        f" ({fmt(rounds_s, 0)} s of rounds and loads, {fmt(baseline_s, 0)} s of the in-process baseline)" if baseline_s else ""
    )
    return f"; {fmt(total, 0)} s of the run's time budget spent before this resume{parts}"


def report_words(session: Session | None, sessions: int = 1) -> str:
    """The report's time-budget line's clause on the last session's clock and what lay outside it (``sessions``:
    how many the run had; more than one names it the last session's); ``""`` for a run recorded before these
    were timed."""
    if session is None or session.budget_clock_s is None:
        return ""
    whose = "the last session's" if sessions > 1 else "the budget's"
    startup = f"{fmt(session.startup_s, 0)} s of start-up before it" if session.startup_s is not None else "start-up"
    report = (
        f"{fmt(session.report_s, 0)} s for the report and plots the sweep wrote after it"
        if session.report_s is not None
        else "the report and plots written after it"
    )
    return f"; {whose} clock ran {fmt(session.budget_clock_s, 0)} s ({COVERS}); outside it: {startup}, and {report}"


def spent_words(rounds: RoundsRecord, since: tuple[int, int], now_s: float, estimate_s: float, before_s: float | None) -> str:
    """The line after a session's rounds: how many rounds and visits, how long the rounds took (their recorded
    ``wall_s``), in how many groups, the budget's clock so far (``now_s``: the server start and loads too) against the
    estimate, and why they ended (trial 9, F2: "rounds: 165 s spent (estimated 338 s)" said neither; trial 28, T28-4:
    "8 rounds (44 visits), 95 s" read as the rounds' time, 54 s of it). ``since``: the rounds and groups recorded before this session (a resume's). Its
    visits count those that failed too, said apart; its rounds only those that measured something. After a
    resume it says the run's rounds too, as the ending's "after N rounds" counts them (trial 17, T17-5: "9 rounds"
    and "after 10 rounds" in one line). A session with no visit says its time is not counted (:func:`budget_spent_s`, T23-4)."""
    session = rounds.rounds[since[0] :]
    done = [r for r in rounds.measured() if r in session]  # a round whose every visit failed is no round
    groups = [g for g in rounds.groups[since[1] :] if g.variants]  # one that loaded none measured nothing (T17-2)
    visits = sum(len(r.order) for r in session)
    failed = sum(v.failed for r in session for v in r.order)
    ended = groups[-1].ended if groups and groups[-1].ended else None
    timed = [r.wall_s for r in session if r.wall_s is not None]  # the rounds' own time: their visits' windows and gaps
    return (
        f"rounds: {count(len(done), 'round')} ({count(visits, 'visit')}"
        + (f", {failed} failed" if failed else "")
        + ")"
        + (f" in {fmt(sum(timed), 0)} s" if timed else "")
        + (f", in {len(groups)} groups" if len(groups) > 1 else "")
        + (f" this session, {len(rounds.measured())} in the run" if len(rounds.measured()) > len(done) else "")
        + f"; {fmt(now_s, 0)} s of the budget's clock so far ({'' if visits else 'not counted on the time budget: no visit; '}"
        + f"estimated {fmt(estimate_s, 0)} s"
        + before_words(before_s, rounds.budget.baseline_s if rounds.budget is not None else None)  # s22z, Z-10
        + ")"
        + (f"; {'the last group ' if len(groups) > 1 else ''}ended: {ended}" if ended else "")
    )


def budget_spent_s(rounds: RoundsRecord, since: tuple[int, int], now_s: float) -> float:
    """What a session took of the run's time budget: its ``now_s``, or nothing when it recorded no visit
    (stopped during its loads: a resume loads them again). README: "a run stopped before its first round
    keeps its whole ``--time-budget``" (trial 13, T13-19: a demo sweep interrupted before its first
    measurement was resumed with the 21 s of its loads taken off its 90 s). ``since``: as :func:`spent_words`."""
    return now_s if any(r.order for r in rounds.rounds[since[0] :]) else 0.0


def spent_recorder(
    rounds: RoundsRecord, since: tuple[int, int], clock: Callable[[], float], started: float, before: float | None
) -> Callable[[], None]:
    """The one record of a session's time on the run's time budget (``SweepBase.record_spent``, called at every save
    and when the session's rounds end, a fresh sweep's, :mod:`perf.sweep.run`, and a resume's final group,
    :mod:`perf.sweep.final`): ``rounds.budget.spent_s``, the time the sessions before took (``before``) and this one's
    (:func:`budget_spent_s`, ``clock() - started``), and ``session_spent_s``. ``since``: as :func:`budget_spent_s`."""

    def record() -> None:
        assert rounds.budget is not None
        now_s = clock() - started
        rounds.budget.spent_s = round(budget_spent_s(rounds, since, now_s) + (before or 0.0), 1)
        rounds.budget.session_spent_s = round(now_s, 1)

    return record


#: A plan over ``ladder`` after ``done`` rounds (:func:`perf.search.budget.fit` with the sweep's other arguments).
Plan = Callable[[Sequence[int], int], Fit]


def run_prices(rounds: RoundsRecord) -> Prices:
    """The prices of a plan of ``rounds``' run (module docstring): its measured visits', loads' and unloads' means."""
    walls = [v.wall_s for r in rounds.rounds for v in r.order if v.wall_s]
    model = budgets.model_prices(rounds.rules.window_ms)
    return Prices(
        sum(walls) / len(walls) if walls else model.visit_s,
        load_cuts.load_s(load_cuts.recorded_load_times(rounds.groups), model.load_s),
        load_cuts.unload_s(load_cuts.recorded_unload_times(rounds.groups)),
        len(walls),
    )


@dataclasses.dataclass(frozen=True)
class Terms:
    """What a plan of some variants of a run is made on (module docstring).

    Attributes:
        prices: :func:`run_prices`.
        done: The rounds the run has of the variants together (0: a first session, or a variant new to them).
        cap: The ladder top an earlier session's time budget capped the rounds at, which a resume keeps unless
            its budget fits a verdict's rounds above it (``None``: none).
    """

    prices: Prices
    done: int
    cap: int | None


def terms(rounds: RoundsRecord, names: Sequence[str]) -> Terms:
    """The :class:`Terms` of a plan of ``names`` in ``rounds``' run."""
    b = rounds.budget
    return Terms(run_prices(rounds), len(rounds.rounds_of(names)) if names else 0, b.max_concurrency if b else None)


def lifts(whole: Fit, cap: int) -> bool:
    """Whether ``whole`` (a plan of a verdict's rounds over the whole ladder) measures above ``cap`` with every variant."""
    return (whole.cap is None or whole.cap > cap) and not whole.cut_variants


def choose(t: Terms, ladder: Sequence[int], plan: Plan) -> Fit:
    """The plan of ``t`` over ``ladder`` (module docstring): over the ladder kept at ``t.cap`` after ``t.done`` rounds,
    unless a plan of a verdict's rounds over the whole ladder (:func:`lifts`) measures above it."""
    if t.cap is None or not ladder or t.cap >= ladder[-1]:
        return plan(ladder, t.done)
    whole = plan(ladder, 0)
    if lifts(whole, t.cap):
        return whole
    kept = plan([c for c in ladder if c <= t.cap], t.done)
    return kept if kept.cap is not None else dataclasses.replace(kept, cap=t.cap)


def kept(t: Terms, fit: Fit) -> int | None:
    """The earlier session's cap ``fit`` keeps (:func:`choose`); ``None`` where it lifts it or there is none."""
    return t.cap if t.cap is not None and fit.cap is not None and fit.cap <= t.cap else None


def keep_words(cap: int | None, lift: tuple[int, int] | None, run_id: str) -> str:
    """The plan line's words of an earlier session's ``cap`` kept (:func:`kept`): ``"; keeps the time budget's cap of
    concurrency 4 of an earlier session: the rounds a verdict lacks come first; `--resume r1 --time-budget 5m` fits
    a verdict's rounds with ladders above it (up to 8) and lifts it"`` (``lift``: that budget's minutes and ladder
    top, :func:`lift_minutes`; ``None``: not within an hour); ``""`` for none kept."""
    if cap is None:
        return ""
    more = f"`--resume {run_id} --time-budget {lift[0]}m` fits" if lift else "a longer `--time-budget` fits"
    top = f" (up to {lift[1]})" if lift else ""
    return (
        f"; keeps the time budget's cap of concurrency {cap} of an earlier session: the rounds a verdict lacks come "
        f"first; {more} a verdict's rounds with ladders above it{top} and lifts it"
    )


def lift_minutes(t: Terms, ladder: Sequence[int], at: Callable[[float], Fit], first: int) -> tuple[int, int] | None:
    """The smallest whole-minute budget from ``first`` whose plan (``at``: the whole ladder's, of a budget in seconds)
    lifts ``t.cap`` (:func:`lifts`), within an hour, and its ladder top; ``None`` beyond, or with no cap."""
    if t.cap is None or not ladder:
        return None
    for m in range(first, first + 60):
        if lifts(whole := at(m * 60.0), t.cap):
            return m, whole.cap or ladder[-1]
    return None


@dataclasses.dataclass(frozen=True)
class Lacking:
    """The rounds a verdict lacks and their price (module docstring).

    Attributes:
        rounds: The rounds it lacks (at least one: "more rounds" once it has the minimum).
        need_s: Their estimate (s): the loads, those rounds over the kept ladder, the unloads, at the run's prices.
        top: The kept ladder's top.
        prices: The prices.
    """

    rounds: int
    need_s: float
    top: int
    prices: Prices

    @property
    def minutes(self) -> int:
        """The suggested ``--time-budget`` (whole minutes, :func:`perf.analysis.recommendation.cuts.suggested_s`)."""
        return suggested_s(self.need_s) // 60


def lacking(t: Terms, n: int, ladder: Sequence[int], adaptive: bool, keys_per_level: int, rounds: RoundsRecord) -> Lacking:
    """What the rounds a verdict lacks of ``n`` variants cost over ``ladder`` kept at ``t.cap`` (module docstring)."""
    levels = [c for c in ladder if t.cap is None or c <= t.cap] or list(ladder)
    k = max(1, MIN_ROUNDS - t.done)
    need = budgets.estimate(n, levels, adaptive, keys_per_level, rounds.rules, k, False, t.prices)
    return Lacking(k, need, levels[-1] if levels else 0, t.prices)


def lacking_words(lack: Lacking, done: int, run_id: str) -> str:
    """``"`--resume r1 --time-budget 3m` gives it the 5 of the 6 rounds a verdict needs it lacks (about 137 s: the
    loads, 5 rounds of 5.90 s visits (the run's mean of 4) up to concurrency 4, and the unloads; ...)"``."""
    rounds = f"the {lack.rounds} of the {MIN_ROUNDS} rounds a verdict needs it lacks" if done < MIN_ROUNDS else "more rounds"
    return (
        f"`--resume {run_id} --time-budget {lack.minutes}m` gives it {rounds} (about {fmt(lack.need_s, 0)} s: the loads, "
        f"{lack.rounds} round{'s' if lack.rounds != 1 else ''} of {lack.prices.visit_words()} up to concurrency {lack.top}, "
        f"and the unloads; {MARGIN_SAID})"
    )
