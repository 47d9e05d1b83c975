"""What the report says of each variant's saturation: its knee, interference (throughput that
fell as load rose, :func:`perf.analysis.stats.interference`), or why it has neither. One text
for the recommendation section, the appendix and the terminal."""

from __future__ import annotations

from core.wording import count
from perf.analysis.recommendation import Recommendation
from perf.analysis.stats import Point, curve, interference
from perf.markdown import APPENDIX_FILE, TOP_N

#: The short form of an interference, for counts over many variants.
INTERFERENCE = "interference: throughput fell as load rose (not a knee)"


def knee_text(points: list[Point], k: int | None, short: bool = False) -> str:
    """``"concurrency 4"``, the interference (``short``: :data:`INTERFERENCE`), ``"no knee
    within the swept range"`` or ``"fewer than 2 levels measured"``."""
    if k is not None:
        return f"concurrency {k}"
    fall = interference(points)
    if fall is not None:
        return INTERFERENCE if short else fall.describe()
    return "no knee within the swept range" if len(curve(points)) > 1 else "fewer than 2 levels measured"


def knee_lines(rec: Recommendation, points: dict[str, list[Point]]) -> list[str]:
    """One bullet per variant, or for more than :data:`perf.markdown.TOP_N` variants one bullet
    counting the variants per knee (each variant's in the appendix)."""
    if len(rec.knees) <= TOP_N:
        return [f"  - `{n}`: {knee_text(points[n], k)}" for n, k in rec.knees.items()]
    groups: dict[str, list[str]] = {}
    for n, k in rec.knees.items():
        groups.setdefault(knee_text(points[n], k, short=True), []).append(n)
    ranked = sorted(groups.items(), key=lambda g: -len(g[1]))
    return [
        "  - "
        + "; ".join(f"{what}: {count(len(names), 'variant')}" for what, names in ranked)
        + f" (per variant: [{APPENDIX_FILE}]({APPENDIX_FILE}))."
    ]
