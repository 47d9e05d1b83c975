"""What the rounds scheduler (:class:`perf.search.rounds.Rounds`) works with: plans, ladder and rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from perf.records.rounds import RoundRules
from perf.records.search import SearchMode, SearchRules
from perf.search.plan import VariantPlan
from perf.search.policy import Budget


@dataclasses.dataclass(frozen=True)
class Setup:
    """What the scheduler works with.

    Attributes:
        plans: Variant -> its plan (batch sizes, shapes, request rates, config).
        ladder: The concurrency ladder (:func:`perf.search.policy.ladder`).
        adaptive: ``--concurrency auto`` (else an explicit list, measured whole every round).
        rules: The search's thresholds.
        rounds: The rounds' thresholds.
        mode: ``prune`` (drop variants by the paired rule) or ``brute``.
        budget: The latency budget, if any.
        cap: The highest concurrency the time budget's plan keeps (``None``: the ladder's).
    """

    plans: Mapping[str, VariantPlan]
    ladder: tuple[int, ...]
    adaptive: bool
    rules: SearchRules
    rounds: RoundRules
    mode: SearchMode = "prune"
    budget: Budget | None = None
    cap: int | None = None
