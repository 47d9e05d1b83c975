"""What a sweep says before its first level (issue 26): the inputs it will send, and for a resumed
run what it kept and what it will measure. The CLI prints these lines; they are computed from the
sweep's plan (:class:`perf.search.plan.VariantPlan`), its options after resume and the saved run,
so they say what the sweep will do, not what was asked."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from core import dtypes
from core.errors import ToolkitError
from core.flag_words import flag_name, flag_words
from core.wording import count, join_once
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.recommendation import cuts
from perf.markdown import fmt, fmt_given
from perf.measure.inputs import describe_dynamic, shape_words
from perf.records.results import RunResult, VariantResult, mixed_axes, parse_shape_text
from perf.records.rounds import Cut
from perf.records.workloads import workload_text
from perf.search.late import Late
from perf.search.plan import VariantPlan, to_measure
from perf.sweep.baseline_words import baseline_start_s
from perf.sweep.options import REPORT_SETTINGS, SweepOptions
from perf.sweep.resuming import baseline_missing

#: Variant names a line lists before "and N more".
NAMES_SHOWN = 3


def _names(names: list[str], total: int) -> str:
    if len(names) == total:
        return "every variant" if total > 1 else names[0]
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")


def inputs_text(plan: VariantPlan, spec: Any, opts: SweepOptions) -> str | None:
    """The inputs one variant is sent, per request with the batch axis of a batching model, as every output
    states shapes (:func:`clients.request_shapes.request_shape`; trial 26, T26-3: the per-sample dims were said
    "per request"): ``"input_ids [1, 64] (batch 1 × [64] per sample) int64, ... — seq=64 (the build's opt size of
    axis seq)"``; swept axes and a user's ``--input-data`` are named. ``None`` without a config."""
    if plan.config is None:
        return None
    if opts.input_data is not None:
        return f"your --input-data {opts.input_data} (its shapes and values)"
    swept = [s for s in plan.shapes if s]
    try:  # a swept axis is named in the dims, never shown at a size the run does not send (trial 9, F22)
        axes = {a for s in swept for a in (*parse_shape_text(s), *mixed_axes(s))}
        shapes = shape_words(plan.config, spec, opts.shapes, axes, plan.batch_sizes or opts.batch_sizes)  # within its limit
    except ToolkitError:  # the sweep refused to start then (perf.sweep.variant_inputs.check_inputs); nothing to say here
        return None
    parts = []
    for inp in plan.config.get("input", []):
        name = inp["name"]
        try:
            dt = dtypes.from_triton(inp.get("data_type", "")).name
        except ToolkitError:
            dt = inp.get("data_type", "?")
        parts.append(f"{name} {shapes.get(name, '[]')} {dt}")
    text = ", ".join(parts) or "no inputs"
    if swept:
        said = [workload_text(s, None) for s in swept]
        # one workload is sent at every level; several are each a level of their own (s22z, Z-11: "each" of one)
        return (
            text
            + f"; swept (--shapes): {', '.join(said)}, "
            + ("each a level of its own" if len(said) > 1 else "sent at every level")
        )
    how = describe_dynamic(plan.config, spec, opts.shapes)
    return text + (f" — {how}" if how else "")


def input_lines(plans: dict[str, VariantPlan], specs: dict[str, Any], opts: SweepOptions) -> list[str]:
    """One line per distinct input description, naming the variants it holds for (grouped)."""
    groups: dict[str, list[str]] = {}
    for name, plan in plans.items():
        if not plan.levels:
            continue
        text = inputs_text(plan, specs.get(name), opts)
        if text is not None:
            groups.setdefault(text, []).append(name)
    total = sum(len(n) for n in groups.values())
    return [f"inputs sent per request ({_names(names, total)}): {text}" for text, names in groups.items()]


def settings_text(opts: SweepOptions) -> str:
    """The settings that decide what a level measures, in one phrase (per design)."""
    m = opts.measure
    conc = opts.concurrency if isinstance(opts.concurrency, str) else ",".join(map(str, opts.concurrency))
    if opts.design == "rounds":
        how = f"design rounds, {opts.rounds_rules.window_ms} ms round windows"
    else:
        window = (
            f"{m.measurement_interval_ms} ms windows"
            if m.measurement_mode == "time_windows"
            else f"{m.measurement_request_count}-request windows"
        )
        how = (
            f"design sequential, {window}, at most {m.max_trials} windows a level, {m.unstable_retries} retries of "
            f"an unstable level"
        )
    if isinstance(opts.concurrency, str):  # the auto ladder: the search may stop ladders and prune variants
        how += f", search {opts.search or 'prune above 4 variants'}"
    else:
        how += ", the levels given measured whole for every variant (no pruning)"
    return (
        f"concurrency {conc}, batch {','.join(map(str, opts.batch_sizes))}, {count(opts.trials, 'trial')}, {how}, "
        f"{m.protocol}, {opts.server.runtime} server"
        + (f", p{opts.latency_percentile} budget {fmt_given(opts.latency_budget_ms, 0)} ms" if opts.latency_budget_ms else "")
    )


