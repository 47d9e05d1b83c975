"""The one line a report gives a run whose in-process baseline is no evidence at any level (trial 21,
T21-3): every level with an in-process point was served faster than the same call in-process, so the
Serving efficiency section has no ratio to show and its plot no level. The line stays in report.md when
the section moves to the appendix (:attr:`perf.report.layout.Part.kept`), and names the command that
measures the baseline again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.wording import agree, sentence
from perf.analysis.efficiency import UNUSABLE, EfficiencyRow, baseline_unusable, efficiency_rows, faster_words
from perf.markdown import fmt
from perf.records.results import RunResult

#: How the line begins.
HEAD = f"**{sentence(UNUSABLE, capital=True)}**"


def unusable_lines(run: RunResult, run_dir: Path, rows: Sequence[EfficiencyRow] | None = None) -> list[str]:
    """``["**The in-process baseline is unusable here.** ...", ""]`` when every row with a ratio was served
    faster than in-process (none of them evidence), else ``[]``.

    Args:
        run: The run (no baseline: ``[]``).
        run_dir: The run folder the named commands act on.
        rows: Its efficiency rows (:func:`perf.analysis.efficiency.efficiency_rows`; computed when ``None``).
    """
    if run.baseline is None:
        return []
    rows = efficiency_rows(run) if rows is None else rows
    n = baseline_unusable(rows)
    if not n:
        return []
    rated = [r for r in rows if r.ratio is not None]
    busy = max((r.in_process.host_busy_pct or 0.0 for r in rated if r.in_process is not None), default=None)
    load = f" (other processes used up to {fmt(busy, 0)} % of one core during its points)" if busy else ""
    return [
        f"{HEAD} {'The one level' if n == 1 else f'All {n} levels'} with an "
        f"in-process point {agree(n, 'was', 'were')} served faster than the same call in-process ({faster_words(rated)}), "
        "which a serving path cannot do by itself: the baseline was "
        f"measured under other load than the sweep{load}, so no served ÷ in-process ratio is evidence. "
        f"`triton-perf baseline {run_dir} --replace` on a quiet host measures it again (the earlier one is kept in "
        f"results.json); `triton-perf report {run_dir}` then shows the ratios.",
        "",
    ]
