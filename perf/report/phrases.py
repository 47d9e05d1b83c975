"""The explanatory phrases of the report's conclusions, each chosen by a condition on the numbers it explains.

A phrase says *why* a number is what it is ("the batcher's wait when load is light"); it
must never contradict the number (a p99 that fell is not explained by a wait). Each
:class:`Phrase` holds its words and the condition on :class:`Facts` that selects it, and
:func:`choose` returns the phrases of one family whose conditions hold. This table is the
one place a phrase is written; ``tests/perf/report/test_phrases.py`` checks every condition with
numbers that must produce the phrase and numbers that must not.

Signs follow the noise rule of :mod:`perf.analysis.stats.points`: a change "rose" or "fell" when its
sign says so and it is not known to be within the trial spread (``significant`` True, or
None when the spread is unknown); a change known to be within the spread explains nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from core.units import ALL_CORES
from perf.analysis.stats.fair import BATCHED
from perf.markdown import fmt
from perf.records.coldstart import STEADY_RATIO

#: Queue share of server time (%) at or above which requests mostly wait for an instance.
QUEUE_BOUND_PCT = 50.0
#: Host CPU utilisation (%) at or above which the cores count as saturated.
CPU_BUSY_PCT = 90.0
#: Host CPU utilisation (%) below which the cores had capacity left.
CPU_SPARE_PCT = 70.0


@dataclasses.dataclass(frozen=True)
class Facts:
    """The numbers a phrase may explain; ``None`` = not measured. ``a`` is the reference
    (baseline, or the variant compared against), ``b`` the variant being explained.

    Attributes:
        change_pct: Change of the explained metric from a to b (%).
        significant: Its significance (:attr:`perf.analysis.stats.points.Delta.significant`; None = spread unknown).
        queue_a_us, queue_b_us: Server queue time per request (µs).
        queue_share_pct: Queue share of server time (queue + compute) of b (%).
        batch_a, batch_b: Inferences per execution (avg server batch size).
        compute_per_inference_a_us, compute_per_inference_b_us: Compute infer time per
            execution divided by inferences per execution (µs).
        host_cpu_pct: Host CPU utilisation at b's level (%, every process on the host).
        others_cpu_pct: Other processes' CPU during b's level (% of one core: the sweep's
            host sampler, ``LevelResult.host_busy_pct``), when a level compared was flagged
            ``host busy``; ``None`` otherwise.
        last_gain_pct: Throughput gain of a curve's last step over the one before (%: the median of the
            paired gains in a rounds run, :mod:`perf.analysis.saturation.rises`).
        last_gain_basis: What ``last_gain_pct`` is of where it is not the medians shown, said after it
            (:meth:`perf.analysis.saturation.rises.Rising.basis`; ``""`` in a run of trials).
        last_gain: That step by the one rule of a rise (:mod:`perf.analysis.saturation.rises`): ``"rose"``
            (beyond the noise and the least gain a step must give), ``"untold"`` (a gain the noise does not
            tell), ``None`` (flat, or not judged).
        last_gain_evidence: What ``last_gain`` rests on: ``"c=4 ahead in 8 of 8 rounds; p = 0.0078, sign
            test"``; for ``"untold"``, ``"not distinguishable from noise (3 rounds; p = 0.25, sign test)"``.
        last_p99_change_pct: p99 change of a curve's last step (%, the medians').
        last_p99: That change by the p99 trend rule (:func:`perf.analysis.saturation.rises.p99_step`):
            ``"fell"`` beyond the noise, ``"untold"`` not told apart from it, ``None`` (rose, or not judged).
        last_p99_evidence: What ``last_p99`` rests on, as ``last_gain_evidence``.
        first_ratio: First request after load / steady-state median at batch 1 (cold start).
        new_size_ratio: First request at a batch size or shape not sent before / its
            steady-state median (the largest over the sizes after the first).
        warmup_load_added_s: Load time of a variant with warmup minus its twin without (s).
        warmup_first_saved_ms: First request of the twin without warmup minus the one with (ms).
        warmup_unfair: A warmup pair's first request was sent on a busy host: the two numbers above are not
            measured fairly, and no cause is told from them (trial 27, T27-18).
        together: What else differs between a and b besides dynamic batching, in words
            (``"instance count 1 vs 2"``), so that a contrast does not credit batching alone.
        setting: The batching setting credited when b formed batches and a did not: dynamic
            batching on vs off, or between two batching variants what differs
            (``"queue delay 500 vs 100 µs"``).
    """

    change_pct: float | None = None
    significant: bool | None = None
    queue_a_us: float | None = None
    queue_b_us: float | None = None
    queue_share_pct: float | None = None
    batch_a: float | None = None
    batch_b: float | None = None
    compute_per_inference_a_us: float | None = None
    compute_per_inference_b_us: float | None = None
    host_cpu_pct: float | None = None
    others_cpu_pct: float | None = None
    last_gain_pct: float | None = None
    last_gain: str | None = None
    last_gain_evidence: str = ""
    last_gain_basis: str = ""
    last_p99_change_pct: float | None = None
    last_p99: str | None = None
    last_p99_evidence: str = ""
    first_ratio: float | None = None
    new_size_ratio: float | None = None
    warmup_load_added_s: float | None = None
    warmup_first_saved_ms: float | None = None
    warmup_unfair: bool = False
    together: str | None = None
    setting: str = "dynamic batching"


def rose(f: Facts) -> bool:
    """The explained change is up and not known to be within the trial spread."""
    return f.change_pct is not None and f.change_pct > 0 and f.significant is not False


def fell(f: Facts) -> bool:
    """The explained change is down and not known to be within the trial spread."""
    return f.change_pct is not None and f.change_pct < 0 and f.significant is not False


def _queue_grew(f: Facts) -> bool:
    """Both queue times were measured and b's is the longer."""
    return f.queue_a_us is not None and f.queue_b_us is not None and f.queue_b_us > f.queue_a_us