def cut_words(cuts: Sequence[Cut]) -> str:
    """Each variant ``cuts`` cut for time, named with its own reason and the time it says (issue 26: "`c` ... needs
    about 45 s ... (and 1 more)" gave the first cut's time only, and the other's was another number)."""
    return join_once([f"`{c.variant}` {c.reason}" if c.variant else c.reason for c in cuts])  # a shared clause once


@dataclasses.dataclass
class Ended:
    """A resumed rounds run whose rounds had ended (:mod:`perf.sweep.final`): why (``None``: the run
    finished them), the final group its time budget fits (:func:`perf.search.late.late`) and the tie set
    that final measures again."""

    why: str | None
    final: Late | None
    tie: list[str]
    #: What the resume line says of the in-process baseline where the final group leaves it too little
    #: (:func:`baseline_after`); ``""``: the line's own words.
    baseline: str = ""
    #: Its cut variants with numbers, measured further (a final group stopped part-way: ``ResumedRounds.measured_further``).
    further: frozenset[str] = frozenset()
    #: The rounds its final group counts already (a final group stopped part-way: ``perf.search.late.Final.done``).
    counted: int = 0
    #: What gives rounds its time budget ended more (``ResumedRounds.more_time_words``); ``None``: a new --run-id.
    more: str | None = None

    def words(self, budget: str) -> str:
        """What the resume measures, in the resume line's words."""
        why = f" ({self.why})" if self.why else ""
        late = self.final
        if late is None or not late.variants:
            out = f"no round (its rounds had ended{why}: {self.more or 'a new --run-id measures again'})"
            if late is not None and late.cuts:
                out += f"; nor its {count(len(late.cuts), 'variant')} cut for time, within {budget}: {cut_words(late.cuts)}"
            return out
        names = ", ".join(f"`{n}`" for n in late.variants)
        part = ", ".join(f"`{n}`" for n in late.variants if n in self.further)
        tie = f" with the tie set {', '.join(f'`{n}`' for n in self.tie)}" if self.tie else ""
        return (
            # why they ended: on the rounds line that follows (perf.sweep.final), said once (trial 23, T23-13)
            f"no more rounds of the variants it ranked (their rounds had ended{': why, on the rounds line below' if why else ''}); "
            f"{names} (cut for time" + (f"; part-measured before, measured further: {part}" if part else "") + f"){tie} "
            f"in a final group, about {fmt(late.estimate_s, 0)} s for the {MIN_ROUNDS - self.counted} rounds"
            + (f" of the {MIN_ROUNDS}" if self.counted else "")
            + f" a verdict needs, within {budget}"
        )


def resume_line(
    run: RunResult,
    plans: dict[str, VariantPlan],
    opts: SweepOptions,
    given: frozenset[str] = frozenset(),
    budget: str | None = None,
    ended: Ended | None = None,
    more_time: bool = False,
) -> str:
    """``kept: ...; will measure: ...`` for a resumed run: the saved settings it goes on with and
    what was measured; what it will measure (a sequential run: the planned levels still without
    numbers, at most, since a search may stop a ladder early; a rounds run: more rounds, as its
    estimate says next, or, when its rounds had ended, ``ended``: none, and the final group of its
    variants without numbers that the time budget fits, :mod:`perf.sweep.final`), and what runs after.
    ``given``: the flags given again that replace a saved value (:data:`perf.sweep.options.REPORT_SETTINGS`);
    ``budget``: which time budget the rounds plan against (:func:`perf.records.resumed.resumed_budget`); ``more_time``:
    a finished run whose rounds its time budget ended, given more (:attr:`perf.sweep.final.ResumedRounds.given_more_time`)."""
    done = sum(1 for v in run.variants if any(lv.ok for lv in v.levels))
    after = ", then the in-process baseline" if opts.baseline else "; no in-process baseline (--no-baseline)"
    if opts.design == "rounds" and run.rounds is not None:
        visits = sum(len(r.order) for r in run.rounds.rounds)
        measured = f"{count(len(run.rounds.measured()), 'round')} ({count(visits, 'visit')}) of {count(done, 'variant')}"
        will = f"more rounds where the paired ranking is not decided, within {budget or 'the time budget'} (estimate below)"
        if more_time and ended is None:  # s22z, Z-14
            will = will.replace("not decided, ", "not decided (its time budget had ended them: this one gives more), ")
        elif ended is None and run.finished is not None:  # perf.sweep.final.ResumedRounds.finished_before
            ended = Ended(None, None, [])
        nothing = ended is not None and not (ended.final is not None and ended.final.variants)
        if ended is not None:
            will = ended.words(budget or "the time budget")
    else:
        levels = sum(1 for v in run.variants for lv in v.levels if lv.ok)
        measured = f"{count(levels, 'measured level')} of {count(done, 'variant')}"
        todo = {n: len(to_measure(p, run.variant(n) or VariantResult(n))) for n, p in plans.items()}
        left = sum(todo.values())
        nothing = not left
        will = (
            f"up to {count(left, 'level')} of {count(sum(1 for n in todo.values() if n), 'variant')}"
            if left
            else "no level (every planned level has numbers: a new --run-id measures again)"
        )
    if ended is not None and ended.baseline and opts.baseline:
        after = ended.baseline
    if nothing:  # nothing is sent: only a baseline the run still owes
        after = ("; then its missing in-process baseline" if baseline_missing(run, opts) else "") if opts.baseline else after
    return (
        f"resume {run.run_id} — kept: its settings ({settings_text(opts)}) and {measured}"
        + given_words(run, opts, given)
        + f"; will measure: {will}{after}"
    )


