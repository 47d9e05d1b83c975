"""What a recommendation leaves out, and the level words it uses: which levels may be ranked
(:func:`candidate`), where a level is (:func:`where`), and one sentence per level or variant left
out of the ranking, with why (:func:`excluded_levels`; :attr:`perf.analysis.recommendation.recommend.
Recommendation.excluded`)."""

from __future__ import annotations

from core.wording import count, sentence
from perf.analysis.stats.notes import flag_words, repeat_noun
from perf.analysis.stats.points import Point
from perf.analysis.stats.trials import candidate, where
from perf.markdown import fmt_given
from perf.records.levels import LEVEL_STATUSES
from perf.records.results import RunResult


def excluded_levels(run: RunResult, points: dict[str, list[Point]]) -> list[str]:
    """Sentences for everything left out of the ranking: failed variants, failed and not
    achieved levels, request-rate levels."""
    out: list[str] = []
    for v in run.variants:
        if v.status == "failed":
            out.append(f"`{v.name}`: the variant failed ({(v.error or 'no error recorded').splitlines()[0]}).")
            continue
        for p in points[v.name]:
            if not candidate(p):
                status = p.status if p.status != "ok" else "not rankable"
                if p.notes and not p.errors:  # each reason under its own word, as every output says them (T26-11)
                    out.append(sentence(f"{where(p)}: {flag_words(status, p.notes, repeat_noun(run))}"))
                    continue
                why = "; ".join(p.errors) or ("no p99" if p.ok else "no throughput")
                out.append(f"{where(p)}: {status} ({why}).")
        rate = [lv for lv in v.levels if lv.request_rate is not None]
        if rate:
            missed = [lv for lv in rate if lv.status in ("not achieved", "failed")]
            detail = "; ".join(
                f"{fmt_given(lv.request_rate, 0)}/s {lv.status}: {'; '.join(lv.notes) or lv.error}" for lv in missed
            )
            out.append(
                f"`{v.name}`: {count(len({lv.load for lv in rate}), 'request-rate level')}, not ranked (a fixed arrival "
                f"rate is another load model)" + (f"; {detail}" if detail else "") + "."
            )
    return out


def rate_statuses(run: RunResult) -> list[str]:
    """The status of each request-rate level of the run's measured variants (one level:
    :attr:`~perf.records.levels.LevelResult.load`), its usable visits folded as
    :func:`perf.analysis.stats.points.aggregate` folds a concurrency level's: the worst of them; a level
    with none is left out (its visits are listed as excluded)."""
    out = []
    for v in run.variants:
        if v.status == "failed":
            continue
        levels: dict[tuple[int, int, float, str], list[str]] = {}
        for lv in v.levels:
            if lv.request_rate is not None and lv.usable:
                levels.setdefault(lv.load, []).append(lv.status or "ok")
        out += [min(st, key=LEVEL_STATUSES.index) for st in levels.values()]
    return out
