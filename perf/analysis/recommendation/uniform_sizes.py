"""Whether a run measured dynamic batching only at uniform sizes of a dynamic axis (trial 12, F13).

Triton's dynamic batcher merges only requests whose inputs have the same shape (Triton docs,
"Ragged Batching": "By default, the requests can be dynamically batched only if each input has the
same shape across the requests"). A level whose every request has one size of a dynamic axis (the
build's ``opt`` size, or each ``--shapes`` size as a workload of its own) lets every request join a
batch; clients of an audio or sequence model send many sizes, and their requests may form no batch.
Such a run is said in one line, with the sizes it sent (a level of no swept size: the variant's own record of
them, :attr:`perf.records.results.VariantResult.dynamic_axes`, as report.md's opening says them; trial 13,
T13-4: a ``--shape image:3,64,64`` sweep was said measured at "H=128; W=128 (the build's opt size)") and the mixed workload to measure
(``--shapes AXIS=LOW..HIGH``, :mod:`perf.measure.mixed`), in report.md and on the terminal.

The converse (:func:`mixed_no_batch_note`, trial 19, T19-19): a mixed workload measured with dynamic batching on where
the batcher formed no batch at any level with several requests in flight. Main effects rightly call batching "no
evidence" there (it could not act), but for clients that send mixed sizes that is the finding itself: their requests
run one per execution and wait the queue delay for nothing.
"""

from __future__ import annotations

import dataclasses

from core.wording import some_of
from perf.analysis.measured import has_numbers
from perf.analysis.recommendation.cuts import budget_words, by_resume, failed_budget_s, need_s, unmeasured_text
from perf.analysis.stats.fair import BATCHED
from perf.analysis.stats.no_batch import batched_under_mix
from perf.analysis.stats.pairs import pairs
from perf.records.results import AXIS_SIZE, RunResult, VariantResult, mixed_axes, parse_shape_text
from perf.records.workloads import WORKLOAD, variant_name, workload


def uniform_sizes_note(run: RunResult) -> str | None:
    """The line saying that ``run``'s dynamic-batching variants were measured only at uniform sizes
    of a dynamic axis, naming the sizes sent and what to run; ``None`` when no variant with dynamic
    batching has numbers, none has a dynamic axis (:attr:`perf.records.results.VariantResult.axis_ranges`;
    runs saved before it was recorded), a mixed workload was measured, or the user's ``--input-data``
    said what was sent.

    Example:
        ``"dynamic batching (kws_onnx_cpu2_db500_mbs64) was measured with every request of a level at one
        size: time=1000 or 16000 (one workload each); Triton batches only requests of equal shapes ...
        -> measure a mix as clients send it: --shapes time=1000..16000"``
    """
    if run.settings.get("input_data") is not None:
        return None
    batching = [
        v
        for v in run.variants
        if (v.params or {}).get("dynamic_batching") and v.axis_ranges and any(lv.usable for lv in v.levels)
    ]
    if not batching or any(mixed_axes(lv.shape) for v in batching for lv in v.levels):
        return None
    sent: dict[str, set[int]] = {}
    ranges: dict[str, tuple[int, int]] = {}
    said: list[str] = []  # the variants' own records of what a level of no swept size sent
    for v in batching:
        recorded = {a: int(n) for a, n in AXIS_SIZE.findall(v.dynamic_axes or "")}
        for axis, (lo, opt, hi) in v.axis_ranges.items():
            ranges.setdefault(axis, (lo, hi))
            for lv in v.levels:
                if lv.usable:
                    at = recorded.get(axis, opt)  # a --shape's size where the record names it (trial 13, T13-4)
                    sent.setdefault(axis, set()).add(parse_shape_text(lv.shape or "").get(axis, at))
        if v.dynamic_axes and any(lv.usable and not lv.shape for lv in v.levels):
            said.append(v.dynamic_axes)
    swept = any(lv.shape for v in batching for lv in v.levels)
    sizes = "; ".join(f"{axis}={' or '.join(map(str, sorted(s)))}" for axis, s in sent.items())
    if said and not swept:  # the record's words, as report.md's opening says them: "image [3, 64, 64] (--shape)"
        return _note(batching, " or ".join(dict.fromkeys(said)), ranges)
    return _note(batching, sizes + (" (one workload each)" if swept else " (the build's opt size)"), ranges)


def _note(batching: list[VariantResult], sizes: str, ranges: dict[str, tuple[int, int]]) -> str:
    """:func:`uniform_sizes_note`'s line of the ``batching`` variants, measured at ``sizes`` (words)."""
    variants = list(dict.fromkeys(variant_name(v) for v in batching))  # a run split by workload: its variants once
    names = some_of(variants, 3)
    mix = " ".join(f"--shapes {axis}={lo}..{hi}" for axis, (lo, hi) in ranges.items())
    return (
        f"dynamic batching ({names}) was measured with every request of a level at one size: {sizes}"
        + "; Triton batches only requests of equal shapes (no ragged batching), so clients sending mixed sizes "
        f"may form no batch -> measure a mix as clients send it: {mix}"
    )


