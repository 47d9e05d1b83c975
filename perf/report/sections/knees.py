"""What the report says of each variant's saturation: its knee, a fall of its throughput as load rose
as the noise judges it (:func:`perf.analysis.saturation.falls.fall`: interference only beyond the noise), or why
it has neither. One text for the recommendation section, the appendix and the terminal."""

from __future__ import annotations

from collections.abc import Mapping

from core.wording import count
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.falls import Fall
from perf.analysis.saturation.rises import least_rounds, p99_step, rise_between
from perf.analysis.stats.curves import curve
from perf.analysis.stats.points import P99, Point
from perf.markdown import APPENDIX_FILE, TOP_N
from perf.records.results import RunResult
from perf.report.phrases import Facts, say


def no_knee_reason(run: RunResult, points: list[Point]) -> str:
    """Why a curve has no knee: its last step (:mod:`perf.report.phrases` ``no_knee``), each trend by its one
    rule (:mod:`perf.analysis.saturation.rises`): throughput "still grew" only when it rose beyond the noise
    and by more than the least gain a step must give, p99 "fell" only beyond the noise; a change the noise
    does not tell is said with its evidence (not distinguishable from noise: rounds and p, or spread unknown).
    Said once, beside the variant in the knee list (the Conclusions point to it; trial 19, T19-17)."""
    c = [p for p in curve(points) if p.get(P99) is not None]
    if len(c) < 2:
        return ""
    a, b = c[-2], c[-1]
    r, q = rise_between(run, a, b), p99_step(run, a, b)
    p99 = (b.value(P99) / a.value(P99) - 1) * 100.0 if a.value(P99) else None
    facts = Facts(
        last_gain_pct=r.gain_pct,
        last_gain="rose" if r.rises else None if r.flat_on(least_rounds(run)) else "untold",  # a knee's rule (T25-18)
        last_gain_evidence=r.step.evidence if r.rises else r.step.said(),
        last_gain_basis=r.basis(),
        last_p99_change_pct=p99,
        last_p99="fell" if q.change == "fell" else "untold" if q.change is None else None,
        last_p99_evidence=q.said(),
    )
    return say("no_knee", facts, " and ")


def knee_text(
    points: list[Point],
    k: int | None,
    short: bool = False,
    unmeasured: str | None = None,
    fall: Fall | None = None,
    run: RunResult | None = None,
) -> str:
    """``"concurrency 4"``, the variant's ``fall`` (:attr:`perf.analysis.recommendation.recommend.Recommendation.falls`:
    its words, ``short``: :meth:`~perf.analysis.saturation.falls.Fall.short`), ``"no knee within the swept range"``,
    ``"only 1 level measured"``, or for a variant with no measured level ``unmeasured``
    (:func:`perf.analysis.recommendation.cuts.unmeasured_text`: ``"not measured (cut for time)"``), never "fewer than
    2 levels" of one that has none; with ``run`` (not ``short``), a curve with no knee says why (:func:`no_knee_reason`)."""
    if k is not None:
        return f"concurrency {k}"
    if fall is not None:
        return fall.short() if short else fall.describe()
    measured = len(curve(points))
    if measured > 1:
        why = no_knee_reason(run, points) if run is not None and not short else ""
        return "no knee within the swept range" + (f" ({why})" if why else "")
    return "only 1 level measured" if measured else unmeasured or "no level measured"


def knee_lines(
    rec: Recommendation,
    points: dict[str, list[Point]],
    unmeasured: Mapping[str, str | None] | None = None,
    run: RunResult | None = None,
) -> list[str]:
    """One bullet per variant, or for more than :data:`perf.markdown.TOP_N` variants one bullet
    counting the variants per knee (each variant's in the appendix); ``unmeasured``: why a variant
    has no measured level (:func:`perf.analysis.recommendation.cuts.unmeasured_text`); ``run``: a curve
    with no knee says why (:func:`knee_text`)."""
    why = unmeasured or {}
    if len(rec.knees) <= TOP_N:
        return [
            f"  - `{n}`: {knee_text(points[n], k, unmeasured=why.get(n), fall=rec.falls.get(n), run=run)}"
            for n, k in rec.knees.items()
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
