"""The report of a co-location run (``triton-perf colocate``): ``report.md`` from ``colocation.json``.

Sections: what was run (models, variants and their instances, traffic mix, each model's budget
and required throughput, the objective, the rule); the pick in the four-part form — **what**
(the combination), **why** (the search's reason), **the numbers** (each model alone and
co-located, measured in the same rounds, with p99, queue and compute time, against its targets)
and **what it beats** (the candidates of each model's last step beside the pick: beaten, missing
a target, or not distinguishable: its tie set) — or, when nothing met every target, "not
achieved" with the closest combination, why it misses, and its numbers; with KIND_GPU variants,
the GPUs, each variant's device ids and GPU memory and the GPUs' use in the pick's rounds; the
search's steps and every decision; every combination measured; what was cut for time (the last two:
:mod:`perf.report.colocation_search`).
"""

from __future__ import annotations

from pathlib import Path

from core.wording import sentence
from perf.analysis.stats.paired import RULE, p_words
from perf.colocate import host, judge, neighbours, verdict
from perf.colocate.builds import combination_words, with_build_checks
from perf.colocate.closest import NOTHING_MEASURED, closest, closest_lines, reason
from perf.colocate.rules import uncalled
from perf.colocate.windows import missed_words
from perf.markdown import Align, fmt, fmt_given, ratio_span, table, times, write_kept
from perf.plots.colocation import TRADEOFF_FILE, plot_tradeoff, tradeoff_title
from perf.records import colocation
from perf.records.colocation import ColocationRecord
from perf.records.provenance import as_said
from perf.report.colocation_gpu import gpu_section
from perf.report.colocation_search import combinations_section, search_section
from perf.report.sections.said import colocation_note
from perf.report_state import record_written

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
    plot = ["## The trade-off", "", f"![{tradeoff_title(record)}]({TRADEOFF_FILE})", ""] if drawn else []
    lines = report_lines(record, Path(run_dir).parent)
    at = next((i for i, ln in enumerate(lines) if ln == "## Every combination measured"), len(lines))
    write_kept(path, "\n".join([*lines[:at], *plot, *lines[at:]]) + "\n")  # an edited one kept aside (T25-17)
    record_written(Path(run_dir), Path(run_dir) / colocation.COLOCATION_FILE)  # told out of date when it changes (Z-13)
    return path


def report_lines(record: ColocationRecord, results_dir: Path = Path("results")) -> list[str]:
    """The whole report (``results_dir``: the run folder's parent, for the command that resumes it); a run saved
    before its build checks were recorded reads them from its repository, once."""
    record = with_build_checks(record)
    return [
        f"# Several models on one server: run {record.run_id}",
        "",
        *colocation_note(record),
        *what_was_run(record),
        *(undecided_section(record, results_dir) if verdict.undecided(record) else pick_section(record)),
        *gpu_section(record),
        *search_section(record),
        *combinations_section(record),
    ]


def time_budget_words(record: ColocationRecord) -> str:
    """The time budget as the user gave it: ``"180 s"``, ``"none"``, or for a resumed run each session's
    (``"180 s in session 1, 106 s in session 2"``; trial 18, T18-15: the report said "253.25 s", a number never given),
    a resume given none what was left of the run's (:attr:`ColocationRecord.session_budgets_s`)."""
    given = record.session_budgets_s or [record.time_budget_s]
    said = ["none" if b is None else f"{b:g} s" for b in given]
    if len(said) == 1:
        return said[0]
    return ", ".join(f"{b} in session {i + 1}" for i, b in enumerate(said))