#: What :attr:`Facts.compute_per_inference_b_us` is, said beside its number: Triton's compute infer time of one
#: execution over the inferences it held, not the input + infer + output the report calls "compute" (trial 16,
#: T16-2: "≈601 µs of compute per inference" was 1,872 µs infer / 3.11, beside "2,384 µs in compute").
PER_INFERENCE = "infer time per inference"


def _batched_compute(f: Facts) -> tuple[float, float] | None:
    """Compute per inference of a and b (µs) when b formed batches (:data:`BATCHED`) and a
    did not; None when not, or when any of the four numbers was not measured."""
    a, b = f.compute_per_inference_a_us, f.compute_per_inference_b_us
    if f.batch_a is None or f.batch_b is None or a is None or b is None:
        return None
    return (a, b) if f.batch_b >= BATCHED > f.batch_a else None


@dataclasses.dataclass(frozen=True)
class Phrase:
    """One explanatory phrase.

    Attributes:
        family: Where it is used (``light_load``, ``server_time``, ``contrast``, ``no_knee``).
        key: Its name (tests refer to it).
        when: The condition on the numbers that selects it.
        words: Its text, from the same numbers.
    """

    family: str
    key: str
    when: Callable[[Facts], bool]
    words: Callable[[Facts], str]


PHRASES: tuple[Phrase, ...] = (
    # p99 of batching on (b) vs off (a) at the lowest common concurrency
    Phrase(
        "light_load",
        "batcher_wait",
        lambda f: rose(f) and _queue_grew(f),
        lambda f: f"the batcher's wait when load is light: queue {fmt(f.queue_a_us, 0)} → {fmt(f.queue_b_us, 0)} µs",
    ),
    Phrase("light_load", "no_batcher_wait", fell, lambda f: "lower, so the batcher's wait added no latency at light load"),
    # one variant's server time
    Phrase(
        "server_time",
        "queue_bound",
        lambda f: f.queue_share_pct is not None and f.queue_share_pct >= QUEUE_BOUND_PCT,
        lambda f: "requests mostly waited for a busy instance",
    ),
    Phrase(
        "server_time",
        "compute_bound",
        lambda f: f.queue_share_pct is not None and f.queue_share_pct < QUEUE_BOUND_PCT,
        lambda f: "compute took most of the server time",
    ),
    # the explained variant (b) against another (a) at the same load
    Phrase(
        "contrast",
        "batching_paid",
        lambda f: (c := _batched_compute(f)) is not None and c[1] < c[0],
        lambda f: (
            f"{f.setting}{f' together with {f.together}' if f.together else ''} paid in compute at this load: executions of {f.batch_b:.2f} "
            "inferences cost ≈"
            f"{fmt(f.compute_per_inference_b_us, 0)} µs {PER_INFERENCE} against "
            f"{fmt(f.compute_per_inference_a_us, 0)} µs unbatched"
        ),
    ),
    Phrase(
        "contrast",
        "batching_no_saving",
        lambda f: (c := _batched_compute(f)) is not None and c[1] >= c[0],
        lambda f: (
            f"batches of {f.batch_b:.2f} inferences formed but cost no less {PER_INFERENCE} "
            f"(≈{fmt(f.compute_per_inference_b_us, 0)} vs {fmt(f.compute_per_inference_a_us, 0)} µs)"
        ),
    ),
    Phrase(
        "contrast",
        "cpu_taken_by_others",
        lambda f: f.others_cpu_pct is not None,
        lambda f: (
            f"other processes used {fmt(f.others_cpu_pct, 0)} % of one core during these levels (flagged host busy), "
            "so the difference may be the host's load, not the settings"
        ),
    ),
    Phrase(
        "contrast",
        "cpu_saturated",
        lambda f: f.others_cpu_pct is None and f.host_cpu_pct is not None and f.host_cpu_pct >= CPU_BUSY_PCT,
        lambda f: (
            f"the host CPU was saturated ({fmt(f.host_cpu_pct, 0)} {ALL_CORES}, perf_analyzer included), so settings "
            "that add parallel work have no idle cores to use"
        ),
    ),
    Phrase(
        "contrast",
        "cpu_spare",
        lambda f: f.host_cpu_pct is not None and f.host_cpu_pct < CPU_SPARE_PCT,
        lambda f: f"the host CPU had capacity left ({fmt(f.host_cpu_pct, 0)} {ALL_CORES}), so the cores were not the limit",
    ),
    # why a curve has no knee (perf.analysis.saturation.rises.knee): its last step still gains, or p99 does not
    # rise; a trend only by the rules of perf.analysis.saturation.rises, else "not distinguishable from noise"
    Phrase(
        "no_knee",
        "still_growing",
        lambda f: f.last_gain == "rose" and f.last_gain_pct is not None,
        lambda f: f"throughput still grew {f.last_gain_pct:+.1f} %{f.last_gain_basis} at the last step ({f.last_gain_evidence})",
    ),
    Phrase(
        "no_knee",
        "growth_not_told",
        lambda f: f.last_gain == "untold",
        lambda f: (
            f"throughput{_pct(f.last_gain_pct)}{f.last_gain_basis if f.last_gain_pct is not None else ''} at the last step, "
            f"{f.last_gain_evidence}"
        ),
    ),
    Phrase(
        "no_knee",
        "p99_fell",
        lambda f: f.last_p99 == "fell" and f.last_p99_change_pct is not None,
        lambda f: f"p99 fell at the last step: {f.last_p99_change_pct:+.1f} % ({f.last_p99_evidence})",
    ),
    Phrase(
        "no_knee",
        "p99_not_told",
        lambda f: f.last_p99 == "untold" and f.last_p99_change_pct is not None and f.last_p99_change_pct <= 0,
        lambda f: f"p99{_pct(f.last_p99_change_pct)} at the last step, {f.last_p99_evidence}",
    ),
)


