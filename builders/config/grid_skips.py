"""What a variant grid skipped, said once per kind and counted where a kind is per grid point.

A grid point of ``max_batch_size 0`` with dynamic batching on is no variant (Triton forms no batches for a model
that does not batch); the default grid pairs every ``--max-batch-sizes`` value with ``--dynamic-batching off`` and
on, so a grid with a 0 in it always has such points. They are said as what the grid did, counted, with the
variants of that ``max_batch_size`` it built, never as an error in a config the user wrote (trial 30, F18: "skipped
max_batch_size 0 with dynamic batching: dynamic_batching: is set but max_batch_size is 0: the model does not batch
(remove dynamic_batching, or set max_batch_size > 0 ...)" for the default grid, two points, no count).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from core.wording import count

#: ``Skipped.what`` of a grid point of ``max_batch_size 0`` with dynamic batching.
UNBATCHED = "max_batch_size 0 with dynamic batching"


class _Skip(Protocol):  # builders.config.variants.Skipped, which imports this module
    @property
    def what(self) -> str: ...

    @property
    def reason(self) -> str: ...


class _Variant(Protocol):  # builders.config.variants.Variant
    @property
    def max_batch_size(self) -> int: ...


def merged_skips(skipped: Sequence[_Skip], variants: Sequence[_Variant]) -> list[tuple[str, str]]:
    """``(what, reason)`` of each skip of ``skipped`` once, in order; the points of :data:`UNBATCHED` counted, with
    the ``max_batch_size 0`` variants the grid built (:func:`unbatched_words`)."""
    times = Counter((s.what, s.reason) for s in skipped)
    built = sum(1 for v in variants if v.max_batch_size == 0)
    return [(w, unbatched_words(n, r, built) if w == UNBATCHED else r) for (w, r), n in times.items()]


def unbatched_words(points: int, rule: str, built: int) -> str:
    """``"2 grid points not made: ... (dynamic_batching: ...); its 2 max_batch_size 0 variants without dynamic
    batching are built"``."""
    made = (
        f"the grid's {count(built, 'max_batch_size 0 variant')} without dynamic batching {'is' if built == 1 else 'are'} built"
        if built
        else "no max_batch_size 0 variant is built: add off to --dynamic-batching (e.g. --dynamic-batching off,100) to build them"
    )
    return (
        f"{count(points, 'grid point')} not made, as Triton forms no batches for a model that does not batch "
        f"(its rule: {rule}; the grid pairs each --max-batch-sizes value with each --dynamic-batching value); {made}"
    )
