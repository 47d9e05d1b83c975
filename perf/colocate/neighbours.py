"""What its neighbours cost each model of a co-location run's pick (:func:`neighbour_cost`): the pick and each of
its variants alone, measured in the same rounds of the run's final step, their throughput set side by side with
the project's paired rule; the console's and report.md's "alone vs co-located" table (:data:`NEIGHBOUR_COLUMNS`).
Split from :mod:`perf.colocate.judge` (which it reads its numbers from) as that module reached 400 lines."""

from __future__ import annotations

import dataclasses

from perf.analysis.stats.paired import Paired, paired
from perf.colocate.judge import budget_p99, median, model_series, unpaired
from perf.markdown import ratio_of
from perf.records.colocation import ColocationRecord


@dataclasses.dataclass(frozen=True)
class Neighbours:
    """What its neighbours cost one model of the pick: medians over the final step's rounds, the
    pick and the variant alone measured in the same rounds.

    Attributes:
        model, variant: The model and its variant in the pick.
        alone, together: Median throughput alone and co-located (infer/s).
        paired: Co-located against alone, round by round (``None``: no round with numbers of both).
        p99_ms, queue_us, compute_us: Co-located: p99 as the budget judges it (ms, :func:`budget_p99`),
            median queue and compute time per request (µs).
        unpaired: Without ``paired``, why (:func:`unpaired`).
    """

    model: str
    variant: str
    alone: float | None
    together: float | None
    paired: Paired | None
    p99_ms: float | None
    queue_us: float | None
    compute_us: float | None
    unpaired: str = ""

    def ratio_words(self, short: bool = False) -> str:
        """The "co-located / alone, per round" cell: :attr:`paired` (``short``: :meth:`Paired.cell`, else its verdict
        in words), or :attr:`unpaired`; where the ratio of the two medians beside it points the other way (the rounds
        disagree), that ratio too (trial 18, T18-8: "1.15× not told apart" beside alone 48, co-located 44)."""
        if self.paired is None:
            return self.unpaired
        return (self.paired.cell() if short else self.paired.describe("higher", "lower")) + self.medians_note()

    def medians_note(self) -> str:
        """``"; the medians' ratio 43.7 / 48.0 = 0.910×"`` (:func:`~perf.markdown.ratio_of`) where it and :attr:`paired`'s median of the per-round ratios
        fall on either side of 1 (the rounds disagree), else ``""``."""
        if self.paired is None or not self.alone or self.together is None:
            return ""
        ratio = self.together / self.alone
        if (ratio - 1) * (self.paired.median - 1) >= 0:
            return ""
        return f"; the medians' ratio {ratio_of(self.together, self.alone)}"


#: The columns of the "alone vs co-located" table, in the console and in the report: the ratio column the median of
#: the per-round ratios, as its label says (trial 18, T18-8; :meth:`Neighbours.ratio_words`).
NEIGHBOUR_COLUMNS = (
    "model",
    "variant",
    "alone infer/s",
    "co-located infer/s",
    "co-located / alone, per round",
    "p99 ms",
    "queue µs",
    "compute µs",
)


def neighbour_cost(record: ColocationRecord) -> list[Neighbours]:
    """One row per model of the pick, from the run's ``final`` step; empty without a pick or that step."""
    final = next((s for s in reversed(record.steps) if s.kind == "final"), None)
    if record.pick is None or final is None or final.rounds == 0:
        return []
    rows = []
    for m, v in record.pick.items():

        def together(field: str, m: str = m) -> list[float | None]:
            assert record.pick is not None
            return model_series(record.visits, final.index, record.pick, final.rounds, m, field)

        alone = model_series(record.visits, final.index, {m: v}, final.rounds, m, "throughput_infer_per_s")
        thr = together("throughput_infer_per_s")
        rows.append(
            Neighbours(
                m,
                v,
                median(alone),
                median(thr),
                paired(thr, alone),
                budget_p99(record.visits, final.index, record.pick, final.rounds, m),
                median(together("server_queue_us")),
                median(together("server_compute_us")),
                unpaired(record.visits, final.index, record.pick, {m: v}, final.rounds, f"{v} alone"),
            )
        )
    return rows