def mixed_no_batch_note(run: RunResult) -> str | None:
    """The line saying that ``run``'s dynamic-batching variants formed no batch under a mixed workload, with the
    requests per execution measured and what it means for clients that send mixed sizes; ``None`` when no level of a
    mixed workload (``--shapes AXIS=LOW..HIGH``) with dynamic batching on and more than one request in flight recorded
    its average server batch, or one of them formed batches (at least
    :data:`perf.analysis.stats.fair.BATCHED` requests per execution).

    Example:
        ``"dynamic batching (ranker_onnx_cpu2_db500_mbs64) formed no batch under the mixed sizes sent
        (num_items=1..200): executions held at most 1.00 requests on average at concurrency 2 to 8 (3 levels);
        Triton batches only requests of equal shapes (no ragged batching), so such clients' requests run one per
        execution after the queue delay -> ..."``
    """
    held: dict[str, float] = {}  # variant -> the most requests per execution at any such level
    mixes: dict[str, tuple[int, int]] = {}
    levels: set[int] = set()
    seen = busy = 0  # the measurements it rests on, and those taken while other processes used the host
    for v, lv, n in batched_under_mix(run.variants):
        held[variant_name(v)] = max(held.get(variant_name(v), 0.0), n)
        mixes.update(mixed_axes(lv.shape))
        levels.add(lv.concurrency)
        seen, busy = seen + 1, busy + bool(lv.host_busy)
    if not held or max(held.values()) >= BATCHED:
        return None
    sizes = ", ".join(f"{axis}={lo}..{hi}" for axis, (lo, hi) in mixes.items())
    at = (
        f"concurrency {min(levels)}" if len(levels) == 1 else f"concurrency {min(levels)} to {max(levels)} ({len(levels)} levels)"
    )
    return (
        f"dynamic batching ({some_of(list(held), 3)}) formed no batch under the mixed sizes sent ({sizes}): executions "
        f"held at most {max(held.values()):.2f} requests on average at {at}"
        + (f" ({busy} of its {seen} measurements host busy)" if busy else "")
        + "; Triton batches only requests of equal shapes "
        "(no ragged batching), so clients sending mixed sizes gain nothing from it and their requests wait its queue delay "
        "-> serve them with batching off, pad requests to a few fixed sizes, or set allow_ragged_batch on a model "
        'written for ragged inputs (Triton docs, "Ragged Batching")'
    )


def no_batch_words(held: float) -> str:
    """``"its dynamic batching formed no batch under the mixed sizes sent (executions held at most 1.00 requests on
    average): its requests only wait the queue delay"``: a variant of :func:`formed_no_batch` in every place that names
    it as a pick or bundles it."""
    return (
        f"its dynamic batching formed no batch under the mixed sizes sent (executions held at most {held:.2f} requests "
        "on average): its requests only wait the queue delay"
    )


def batching_off_instead(view: RunResult, series: str) -> str:
    """What to deploy instead of ``series`` (a variant at its client workload, of ``view``: the run as
    :func:`perf.records.workloads.split_by_workload` shows it), whose dynamic batching formed no batch: the same
    variant with batching off where the run measured it; where the run has that twin without numbers (trial 25,
    T25-22: built, swept and cut for time, and the bundle said "build and deploy the variant with dynamic batching
    off"), its name, why it has none and the command that measures it (:func:`~perf.analysis.recommendation.cuts.budget_words`,
    a ``--resume`` of the run where its cut priced a final group); else to build it. Said by a pick of ``series``
    (report.md, the console) and its bundle."""
    twins = [p.reference for p in pairs(view.variants) if p.kind == "batching" and p.changed.name == series]
    measured = [t for t in twins if has_numbers(view, t.name)]
    if measured:
        return (  # the command spelled out: said by the report and the console too, not only by export-deployment
            "deploy the same variant with batching off, which the run measured: `triton-perf export-deployment` with "
            f"--variant {variant_name(measured[0])}"
        )
    v = view.variant(series)
    name = variant_name(v) if v is not None else series
    plain = [u for u in view.variants if workload(u) is None and u.name != name and not has_numbers(view, u.name)]
    if v is not None and plain:  # the series as its variant (no workload) beside the variants without numbers
        bare = dataclasses.replace(v, name=name, params={k: x for k, x in (v.params or {}).items() if k != WORKLOAD})
        cut = [p.reference.name for p in pairs([bare, *plain]) if p.kind == "batching" and p.changed is bare]
        if cut:
            twin = cut[0]
            why = unmeasured_text(view, twin) or "not measured"
            resume = view.run_id if by_resume(view, [twin]) else None
            measure = budget_words(need_s(view, [twin]), "it", resume, failed_budget_s(view))
            return (
                f"its twin with batching off, `{twin}`, is in this run but {why}: {measure}, then "
                f"`triton-perf export-deployment` with --variant {twin} deploys it; or pad requests to a few fixed sizes"
            )
    return "build and deploy the variant with dynamic batching off, or pad requests to a few fixed sizes"
