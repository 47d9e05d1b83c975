"""The console summary table's legend (:func:`summary_legend`, :mod:`perf.cli.summary`'s caption): only what its cells
show (trial 9, F3), and what the table leaves out, by kind (:func:`left_out`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.units import infer_per_s_legend
from core.wording import count
from perf.analysis.measured import cut_variants
from perf.analysis.recommendation.frontier import series_sizes
from perf.analysis.stats.points import Point
from perf.markdown import UNSTABLE_MARK
from perf.records.levels import FLAG_MEANINGS
from perf.records.results import RunResult, VariantResult

#: What the budget pick's note calls its variant's best level, where its row shows the pick's own
#: (:func:`perf.cli.summary.pick_row_point`).
BEST_LEVEL_WORDS = "its best level whatever the budget"


def left_out(run: RunResult, shown: Sequence[VariantResult], best: dict[str, Point]) -> tuple[int, int, int]:
    """What the table leaves out, by kind (trial 10, F11: "5 more in report.md" counted 5 variants cut
    for time as rows): series with numbers, variants cut for time never measured, others without numbers."""
    left = [v.name for v in run.variants if v not in shown]
    never = set(cut_variants(run)[0])
    measured = sum(1 for n in left if n in best)
    cut = sum(1 for n in left if n not in best and n in never)
    return measured, cut, len(left) - measured - cut


def summary_legend(
    text: str, pct: int, other: bool, run: RunResult, left: tuple[int, int, int], top_n: int, batches: Sequence[int] = ()
) -> str:
    """The console table's legend: only what its cells (``text``) show (trial 9, F3: "b: client
    batch size" under a table with no b); ``left``: what it leaves out (:func:`left_out`); ``batches``: the client
    batch sizes of its levels, what infer/s counts said where one is above 1 (:func:`core.units.infer_per_s_legend`)."""
    # a flag said alone ("† unstable") or after another ("† host busy; unstable": Point.flags, trial 26, T26-11)
    flags = [f"{kind}: {w}" for kind, w in FLAG_MEANINGS.items() if re.search(rf"{UNSTABLE_MARK} (?:[a-z ]+; )*{kind}\b", text)]
    parts = [
        *(
            [
                "best: each variant's best level"
                + (" whatever the budget" if "best under budget (c=" in text else "")  # the pick's own level: the note's (T22)
                + (
                    f", the best under budget's row its pick's level ({BEST_LEVEL_WORDS}: its note)"
                    if BEST_LEVEL_WORDS in text
                    else ""
                )
                + ", named by the paired ranking (round-adjusted throughput, report.md); "
                "infer/s and p99: medians over that level's rounds"
                + (
                    "; 'best under budget (c=N ...)': the pick's own level, within the budget"
                    if "best under budget (c=" in text
                    else ""
                )
            ]
            if run.rounds is not None
            else []
        ),
        "c: concurrency" + (", b: client batch size" if "b=" in text else ""),
        *[w for w in [infer_per_s_legend(batches)] if w],  # rows, not requests (trial 23, T23-15)
        f"{f'p{pct} (the budget is on it) and ' if other else ''}p99 at that level",
        *(
            [
                "a peak only where the note does not say 'peak not reached' (no higher level measured, throughput still rising) or 'not told'"
            ]
            if "peak not reached" in text or "peak not told" in text
            else []
        ),
        "knee: saturation concurrency (report.md)",
        *([f"{UNSTABLE_MARK}: that level is flagged ({'; '.join(flags)})"] if flags else []),
        *(
            ["a client workload [..] (size, b=batch size) is the client's, not a setting to pick: each has its own picks"]
            if series_sizes(run)
            else []
        ),
        *([f"the top {top_n} by highest throughput and the picks shown, {left[0]} more in report.md"] if left[0] else []),
        *(
            [f"not shown: {count(left[1], 'variant')} cut for time before any measurement (report.md names them)"]
            if left[1]
            else []
        ),
        *([f"not shown: {count(left[2], 'variant')} without numbers (report.md says why)"] if left[2] else []),
    ]
    return "; ".join(parts)
