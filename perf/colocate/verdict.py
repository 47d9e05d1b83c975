"""A co-location run whose search the time budget cut before it decided: no pick, the leader named,
and the one command that finishes it.

The search decides its pick by its moves: each model's variants tried beside the others', a move kept
by the paired rule over a step's rounds; brute force by its one step over every combination. A cut
before those ended (:func:`undecided`: a cut, and no final step begun) leaves the combination the search
held, its starting point or the last move's, which no round decided against the others (trial 15,
T15-10: after one round of step 2, the console, report.md's "The pick" and the plot's star named the
starting point, 1,302 weighted infer/s, beside a combination ahead on both axes at 2,237). Such a run
has no pick (:func:`settle`: ``record.pick`` is ``None``); what led in the rounds measured is named as
the leader (:func:`lead`: the step's best that meets every target, by its medians, the rounds and the
host-busy ones said), and :func:`finish_words` gives the resume command with the ``--time-budget`` the
rest of the search needs (:mod:`perf.colocate.plan`). A cut in the final step (or before it) leaves a
decided pick without its final numbers: the moves had ended.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from pathlib import Path

from core.wording import count
from perf.analysis.recommendation.cuts import advised
from perf.analysis.stats.paired import Paired
from perf.colocate import judge, neighbours, plan
from perf.colocate.judge import Measured
from perf.markdown import times
from perf.records.colocation import ColocationRecord, SearchStep, step_number

#: What the search's own steps are: a step measuring combinations of every model.
_TOGETHER = ("move", "brute")


def undecided(record: ColocationRecord) -> bool:
    """The time budget cut the search before its moves (brute force: its one step) ended: a cut, and no
    final step begun (the search begins it only once its moves have ended)."""
    return bool(record.cuts) and not any(s.kind == "final" for s in record.steps)


def decided_pick(record: ColocationRecord) -> dict[str, str] | None:
    """``record.pick`` where the search decided it; ``None`` when :func:`undecided` (a record saved before such a
    run had no pick kept the combination held as its pick)."""
    return None if undecided(record) else record.pick


@dataclasses.dataclass(frozen=True)
class Lead:
    """What led when the search was cut (module docstring).

    Attributes:
        step: The last step that measured combinations of every model.
        rounds: Its rounds measured.
        busy: Its rounds (1-based) with a host-busy visit.
        leader: The best there that meets every target (``None``: none does), its numbers over the step's rounds.
        held: The combination the search held there, its numbers there (``None``: not one of its targets).
        versus: The leader's weighted throughput against the held one's, round by round (``None``: one and the same).
        decided: The step's moves decided (a move step that ended before the cut, the next one cut before its first
            round): ``leader`` is then the combination it decided, where the search stood (``None`` where that misses
            a target), not the best by the medians (recheck of trial 16, R16-6).
    """

    step: SearchStep
    rounds: int
    busy: list[int]
    leader: Measured | None
    held: Measured | None
    versus: Paired | None
    decided: bool = False

    def mark(self) -> str:
        """How the report's table marks the leader: ``"leading, not decided"``, or where its step decided,
        ``"where the search stood, not a pick"``."""
        return "where the search stood, not a pick" if self.decided else "leading, not decided"

    def label(self) -> str:
        """How the plot labels the leader: ``"leading after 3 rounds (not decided: cut for time)"``, or where its step
        decided, ``"where the search stood after step 3 (move b) decided (not a pick: cut for time)"``."""
        if self.decided:
            return f"where the search stood after {_step_name(self.step)} decided (not a pick: cut for time)"
        return f"leading after {count(self.rounds, 'round')} (not decided: cut for time)"


def lead(record: ColocationRecord) -> Lead | None:
    """The :class:`Lead` of ``record``; ``None`` when no step measured combinations of every model."""
    n = len(record.models)
    step = next(
        (s for s in reversed(record.steps) if s.kind in _TOGETHER and s.rounds and any(len(t) == n for t in s.targets)),
        None,
    )
    if step is None:
        return None
    numbers = [judge.measured_in(record, step.index, step.rounds, t) for t in step.targets if len(t) == n]
    meets = [c for c in numbers if not c.over and c.weighted is not None]
    stood = decided_combination(record, step)
    if stood is not None:  # the step decided: where the search stood, not the medians' best
        best = next((c for c in meets if judge.key(c.combination) == judge.key(stood)), None)
    elif record.objective == "fewest-instances":
        best = min(meets, key=lambda c: (c.instances, -(c.weighted or 0.0)), default=None)
    else:
        best = max(meets, key=lambda c: c.weighted or 0.0, default=None)
    held = next((c for c in numbers if step.held and judge.key(c.combination) == judge.key(step.held)), None)
    versus = None
    if best is not None and held is not None and best is not held:
        versus = judge.compare(record.visits, step.index, best.combination, held.combination, step.rounds, record.models)
    busy = sorted({v.round + 1 for v in record.visits if v.step == step.index and v.round < step.rounds and v.host_busy})
    return Lead(step, step.rounds, busy, best, held, versus, stood is not None)


def decided_combination(record: ColocationRecord, step: SearchStep) -> dict[str, str] | None:
    """The combination move step ``step`` decided (its held one with the variant it kept or moved to); ``None``
    where it did not decide (no outcome: the cut ended it) or is no move step."""
    if step.kind != "move" or not step.outcome or step.model is None:
        return None
    taken = next((d.candidate for d in record.decisions if d.step == step.index and d.accepted), step.held[step.model])
    return {**step.held, step.model: taken}


def settle(record: ColocationRecord) -> None:
    """Where :func:`undecided`: no pick, the leader recorded, and the reason said so (the cut's own words kept)."""
    if not undecided(record):
        return
    got = lead(record)
    record.leader = dict(got.leader.combination) if got is not None and got.leader is not None else None
    record.pick = None
    record.pick_reason = f"{headline(record)} ({'; '.join(record.cuts)})"


def _step_name(step: SearchStep) -> str:
    return f"step {step_number(step.index)} ({step.kind}{' ' + step.model if step.model else ''})"


def decided_steps(record: ColocationRecord) -> list[str]:
    """What each step the search ended decided, in order: ``"step 1 (alone) set each model's start (a=a1, b=b1)"``,
    ``"step 2 (move a) kept a1"``, ``"step 3 (move b) moved b to b2"``; a step the cut ended has no outcome and is
    not listed."""
    out = []
    for s in record.steps:
        if not s.outcome:
            continue
        if s.kind == "alone":
            out.append(f"{_step_name(s)} set each model's start ({s.outcome.removeprefix('start: ')})")
        elif (words := _decision(record, s)) is not None:
            out.append(f"{_step_name(s)} {words}")
    return out


def _decision(record: ColocationRecord, step: SearchStep) -> str | None:
    """``"kept a1"`` or ``"moved a from a1 to a2"``: what move step ``step`` decided; ``None``: it did not."""
    stood = decided_combination(record, step)
    if stood is None or step.model is None:
        return None
    held, taken = step.held[step.model], stood[step.model]
    return f"kept {held}" if taken == held else f"moved {step.model} from {held} to {taken}"


def headline(record: ColocationRecord) -> str:
    """``"no pick: the search was cut for time in step 2 (move a) after 1 of its rounds (22 visits in all), before its
    moves decided anything"``; where earlier steps decided, each of them and the step the cut ended (recheck of trial
    16, R16-6: "before its moves decided anything" after step 2 had kept a's variant, only step 3 cut):
    ``"..., before its moves ended: step 1 (alone) set each model's start (a=a1, b=b1); step 2 (move a) kept a1;
    step 3 (move b) cut before it decided"``."""
    last = record.steps[-1] if record.steps else None
    where = f" in {_step_name(last)} after {count(last.rounds, 'round')} of it" if last is not None else ""
    head = f"no pick: the search was cut for time{where} ({count(len(record.visits), 'visit')} in all), before "
    if any(s.kind == "brute" for s in record.steps):
        return head + "its one step over every combination decided anything"
    if not any(s.kind == "move" and s.outcome for s in record.steps):
        return head + "its moves decided anything" + _starts(record)
    cut = f"; {_step_name(last)} cut before it decided" if last is not None and not last.outcome else ""
    return head + "its moves ended: " + "; ".join(decided_steps(record)) + cut


def _starts(record: ColocationRecord) -> str:
    """``" (step 1 (alone) set each model's start (...))"``, where the alone step ended before the cut; else ``""``."""
    said = [d for d in decided_steps(record) if " (alone) " in d]
    return f" ({said[0]})" if said else ""


def _numbers(c: Measured) -> str:
    per = "; ".join(
        f"{m} {_num(c.throughput.get(m), ',.0f')} infer/s p99 {_num(c.p99_ms.get(m), '.2f')} ms" for m in c.combination
    )
    return f"{_num(c.weighted, ',.0f')} weighted infer/s ({per})"


def _num(v: float | None, spec: str) -> str:
    return "—" if v is None else format(v, spec)


def lead_words(record: ColocationRecord) -> str:
    """The leader in words, with its numbers, the rounds and the host-busy ones, against the combination held
    (which is no verdict either): what the console and report.md say beside :func:`headline`."""
    got = lead(record)
    if got is None:
        return "no combination of every model was measured together yet"
    fewest = plan.min_rounds_of(record, got.step.kind)
    rounds = (
        f"{count(got.rounds, 'round')} of {_step_name(got.step)}, fewer than the {fewest} its verdict needs at least"
        if got.rounds < fewest
        else f"{count(got.rounds, 'round')} of {_step_name(got.step)}, its verdict not reached"
    )
    busy = (
        f"; host busy in {'round' if len(got.busy) == 1 else 'rounds'} {', '.join(map(str, got.busy))} of them"
        if got.busy
        else "; no round host busy"
    )
    if got.decided:
        return _decided_words(record, got, busy)
    if got.leader is None:
        return f"no combination meets every target in the {rounds}{busy}"
    out = f"leading (not decided) in the {rounds}{busy}: {judge.describe(got.leader.combination)} at {_numbers(got.leader)}"
    h = got.held
    if h is None:
        return out
    if h is got.leader:  # led, but over too few rounds to be kept by the rule against every other
        return f"{out}; it is the combination the search held there ({_stood(record, h.combination)}), not yet a verdict"
    ahead = f" in {got.versus.wins} of {count(got.versus.rounds, 'round')}" if got.versus is not None else ""
    held = f"the combination the search held there, {judge.describe(h.combination)}, at {_numbers(h)}"
    on = _leads_on(record, got.leader, h, held)
    if on is None:  # it leads on weighted throughput, the held one meeting every target as well
        return f"{out}, ahead{ahead} of {held}: {_stood(record, h.combination)}, not a verdict"
    behind = ", not on weighted throughput" if (got.leader.weighted or 0.0) < (h.weighted or 0.0) else ""
    return (
        f"{out}; it leads on {on[0]}{behind}: {on[1]}; that one is {_stood(record, h.combination)}; "
        f"in weighted throughput the leader is ahead{ahead or ' in no round compared'} of it; not a verdict"
    )


def _leads_on(record: ColocationRecord, leader: Measured, held: Measured, named: str) -> tuple[str, str] | None:
    """What ``leader`` leads ``held`` on where that is not weighted throughput, and how, with the numbers (``named``:
    the held one in words, ``{held}`` below): the targets (``"it meets every one, which {held} misses (mlp p99 60.9 ms > 50 ms)"``),
    or under ``--objective fewest-instances`` its instances (``"3 instances in all, {held} 4"``); ``None``: it leads on
    weighted throughput (trial 19, T19-14: "leading ... ahead in 0 of 1 round" at 619 against 909 weighted infer/s, the
    held one missing mlp's 50 ms budget unsaid)."""
    if held.over:
        return "the targets", f"it meets every one, which {named} misses ({'; '.join(held.over)})"
    if record.objective == "fewest-instances" and leader.instances < held.instances:
        return "instances (the objective, fewest-instances)", f"{leader.instances} instances in all, {named} {held.instances}"
    return None


def _decided_words(record: ColocationRecord, got: Lead, busy: str) -> str:
    """:func:`lead_words` where the last step measured together decided (the cut fell before the next one's first
    round): what it decided and where the search stood, not a pick (recheck of trial 16, R16-6: a step that had
    decided was said as "leading (not decided)" beside "the combination the search held there ... not a verdict")."""
    stood = decided_combination(record, got.step) or {}
    m = judge.measured_in(record, got.step.index, got.rounds, stood)
    misses = f" (it misses {'; '.join(m.over)})" if m.over else ""
    return (
        f"{_step_name(got.step)} decided in its {count(got.rounds, 'round')} ({busy.removeprefix('; ')}): "
        f"{_decision(record, got.step)}; the "
        f"search stood at {judge.describe(stood)} at {_numbers(m)}{misses}, not a pick: the search had not yet tried "
        "every model's other variants beside it"
    )


def _stood(record: ColocationRecord, held: dict[str, str]) -> str:
    """What the held combination is: the search's starting point, or where its last move left it, and which move
    steps kept it (:func:`decided_steps`: a step that decided is said as one, recheck of trial 16, R16-6)."""
    start = {m.name: m.start for m in record.models}
    kept = [
        s
        for s in record.steps
        if s.kind == "move" and s.model and s.held == held and s.outcome == f"{s.model}: kept {held[s.model]}"
    ]
    by = f", kept by {' and '.join(_step_name(s) for s in kept)}" if kept else ""
    if start == held:
        given = all(m.start_reason == "given (--start)" for m in record.models)
        return "its starting point (" + ("the --start given" if given else "each model's best alone") + ")" + by
    return "where the search's last move left it" + by


def last_step_words(record: ColocationRecord) -> str | None:
    """Where the search decided its pick but the time budget cut its final rounds (the pick alone and together) before
    any was measured: the pick's numbers from the last step that measured it, labelled as such (medians over that
    step's rounds, not the final rounds'): ``"the final rounds (the pick alone and together) were not measured; its
    numbers from the last step that measured it, step 3 (move mlp), over its 6 rounds (medians; not the final rounds):
    499 weighted infer/s (mlp 118 infer/s p99 30.54 ms; ranker 384 infer/s p99 28.10 ms)"``; ``None`` where there is
    no pick, the final rounds were measured, or no step measured the pick (trial 19, T19-15: a pick reported without
    any numbers, the step medians it was chosen on in colocation.json)."""
    if record.pick is None or neighbours.neighbour_cost(record):
        return None
    m = next((c for c in judge.measured_combinations(record) if judge.key(c.combination) == judge.key(record.pick)), None)
    step = next((s for s in record.steps if m is not None and s.index == m.step), None)
    if m is None or step is None:
        return None
    misses = f"; it misses {'; '.join(m.over)} there" if m.over else ""
    return (
        "the final rounds (the pick alone and together) were not measured; its numbers from the last step that measured "
        f"it, {_step_name(step)}, over its {count(step.rounds, 'round')} (medians; not the final rounds): {_numbers(m)}{misses}"
    )


def resume_command(record: ColocationRecord, results_dir: Path | str, time_budget_s: float | None) -> str:
    """The command that continues co-location run ``record`` (``--resume``: its models, traffic, targets, objective and
    seed as recorded, :data:`perf.colocate.resume.RECORDED` refused beside it): its run id, results folder and
    repository (absolute: it works pasted in any folder), the runtime it was served by, and ``--time-budget``
    (what the resumed session may spend) where one is given."""
    args = ["triton-perf", "colocate", "--resume", "--run-id", record.run_id]
    args += ["--results-dir", str(Path(results_dir).resolve()), "-r", record.repository]
    server = record.environment.get("server")
    runtime = server.get("runtime") if isinstance(server, dict) else None
    if runtime in ("bundled", "local", "container"):  # a remote server's --url is the user's to give again
        args += ["--runtime", runtime]
    if time_budget_s is not None:
        args += ["--time-budget", plan.budget_flag(time_budget_s)]
    return shlex.join(args)


def finish_words(record: ColocationRecord, results_dir: Path | str) -> str:
    """The one action that finishes an undecided run (said after ``"to finish it: "``): its resume command with the
    ``--time-budget`` the rest of one pass needs (:mod:`perf.colocate.plan`, priced from what this run measured, the
    moves left as the search takes them: :func:`perf.colocate.plan.moves_left`), and, while a move step is left, what
    one more move adds (:func:`perf.colocate.plan.move_s`), with :data:`perf.analysis.recommendation.cuts.MARGIN` and rounded up to
    whole minutes, at least a minute above the ``--time-budget`` a resumed last session had and ended without a pick on
    (said): :func:`perf.analysis.recommendation.cuts.advised`, the sweep's rule. Trial 21, T21-4: "--time-budget 2m (the rest of one pass needs about 81
    s ...; more if a model moves ...)" twice, a model moved each time, and the second 2m ended without a pick too."""
    steps, p = plan.rest_of(record)
    est = plan.estimate(steps, p, None)
    move = plan.move_s(record, p) if any(s.label.startswith("move") for s, _c in est.steps) else 0.0
    last = record.session_budgets_s[-1] if len(record.session_budgets_s) > 1 else None  # a resume that ended undecided
    minutes, above = advised(est.total_s + move, last, "the rest of the pass")  # the sweep's one rule (trial 21, T21-1/4)
    moves = (
        f"; a model that moves adds about {math.ceil(move)} s (each other model tried again beside it), in the budget too"
        if move
        else ""
    )
    return (
        f"`{resume_command(record, results_dir, minutes * 60)}` (the rest of one pass needs about "
        f"{math.ceil(est.total_s)} s by this run's own prices, the server's start and stop included{moves}{above}; "
        f"{plan.MARGIN_WORDS}; more if models move again; its complete rounds are not measured again)"
    )


#: What the "vs the pick, same rounds" column says (:func:`beside_pick`; trial 20, T20-4).
BESIDE_WORDS = (
    "vs the pick, same rounds: its weighted infer/s over the pick's, the median of the per-round ratios in the last step "
    "that measured both, and the rounds it was ahead in: the comparison the pick was made on"
)


def beside_pick(record: ColocationRecord, combination: dict[str, str]) -> str | None:
    """The report's "vs the pick, same rounds" cell of a combination measured (trial 20, T20-4: a row above the pick in
    "Every combination measured", 991 against 910 weighted infer/s over the rounds of another step, read as a better
    combination not picked, though it was behind the pick in each of the 3 rounds they shared): its weighted throughput
    over the pick's, the median of the per-round ratios (:func:`perf.markdown.times`) in the last step that measured
    both, with the rounds it was ahead in; ``"the pick"`` on the pick's row, ``"no round shared"`` where no step
    measured both; ``None`` without a decided pick (no column)."""
    pick = decided_pick(record)
    if pick is None:
        return None
    if judge.key(combination) == judge.key(pick):
        return "the pick"
    for step in reversed(record.steps):
        keys = {judge.key(t) for t in step.targets}
        if step.rounds and {judge.key(combination), judge.key(pick)} <= keys:
            p = judge.compare(record.visits, step.index, combination, pick, step.rounds, record.models)
            if p is not None:
                return f"{times(p.median)} (ahead in {p.wins} of {p.rounds}, step {step_number(step.index)})"
    return "no round shared"
