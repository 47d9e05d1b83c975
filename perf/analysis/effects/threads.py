"""Threads per instance beside the instance count: what an instance-count comparison also changes.

A CPU variant's instances share the host's cores: the toolkit's model.py (and the native
backends' config the builders write) gives each instance ``cores / instances`` intra-op threads
(:attr:`perf.records.results.VariantResult.threads_per_instance`, recorded from the served
config). A pair that differs "only" in instance count then also differs in threads per instance
(1 instance x 2 threads vs 2 instances x 1 thread on 2 cores), and on a busy host the thread
count alone can change throughput many times over. Every comparison of the instance count names
the threads beside it (:func:`threads_words`), and a difference already present at concurrency 1,
where one request is in flight and a second instance cannot act, is said not to be the instance
count's (:func:`not_the_count`; trial 7: "instance count: 2 instances vs 1 instance +1645 %", the
1-instance TorchScript variant 11x slower at concurrency 1 with 2 threads vs 1).
"""

from __future__ import annotations

from perf.analysis.effects.rounds import paired_change
from perf.analysis.stats.curves import APART_PCT
from perf.analysis.stats.points import THROUGHPUT, Point, delta
from perf.records.results import VariantResult

#: The instance-count factor's key (:data:`perf.analysis.stats.pairs.FACTORS`).
COUNT = "count"


def _threads(n: int) -> str:
    return f"{n} thread{'s' if n != 1 else ''}"


def threads_words(changed: VariantResult | None, reference: VariantResult | None) -> str | None:
    """``"1 vs 2 intra-op threads per instance"`` when both ran with a known and different number of
    threads per instance (``changed`` first, as the comparison names it), else ``None``."""
    a = changed.threads_per_instance if changed is not None else None
    b = reference.threads_per_instance if reference is not None else None
    if a is None or b is None or a == b:
        return None
    return f"{a} vs {b} intra-op thread{'s' if b != 1 else ''} per instance"


def count_label(show_changed: str, show_reference: str, threads: set[tuple[int | None, int | None]]) -> str:
    """An instance-count change with its threads: ``"2 instances (1 thread each) vs 1 instance (2
    threads)"`` when every pair ran the same known threads on each side and they differ; the
    plain ``"2 instances vs 1 instance"`` otherwise (``threads``: each pair's ``(changed,
    reference)`` threads per instance)."""
    plain = f"{show_changed} vs {show_reference}"
    differ = {(a, b) for a, b in threads if a is not None and b is not None and a != b}
    if not differ:
        return plain
    if len(threads) > 1:
        return f"{plain} (threads per instance differ in {len(differ)} of {len(threads)} kinds of pair: see appendix.md)"
    ((a, b),) = differ
    return f"{show_changed} ({_threads(a)} each) vs {show_reference} ({_threads(b)} each)"


def not_the_count(
    reference: VariantResult, changed: VariantResult, ref_curve: list[Point], changed_curve: list[Point], rounds: bool
) -> str | None:
    """Why an instance-count pair's difference is not the instance count's: at concurrency 1 (one
    request in flight: a second instance has nothing to do) its throughput already differs by more
    than :data:`~perf.analysis.stats.curves.APART_PCT`, and either the threads per instance differ (the
    cause named) or the difference is significant (something else differs). ``None`` otherwise.

    Args:
        reference: The pair's variant with fewer instances.
        changed: The one with more.
        ref_curve: ``reference``'s levels at one batch size (:func:`perf.analysis.stats.curves.curve`).
        changed_curve: ``changed``'s, at the same batch size.
        rounds: A rounds sweep: the change is paired over their common rounds
            (:func:`perf.analysis.effects.rounds.paired_change`), else from the two levels.
    """
    a = next((p for p in ref_curve if p.concurrency == 1), None)
    b = next((p for p in changed_curve if p.concurrency == 1), None)
    if a is None or b is None:
        return None
    if rounds:
        pct, sig, _ = paired_change(reference, a, changed, b)
    else:
        d = delta(a, b, THROUGHPUT)
        pct, sig = (d.change_pct, d.significant) if d is not None else (None, None)
    if pct is None or abs(pct) <= APART_PCT:
        return None
    threads = threads_words(changed, reference)
    if threads is None and sig is not True:
        return None
    why = (
        f"the variants also run {threads}"
        if threads
        else "something else differs (the host's load, or a setting not in the grid)"
    )
    return (  # one wording for every pair (the effect says it once); each pair's numbers are in the appendix
        f"cannot be the instance count: at concurrency 1, where a second instance cannot act, throughput "
        f"already differs by more than {APART_PCT:g} %; {why}"
    )
