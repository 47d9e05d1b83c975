"""A co-location run: several models served by one server, measured together, recorded in ``colocation.json`` in the
run folder (beside ``commands.txt`` and the server logs).

A **combination** is one variant of each model, loaded together on one server and loaded with traffic at the same time
(one perf_analyzer per model, started together). The coordinate search (:mod:`perf.colocate.search`) moves one model's
variant at a time while the others are held; this record keeps what it needs to be checked afterwards:

- the models, their variants and the traffic mix (:class:`ColocatedModel`: per-model concurrency and weight);
- every visit of every round (:class:`ColocationVisit`: a combination, or one variant *alone* on the same server), each
  model's throughput, p99, queue and compute time (:class:`~perf.records.colocation_measured.ModelSample`);
- every step of the search (:class:`SearchStep`: which model moved, what was held, its rounds) and every decision with
  its reason and the paired numbers behind it (:class:`MoveDecision`);
- the pick, why, and what was cut for time.

The verdicts are re-derivable from the per-round samples with the one paired rule (:mod:`perf.analysis.stats.paired`);
the decisions store the numbers they were made on, as the single-model search does
(:class:`perf.records.search.SearchDecision`). :func:`is_colocation` tells a co-location run's folder from a sweep's.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from clients.runtimes.identity import ArtifactIdentity
from core.records import RecordKind, load_record, write_record
from perf.records.build_check import BuildCheck
from perf.records.colocation_measured import ColocationVisit, GpuMemory
from perf.records.results import RESULTS_FILE
from perf.report_state import mark_outdated

_CONFIG = ConfigDict(extra="ignore")

#: The file, in the run folder.
COLOCATION_FILE = "colocation.json"
#: Schema version written (and read). 2: the p99 budget is each model's (:attr:`ColocatedModel.latency_budget_ms`), not the run's.
COLOCATION_SCHEMA = 2
#: What a step measured: every variant alone (the start), the moves of one model, the pick
#: with each of its variants alone (what its neighbours cost it), or every combination (brute force).
StepKind = Literal["alone", "move", "final", "brute"]
#: What the search optimises: the highest weighted throughput, or the fewest instances in all
#: (``--objective``); either way every model must meet its targets (budget, required throughput).
Objective = Literal["throughput", "fewest-instances"]


@dataclass(frozen=True, config=_CONFIG)
class ColocatedModel:
    """One model of the combination and its traffic.

    Attributes:
        name: The model's name in the run (``--model NAME=PATTERN``).
        variants: The variants (model folders of the repository) it may be served as, in order.
        concurrency: Outstanding requests perf_analyzer keeps for it (``--mix NAME=N``; default 1).
        weight: Its weight in the weighted throughput (default 1.0).
        start: The variant the search started from.
        start_reason: Why that one (best alone, given, or the first variant).
        latency_budget_ms: Its p99 budget (ms; ``--latency-budget-ms``); ``None``: none.
        required_throughput: The throughput it must reach (infer/s, the median over a step's
            rounds at its concurrency; ``--required-throughput``); ``None``: none.
        instances: Variant -> its instances in all, from its ``config.pbtxt``: the sum over instance groups of ``count``
            (KIND_GPU: times the GPUs it lists, or the server's GPUs when it lists none); a variant missing here is 1.
        gpus: KIND_GPU variant -> the device ids its groups list (empty: every GPU the server
            sees); a variant missing here has no KIND_GPU group.
    """

    name: str
    variants: list[str]
    concurrency: int = 1
    weight: float = 1.0
    start: str | None = None
    start_reason: str | None = None
    latency_budget_ms: float | None = None
    required_throughput: float | None = None
    instances: dict[str, int] = dataclasses.field(default_factory=dict)
    gpus: dict[str, list[int]] = dataclasses.field(default_factory=dict)

    def instances_of(self, variant: str) -> int:
        """The variant's instances in all (:attr:`instances`; 1 when not known)."""
        return self.instances.get(variant, 1)


@dataclass(frozen=True, config=_CONFIG)
class MoveDecision:
    """One candidate of a step, judged against the held combination.

    Attributes:
        step: The step.
        model: The model that would move.
        held: The combination held (the current one).
        candidate: The variant the model would move to.
        ratio: Median over rounds of candidate / held weighted throughput; ``None`` unmeasured.
        low, high: Its min–max over rounds.
        wins, rounds: Rounds where the candidate was ahead, rounds compared.
        p_value: The p of the tier that decided (:attr:`perf.analysis.stats.paired.Paired.decided_p`).
        p_tier: That tier: ``"sign"`` (the sign test) or ``"gap"`` (the large-gap t-test) or ``"far"`` (every round more
            than 2× apart; the p is then the t-test's, not needed).
        verdict: ``"higher"``, ``"lower"`` or ``"not distinguishable"``.
        within_budget: Every model meets its targets in the candidate combination: its
            median p99 within its budget and, where one is required, its median throughput
            at least the required one.
        accepted: The move was made.
        reason: The sentence the report and console show.
        instances: The candidate combination's instances in all (every model's variant).
    """

    step: int
    model: str
    held: dict[str, str]
    candidate: str
    ratio: float | None
    low: float | None
    high: float | None
    wins: int
    rounds: int
    p_value: float | None
    verdict: str
    within_budget: bool
    accepted: bool
    reason: str
    instances: int | None = None
    p_tier: str = "sign"


@dataclass(config=_CONFIG)
class SearchStep:
    """One step of the search: its targets measured in rounds.

    Attributes:
        index: The step (0-based).
        kind: ``alone``, ``move``, ``final`` or ``brute`` (:data:`StepKind`).
        model: The model whose variants were tried (a ``move`` step), else ``None``.
        held: The combination held during the step.
        targets: What each round measured (each a combination; one entry: alone).
        rounds: Rounds measured.
        loaded: The variants loaded on the server during the step.
        outcome: What the step concluded, in words.
        load_s, unload_s: Each variant's load (with its inputs and warm-up) and unload before the step's rounds, as
            timed (s; a replayed step keeps the first session's): what later steps and a resume are priced by.
    """

    index: int
    kind: StepKind
    model: str | None
    held: dict[str, str]
    targets: list[dict[str, str]]
    rounds: int = 0
    loaded: list[str] = dataclasses.field(default_factory=list)
    outcome: str = ""
    load_s: list[float] = dataclasses.field(default_factory=list)
    unload_s: list[float] = dataclasses.field(default_factory=list)


@dataclass(config=_CONFIG)
class ColocationRecord:
    """A co-location run (module docstring).

    Attributes:
        run_id: The run folder's name.
        created: ISO time the run started.
        repository: The model repository served.
        models: The models, their traffic and their targets (budget, required throughput).
        objective: What the search optimises (:data:`Objective`).
        min_rounds: Rounds per step at least (the paired rule's 6).
        max_rounds: Rounds per step at most (more only while a promising move is undecided).
        window_ms: Each of perf_analyzer's 3 windows in one visit (ms).
        seed: Seed of the rounds' shuffles (``random.Random(seed + step * 1000 + round)``).
        kind: ``KIND_GPU`` when a variant has a KIND_GPU group, else ``KIND_CPU``.
        gpu_devices: The GPUs the server reported (or NVML saw) when it started; empty: none.
        gpu_memory: Each KIND_GPU variant's GPU memory (:class:`GpuMemory`), in load order.
        artifacts: Each variant loaded -> the files its first load sent or found (by size and SHA-256;
            ``None``: not readable here), what a bundle of the pick or a resume checks
            (:mod:`perf.records.measured_files`); a later load of other files stops the run.
        build_checks: Each variant -> the build's verdict on its export, read when the run started
            (:class:`perf.records.build_check.BuildCheck`); empty in runs saved before it was recorded.
        steps: Every step, in order.
        visits: Every visit, in order.
        replaced_visits: Visits of a round an interruption cut, which the resumed session (``--resume``)
            measured again whole (:mod:`perf.colocate.resume`): kept, never lost (issue 26), not judged.
        decisions: Every candidate judged, in order.
        pick: The chosen combination (model -> variant); ``None`` when none could be chosen, or the time budget
            cut the search before it decided (:func:`perf.colocate.verdict.undecided`).
        leader: Where the time budget cut the search before it decided: the combination that led in the rounds
            measured (:func:`perf.colocate.verdict.lead`), not a verdict; ``None`` otherwise.
        pick_reason: Why (or why none).
        cuts: What was not measured for time, in words.
        combinations_measured: Distinct combinations measured (of :attr:`combinations_total`).
        combinations_total: The product of the models' variant counts.
        time_budget_s: The wall time the first session was allowed (``--time-budget``, s); ``None``: none.
        session_budgets_s: What each session may spend, in order (s; ``None``: no budget): its ``--time-budget`` as
            given, or for a resume given none what was left of the run's own (:func:`perf.records.resumed.left_of_run`); a
            resumed run's budget is said per session, never summed (trial 18, T18-15); empty in a record written before it.
        spent_s: Wall time spent (s), every session's together.
        finished: ISO time the run ended; ``None`` while it runs.
        resumed: ISO times it was resumed (``--resume``), each with the visits it replayed.
        server_starts_s: Each session's server start until ready (s): what a resume's start is priced by.
        refits: The plan fitted again to the prices measured, where that changed its estimate (:mod:`perf.colocate.plan`).
        environment: Server runtime, versions, host.
        schema: The schema version (:data:`COLOCATION_SCHEMA`).
    """

    run_id: str
    created: str
    repository: str
    models: list[ColocatedModel]
    objective: Objective = "throughput"
    min_rounds: int = 6
    max_rounds: int = 10
    window_ms: int = 300
    seed: int = 0
    kind: str = "KIND_CPU"
    gpu_devices: list[str] = dataclasses.field(default_factory=list)
    gpu_memory: list[GpuMemory] = dataclasses.field(default_factory=list)
    artifacts: dict[str, ArtifactIdentity | None] = dataclasses.field(default_factory=dict)
    build_checks: dict[str, BuildCheck] = dataclasses.field(default_factory=dict)
    steps: list[SearchStep] = dataclasses.field(default_factory=list)
    visits: list[ColocationVisit] = dataclasses.field(default_factory=list)
    replaced_visits: list[ColocationVisit] = dataclasses.field(default_factory=list)
    decisions: list[MoveDecision] = dataclasses.field(default_factory=list)
    pick: dict[str, str] | None = None
    leader: dict[str, str] | None = None
    pick_reason: str = ""
    cuts: list[str] = dataclasses.field(default_factory=list)
    combinations_measured: int = 0
    combinations_total: int = 0
    time_budget_s: float | None = None
    session_budgets_s: list[float | None] = dataclasses.field(default_factory=list)
    spent_s: float | None = None
    finished: str | None = None
    resumed: list[str] = dataclasses.field(default_factory=list)
    server_starts_s: list[float] = dataclasses.field(default_factory=list)
    refits: list[str] = dataclasses.field(default_factory=list)
    environment: dict[str, object] = dataclasses.field(default_factory=dict)
    schema: int = COLOCATION_SCHEMA

    def model(self, name: str) -> ColocatedModel:
        """The model named ``name``.

        Raises:
            KeyError: no such model in the run.
        """
        for m in self.models:
            if m.name == name:
                return m
        raise KeyError(name)

    @property
    def budgets(self) -> dict[str, float | None]:
        """Model -> its p99 budget (ms; ``None``: none)."""
        return {m.name: m.latency_budget_ms for m in self.models}

    @property
    def required(self) -> dict[str, float | None]:
        """Model -> its required throughput (infer/s; ``None``: none)."""
        return {m.name: m.required_throughput for m in self.models}

    def instances(self, combination: dict[str, str]) -> int:
        """The combination's instances in all: each model's variant's (:meth:`ColocatedModel.instances_of`)."""
        return sum(self.model(m).instances_of(v) for m, v in combination.items())


def step_number(index: int) -> int:
    """The step's number as every output says it (1-based; :attr:`SearchStep.index`, :attr:`ColocationVisit.step`
    and :attr:`MoveDecision.step` are 0-based): the console, report.md and the plots number steps by it alone (trial
    18, T18-7: the trade-off plot said "step 1" for the report's step 2)."""
    return index + 1


def _migrate(data: dict[str, Any], found: int) -> dict[str, Any]:
    """Schema 1 -> 2: the run's one p99 budget becomes each model's."""
    if found < 2:
        budget = data.pop("latency_budget_ms", None)
        data["models"] = [{"latency_budget_ms": budget, **m} if isinstance(m, dict) else m for m in data.get("models", [])]
    return data


COLOCATION_KIND: RecordKind[ColocationRecord] = RecordKind(
    "co-location record",
    ColocationRecord,
    COLOCATION_SCHEMA,
    hint="run `triton-perf colocate` again; the run folder's colocation.json is written by it",
    migrate=_migrate,
)


def save(record: ColocationRecord, run_dir: Path) -> Path:
    """Write ``run_dir/colocation.json`` atomically; returns its path. A report written from an earlier state of the
    run is marked out of date (:func:`perf.report_state.mark_outdated`)."""
    path = write_record(Path(run_dir) / COLOCATION_FILE, COLOCATION_KIND, record)
    mark_outdated(Path(run_dir), COLOCATION_FILE)  # s22z, Z-13
    return path


def load(run_dir: Path) -> ColocationRecord:
    """Read ``run_dir/colocation.json``.

    Raises:
        RecordError: missing, not JSON, or a field that does not validate (named).
    """
    return load_record(Path(run_dir) / COLOCATION_FILE, COLOCATION_KIND)


def find(run_dir: Path) -> ColocationRecord | None:
    """The run's co-location record, or ``None`` when it has none."""
    return load(run_dir) if (Path(run_dir) / COLOCATION_FILE).is_file() else None


def is_colocation(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a ``triton-perf colocate`` run's folder: its ``colocation.json``, no sweep ``results.json``
    (the one rule; each command asks it once: ``report``, ``export-deployment``, a rerun's empty-folder check)."""
    return (Path(run_dir) / COLOCATION_FILE).is_file() and not (Path(run_dir) / RESULTS_FILE).is_file()
