"""Which dynamic-batching variants formed no batch under a mixed workload (``--shapes AXIS=LOW..HIGH``): Triton
batches only requests of equal shapes, so under mixed sizes a batcher may hold one request per execution. Below the
ranking (it names the same variant with batching off first of a tie set with such a variant) and the recommendation's
note (:func:`perf.analysis.recommendation.uniform_sizes.mixed_no_batch_note`), which both read it here: one source."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from perf.analysis.stats.fair import BATCHED, per_execution
from perf.records.levels import LevelResult
from perf.records.results import VariantResult, mixed_axes


def batched_under_mix(variants: Iterable[VariantResult]) -> Iterator[tuple[VariantResult, LevelResult, float]]:
    """Each level of a mixed workload (``--shapes AXIS=LOW..HIGH``) with dynamic batching on, more than one request in
    flight and its average server batch recorded, with its variant and the requests per execution it held: what
    :func:`perf.analysis.recommendation.uniform_sizes.mixed_no_batch_note` and :func:`formed_no_batch` rest on (one source)."""
    for v in variants:
        if not (v.params or {}).get("dynamic_batching"):
            continue
        for lv in v.levels:
            if mixed_axes(lv.shape) and lv.usable and lv.concurrency > 1 and lv.avg_server_batch_size is not None:
                yield v, lv, per_execution(lv.avg_server_batch_size, lv.batch_size) or 0.0


def formed_no_batch(variants: Iterable[VariantResult]) -> dict[str, float]:
    """The variants (series: :attr:`VariantResult.name`) of ``variants`` whose dynamic batching formed no batch under a
    mixed workload, each with the most requests per execution any such level held (below
    :data:`perf.analysis.stats.fair.BATCHED`): the finding of :func:`perf.analysis.recommendation.uniform_sizes.mixed_no_batch_note`, per variant. The ranking
    names the same variant with batching off first of a tie set with it
    (:func:`perf.analysis.ranking.rank.rank_variants`), a pick of it says so and a bundle of it too (trial 24, T24-8,
    T24-10: the run said "serve them with batching off", its pick and bundle named the batching variant)."""
    held: dict[str, float] = {}
    for v, _, n in batched_under_mix(variants):
        held[v.name] = max(held.get(v.name, 0.0), n)
    return {name: n for name, n in held.items() if n < BATCHED}
