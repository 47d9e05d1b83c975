"""The search part of a co-location run's report (:mod:`perf.report.colocation`): its steps, every decision, the
time budget's plan fitted again and what ran, what was cut for time and the host's load (:func:`search_section`),
then every combination measured, best weighted throughput first (:func:`combinations_section`)."""

from __future__ import annotations

from core.wording import sentence
from perf.colocate import judge, outcome, verdict
from perf.colocate.near import status
from perf.markdown import Align, fmt, table
from perf.records.colocation import ColocationRecord, step_number
from perf.records.provenance import as_said

RIGHT: Align = "right"


def search_section(record: ColocationRecord) -> list[str]:
    """The steps, the decisions and the search's cost."""
    cost = (
        f"{record.combinations_measured} of {record.combinations_total} combinations measured, {len(record.visits)} visits "
        f"(brute force: {record.combinations_total} combinations × {record.min_rounds} rounds at least)"
    )
    steps = [
        [step_number(s.index), s.kind, s.model or "—", s.rounds, len(s.targets), as_said(record, s.outcome)] for s in record.steps
    ]
    decisions = [
        [step_number(d.step), d.model, d.candidate, "yes" if d.accepted else "no", as_said(record, d.reason)]
        for d in record.decisions
    ]
    lines = [
        "## The search",
        "",
        f"Coordinate search: {sentence(cost)}",
        "",
        *table(
            ["step", "kind", "model", "rounds", "targets", "outcome"], steps, ["right", "left", "left", "right", "right", "left"]
        ),
        "",
    ]
    if decisions:
        lines += [
            "Every decision:",
            "",
            *table(["step", "model", "candidate", "moved", "why"], decisions, ["right", "left", "left", "left", "left"]),
            "",
        ]
    if record.refits:  # the plan fitted again to the loads timed, and what ran beside what it said (perf.colocate.plan)
        lines += [
            "The time budget's plan, fitted again to the times measured, and what ran:",
            "",
            *[f"- {r}" for r in outcome.ran_lines(record)],  # what ran not recorded: said (re-check 20, NEW-8)
            "",
        ]
    if record.cuts:
        lines += ["Cut for time:", "", *[f"- {as_said(record, c)}" for c in record.cuts], ""]
    busy = sum(v.host_busy for v in record.visits)
    if busy:
        lines += [
            f"† host busy: {busy} of {len(record.visits)} visits ran while other processes used the host; every comparison "
            "is paired within a round, so that load fell on each target of the round alike.",
            "",
        ]
    return lines


def combinations_section(record: ColocationRecord) -> list[str]:
    """Every combination measured, best weighted throughput first."""
    rows = []
    names = [m.name for m in record.models]
    measured = judge.measured_combinations(record)
    pick = verdict.decided_pick(record)
    lead = verdict.lead(record) if pick is None and verdict.undecided(record) else None
    leader = lead.leader.combination if lead is not None and lead.leader is not None else None
    for c in measured:
        mark = " (the pick)" if pick is not None and judge.key(c.combination) == judge.key(pick) else ""
        if lead is not None and leader is not None and judge.key(c.combination) == judge.key(leader):
            mark = f" ({lead.mark()})"
        per_model = [f"{fmt(c.throughput[n], 0)} / {fmt(c.p99_ms[n], 2)}" for n in names]
        gpu = [fmt(c.gpu_utilization_pct, 0)] if record.kind == "KIND_GPU" else []
        rows.append(
            [
                judge.describe(c.combination) + mark,
                step_number(c.step),
                c.instances,
                fmt(c.weighted, 0),
                *per_model,
                *gpu,
                status(record, c).cell,
                *([] if (beside := verdict.beside_pick(record, c.combination)) is None else [beside]),
            ]
        )
    if not rows:
        return []
    gpu_head = ["GPU %"] if record.kind == "KIND_GPU" else []
    beside_head = ["vs the pick, same rounds"] if pick is not None else []
    beside_align: list[Align] = ["left"]
    return [
        "## Every combination measured",
        "",
        "Over the rounds of the last step that measured each: weighted infer/s is the "
        f"{judge.WEIGHTED_WORDS} (sum of weight × infer/s, taken round by round), so it need not equal the weighted "
        "sum of the models' own medians beside it; per model: its own median infer/s / p99 ms (p99: "
        f"{judge.p99_words(any(c.p99_quieter for c in measured))}). Rows of different steps "
        "were measured in different rounds, under the host's load of their time: the search compares combinations only "
        + sentence("within a step" + (f"; {verdict.BESIDE_WORDS}" if pick is not None else "")),
        "",
        *table(
            ["combination", "step", "instances", "weighted infer/s", *names, *gpu_head, "targets", *beside_head],
            rows,
            ["left", *([RIGHT] * (3 + len(names) + len(gpu_head))), "left", *(beside_align * len(beside_head))],
        ),
        "",
    ]