def what_was_run(record: ColocationRecord) -> list[str]:
    """The models, their variants and traffic, the targets, the objective and the rule."""
    rows = [
        [
            m.name,
            ", ".join(f"{v} ({m.instances_of(v)})" for v in m.variants),
            m.concurrency,
            fmt_given(m.weight, 0),
            "—" if m.latency_budget_ms is None else fmt_given(m.latency_budget_ms, 0),
            "—" if m.required_throughput is None else fmt_given(m.required_throughput, 0),
            m.start or "—",
            as_said(record, m.start_reason or "") or "—",
        ]
        for m in record.models
    ]
    time_budget = time_budget_words(record)  # as given, each session's (trial 18, T18-15)
    spent = f"{fmt(record.spent_s, 0)} s" + (" in all" if len(record.session_budgets_s) > 1 else "")
    return [
        "## What was run",
        "",
        f"Repository `{record.repository}`; {len(record.models)} models served by one server, one variant of each loaded "
        "together; every combination measured with one perf_analyzer per model started together (the same "
        f"{record.window_ms} ms windows), in rounds of shuffled order; the variants alone on the same server in the same "
        f"rounds. Latency budget: {judge.budget_words(record)}; required throughput: {judge.required_words(record)}; "
        f"time budget: {time_budget}; spent: {spent}.",
        "",
        *([sentence(said, capital=True), ""] if (said := host.cores_words(record)) else []),
        f"Objective: {sentence(objective_words(record))}",
        "",
        *table(
            [
                "model",
                "variants (instances)",
                "concurrency",
                "weight",
                "p99 budget ms",
                "required infer/s",
                "search started from",
                "why",
            ],
            rows,
            ["left", "left", "right", "right", "right", "right", "left", "left"],
        ),
        "",
        f"Weighted throughput = sum of weight × infer/s. A move is kept by the paired rule: {sentence(RULE)}",
        "",
    ]


def objective_words(record: ColocationRecord) -> str:
    """What the search optimised, in words."""
    targets = judge.targets_words(record)
    if record.objective == "fewest-instances":
        return (
            f"the fewest instances in all (the sum of every model's instance count) that meet {targets}; among as many "
            "instances, the higher weighted throughput by the paired rule"
        )
    return f"the highest weighted throughput that meets {targets}"


def undecided_section(record: ColocationRecord, results_dir: Path) -> list[str]:
    """A search the time budget cut before it decided (:mod:`perf.colocate.verdict`): no pick, what led in the rounds
    measured (not a verdict), and the command that finishes it (trial 15, T15-10: "## The pick" named the starting
    point, which the one round measured put behind another combination)."""
    return [
        "## No pick: the search was cut for time",
        "",
        f"**What**: {sentence(verdict.headline(record))} The combination the search held is where it stood, not a verdict.",
        "",
        sentence(verdict.lead_words(record), capital=True),
        "",
        f"**To finish it**: {sentence(verdict.finish_words(record, results_dir))}",
        "",
    ]


def pick_section(record: ColocationRecord) -> list[str]:
    """The pick in four parts: what, why, the numbers, what it beats (or, without a pick, the
    closest combination in the same four parts)."""
    lines = ["## The pick", ""]
    if record.pick is None:
        return [*lines, *not_achieved(record), ""]
    count = f" ({record.instances(record.pick)} instances in all)" if record.objective == "fewest-instances" else ""
    lines += [
        f"**What**: {sentence(combination_words(record, record.pick) + count)}",
        "",
        f"**Why**: {sentence(as_said(record, record.pick_reason))}",
        "",
    ]
    rows = neighbours.neighbour_cost(record)
    if rows:
        lines += [
            "**The numbers** (medians over the final rounds; alone = the same variant alone on the same server, in the same "
            "rounds: what its neighbours cost it):",
            "",
            *table(
                list(neighbours.NEIGHBOUR_COLUMNS),
                [
                    [
                        r.model,
                        r.variant,
                        fmt(r.alone, 0),
                        fmt(r.together, 0),
                        r.ratio_words(),
                        fmt(r.p99_ms, 2),
                        fmt(r.queue_us, 0),
                        fmt(r.compute_us, 0),
                    ]
                    for r in rows
                ],
                ["left", "left", *([RIGHT] * 6)],
            ),
            "",
            *targets_lines(record, rows),
        ]
    else:
        last = verdict.last_step_words(record) or "the final rounds (the pick alone and together) were not measured"
        lines += [f"**The numbers**: {last}: see the cuts below.", ""]
    return [*lines, *beats_lines(record), ""]