def _pct(value: float | None) -> str:
    """``" +12.0 %"``, or ``""`` without a value."""
    return f" {value:+.1f} %" if value is not None else ""


# cold start (perf.report.sections.coldstart): the first requests after a load, warmup on vs off
PHRASES += (
    Phrase(
        "cold_start",
        "first_request_slow",
        lambda f: f.first_ratio is not None and f.first_ratio > STEADY_RATIO,
        lambda f: (
            "the serving process initialised lazily on the first request (allocations, thread pools, the runtime's "
            "first-run optimisation), work the load had not done"
        ),
    ),
    Phrase(
        "cold_start",
        "first_request_steady",
        lambda f: f.first_ratio is not None and f.first_ratio <= STEADY_RATIO,
        lambda f: f"the load left no work for the first request: it was within {STEADY_RATIO:g}× of steady state",
    ),
    Phrase(
        "cold_start",
        "new_size_cost",
        lambda f: f.new_size_ratio is not None and f.new_size_ratio > STEADY_RATIO,
        lambda f: "a batch size or shape not sent before paid again (buffers and kernels are prepared per shape)",
    ),
    Phrase(
        "cold_start",
        "warmup_moved",
        lambda f: not f.warmup_unfair and (f.warmup_load_added_s or 0) > 0 and (f.warmup_first_saved_ms or 0) > 0,
        lambda f: (
            f"warmup moved that work into the load: load {f.warmup_load_added_s:+.2f} s, "
            f"first request {0.0 - (f.warmup_first_saved_ms or 0):+.1f} ms"
        ),
    ),
    Phrase(
        "cold_start",
        "warmup_free",
        lambda f: (
            not f.warmup_unfair
            and f.warmup_load_added_s is not None
            and f.warmup_load_added_s <= 0
            and (f.warmup_first_saved_ms or 0) > 0
        ),
        lambda f: (
            f"warmup took that work off the first request ({0.0 - (f.warmup_first_saved_ms or 0):+.1f} ms) at no measurable "
            f"load cost ({f.warmup_load_added_s:+.2f} s): its runs are short next to the load's own variation"
        ),
    ),
    Phrase(
        "cold_start",
        "warmup_no_gain",
        lambda f: not f.warmup_unfair and f.warmup_first_saved_ms is not None and f.warmup_first_saved_ms <= 0,
        lambda f: f"warmup did not shorten the first request here ({0.0 - (f.warmup_first_saved_ms or 0):+.1f} ms)",
    ),
    Phrase(
        "cold_start",
        "warmup_unfair",
        lambda f: f.warmup_unfair and f.warmup_first_saved_ms is not None,
        lambda f: (
            "what warmup does to the load and the first request is not distinguishable here: its pairs were not measured "
            "fairly (a first request sent on a busy host), so their changes may be the host's"
        ),
    ),
)

FAMILIES = frozenset(p.family for p in PHRASES)


def choose(family: str, facts: Facts) -> list[Phrase]:
    """The phrases of ``family`` whose condition holds for ``facts``, in table order.

    Raises:
        KeyError: ``family`` is not one of :data:`FAMILIES`.
    """
    if family not in FAMILIES:
        raise KeyError(f"no phrase family {family!r}; known: {', '.join(sorted(FAMILIES))}")
    return [p for p in PHRASES if p.family == family and p.when(facts)]


def say(family: str, facts: Facts, sep: str = "; ") -> str:
    """The chosen phrases' words joined by ``sep`` (empty when none holds)."""
    return sep.join(p.words(facts) for p in choose(family, facts))
