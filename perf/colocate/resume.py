"""Resuming an interrupted co-location run (``triton-perf colocate --resume --run-id ID``).

The search is deterministic given its visits: each step's targets, each round's shuffled order
(seeded by the run's seed, the step and the round) and every decision follow from the numbers
measured before. So a resumed run runs the search again from the start, with the same record
(models, targets, objective, seed, rounds), and a :class:`ReplaySource` answers each visit the
first session measured from its record instead of measuring it again; the first visit it cannot
answer is measured on the server, and from there the search goes on as it would have.

Only **complete rounds** are replayed (every target of the round measured): the visits of a round
the interruption cut are measured again, all of them, so that a round's targets are compared
within one session (the paired rule's premise: a round's background load fell on each alike).
A step the replayed search would measure differently from the first session (it cannot happen
with the same code and record; a record edited by hand could) ends the replay: everything from
there is measured. The cut round's visits are kept in the record's ``replaced_visits``, not judged.
Each variant's GPU memory, measured at its first load, is kept. The time
budget left is the run's minus what the first sessions spent.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from clients.runtimes.host import not_ours
from core.errors import PerfError
from perf.colocate import judge
from perf.colocate.judge import Combination
from perf.colocate.options import ColocateOptions
from perf.colocate.search import Source
from perf.records import colocation
from perf.records.colocation import ColocationRecord, SearchStep, step_number
from perf.records.colocation_measured import ColocationVisit
from perf.sweep.resuming import nothing_to_resume

log = logging.getLogger(__name__)


def complete_rounds(record: ColocationRecord) -> dict[tuple[int, int, tuple[tuple[str, str], ...]], ColocationVisit]:
    """``(step, round, combination key) -> visit`` of every round whose targets were all measured."""
    out = {}
    for step in record.steps:
        for r in range(step.rounds + 1):  # the round after the last counted one may be complete too (saved mid-step)
            got = {judge.key(v.combination): v for v in record.visits if v.step == step.index and v.round == r}
            if got and all(judge.key(t) in got for t in step.targets):
                out.update({(step.index, r, k): v for k, v in got.items()})
    return out


class ReplaySource:
    """A :class:`perf.colocate.search.Source` that answers from a previous session's complete
    rounds and measures with ``inner`` from the first visit it cannot answer (module docstring).

    Args:
        inner: The real measurement.
        previous: The interrupted run's record, as it was saved.
    """

    def __init__(self, inner: Source, previous: ColocationRecord):
        self.inner = inner
        self.done = complete_rounds(previous)
        self.old = {s.index: s for s in previous.steps}
        self.replaying = True
        self.pending: SearchStep | None = None
        self.prepared: set[int] = set()
        self.replayed = 0
        self.measured = 0

    def _same(self, step: SearchStep) -> bool:
        """Whether the first session measured ``step`` as the replayed search does."""
        old = self.old.get(step.index)
        return old is not None and (old.kind, old.model, old.held, old.targets) == (
            step.kind,
            step.model,
            step.held,
            step.targets,
        )

    def replays(self, step: SearchStep, round_index: int) -> bool:
        """Whether round ``round_index`` of ``step`` will be answered from the first session (no time spent, nothing
        loaded): what the search prices it by (:meth:`perf.colocate.search.CoordinateSearch._fit`; trial 18, T18-6)."""
        return (
            self.replaying
            and self._same(step)
            and all((step.index, round_index, judge.key(t)) in self.done for t in step.targets)
        )

    def prepare(self, step: SearchStep) -> None:
        """Note the step; the server is prepared only when a visit of it must be measured."""
        old = self.old.get(step.index)
        same = self._same(step)
        if self.replaying and not same and old is not None:
            log.warning("step %d differs from the first session's: measured from here on", step_number(step.index))
        self.replaying = self.replaying and same
        if self.replaying and old is not None:  # its loads were timed in the first session: what it is priced by
            step.loaded, step.load_s, step.unload_s = list(old.loaded), list(old.load_s), list(old.unload_s)
        self.pending = step

    def visit(self, step: int, round_index: int, order: int, combination: Combination) -> ColocationVisit:
        """The previous session's visit of this round when it has the whole round, else a measurement."""
        got = self.done.get((step, round_index, judge.key(combination))) if self.replaying else None
        if got is not None:
            self.replayed += 1
            return got
        self.replaying = False  # from the first measurement on, nothing is replayed
        if step not in self.prepared and self.pending is not None:
            self.inner.prepare(self.pending)
            self.prepared.add(step)
        self.measured += 1
        return self.inner.visit(step, round_index, order, combination)


