"""One pick of the recommendation (:class:`Choice`): a variant at one level with its numbers, and
the words every place that states the pick uses (the rule: :mod:`perf.analysis.recommendation.recommend`).
"""

from __future__ import annotations

import dataclasses

from builders.repository.build_verdict import BuildVerdict
from core.units import throughput_text
from core.wording import count
from perf.analysis.ranking.budget_latency import LATENCY_PERCENTILES, latency_metric
from perf.analysis.ranking.standing_words import beats_words, rule_words
from perf.analysis.stats.paired import FAR_GAP, GAP_MIN, GAP_ROUNDS
from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.markdown import UNSTABLE_MARK, fmt

#: What a tied pick is named first by: its throughput against each in the rounds they shared, not the medians over
#: every round a table shows (trial 16, T16-8: "named first by throughput (the median of the rounds it shared with
#: each ...)" read as the medians, beside two tie-set members of higher medians).
NAMED_FIRST_BY = (
    "throughput in the rounds it shared with each (the median of its per-round ratios; round-adjusted where those "
    "disagree), not by the medians over all rounds"
)


@dataclasses.dataclass
class Choice:
    """One variant at one level, as picked by :func:`perf.analysis.recommendation.recommend.recommend` (medians over trials).

    Attributes:
        variant: Variant name.
        concurrency: perf_analyzer concurrency of the level.
        batch_size: Client batch size.
        throughput_infer_per_s: Median throughput (infer/s).
        latency_p99_ms: Median client p99 latency (ms).
        stable: perf_analyzer reached its stability criterion in every trial.
        trials: Trials behind the medians.
        status: The level's status (``ok``, ``unstable``, ``host busy``).
        why: Why a flagged level was picked over the stable ones (None for an ``ok`` pick).
        tie_set: In a rounds sweep, the variants the pick does not beat by the paired rule and shared a round
            with, the pick first (one name: it beats every other it was compared with; empty: not a rounds sweep).
        uncompared: In a rounds sweep, those never in a round with the pick's level (:func:`perf.analysis.ranking.standing.uncompared`).
        beats: In a rounds sweep, the variants it beats by the paired rule, by its own rounds
            (:meth:`perf.analysis.ranking.rank.Ranking.beaten`).
        through: In a rounds sweep, the variants another variant beat in its place, never compared with it
            (:meth:`perf.analysis.ranking.rank.Ranking.beaten_through`: the search dropped them): not among :attr:`beats`,
            and :attr:`against` names that variant (trial 26, T26-1).
        confidence: ``1 - alpha`` of the paired rule (a rounds sweep), else ``None``.
        judged_on: A pick under the budget within it only on its quieter rounds, in words (:meth:`~perf.analysis.ranking.budget_latency.Judged.picked_on`).
        judged_note: The same without its basis (:meth:`~perf.analysis.ranking.budget_latency.Judged.picked_note`):
            what a table or console note beside the all-rounds number says.
        against: The others in words (:mod:`perf.analysis.ranking.standing`): the tie set, or what it beats of how many.
        tie_parts: A tie set's pick: :attr:`against` in its parts, one per kind of member
            (:func:`perf.analysis.ranking.standing_words.tie_parts`): report.md lists them, one bullet each (:meth:`listed`).
        tie_marks: The same parts in the console note's words (``tie_parts(..., brief=True)``: each member by the
            report's verdict, without its numbers; :meth:`tie_mark`).
        unreached: The best peak's level is not a measured peak: why, in words (:mod:`perf.analysis.saturation.peaks`).
        short: Its level rests on fewer rounds than a verdict needs, in words (:func:`perf.analysis.stats.rounds_words.few_rounds`).
        outside: A tie set's pick: the variants outside the tie set, in words (:func:`perf.analysis.ranking.standing_words.outside_words`).
        headroom: The best under a budget is best among the levels measured only, why (:func:`perf.analysis.saturation.peaks.budget_unreached`).
        budget_latency: A best under a budget on another percentile than p99: that latency in words, said before the p99 (trial 9, F39).
        level_why: Why its level is named although another of the variant's has a higher median (:func:`perf.analysis.saturation.peaks.higher_median`).
        rivals: Why it is named first although a tie-set member's median is higher, short, one per such member: what
            the console's note of the pick says of them (:func:`perf.analysis.ranking.standing_words.higher_medians`;
            report.md says them in :attr:`against`).
        build_verdict: The build's verdict on the export the variant serves when it is not ``ok`` (trial 13, T13-10:
            an fp16 never exercised in fp16 on this host, picked and bundled with no word of it), from the
            manifest's record (:func:`perf.analysis.build_checks.run_verdict`); every place
            that names the pick says it (:meth:`describe`, :attr:`unverified`).
        latency_ms: Median client latency per percentile (ms) of its level, ``{95: 26.59, 99: 35.15}``: a plot
            draws its level on the budget's percentile (:meth:`latency_at`; trial 14, T14-7); a percentile the
            level lacks is absent.
        dominated: A best under the budget below its workload's Pareto frontier: the level above it and whether the
            rule decided between them, in words, said first in its line (:mod:`perf.analysis.recommendation.dominated`).
        dominated_mark: The same, short: what the console's note and the frontier plot's mark of the pick say.
        dominated_by: The variant of the level above it that :attr:`dominated` names (:meth:`rivals_left`).
        trails: A tie set's pick: the members it trailed in the median of the rounds they shared, in words
            (``"`b` (1 round)"``): what the leader rule does not act on (too few rounds or not one-sided, a circle of medians,
            a member another beats)
            (:mod:`perf.analysis.ranking.leader`); where there are any, it is not said to be named first by those
            rounds (trial 21, T21-9: said beside the numbers of a runner-up ahead in the one round they shared).
        supported: A tie set's pick: the members the round-adjusted scale put above it that it was named first over by
            its median over more rounds, in words (:func:`perf.analysis.ranking.named_first.outsupported`; trial 28, T28-1).
        overtook: A tie set's pick: the members it was named first over by its medians, higher throughput and lower
            latency, that the round-adjusted scale or their shared rounds put first, in words
            (:func:`perf.analysis.ranking.named_first.overtook`; trial 30, F10).
        adjusted: A tie set's pick: the members of a higher median it was named first over by its round-adjusted
            throughput, the rounds they shared not one-sided, in words with the numbers that decided
            (:func:`perf.analysis.ranking.named_first.adjusted_over`; trial 30, F10).
        kneed: A tie set's pick under a budget: the members it was named first over at their knee, in words
            (:func:`perf.analysis.ranking.named_first.kneed`): named first by its latency then (trial 22, F-mixed-pick).
        batching_off: A tie set's pick with batching off named first over the same variant with batching on, whose
            batching formed no batch (:attr:`perf.analysis.ranking.rank.Ranking.batching_off`): why, in words (trial 24, T24-8).
        no_batch: A pick whose own dynamic batching formed no batch under its workload
            (:func:`perf.analysis.stats.no_batch.formed_no_batch`): that, in words, said wherever it is named
            (a remark; the console's line): a pick the rule separated, or with no variant with batching off to name instead.
        all_flags: Its point's :attr:`~perf.analysis.stats.points.Point.flags` (``"host busy; unstable"``), what
            :attr:`flags` says; ``None``: :attr:`status`.
        host_load: The host load its paired verdicts were measured under, which they hold for, said beside the rule in
            :meth:`verdict` (:func:`perf.analysis.recommendation.host_load.load_words`); ``None``: not sampled.
    """

    variant: str
    concurrency: int
    batch_size: int
    throughput_infer_per_s: float
    latency_p99_ms: float
    stable: bool
    trials: int
    status: str = "ok"
    why: str | None = None
    tie_set: list[str] = dataclasses.field(default_factory=list)
    beats: list[str] = dataclasses.field(default_factory=list)
    through: list[str] = dataclasses.field(default_factory=list)
    confidence: float | None = None
    judged_on: str | None = None
    against: str = ""
    tie_parts: list[str] = dataclasses.field(default_factory=list)
    tie_marks: list[str] = dataclasses.field(default_factory=list)
    judged_note: str | None = None
    unreached: str | None = None
    short: str | None = None
    outside: str = ""
    headroom: str | None = None
    budget_latency: str | None = None
    level_why: str | None = None
    uncompared: list[str] = dataclasses.field(default_factory=list)
    rivals: list[str] = dataclasses.field(default_factory=list)
    build_verdict: BuildVerdict | None = None
    latency_ms: dict[int, float] = dataclasses.field(default_factory=dict)
    dominated: str | None = None
    dominated_mark: str | None = None
    dominated_by: str | None = None
    trails: list[str] = dataclasses.field(default_factory=list)
    supported: list[str] = dataclasses.field(default_factory=list)
    kneed: list[str] = dataclasses.field(default_factory=list)
    overtook: list[str] = dataclasses.field(default_factory=list)
    adjusted: list[str] = dataclasses.field(default_factory=list)
    batching_off: str | None = None
    no_batch: str | None = None
    all_flags: str | None = None
    host_load: str | None = None

    @property
    def flags(self) -> str:
        """Its status with every flag its level's rounds had, as a table cell of it says (trial 26, T26-11)."""
        return self.all_flags or self.status

    def note(self, *beside: str | None) -> str:
        """What the console's note of the pick says beside its level: ``"too few rounds ...; `b`'s median higher,
        1,874.2: the pick ahead in 3 of 5 shared rounds"`` (:attr:`dominated_mark`, :attr:`short`, ``beside``,
        then :meth:`rivals_left`; ``""`` without). ``beside``: the caller's words said after :attr:`short` (the
        console's best under the budget: its ladder ended below the budget), ``None`` ones left out. The
        build's verdict is the row's, said once beside every pick of it (:attr:`unverified`)."""
        return "; ".join(w for w in [self.dominated_mark, self.short, *beside, self.tie_mark(), *self.rivals_left()] if w)

    def tie_mark(self) -> str | None:
        """A tied pick in a console note's words: ``"the Recommendation's pick of its tie set, not the winner: behind the
        pick in every round it shared, not called by the rule: `b` at c=4 (5 rounds)"``, each member by report.md's words
        (:attr:`tie_marks`; trial 25, T25-3: every member was "not distinguishable from" the pick, one report.md said
        was behind it in every round); ``None`` for a pick the rule separated (trial 22: the console row said "best
        under budget" where the line above it and report.md said the rule could not separate a tie set). Never
        "named first": the console's table lists its rows in another order (trial 24, T24-5: "named first" on the row
        printed second)."""
        if not self.tied:
            return None
        if self.tie_marks:
            return f"the Recommendation's pick of its tie set, not the winner: {'; '.join(self.tie_marks)}"
        members = ", ".join(f"`{n}`" for n in self.tie_set[1:])  # no verdicts to say: named, none given
        return f"the Recommendation's pick of its tie set with {members}, not the winner"

    def tie_word(self) -> str | None:
        """:meth:`tie_mark` without its members, for a line that names the pick alone (the console's last line):
        ``"the Recommendation's pick of its tie set of 2, not the winner"``; ``None`` for a pick the rule separated."""
        return f"the Recommendation's pick of its tie set of {len(self.tie_set)}, not the winner" if self.tied else None

    def rivals_left(self) -> list[str]:
        """:attr:`rivals` but the one :attr:`dominated_mark` names (:attr:`dominated_by`: it says that rival's shared
        rounds already): what a console note says after the mark, each rival once."""
        said = f"`{self.dominated_by}`" if self.dominated_by else None
        return [r for r in self.rivals if not (said and r.startswith(said))]

    @property
    def unverified(self) -> list[str]:
        """The build's verdict in a console note's words (``["build: onnx fp16 not verified in fp16 on this
        host"]``), ``[]`` when it is ``ok`` (:attr:`build_verdict`)."""
        return [self.build_verdict.short()] if self.build_verdict else []

    @property
    def tied(self) -> bool:
        """The pick could not be separated from another variant (a tie set of 2 or more)."""
        return len(self.tie_set) > 1

    @classmethod
    def of(cls, p: Point, why: str | None = None) -> Choice:
        """The choice of candidate point ``p`` (:func:`candidate`: it has a throughput and a p99)."""
        c = cls(p.variant, p.concurrency, p.batch_size, p.value(THROUGHPUT), p.value(P99), p.stable, p.trials, p.status, why)
        c.latency_ms = {pct: v for pct in LATENCY_PERCENTILES if (v := p.get(latency_metric(pct))) is not None}
        c.all_flags = p.flags
        return c

    def latency_at(self, percentile: int) -> float | None:
        """Its level's median client latency at ``percentile`` (ms; :attr:`latency_ms`), ``None`` where not measured."""
        return self.latency_p99_ms if percentile == 99 else self.latency_ms.get(percentile)

    def numbers(self) -> str:
        """Its level's numbers, ``"1,234.5 infer/s, p99 3.21 ms"`` (``"4,938.0 infer/s (1,234.5 requests/s of batch 4),
        ..."`` at a client batch above 1: :func:`core.units.throughput_text`; a budget's other percentile before the p99:
        :attr:`budget_latency`): what report.md's Recommendation and the console's note of the pick both say
        (trial 13, T13-18: the console named the pick's level beside another level's numbers)."""
        return (  # requests/s beside infer/s at a client batch above 1 (core.units; trial 23, T23-15)
            f"{throughput_text(self.throughput_infer_per_s, self.batch_size, fmt)}, "
            f"{f'{self.budget_latency}, ' if self.budget_latency else ''}"
            f"p99 {fmt(self.latency_p99_ms, 2)} ms"
        )

    def at(self, concurrency: int, batch_size: int = 1) -> bool:
        """Whether its level is ``concurrency`` at client batch size ``batch_size``."""
        return (self.concurrency, self.batch_size) == (concurrency, batch_size)

    def remarks(self) -> list[str]:
        """The words :meth:`describe` adds after the verdict: :attr:`short`, :attr:`level_why`, :attr:`judged_on`,
        :attr:`why`, :attr:`headroom`, :attr:`no_batch` and the build's verdict (:attr:`build_verdict`), those it has."""
        said = (
            self.short,
            self.level_why,
            self.judged_on,
            self.why,
            self.headroom,
            self.no_batch,
            self.build_verdict and self.build_verdict.text(),
        )
        return [w for w in said if w]

    def listed(self) -> list[str]:
        """What :meth:`describe` with ``listed=True`` leaves out, one item each: its :meth:`remarks`, a tie set's
        members by kind (:attr:`tie_parts`) and the variants outside it (:attr:`outside`). report.md says them once,
        as bullets under the pick (trial 19, T19-17: lines of 1,900 characters, and the tie set's words again in the
        Paired ranking)."""
        tie = [*(self.tie_parts or [self.against]), *([self.outside] if self.outside else [])] if self.tied else []
        return [*self.remarks(), *tie]

    def describe(self, listed: bool = False) -> str:
        """``"`mlp_onnx_cpu2_db500_mbs64` at concurrency 8: 1,234.5 infer/s, p99 3.21 ms"`` (a budget's
        other percentile before the p99: :attr:`budget_latency`), plus the flag, :attr:`dominated`,
        the verdict, and its :meth:`remarks`; ``listed``: the remarks, a tie set's members and the others are left
        to :meth:`listed`'s bullets."""
        text = (
            f"`{self.variant}` at concurrency {self.concurrency}"
            + (f" (batch {self.batch_size})" if self.batch_size != 1 else "")
            + f": {self.numbers()}"
            + (f" {UNSTABLE_MARK} {self.flags}" if self.status != "ok" else "")
            + (f" — {self.dominated}" if self.dominated else "")
        )
        if self.confidence is not None:
            text += " — " + self.verdict(listed)
        return text + ("" if listed else "".join(f" — {w}" for w in self.remarks()))

    def named_by(self) -> str:
        """What a tied pick is named first by: :data:`NAMED_FIRST_BY`, or, where it trailed a member in the rounds they
        shared (:attr:`trails`), round-adjusted throughput, with those members (never "the rounds it shared" then)."""
        if self.batching_off:  # the same variant with batching on formed no batch (trial 24, T24-8)
            return self.batching_off
        if self.overtook:  # better on both medians (perf.analysis.ranking.leader.overtaken; trial 30, F10)
            them = "it" if len(self.overtook) == 1 else "them"
            said = f"its medians, better on both than {', '.join(self.overtook)}: not one-sided for {them}"
            rest = dataclasses.replace(self, overtook=[]).named_by()  # over the other members, by what it is named by
            if rest == NAMED_FIRST_BY:
                rest = "their shared rounds" if len(self.tie_set) - 1 > len(self.overtook) else ""
            return f"{said}; the others by {rest}" if rest else said
        if self.kneed:  # named at the members' knee (perf.analysis.ranking.leader.knee; trial 22, F-mixed-pick)
            return (
                f"its latency at as much throughput: by the medians {', '.join(self.kneed)} "
                f"{'has' if len(self.kneed) == 1 else 'have'} at most {GAP_MIN:g}× the pick's infer/s at a latency "
                f"{FAR_GAP:g}× the pick's or more, higher in every round they shared (the knee, not the flat top)"
            )
        if self.supported:  # a higher median over more rounds (perf.analysis.ranking.leader.supported; trial 28, T28-1)
            return (
                f"its median throughput over more rounds: {', '.join(self.supported)} "
                f"{'has' if len(self.supported) == 1 else 'have'} a higher round-adjusted throughput but a lower median "
                f"over as many rounds or fewer, and the rounds they shared were not as one-sided as {GAP_ROUNDS} of {GAP_ROUNDS}"
            )
        if self.adjusted:  # a higher median, the shared rounds not one-sided: the round adjustment decided (trial 30, F10)
            said = (
                f"its round-adjusted throughput, not by the medians over all rounds: {', '.join(self.adjusted)}; the "
                f"shared rounds not as one-sided as {GAP_ROUNDS} of {GAP_ROUNDS}, too few or too mixed to decide alone"
            )
            rest = dataclasses.replace(self, adjusted=[]).named_by()
            return said if rest == NAMED_FIRST_BY else f"{said}; over the others by {rest}"
        if not self.trails:
            return NAMED_FIRST_BY
        return (
            f"round-adjusted throughput, not by the rounds it shared with each: it trailed {', '.join(self.trails)} in "
            f"the median of those rounds, which the leader rule does not act on: fewer than {GAP_ROUNDS} of them or not "
            f"as one-sided as {GAP_ROUNDS} of {GAP_ROUNDS}, a circle of medians, or a member another variant beats by the rule"
        )

    def verdict(self, listed: bool = False) -> str:
        """The paired verdict in words (a rounds sweep): the tie set, what it beats, or that it is the only
        variant ranked (with why the others are not, :attr:`against`; a run of one variant has none to say);
        ``listed``: a tie set's members and the others are said by :meth:`listed`, after it."""
        rule = rule_words(1 - (self.confidence or 0)) + (f", {self.host_load}" if self.host_load else "")
        if self.tied and listed:
            return (
                f"the rule ({rule}) did not separate it from {count(len(self.tie_set) - 1, 'other')} (the tie set follows); "
                f"it is named first by {self.named_by()}, not as the winner"
            )
        if self.tied:
            others = self.against or "not distinguishable at this noise from " + ", ".join(f"`{n}`" for n in self.tie_set[1:])
            return (
                f"the rule ({rule}) did not separate it from {count(len(self.tie_set) - 1, 'other')}: {others}; "
                f"it is named first by {self.named_by()}, not as the winner" + (f"; {self.outside}" if self.outside else "")
            )
        if self.beats or self.through or self.uncompared:  # the one wording of what it beats (trial 26, T26-1)
            said = self.against or str(len(self.beats))
            return beats_words(said, rule, uncompared=bool(self.uncompared), through=bool(self.through))
        if not self.against:  # no other variant to count (a run of one): none is said as "(0)"
            return "the only variant ranked: no other to compare it with"
        return f"the only ranked variant ({self.against})"