def given_words(run: RunResult, opts: SweepOptions, given: frozenset[str]) -> str:
    """The resume line's words for the :data:`perf.sweep.options.REPORT_SETTINGS` typed (``given``): ``given again``
    those the run had as typed, ``set now`` with the run's those that replace another value (break-it F15:
    ``--latency-budget-ms 5`` on a run swept without a budget was "given again"); ``""`` for none."""
    saved = dict(run.settings or {})
    same = [g for g in sorted(given) if g in saved and saved[g] == getattr(opts, g)]
    words = [f"; given again: {', '.join(flag_name(SweepOptions, g) for g in same)}"] if same else []
    new = [
        f"{flag_words(SweepOptions, g, getattr(opts, g))} "
        + ("(the run had none)" if saved.get(g) is None else f"(the run's: {flag_words(SweepOptions, g, saved[g])})")
        for g in sorted(given)
        if g not in same
    ]
    return "".join(words) + (f"; set now: {', '.join(new)}" if new else "")


def baseline_after(sweep: Any) -> str:
    """The resume line's words for an in-process baseline the final group of a resumed run (``sweep.final``) leaves
    too little of the time budget to start (:func:`perf.sweep.baseline_words.baseline_start_s` of its estimate), with
    the resume's budget that keeps it (:func:`perf.analysis.recommendation.cuts.advised`); ``""`` where it fits, or
    without a budget or a final group (trial 21, T21-1: "..., within a time budget of 240 s, then the in-process
    baseline" for a final group of about 226 s and a baseline of about 87 s; it was skipped at the end)."""
    o, late = sweep.opts, sweep.final
    if not o.baseline or o.time_budget_s is None or late is None or not late.variants or sweep._baseline_unusable():
        return ""
    need = sweep.baseline_estimate([*sweep.ranked_names(), *late.variants]).seconds
    left, start = o.time_budget_s - late.estimate_s, baseline_start_s(need)
    if left >= start:
        return ""
    minutes, _ = cuts.advised(late.estimate_s + need)
    return (
        f", then the in-process baseline only if the final group leaves it {start} s or more (it needs an "
        f"estimated {fmt(need, 0)} s; the final group's estimate leaves {fmt(max(left, 0.0), 0)} s): "
        f"`--resume {sweep.run_id} --time-budget {minutes}m` keeps it ({cuts.MARGIN_SAID})"
    )


def _ended(sweep: Any, why: str) -> Ended:
    """The :class:`Ended` of a resumed rounds run whose rounds had ended (``why``: ``sweep.rounds_ended``)."""
    late, group = sweep.final, sweep.final_group
    k, done = len(late.variants) if late is not None else 0, group.done if group is not None else ()
    counted = min(done[k - 1], MIN_ROUNDS) if 0 < k <= len(done) else 0  # a stopped final group's rounds
    more = getattr(sweep, "more_time_words", lambda: None)()  # a sweep of no rounds record has none
    return Ended(why, late, sweep.final_tie, baseline_after(sweep), frozenset(sweep.measured_further()), counted, more)


def opening_lines(sweep: Any, given: frozenset[str] | None = None) -> list[str]:
    """The lines a sweep's CLI prints before the first level: for a resumed run
    :func:`resume_line`, then :func:`input_lines`.

    Args:
        sweep: A :class:`perf.sweep.run.Sweep` (its ``opts`` after resume, ``plans``, ``run``
            and ``repository``).
        given: The flags given on the command line (:func:`core.options.given_fields`).
    """
    specs = {}
    for name, plan in sweep.plans.items():
        if plan.config is None:  # unreadable config.pbtxt: the variant fails when measured, said then
            continue
        try:
            specs[name] = sweep.repository.variant(name).served_spec
        except ToolkitError:  # no build record: the config's own dims (and --shape) size the inputs
            specs[name] = None
    lines = []
    if sweep.opts.resume:
        again = frozenset(given or ()) & frozenset(REPORT_SETTINGS)
        why = getattr(sweep, "rounds_ended", None)  # perf.sweep.final.ResumedRounds: its plan, said as it will run
        ended = None if why is None else _ended(sweep, why)
        more = getattr(sweep, "given_more_time", False)
        lines.append(resume_line(sweep.run, sweep.plans, sweep.opts, again, getattr(sweep, "budget_note", None), ended, more))
    if sweep.nothing_to_measure:  # nothing is sent: no inputs to describe
        return lines
    return lines + input_lines(sweep.plans, specs, sweep.opts)