def restart(record: ColocationRecord) -> dict[str, str]:
    """Clear what the resumed search recomputes (steps, visits, decisions, pick and leader, cuts, the
    starts it found) and return the starts the first session was given (``--start``). The visits
    of a round the interruption cut, which the resumed search measures again whole, are kept in
    ``replaced_visits`` (trial 14, T14-8's kind: a command never drops a measurement unsaid)."""
    given = {m.name: m.start for m in record.models if m.start and m.start_reason == "given (--start)"}
    replayed = complete_rounds(record)
    record.replaced_visits += [v for v in record.visits if (v.step, v.round, judge.key(v.combination)) not in replayed]
    record.steps, record.visits, record.decisions, record.cuts = [], [], [], []
    record.pick, record.leader, record.pick_reason, record.finished = None, None, "", None
    return {k: v for k, v in given.items() if v is not None}


#: What a resumed run takes from its record, not from the command line: (flag, given?).
RECORDED = ("--model", "--mix", "--weight", "--start", "--latency-budget-ms", "--required-throughput", "--objective", "--seed")


def previous_run(opts: ColocateOptions) -> ColocationRecord:
    """The record of the run ``opts`` resumes.

    Raises:
        PerfError: no ``--run-id``, no such run, a flag the record sets given again, or a
            record that cannot be read (its reason).
    """
    if not opts.run_id:
        raise PerfError(
            "--resume needs the --run-id of the run to continue",
            hint="e.g. --resume --run-id colocate-20261201-2130",
            flag="--run-id",
        )
    given = [
        flag
        for flag, value in zip(
            RECORDED,
            (opts.models, opts.mix, opts.weights, opts.starts, opts.latency_budget_ms, opts.required_throughput),
        )
        if value
    ]
    given += ["--objective"] if opts.objective != "throughput" else []
    given += ["--seed"] if opts.seed is not None else []
    if given:
        raise PerfError(
            f"--resume continues run {opts.run_id} as recorded: {', '.join(given)} cannot change it",
            hint="drop them (the run's models, traffic, targets, objective and seed are in its colocation.json), "
            "or start a new run with another --run-id",
            flag="--resume",
        )
    run_dir = Path(opts.results_dir) / opts.run_id
    again = f"the command with --run-id {opts.run_id} and its --model flags, without --resume,"
    if (refusal := nothing_to_resume(run_dir, again)) is not None:
        raise refusal
    if not (run_dir / colocation.COLOCATION_FILE).is_file():
        raise PerfError(
            f"no co-location run {opts.run_id} in {opts.results_dir} ({run_dir / colocation.COLOCATION_FILE} is missing)",
            hint="pass the --results-dir and --run-id of the interrupted run",
            flag="--run-id",
        )
    return colocation.load(run_dir)


#: The pick's reason when the server failed (the run can be resumed): its start (:func:`server_failed`).
SERVER_FAILED = "the server failed"


def server_failed(urls: Sequence[str]) -> str:
    """The pick's reason when the server failed: where its log is, the run folder's only where the toolkit started it
    (``urls``: the ``--url`` servers, none when it started its own; re-check 18)."""
    return f"{SERVER_FAILED} ({not_ours(*urls) if urls else 'see its log in the run folder'})"


def nothing_left(previous: ColocationRecord) -> str | None:
    """Why a resumed run has nothing to measure: its search ended (a pick's reason is set),
    neither cut for time nor stopped by a server failure; else ``None`` (it was interrupted)."""
    if not previous.pick_reason or previous.cuts or previous.pick_reason.startswith(SERVER_FAILED):
        return None
    said = f"with {judge.describe(previous.pick)}" if previous.pick else "without a pick"
    return f"run {previous.run_id} ended {said} ({previous.pick_reason}): nothing to resume"
