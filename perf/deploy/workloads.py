"""Which client workload a deployment bundle is for (trial 12, F8): a run of several (``--shapes``
sizes, several ``--batch-sizes``) has a pick per workload, and the report's first pick is, of every
workload's pick, the one with the most infer/s (:mod:`perf.analysis.recommendation.recommend`), which for an
input-size axis is usually the smallest input's. ``export-deployment --workload time=16000,b=4`` takes one
workload by the label the report's tables give it (:func:`perf.records.workloads.workload_text`);
the output says which workload the bundle is for and which variants the others pick. A bundle of a variant whose
dynamic batching formed no batch under its (mixed) workload says so, with the variant to deploy instead
(:func:`batching_caveat`; trial 24, T24-10)."""

from __future__ import annotations

from core.errors import FlagError
from core.names import unknown_names_error
from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.recommendation.uniform_sizes import batching_off_instead, no_batch_words
from perf.analysis.stats.no_batch import formed_no_batch
from perf.records.results import AXIS_SIZE, RunResult
from perf.records.workloads import MIXED_WORD, batch_sizes_swept, split_by_workload, workload


def run_workloads(view: RunResult) -> list[str]:
    """The client workloads of a run split by workload (:func:`perf.records.workloads.split_by_workload`),
    in the run's order; ``[]`` for a run of one, labelled or not (trial 17, T17-6: a one-workload mixed-size
    run's series carry its label, while :func:`~perf.analysis.recommendation.frontier.workload_recommendations`
    keys a run of one by ``""``: the label passed the check, the lookup raised KeyError)."""
    labels = _labels(view)
    return labels if len(labels) > 1 else []


def _labels(view: RunResult) -> list[str]:
    """Every workload label the run's series carry, in the run's order (one for a run of one mixed size)."""
    return [w for w in dict.fromkeys(workload(v) for v in view.variants) if w]


def _parts(label: str) -> frozenset[str]:
    """A workload label's parts, as the user may type them: ``"time=16000, b=4"`` and
    ``"b=4,time=16000"`` alike; a mix with or without its ``(mixed)`` word."""
    parts = (p.replace(MIXED_WORD, "").strip(" []") for p in label.split(","))  # "[...]": a series name's tail pasted
    return frozenset(p for p in parts if p)


def only_workload(view: RunResult) -> str:
    """The label of a run of one client workload, as a user may name it (:func:`workload_text`'s form):
    the sizes it sent to its inputs' dynamic axes, where every variant's record says one
    (``VariantResult.dynamic_axes``: ``"time=400 (the build's opt size of axis time)"``), and its one
    batch size: ``"time=400, b=1"``."""
    said = [set(AXIS_SIZE.findall(v.dynamic_axes or "")) for v in view.variants if v.levels]
    sizes = sorted(set.intersection(*said)) if said else []
    batches = batch_sizes_swept(view)
    return ", ".join([*(f"{a}={n}" for a, n in sizes), *(f"b={b}" for b in batches[:1] if len(batches) == 1)])


def match_workload(view: RunResult, text: str) -> str | None:
    """The run's workload label that ``text`` names (``--workload``; parts in any order, spaces free;
    ``b=N`` of a run measured at the one batch size N may be written, as the README's examples do,
    although the tables leave it out); ``None`` for a run of one workload that ``text`` names
    (:func:`only_workload`, some or all of its parts: break test B7, ``--workload time=400`` of a run
    without ``--shapes`` was refused as "one workload only").

    Raises:
        FlagError: ``text`` names none of the run's workloads (the message lists them, and the closest
            axis to one it does not have: did you mean).
    """
    labels = run_workloads(view)
    batches = batch_sizes_swept(view)  # one batch size: the labels leave it out, a user may still write it
    implied = frozenset({f"b={batches[0]}"} if len(batches) == 1 else ())
    given = _parts(text)
    _one_at_a_time(text)
    measured = labels or _labels(view) or [only_workload(view)]
    fixed = {a: n for a, n in _fixed_sizes(view).items() if not any(p.startswith(f"{a}=") for w in labels for p in _parts(w))}
    # a size every level was measured at may be written (s22z, Z-18: 'H=32,b=1' of a run at H=32 was refused)
    given = frozenset(p for p in given if p.partition("=")[::2] not in fixed.items()) if labels else given
    other = {a: s for a, _, s in (p.partition("=") for p in given) if a in fixed and s != fixed[a]}
    if given and labels:
        found = next((w for w in labels if _parts(w) - implied == given - implied), None)
        if found is not None:
            return found
    elif given and given - implied <= _parts(measured[0]):  # the run's one workload, named by some or all of its parts
        return None
    why_one = f"{measured[0]}" if _labels(view) else f"{measured[0]} (no --shapes sizes, one --batch-sizes)"
    have = "; ".join(labels) if labels else f"one workload only, {why_one}"
    axes = [p.split("=")[0].strip() for p in given if "=" in p]
    valid = dict.fromkeys([*(p.split("=")[0] for w in measured for p in _parts(w) if "=" in p), *fixed, "b"])
    typo = unknown_names_error("--workload", axes, valid, kind="axis", owner="its workloads")
    why = f": {typo.message.split(';')[0]}" if typo is not None else ""  # "'tme' (did you mean 'time'?) names no axis of ..."
    if other and labels:  # an axis the run did not sweep, at another size than its levels were measured at
        why += ": " + ", ".join(f"{a} was {fixed[a]} at every level, not {s}" for a, s in other.items())
    hint = f"give one of them as the tables write it, e.g. --workload '{measured[-1]}'"
    if not labels:
        hint = f"leave --workload out (the bundle is for the run's one workload), or give it as --workload '{measured[0]}'"
    named = f"{text!r} is not a client workload of run {view.run_id}" if given else f"{text!r} names no client workload"
    raise FlagError(f"{named}{why}{'; ' if why else ': '}it measured {have}", flag="--workload", hint=hint)


