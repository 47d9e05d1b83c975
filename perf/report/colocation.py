"""The report of a co-location run (``triton-perf colocate``): ``report.md`` from ``colocation.json``.

Sections: what was run (models, variants, traffic mix, budgets, the rule); the pick in the
four-part form — **what** (the combination), **why** (the search's reason), **the numbers**
(each model alone and co-located, measured in the same rounds, with p99, queue and compute
time) and **what it beats** (the candidates of each model's last step beside the pick: beaten,
over budget, or not distinguishable: its tie set); the search's steps and every decision; every
combination measured; what was cut for time.
"""

from __future__ import annotations

from pathlib import Path

from perf.analysis.paired import RULE
from perf.colocate import judge
from perf.markdown import Align, fmt, table
from perf.plots.colocation import TRADEOFF_FILE, plot_tradeoff
from perf.records import colocation
from perf.records.colocation import ColocationRecord

REPORT_FILE = "report.md"
RIGHT: Align = "right"


def write_report(run_dir: Path) -> Path:
    """Write ``run_dir/report.md`` from ``run_dir/colocation.json``; returns its path.

    Raises:
        RecordError: the record is missing or invalid.
    """
    record = colocation.load(run_dir)
    path = Path(run_dir) / REPORT_FILE
    drawn = plot_tradeoff(record, Path(run_dir) / TRADEOFF_FILE)
    plot = ["## The trade-off", "", f"![weighted throughput vs the slowest model's p99]({TRADEOFF_FILE})", ""] if drawn else []
    lines = report_lines(record)
    at = next((i for i, ln in enumerate(lines) if ln == "## Every combination measured"), len(lines))
    path.write_text("\n".join([*lines[:at], *plot, *lines[at:]]) + "\n")
    return path


def report_lines(record: ColocationRecord) -> list[str]:
    """The whole report."""
    return [
        f"# Several models on one server: run {record.run_id}",
        "",
        *what_was_run(record),
        *pick_section(record),
        *search_section(record),
        *combinations_section(record),
    ]


def what_was_run(record: ColocationRecord) -> list[str]:
    """The models, their variants and traffic, the budgets and the rule."""
    rows = [
        [
            m.name,
            ", ".join(m.variants),
            m.concurrency,
            f"{m.weight:g}",
            "—" if m.latency_budget_ms is None else f"{m.latency_budget_ms:g}",
            m.start or "—",
            m.start_reason or "—",
        ]
        for m in record.models
    ]
    budget = judge.budget_words(record)
    time_budget = f"{record.time_budget_s:g} s" if record.time_budget_s else "none"
    return [
        "## What was run",
        "",
        f"Repository `{record.repository}`; {len(record.models)} models served by one server, one variant of each loaded "
        "together; every combination measured with one perf_analyzer per model started together (the same "
        f"{record.window_ms} ms windows), in rounds of shuffled order; the variants alone on the same server in the same "
        f"rounds. Latency budget: {budget}; time budget: {time_budget}; spent: {fmt(record.spent_s, 0)} s.",
        "",
        *table(
            ["model", "variants", "concurrency", "weight", "p99 budget ms", "search started from", "why"],
            rows,
            ["left", "left", "right", "right", "right", "left", "left"],
        ),
        "",
        f"Weighted throughput = sum of weight × infer/s. A move is kept by the paired rule: {RULE}.",
        "",
    ]


def pick_section(record: ColocationRecord) -> list[str]:
    """The pick in four parts: what, why, the numbers, what it beats."""
    lines = ["## The pick", ""]
    if record.pick is None:
        return [*lines, f"**None.** {record.pick_reason}.", ""]
    lines += [f"**What**: {judge.describe(record.pick)}.", "", f"**Why**: {record.pick_reason}.", ""]
    rows = judge.neighbour_cost(record)
    if rows:
        lines += [
            "**The numbers** (medians over the final rounds; alone = the same variant alone on the same server, in the same "
            "rounds: what its neighbours cost it):",
            "",
            *table(
                list(judge.NEIGHBOUR_COLUMNS),
                [
                    [
                        r.model,
                        r.variant,
                        fmt(r.alone, 0),
                        fmt(r.together, 0),
                        r.paired.describe("higher", "lower") if r.paired else "not measured in the same rounds",
                        fmt(r.p99_ms, 2),
                        fmt(r.queue_us, 0),
                        fmt(r.compute_us, 0),
                    ]
                    for r in rows
                ],
                ["left", "left", *([RIGHT] * 6)],
            ),
            "",
        ]
    else:
        lines += ["**The numbers**: the final rounds (the pick alone and together) were not measured: see the cuts below.", ""]
    return [*lines, *beats_lines(record), ""]


def beats_lines(record: ColocationRecord) -> list[str]:
    """What the pick beats, and its tie set: each model's last step held beside the pick."""
    assert record.pick is not None
    beaten, tied, over = [], [], []
    for d in record.decisions:
        if d.held != record.pick:
            continue
        name = judge.describe({**d.held, d.model: d.candidate})
        ratio = (
            f"{d.ratio:.3g}× (min–max {d.low:.3g}–{d.high:.3g}, ahead in {d.wins} of {d.rounds}; p = {d.p_value:.2g})"
            if d.ratio
            else ""
        )
        if not d.within_budget:
            over.append(f"{name}: over the budget")
        elif d.verdict == "lower":
            beaten.append(f"{name}: {ratio} of the pick's weighted throughput")
        else:
            tied.append(f"{name}: {d.verdict}, {ratio}")
    lines = ["**What it beats** (the candidates of each model's last step, the other models at the pick's variants):", ""]
    lines += [f"- beats {x}" for x in beaten] or ["- no candidate was beaten by the paired rule"]
    lines += [f"- {x}" for x in over]
    if tied:
        lines += ["", "**Tie set** (not told apart from the pick at this noise; the search kept the held combination):", ""]
        lines += [f"- {x}" for x in tied]
    return lines


def search_section(record: ColocationRecord) -> list[str]:
    """The steps, the decisions and the search's cost."""
    cost = (
        f"{record.combinations_measured} of {record.combinations_total} combinations measured, {len(record.visits)} visits "
        f"(brute force: {record.combinations_total} combinations × {record.min_rounds} rounds at least)"
    )
    steps = [[s.index + 1, s.kind, s.model or "—", s.rounds, len(s.targets), s.outcome] for s in record.steps]
    decisions = [[d.step + 1, d.model, d.candidate, "yes" if d.accepted else "no", d.reason] for d in record.decisions]
    lines = [
        "## The search",
        "",
        f"Coordinate search: {cost}.",
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
    if record.cuts:
        lines += ["Cut for time:", "", *[f"- {c}" for c in record.cuts], ""]
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
    for c in judge.measured_combinations(record):
        mark = " (the pick)" if record.pick is not None and judge.key(c.combination) == judge.key(record.pick) else ""
        per_model = [f"{fmt(c.throughput[n], 0)} / {fmt(c.p99_ms[n], 2)}" for n in names]
        rows.append(
            [judge.describe(c.combination) + mark, c.step + 1, fmt(c.weighted, 0), *per_model, "; ".join(c.over) or "within"]
        )
    if not rows:
        return []
    return [
        "## Every combination measured",
        "",
        "Medians over the rounds of the last step that measured each; per model: infer/s / p99 ms.",
        "",
        *table(
            ["combination", "step", "weighted infer/s", *names, "budget"],
            rows,
            ["left", "right", "right", *([RIGHT] * len(names)), "left"],
        ),
        "",
    ]
