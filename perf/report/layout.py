"""Where a report is written and how long it may be.

Two rules, used by :func:`perf.report.write.write_report` for every report:

- **What-if views** (:func:`what_if`, :func:`report_folder`): a report whose options differ from the
  run's own (another latency budget or percentile than ``results.json`` records, another ``--top``)
  is written into its own folder beside the run's ``report.md`` (``report-budget5ms/``, with its own
  appendix and plots), never over the run's report.
- **Length** (:func:`fit`): ``report.md`` stays within :data:`MAX_REPORT_LINES` at any grid and
  ladder size. Each section already shortens itself (top-N tables, capped lists, the levels that
  matter); when the whole is still longer, the longest sections that are detail (tables a reader
  looks up, not the findings) move to ``appendix.md`` whole, one line saying so in their place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from perf.analysis.ranking.budget_latency import DEFAULT_LATENCY_PERCENTILE
from perf.markdown import APPENDIX_FILE, TOP_N, fmt_given
from perf.records.results import RunResult

#: report.md's length at any grid and ladder size, in lines (issue 18: "about 250 lines at 200
#: variants"; issue 26: also with a dozen ladder levels, traces and the serving efficiency).
MAX_REPORT_LINES = 250
#: Folder name prefix of a what-if view (:func:`report_folder`).
WHAT_IF_PREFIX = "report-"


def what_if(
    run: RunResult, latency_budget_ms: float | None, latency_percentile: int | None, top_n: int = TOP_N
) -> list[tuple[str, str]]:
    """How these report options differ from the run's own report (the options the sweep recorded
    in ``results.json``, and the default ``--top``): one ``(tag, words)`` per difference, e.g.
    ``("budget5ms", "p99 budget 5 ms instead of the run's 100 ms")``; empty for the run's own report.

    Args:
        run: The loaded run.
        latency_budget_ms: The budget asked for (ms); ``None``: the run's.
        latency_percentile: The percentile asked for; ``None``: the run's.
        top_n: Variants per level table asked for.
    """
    own_budget = run.settings.get("latency_budget_ms")
    own_pct = int(run.settings.get("latency_percentile") or DEFAULT_LATENCY_PERCENTILE)
    pct = int(latency_percentile or own_pct)
    out = []
    if latency_budget_ms is not None and latency_budget_ms != own_budget:
        own = f"the run's {fmt_given(own_budget, 0)} ms" if own_budget is not None else "none in the run"
        out.append((f"budget{latency_budget_ms:g}ms", f"p{pct} budget {fmt_given(latency_budget_ms, 0)} ms instead of {own}"))
    if pct != own_pct:
        out.append((f"p{pct}", f"the budget on p{pct} instead of the run's p{own_pct}"))
    if top_n != TOP_N:
        out.append((f"top{top_n}", f"top {top_n} variants per table instead of {TOP_N}"))
    return out


def report_folder(run_dir: Path, differences: Sequence[tuple[str, str]]) -> Path:
    """Where a report goes: ``run_dir`` for the run's own, ``run_dir/report-<tags>/`` for a what-if
    view (:func:`what_if`)."""
    if not differences:
        return Path(run_dir)
    return Path(run_dir) / (WHAT_IF_PREFIX + "-".join(tag for tag, _ in differences))


@dataclasses.dataclass
class Part:
    """A run of report.md's lines.

    Attributes:
        lines: Its markdown lines.
        detail: It may move to the appendix whole when the report is too long (a table a reader
            looks up; the findings never move).
        kept: Lines of it that stay in report.md, under its heading, when it moves (a finding the
            section holds: trial 21, T21-3's unusable baseline).
    """

    lines: list[str]
    detail: bool = False
    kept: list[str] = dataclasses.field(default_factory=list)

    @property
    def title(self) -> str:
        """Its first ``## `` heading, without the hashes (``""`` when it has none)."""
        return next((ln[3:] for ln in self.lines if ln.startswith("## ")), "")


def fit(parts: Sequence[Part], limit: int = MAX_REPORT_LINES) -> tuple[list[str], list[str]]:
    """report.md's lines within ``limit``: while the whole is longer, the longest :attr:`Part.detail`
    part is replaced by its heading and one line pointing to the appendix.

    Args:
        parts: The report in order.
        limit: Lines report.md may have (default :data:`MAX_REPORT_LINES`).

    Returns:
        ``(report lines, moved lines)``: the moved parts' lines go to the end of ``appendix.md``.
    """
    kept = list(parts)
    moved: list[Part] = []

    def total() -> int:
        return sum(len(p.lines) for p in kept)

    while total() > limit:
        movable = [p for p in kept if p.detail and p.title and len(p.lines) > 4]
        if not movable:
            break
        longest = max(movable, key=lambda p: len(p.lines))
        note = f"In [{APPENDIX_FILE}]({APPENDIX_FILE}) (moved there to keep this report within {limit} lines)."
        kept[kept.index(longest)] = Part([f"## {longest.title}", "", *longest.kept, note, ""])
        moved.append(longest)
    report = [ln for p in kept for ln in p.lines]
    return report, [ln for p in parts if any(p is m for m in moved) for ln in p.lines]