def _fixed_sizes(view: RunResult) -> dict[str, str]:
    """The size of each dynamic axis every measured series of ``view`` sent the same (``{"H": "32"}``: an axis the run
    did not sweep, at its build's opt size or the --shape given), from their records (``VariantResult.dynamic_axes``)."""
    said = [dict(AXIS_SIZE.findall(v.dynamic_axes or "")) for v in view.variants if v.levels]
    return {a: n for a, n in said[0].items() if all(d.get(a) == n for d in said)} if said else {}


def _one_at_a_time(text: str) -> None:
    """Refuse a ``--workload`` that names one axis twice (``b=4,b=1``: s22z, Z-18, "not a client workload" said
    nothing of why): a bundle is for one workload.

    Raises:
        FlagError: naming the axis and its sizes, and one workload to give.
    """
    sizes: dict[str, list[str]] = {}
    for part in text.split(","):
        axis, _, size = part.replace(MIXED_WORD, "").strip(" []").partition("=")
        sizes.setdefault(axis.strip(), []).append(size.strip())
    twice = {a: s for a, s in sizes.items() if len(s) > 1}
    if twice:
        axis, values = next(iter(twice.items()))
        raise FlagError(
            f"--workload {text!r} names {axis} {len(values)} times ({', '.join(f'{axis}={v}' for v in values)}): "
            "a deployment bundle is for one client workload",
            hint=f"give one workload at a time, e.g. --workload '{axis}={values[0]}', and export another bundle for each "
            "other workload (--out another folder)",
            flag="--workload",
        )


def other_picks(view: RunResult, rec: Recommendation, chosen: str, label: str, of_series: dict[str, str]) -> str | None:
    """The line saying which workload a bundle of a run of several is for and what the others pick:
    ``"workload: time=1000, b=4; other workloads pick other variants: time=16000, b=4: kws_..._db500
    -> deploy another with --workload"``; ``None`` for a run of one workload.

    Args:
        view: The run split by workload.
        rec: The recommendation over every series (the report's first picks).
        chosen: The variant deployed.
        label: The workload it is deployed for.
        of_series: Series name -> its variant.
    """
    if len(run_workloads(view)) < 2:
        return None
    others = []
    for size, sub in workload_recommendations(view, rec).items():
        pick = sub.best_under_budget if rec.latency_budget_ms is not None else sub.best_peak
        if size != label and pick is not None and of_series.get(pick.variant, pick.variant) != chosen:
            others.append(f"{size}: {of_series.get(pick.variant, pick.variant)}")
    said = f"workload: {label}"
    if not others:
        return said + "; every other workload picks the same variant"
    return said + f"; other workloads pick other variants: {'; '.join(others)} -> deploy for one with --workload '<workload>'"


def batching_caveat(run: RunResult, series: str) -> str | None:
    """What a bundle of ``series`` (a variant at its client workload: :func:`perf.records.workloads.split_by_workload`)
    says first when its dynamic batching formed no batch in ``run`` (:func:`perf.analysis.stats.no_batch.formed_no_batch`; trial 24, T24-10: a
    bundle of the batching variant said "dynamic batching max_queue_delay 500 µs" and nothing of the run's finding),
    with what to deploy instead (:func:`perf.analysis.recommendation.uniform_sizes.batching_off_instead`); ``None`` otherwise."""
    view = split_by_workload(run)
    held = formed_no_batch(view.variants).get(series)
    v = view.variant(series)
    if held is None or v is None:
        return None
    delay = (v.params or {}).get("max_queue_delay_us")
    instead = batching_off_instead(view, series)
    return (
        f"this variant's {no_batch_words(held).removeprefix('its ')}"
        + (f" (up to {delay} µs)" if delay is not None else "")
        + f" -> {instead}"
    )
