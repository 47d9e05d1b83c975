"""What the report says of each variant's saturation: its knee, a fall of its throughput as load rose
as the noise judges it (:func:`perf.analysis.saturation.falls.fall`: interference only beyond the noise), or why
it has neither. One text for the recommendation section, the appendix and the terminal."""

from __future__ import annotations

from collections.abc import Mapping

from core.wording import count
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.falls import Fall
from perf.analysis.stats.curves import curve
from perf.analysis.stats.points import Point
from perf.markdown import APPENDIX_FILE, TOP_N


def knee_text(
    points: list[Point], k: int | None, short: bool = False, unmeasured: str | None = None, fall: Fall | None = None
) -> str:
    """``"concurrency 4"``, the variant's ``fall`` (:attr:`perf.analysis.recommendation.recommend.Recommendation.falls`:
    its words, ``short``: :meth:`~perf.analysis.saturation.falls.Fall.short`), ``"no knee within the swept range"``,
    ``"only 1 level measured"``, or for a variant with no measured level ``unmeasured``
    (:func:`perf.analysis.recommendation.cuts.unmeasured_text`: ``"not measured (cut for time)"``), never "fewer than
    2 levels" of one that has none."""
    if k is not None:
        return f"concurrency {k}"
    if fall is not None:
        return fall.short() if short else fall.describe()
    measured = len(curve(points))
    if measured > 1:
        return "no knee within the swept range"
    return "only 1 level measured" if measured else unmeasured or "no level measured"


def knee_lines(
    rec: Recommendation, points: dict[str, list[Point]], unmeasured: Mapping[str, str | None] | None = None
) -> list[str]:
    """One bullet per variant, or for more than :data:`perf.markdown.TOP_N` variants one bullet
    counting the variants per knee (each variant's in the appendix); ``unmeasured``: why a variant
    has no measured level (:func:`perf.analysis.recommendation.cuts.unmeasured_text`)."""
    why = unmeasured or {}
    if len(rec.knees) <= TOP_N:
        return [
            f"  - `{n}`: {knee_text(points[n], k, unmeasured=why.get(n), fall=rec.falls.get(n))}" for n, k in rec.knees.items()
        ]
    groups: dict[str, list[str]] = {}
    for n, k in rec.knees.items():
        groups.setdefault(knee_text(points[n], k, short=True, unmeasured=why.get(n), fall=rec.falls.get(n)), []).append(n)
    ranked = sorted(groups.items(), key=lambda g: -len(g[1]))
    return [
        "  - "
        + "; ".join(f"{what}: {count(len(names), 'variant')}" for what, names in ranked)
        + f" (per variant: [{APPENDIX_FILE}]({APPENDIX_FILE}))."
    ]
