"""How a rounds sweep measured, recorded in ``results.json`` (``"rounds"``).

The numbers themselves stay where every level's are: one
:class:`~perf.records.results.LevelResult` per (variant, level, round), the round in its
``trial`` field. This record holds what the numbers alone cannot say: the rules and seed,
which variants were loaded together (:class:`LoadGroup`), every round's shuffled order and
timing (:class:`RoundRecord`), the time budget's plan and what it spent
(:class:`BudgetRecord`), what was cut for time (:class:`Cut`) and why the rounds ended.
The verdicts are not stored: the report derives them from the per-round numbers with
:mod:`perf.analysis.stats.paired` (one source of truth).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

_CONFIG = ConfigDict(extra="ignore")

#: ``rounds``: interleaved rounds (the default); ``sequential``: one variant after another.
Design = Literal["rounds", "sequential"]
DESIGNS: tuple[str, ...] = ("rounds", "sequential")
#: How the help of a flag that one design reads says which (:data:`perf.sweep.design_flags.DESIGN_ONLY`).
READ_BY = {"sequential": "--design sequential only", "rounds": "the rounds design only (the default)"}
#: What a :class:`Cut` took away: a variant never measured, ladder levels above a cap, rounds
#: beyond the last one measured, a ladder stopped while still rising, the in-process baseline.
CutKind = Literal["variant", "levels", "rounds", "ladder", "baseline"]


#: How the words begin of rounds the time budget ended (:attr:`RoundsRecord.ended`, a group's ``ended``), not a
#: decision: a resume given a new ``--time-budget`` gives them more rounds (:mod:`perf.sweep.final`). Read only of a
#: record written before :data:`EndedBy` was (:func:`time_spent`).
TIME_SPENT = "time budget spent"
#: What ended rounds (``ended_by`` beside their words, ``ended``): ``decided``: the ranking (decided, or a tie settled);
#: ``max_rounds``: the most a group gets; ``time``: the time budget; ``no_contender``: no variant left in contention;
#: ``no_level``: no level left to measure (each contender's retired or resting).
EndedBy = Literal["decided", "max_rounds", "time", "no_contender", "no_level"]


def time_spent(ended: str | None, by: EndedBy | None) -> bool:
    """Whether rounds whose end is recorded so (``ended``, ``by``: :data:`EndedBy`) were ended by the time budget, not a
    decision: ``by``; of a record written before it was (``by`` ``None``), the words' prefix (:data:`TIME_SPENT`). The
    one reader (review s23r, m3: whether a resume given a new ``--time-budget`` gets more rounds was decided by the
    words of a message, which three places built apart)."""
    return by == "time" if by is not None else (ended or "").startswith(TIME_SPENT)


#: Sweep settings the rounds design does not use (:mod:`perf.sweep.context` and
#: :func:`perf.measure.level.measure_visit` replace them): a round measures each level once, in one
#: perf_analyzer run of 3 time windows of :attr:`RoundRules.window_ms`, never retried.
NOT_IN_ROUNDS = ("trials", "measurement_interval_ms", "measurement_request_count", "max_trials", "unstable_retries")


@dataclass(frozen=True, config=_CONFIG)
class RoundRules:
    """The thresholds of the rounds design (:mod:`perf.search.rounds` applies them).

    Attributes:
        window_ms: Length of each of perf_analyzer's 3 merged windows in one visit (ms).
        min_rounds: Paired rounds a ladder decision needs (a stop, a retired level); a verdict
            between variants needs what the paired rule needs (:mod:`perf.analysis.stats.paired`: 6).
        max_rounds: Rounds at most per group, whatever the budget (10: enough for the rule to
            call a difference with one round against it, 9 of 10).
        flat_window: Consecutive flat steps (doublings without a median gain above
            ``min_gain_pct``) at the top of a ladder that end it.
        first_levels: Levels of an adaptive ladder measured from the first round.
        first_step: Doublings per step of an adaptive ladder's first pass (2: 1, 4, 16, 64 and
            the top); the levels between are added next to a variant's best once it is known.
    """

    window_ms: int = 300
    min_rounds: int = 3
    max_rounds: int = 10
    flat_window: int = 2
    first_levels: int = 3
    first_step: int = 2


@dataclass(frozen=True, config=_CONFIG)
class Visit:
    """One measurement of a round, in the order measured.

    Attributes:
        variant: Variant name.
        concurrency: perf_analyzer concurrency (0 for a request-rate level).
        batch_size: Client batch size.
        request_rate: Of a request-rate level, else ``None``.
        shape: Swept shape, else ``None``.
        wall_s: How long the visit took, perf_analyzer's start to its exit (s).
        failed: It measured nothing: its level failed (request errors, perf_analyzer's exit, no
            inference), or its variant failed before it; ``False`` in records written before
            this was recorded.
    """

    variant: str
    concurrency: int
    batch_size: int = 1
    request_rate: float | None = None
    shape: str | None = None
    wall_s: float | None = None
    failed: bool = False


@dataclass(config=_CONFIG)
class RoundRecord:
    """One round.

    Attributes:
        index: The round (0-based; the ``trial`` of its levels).
        group: The :class:`LoadGroup` it measured.
        seed: The seed its order was shuffled with (``random.Random(seed)``).
        started: When it started (ISO time).
        wall_s: Its length (s), ``None`` while it runs or when interrupted.
        order: Its visits, in the order measured.
    """

    index: int
    group: int
    seed: int
    started: str
    wall_s: float | None = None
    order: list[Visit] = dataclasses.field(default_factory=list)


@dataclass(config=_CONFIG)
class LoadGroup:
    """Variants loaded on the server together and measured in the same rounds.

    Attributes:
        index: Its number (0-based).
        variants: Its variants, in the order loaded.
        reason: Why it is a group (``"every contender fits"``, the memory left after a load,
            ``"the final: the tie sets of the groups"``, a server lane).
        server: The HTTP URL of the server it was loaded on.
        load_s: Time spent loading and preparing them (cold starts, warm-up), outside any window (s).
        unload_s: Time spent unloading them after its rounds (s); ``None``: not unloaded yet, or recorded before
            unloads were (what a later group and a resumed session price an unload from).
        ended: Why its rounds ended (``"ranking decided after 4 rounds"``, ``"time budget spent"``...).
        tie_set: What its rounds left in contention (its leader first).
        ended_by: What ended them (:data:`EndedBy`); ``None``: not ended, or recorded before it was (:func:`time_spent`).
    """

    index: int
    variants: list[str]
    reason: str
    server: str | None = None
    load_s: float | None = None
    ended: str | None = None
    tie_set: list[str] = dataclasses.field(default_factory=list)
    unload_s: float | None = None
    ended_by: EndedBy | None = None


@dataclass(frozen=True, config=_CONFIG)
class Cut:
    """Something the time budget left out, and why.

    Attributes:
        kind: :data:`CutKind`.
        reason: In words (the numbers of the estimate).
        variant: The variant concerned, if one; of a ``ladder`` cut, the series the report shows its ladder's
            client workload under (``"v [seq=128]"`` at one of several: :func:`perf.search.ending.cuts.series_of`).
        concurrency: The first level cut, for ``levels``; the ladder's top, for ``ladder``.
        need_s: Of a ``variant`` cut, the time (s) the plan that cut it estimated for the rounds that
            would measure it (the number its ``reason`` says); ``None`` in records written before it
            was kept, and for other kinds.
        final: Of a ``variant`` cut, whether ``need_s`` prices a final group with the rounds' tie set
            (:func:`perf.search.late.late`: what a ``--resume`` of the run measures in that time), not a
            new run's plan (trial 19, T19-1: "`--time-budget 2m` measures it" after a 3-minute run).
    """

    kind: CutKind
    reason: str
    variant: str | None = None
    concurrency: int | None = None
    need_s: float | None = None
    final: bool = False


@dataclass(config=_CONFIG)
class BudgetRecord:
    """The time budget: the plan made before the first round, and what was spent.

    Attributes:
        budget_s: The budget (s); ``None``: no budget (rounds until decided or ``max_rounds``).
        visit_s: Estimated cost of one visit (s): 3 windows plus perf_analyzer's start.
        load_s: Estimated cost of loading and preparing one variant (s).
        estimate_s: The estimate printed before the start (s): loads, the planned rounds and
            unloads (the in-process baseline after them is estimated apart, run if time is left).
        planned_rounds: Rounds the plan expects to fit (at least ``min_rounds`` or cuts).
        max_concurrency: The highest ladder level the plan keeps (``None``: the ladder's own).
        spent_s: Real time from the first load to the end of the last round (s), summed over a resumed run's sessions.
        baseline_s: Real time of the in-process baseline (s), when measured.
        sessions: How many sessions measured rounds (a resume adds one).
        session_budget_s: The budget the last session planned against (s; ``None``: none).
        session_spent_s: What the last session spent on its rounds (s).
        refit_load_s: The measured load time of one variant (s) when the plan was fitted again after the
            loads (:func:`perf.search.refit.refit`); ``None``: the first plan stood.
        refit_rounds: The rounds the plan fitted again expects; ``None``: the first plan stood.
        refit_estimate_s: That plan's estimate of the rounds left after the loads (s).
        lifted_cap: The first ladder top an earlier session's time budget capped (its ``max_concurrency``) that a resume's
            plan lifted, given more time: its rounds measure above it (:func:`perf.analysis.saturation.above_cap.lifted`).
    """

    budget_s: float | None
    visit_s: float
    load_s: float
    estimate_s: float
    planned_rounds: int
    max_concurrency: int | None = None
    spent_s: float | None = None
    baseline_s: float | None = None
    sessions: int = 1
    session_budget_s: float | None = None
    session_spent_s: float | None = None
    refit_load_s: float | None = None
    refit_rounds: int | None = None
    refit_estimate_s: float | None = None
    lifted_cap: int | None = None


@dataclass(config=_CONFIG)
class LateGroup:
    """A final group after the rounds while it is under way (:attr:`RoundsRecord.late`): the variants the time budget
    cut that it measures with the rounds' tie set. Recorded before its first load and taken away when its rounds end;
    a run stopped meanwhile (Ctrl-C, SIGTERM, a lost server) keeps it, and its ``--resume`` measures that final group
    again, its rounds so far counted (break-it F23: the stopped group was lost, and the resume measured nothing).

    Attributes:
        variants: The cut variants the final group measures, most promising first.
        tie: The tie set measured with them.
        after: Why the rounds before it had ended (what a resume says of them).
        after_by: What had ended them (:data:`EndedBy`); ``None``: not known, or recorded before it was.
    """

    variants: list[str]
    tie: list[str] = dataclasses.field(default_factory=list)
    after: str = ""
    after_by: EndedBy | None = None


@dataclass(config=_CONFIG)
class RoundsRecord:
    """How a rounds sweep measured (``RunResult.rounds``; module docstring).

    Attributes:
        seed: The run's seed (round ``r`` is shuffled with ``seed + r``).
        rules: The thresholds applied.
        groups: The load groups, in the order measured.
        rounds: Every round, in order.
        budget: The time budget's plan and spending.
        cuts: What was cut for time.
        ended: Why the rounds ended (``"ranking decided"``, ``"time budget spent"``...).
        late: A final group after the rounds under way, or stopped before its rounds ended (:class:`LateGroup`).
        ended_by: What ended them (:data:`EndedBy`), written with ``ended`` (:meth:`end`); ``None``: not ended, or
            recorded before it was (:meth:`by_time` reads the words then).
    """

    seed: int
    rules: RoundRules = dataclasses.field(default_factory=RoundRules)
    groups: list[LoadGroup] = dataclasses.field(default_factory=list)
    rounds: list[RoundRecord] = dataclasses.field(default_factory=list)
    budget: BudgetRecord | None = None
    cuts: list[Cut] = dataclasses.field(default_factory=list)
    ended: str | None = None
    late: LateGroup | None = None
    ended_by: EndedBy | None = None

    def end(self, why: str | None, by: EndedBy | None) -> None:
        """Record why the rounds ended, in words and as :data:`EndedBy` (both, always together)."""
        self.ended, self.ended_by = why, by

    def by_time(self) -> bool:
        """Whether the time budget ended the rounds, not a decision (:func:`time_spent`)."""
        return time_spent(self.ended, self.ended_by)

    def cut(self, cut: Cut) -> None:
        """Record ``cut`` once; a ``levels`` cut replaces the one before it (of the same variant, or of all): the plan
        fitted again after the loads cut the ladder lower, and the first plan's cut is no longer in force (trial 24,
        T24-2: "Cut for time (2)" listed the first plan's "above 16" beside the refit's "above 4")."""
        if cut.kind == "levels":
            self.cuts = [c for c in self.cuts if c == cut or not (c.kind == "levels" and c.variant == cut.variant)]
        if cut not in self.cuts:
            self.cuts.append(cut)

    def in_force(self) -> list[Cut]:
        """:attr:`cuts` but a ``levels`` cut a later one replaced (:meth:`cut`; a record written before it kept both)."""
        last = {c.variant: c for c in self.cuts if c.kind == "levels"}
        return [c for c in self.cuts if c.kind != "levels" or last[c.variant] is c]

    def next_index(self) -> int:
        """The index of the next round (a resumed run goes on counting)."""
        return max((r.index for r in self.rounds), default=-1) + 1

    def measured(self) -> list[RoundRecord]:
        """The rounds that measured something: a round with no visit (one interrupted before its
        first, or one whose every variant failed meanwhile) or whose every visit failed (trial 11,
        F21: 10 visits refused with request errors were "10 rounds" and ended the group at
        ``max_rounds``) is no round, and is counted nowhere."""
        return [r for r in self.rounds if any(not v.failed for v in r.order)]

    def group_rounds(self, group: int) -> list[RoundRecord]:
        """The rounds of group ``group`` (:meth:`measured` ones): those recorded for it, and those of
        an earlier group that held every variant it holds (a resumed run's earlier session of the
        same variants, before a prune or not: they were measured together then). The one count of
        a group's rounds: ``max_rounds`` caps it, the engine's words and a resume count it."""
        own = next((g for g in self.groups if g.index == group), None)
        return self.rounds_of(own.variants if own is not None else (), group)

    def rounds_of(self, variants: Sequence[str], group: int | None = None) -> list[RoundRecord]:
        """The :meth:`measured` rounds a group of ``variants`` counts (:meth:`group_rounds`): those of
        group ``group`` and of every earlier group that held each of ``variants``; ``group`` ``None``: a
        group not loaded yet (a resumed run's next one, whose count says whether it gets a round)."""
        held = set(variants)
        last = len(self.groups) if group is None else group
        same = {group} | {g.index for g in self.groups if held and g.index < last and held <= set(g.variants)}
        return [r for r in self.measured() if r.group in same]