def targets_lines(record: ColocationRecord, rows: list[neighbours.Neighbours]) -> list[str]:
    """Each model's co-located numbers against its targets (nothing when no model has one)."""
    parts = []
    for r in rows:
        m = record.model(r.model)
        said = []
        if m.latency_budget_ms is not None:
            said.append(f"p99 {fmt(r.p99_ms, 2)} ms of {fmt_given(m.latency_budget_ms, 0)} ms")
        if m.required_throughput is not None:
            said.append(f"{fmt(r.together, 0)} infer/s of {fmt_given(m.required_throughput, 0)} required")
        if said:
            parts.append(f"{r.model} {', '.join(said)}")
    return [f"Targets, co-located: {'; '.join(parts)}.", ""] if parts else []


def not_achieved(record: ColocationRecord) -> list[str]:
    """Without a pick: what was asked was not achieved; the closest combination measured, why it
    misses, and its numbers."""
    near = closest(record)
    if near is None:  # nothing to judge: no verdict (the run's exit 1), the flag that fixes a window miss (T16-12)
        missed = missed_words(record, bool(record.resumed))
        return [
            f"**What**: no verdict: {NOTHING_MEASURED}.",
            "",
            f"**Why**: {sentence(as_said(record, reason(record)))}",
            "",
            *([f"**Windows**: {sentence(missed)}", ""] if missed else []),
        ]
    head = "**What**: not achieved" + (
        f": the fewest instances that meet {judge.targets_words(record)} were not found"
        if record.objective == "fewest-instances"
        else ""
    )
    lines = [sentence(head), "", f"**Why**: {sentence(as_said(record, reason(record)))}", ""]
    c = near.measured
    names = [m.name for m in record.models]
    rows = [
        [
            n,
            combination_words(record, {n: c.combination[n]}).removeprefix(f"{n}="),
            fmt(c.throughput[n], 0),
            "—" if record.model(n).required_throughput is None else fmt_given(record.model(n).required_throughput, 0),
            fmt(c.p99_ms[n], 2),
            "—" if record.model(n).latency_budget_ms is None else fmt_given(record.model(n).latency_budget_ms, 0),
        ]
        for n in names
        if n in c.combination
    ]
    return [
        *lines,
        *closest_lines(record, near),
        "**The numbers** (its medians over that step's rounds):",
        "",
        *table(
            ["model", "variant", "infer/s", "required infer/s", "p99 ms", "p99 budget ms"],
            rows,
            ["left", "left", RIGHT, RIGHT, RIGHT, RIGHT],
        ),
        "",
        "**What it beats**: nothing: no combination measured meets every target (every combination measured is listed below).",
    ]


def beats_lines(record: ColocationRecord) -> list[str]:
    """What the pick beats, and its tie set: each model's last step held beside the pick."""
    assert record.pick is not None
    fewest = record.objective == "fewest-instances"
    own = record.instances(record.pick)
    beaten, tied, over = [], [], []
    for d in record.decisions:
        if d.held != record.pick:
            continue
        name = combination_words(record, {**d.held, d.model: d.candidate})
        ratio = (
            f"{times(d.ratio, 3)} (min–max {ratio_span(d.low, d.high, 3)}, ahead in {d.wins} of {d.rounds}; {p_words(d.p_value or 0.0, d.p_tier)})"
            if d.ratio and d.low is not None and d.high is not None
            else ""
        )
        if not d.within_budget:
            over.append(f"{name}: misses a target" + (f" ({d.instances} instances)" if fewest else ""))
        elif fewest and d.instances is not None and d.instances > own:
            beaten.append(f"{name}: {d.instances} instances, the pick {own}")
        elif d.verdict == "lower":
            beaten.append(f"{name}: {ratio} of the pick's weighted throughput")
        elif (why := uncalled(record, d)) is not None:  # every round one way: not "not distinguishable" (trial 15, T15-2)
            tied.append(f"{name}: {'ahead of' if d.wins else 'behind'} the pick in every round, not called: {ratio}; {why}")
        else:
            tied.append(f"{name}: {d.verdict}, {ratio}")
    lines = ["**What it beats** (the candidates of each model's last step, the other models at the pick's variants):", ""]
    lines += [f"- beats {x}" for x in beaten] or ["- no candidate was beaten by the paired rule"]
    lines += [f"- {x}" for x in over]
    if tied:
        lines += ["", "**Tie set** (not told apart from the pick at this noise; the search kept the held combination):", ""]
        lines += [f"- {x}" for x in tied]
    return lines
