"""The flagged levels a recommendation lists (:attr:`perf.analysis.recommendation.recommend.Recommendation.flagged`):
each with why (:func:`flagged_items`, the appendix's list), with its flags only (:func:`flagged_brief`, the heads of the
appendix's items), or counted per flag (:func:`flagged_summary`, report.md's: a few lines it always keeps).
Moved out of :mod:`perf.analysis.recommendation.recommend` (at its 400-line limit)."""

from __future__ import annotations

from core.wording import count
from perf.analysis.stats.notes import flag_statuses, flag_words, merged, repeat_noun, template
from perf.analysis.stats.points import Point
from perf.analysis.stats.trials import where
from perf.records.results import RunResult
from perf.records.workloads import series_variant


def _at(ps: list[Point]) -> str:
    """``"`v` at concurrency 1, 2, 8"``: a variant's levels (one batch size) in one place."""
    concs = ", ".join(str(p.concurrency) for p in ps)
    return where(ps[0]).replace(f"concurrency {ps[0].concurrency}", f"concurrency {concs}", 1)


def flagged_items(flagged: list[Point], run: RunResult) -> tuple[list[str], int]:
    """The appendix's list of flagged levels, and how many levels it holds: one item per :func:`flagged_brief` group
    (``"`v` at concurrency 8, 12: host busy"``), its reasons under it as a sub-bullet (``"  - host busy (other
    processes used 57–95 % ...)"``), levels whose reasons differ said apart (``"at concurrency 8: ..."``), each
    number that differs between levels as its min–max (:func:`perf.analysis.stats.notes.merged`); reasons an item
    above said already point to it (``"the reasons of `v` at concurrency 8, 12"``). Trial 19, T19-17, and session 22:
    the same reasons said per level, a 150-character repeat wherever two levels' numbers matched by chance."""
    first: dict[str, str] = {}  # reasons -> the levels whose item said them
    items: list[str] = []
    for brief, ps in _groups(flagged).items():
        parts: dict[str, list[tuple[Point, str]]] = {}
        for p in ps:  # its status and why, each reason under its own word (perf.analysis.stats.notes.flag_words)
            said = flag_words(p.status, p.notes, repeat_noun(run))
            if said != p.status:
                parts.setdefault(template(said), []).append((p, said))
        subs = []
        for members in parts.values():
            said, at = merged([w for _, w in members]), _at([p for p, _ in members])
            where_ = "" if len(parts) == 1 and len(members) == len(ps) else f"at {at.split(' at ', 1)[1]}: "
            subs.append(f"{where_}the reasons of {first[said]}" if said in first else f"{where_}{said}")
            first.setdefault(said, at)
        items.append(brief + "".join(f"\n  - {x}" for x in subs))
    return items, len(flagged)


def _groups(flagged: list[Point]) -> dict[str, list[Point]]:
    """:func:`flagged_brief`'s items, each with its levels."""
    groups: dict[tuple[str, int, str], list[Point]] = {}
    for p in flagged:
        groups.setdefault((p.variant, p.batch_size, flag_statuses(p.status, p.notes)), []).append(p)
    return {f"{_at(ps)}: {flags}": ps for (_, _, flags), ps in groups.items()}


def flagged_brief(flagged: list[Point]) -> list[str]:
    """One item per variant (and batch size) and flags, its levels together and no reasons:
    ``"`v` at concurrency 1, 2, 4: host busy; unstable"`` (:func:`perf.analysis.stats.notes.flag_statuses`). report.md
    lists these and the appendix :func:`flagged_items`: the reasons of 30 levels, each a parenthesis of 300
    characters, were a third of the Recommendation, and two levels whose numbers matched by chance said 150
    characters twice (session 22)."""
    return list(_groups(flagged))


#: The characters a line of :func:`flagged_summary` takes at most (one line of report.md as read, its bullet beside it:
#: :data:`perf.report.layout.MAX_REPORT_LINES` counts lines folded at 100 columns); its first variant is named whatever.
SUMMARY_CHARS = 94


def flagged_summary(flagged: list[Point]) -> list[str]:
    """One line per set of flags, its levels counted and its variants named, the most flagged first, as many as fit
    in :data:`SUMMARY_CHARS` (each workload of a variant counted as its variant; the rest counted): ``"host busy;
    unstable: 12 levels, of `a` (4), `b` (4) and 1 more variant"``. report.md keeps these few lines whatever its
    length (s22z, Z-3: its list of :func:`flagged_brief` items moved to the appendix in every real run, so report.md
    never said which levels were flagged)."""
    sets: dict[str, dict[str, int]] = {}
    for p in flagged:
        per = sets.setdefault(flag_statuses(p.status, p.notes), {})
        name = series_variant(p.variant)
        per[name] = per.get(name, 0) + 1
    lines = []
    for flags, per in sorted(sets.items(), key=lambda kv: -sum(kv[1].values())):
        ranked = sorted(per.items(), key=lambda kv: -kv[1])
        head = f"{flags}: {count(sum(per.values()), 'level')}, of "
        for k in range(len(ranked), 0, -1):  # the most names that fit, one at least
            more = f" and {count(len(ranked) - k, 'more variant')}" if k < len(ranked) else ""
            line = head + ", ".join(f"`{v}` ({n})" for v, n in ranked[:k]) + more
            if len(line) <= SUMMARY_CHARS or k == 1:
                break
        lines.append(line)
    return lines
