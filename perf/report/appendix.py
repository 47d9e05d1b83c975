"""``appendix.md``: everything the report leaves out to stay readable at 50–200 variants.

Every variant's parameters, the whole Pareto frontier, every pair behind each main effect
and every interaction, every fair pair of :func:`perf.report.conclusions.pairs.pair_bullets`, each
variant's knee, and the full lists of flagged, excluded and failed variants and levels,
skipped levels and server starts. ``report.md`` links here wherever it cut a list.

Each thing once (trial 25, T25-16: the cold-start table, each variant's knee and the flagged levels were
here twice, as the full list and as the part report.md moved for its length): a moved part whose whole form
this file holds is not written again (:data:`FULL_FORMS`, or the same heading), a moved section with
findings is written in its whole form (every row: ``whole``), and a section all of whose lines another
section holds goes (:func:`without_copies`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.wording import count, sentence
from perf.analysis.effects.main_effects import Interaction, MainEffect
from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.recommendation.frontier import frontier_table, operating_frontier, per_level_lines
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.points import Point
from perf.markdown import APPENDIX_FILE, write_kept
from perf.records.results import RunResult
from perf.report.conclusions.pairs import pair_bullets
from perf.report.sections import coldstart as coldstart_report
from perf.report.sections.knees import knee_text
from perf.report.sections.recommendation import flagged_note
from perf.report.sections.run import variant_table
from perf.search.plan import skipped_lines

#: A part report.md moves for its length (its heading in the appendix) -> the section of the appendix that holds
#: it whole. A moved part under the same heading as a full one (the level tables, the traces, the search, the
#: sweep's sentences) is the same case.
FULL_FORMS = {
    "What was run: every variant's parameters": "Every variant",
    "Recommendation: each variant's knee": "Knees",
    "Recommendation: the flagged levels": "Flagged levels",
    "Recommendation: the variants excluded": "Excluded from the recommendation",
    "Recommendation: the failed measurements": "Failed measurements",
    "Serving efficiency: served vs in-process, per level": "Serving efficiency, every level",
    "Serving efficiency: the in-process baseline": "In-process baseline, every point",
}
#: A capped list's last line as a moved part says it (:meth:`perf.report.layout.Part.moved`).
_MORE = re.compile(r"^\s*- … \d+ more\b")


def sections(lines: Sequence[str]) -> list[list[str]]:
    """``lines`` cut at each ``## `` heading (the first piece: what comes before the first heading)."""
    out: list[list[str]] = [[]]
    for ln in lines:
        if ln.startswith("## "):
            out.append([])
        out[-1].append(ln)
    return [s for s in out if s]


def _title(section: Sequence[str]) -> str:
    return section[0][3:] if section and section[0].startswith("## ") else ""


def content(section: Sequence[str]) -> set[str]:
    """What ``section`` says, line by line: no headings, blank lines, lines that point to the appendix or to
    more of a capped list, or a table's rule; a table row as its cells (the padding is its table's)."""
    out = set()
    for ln in section:
        said = " ".join(ln.split())
        if not said or said.startswith("#") or APPENDIX_FILE in said or _MORE.match(ln):
            continue
        if said.startswith("|"):
            cells = [c.strip() for c in said.strip("|").split("|")]
            if all(set(c) <= set(":-") for c in cells):
                continue
            said = " | ".join(cells)
        out.add(said)
    return out


def without_copies(held: Sequence[str], moved: Sequence[str], whole: Mapping[str, Sequence[str]] = {}) -> list[str]:
    """The appendix's ``held`` lines, then the ``moved`` parts, each thing once (module docstring): a moved part
    whose whole form ``held`` has (:data:`FULL_FORMS`, the same heading) is left out; one named in ``whole`` is
    written as that (its section with every row); then a section all of whose lines a moved one holds goes."""
    mine = sections(held)
    titles = {_title(s) for s in mine}
    kept = [list(whole.get(_title(s), s)) for s in sections(moved) if FULL_FORMS.get(_title(s), _title(s)) not in titles]
    said = [content(s) for s in kept]
    mine = [s for s in mine if not _title(s) or not (own := content(s)) or not any(own <= c for c in said)]
    return more_pointed([*mine, *kept])


#: A capped list's last line (:func:`perf.markdown.capped`), its count and what follows the count.
_MORE_LINE = re.compile(r"^(\s*- (?:… )?)(\d+)( more\b.*)$")


def more_pointed(secs: Sequence[Sequence[str]]) -> list[str]:
    """``secs``' lines, each capped list's "… N more in appendix.md" (a list report.md capped and moved here) pointing
    at the section of this file that holds every item of it, and the N more, by its heading, above or below it (trial
    27, T27-6: "… 2 more in its full list above" said in the very section that was the list's home, of a list that was
    not there); where no section holds them it says only how many are left out, pointing nowhere."""
    out: list[str] = []
    for i, sec in enumerate(secs):
        for j, ln in enumerate(sec):
            m = _MORE_LINE.match(ln)
            if not m or (APPENDIX_FILE not in m.group(3) and "full list" not in m.group(3)):
                out.append(ln)
                continue
            lead, shown = m.group(1)[: m.group(1).index("- ")], j
            while shown and sec[shown - 1].startswith(f"{lead}- "):  # the list's shown items, right above its last line
                shown -= 1
            items = {" ".join(x.split()) for x in sec[shown:j]}
            n = len(items) + int(m.group(2))
            home = next(
                (k for k, s in enumerate(secs) if k != i and _title(s) and items <= (c := content(s)) and len(c) >= n), None
            )
            where = (
                "" if home is None else f" in its full list, section “{_title(secs[home])}” {'above' if home < i else 'below'}"
            )
            out.append(f"{m.group(1)}{m.group(2)} more{where}.")
    return out


#: How report.md names the appendix's section a moved part is in (:meth:`perf.report.layout.Part.moved`).
_SECTION = re.compile(r"(\[" + re.escape(APPENDIX_FILE) + r"\]\(" + re.escape(APPENDIX_FILE) + r"\), section “)([^”]+)(”)")


def pointed(report: Sequence[str], appendix: Sequence[str]) -> list[str]:
    """``report``'s lines, each moved part's pointer naming a section ``appendix`` has: one named for a
    :data:`FULL_FORMS` whole form this appendix does not hold names the part's own section instead (where
    :func:`without_copies` kept it), so no pointer names a heading the reader cannot find."""
    heads = {ln[3:] for ln in appendix if ln.startswith("## ")}
    own = {v: k for k, v in FULL_FORMS.items()}
    fix = lambda m: m.group(0) if m.group(2) in heads else f"{m.group(1)}{own.get(m.group(2), m.group(2))}{m.group(3)}"  # noqa: E731
    return [_SECTION.sub(fix, ln) for ln in report]


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:+.1f} %"


def effect_pairs(e: MainEffect) -> list[str]:
    """One bullet per pair behind a main effect: both names and the two paired changes, with why
    a change was left out of the effect (:mod:`perf.analysis.stats.fair`)."""
    return [
        f"- `{d.changed}` vs `{d.reference}`: peak throughput {_pct(d.throughput_pct)}"
        + (f" (left out: {d.throughput_note})" if d.throughput_note else "")
        + f", p99 {_pct(d.p99_pct)}"
        + (f" at c={d.concurrency}" if d.concurrency is not None else "")
        + (f" (left out: {d.p99_note})" if d.p99_note else "")
        for d in e.pairs
    ]


def appendix_lines(
    run: RunResult,
    rec: Recommendation,
    points: dict[str, list[Point]],
    effects: Sequence[MainEffect],
    inters: Sequence[Interaction],
    up: str = "",
    details: Sequence[str] = (),
    moved: Sequence[str] = (),
    whole: Mapping[str, Sequence[str]] = {},
) -> list[str]:
    """The appendix as markdown lines (see the module docstring); ``up`` prefixes links to the
    run folder's own files (``"../"`` from a what-if folder); ``details`` (markdown lines) are the
    whole forms of the sections report.md shortens (every level's table, the search, the serving
    efficiency tables, the profiler traces), then ``moved``: the parts report.md moved for its length
    (:func:`perf.report.layout.fit`), those it holds whole left out (``whole``: :func:`without_copies`)."""
    failed = {v.name for v in run.variants if v.status == "failed"}
    lines = [f"# Appendix of sweep {run.run_id}", "", "The lists [report.md](report.md) shortens, in full.", ""]
    lines += ["## Every variant", "", *variant_table(run), ""]
    front = operating_frontier(points, failed, rec.latency_field)  # on the latency the budget is judged on, as report.md's
    lines += ["## Pareto frontier: the operating frontier, every level of it", ""]
    lines += [*frontier_table(front, rec), ""] if front else ["none", ""]
    lines += [
        "Per-level frontier (at one concurrency, among the variants measured there):",
        "",
        *(x.strip() for x in per_level_lines(points, failed, rec.latency_field)),
        "",
    ]
    lines += ["## Main effects, pair by pair", ""]
    for e in effects:
        lines += [f"### {e.factor.label}: {e.change} ({count(len(e.pairs), 'pair')})", "", *effect_pairs(e), ""]
    if inters:
        lines += ["## Interactions that change an effect's sign", "", *(f"- {sentence(i.describe())}" for i in inters), ""]
    bullets = pair_bullets(run)
    if bullets:
        lines += [
            "## Fair pairs",
            "",
            "Each pair below differs only in the variant parameters named; every other parameter is equal.",
            "",
            *bullets,
            "",
        ]
    lines += coldstart_report.appendix_lines(run)
    lines += ["## Knees", ""]
    for n, k in rec.knees.items():
        lines.append(f"- `{n}`: {knee_text(points[n], k, unmeasured=unmeasured_text(run, n), fall=rec.falls.get(n), run=run)}")
    lines.append("")
    if rec.flagged:
        said = f"{count(rec.flagged_levels, 'flagged level')}; {flagged_note(rec, points)}"  # T25-16: it read "32; ..."
        lines += ["## Flagged levels", "", sentence(said), ""]
        lines += [*(f"- {x}" for x in rec.flagged), ""]
    for title, items in (
        ("Excluded from the recommendation", rec.excluded),
        (
            "Failed variants",
            [f"`{v.name}`: {(v.error or 'no error recorded').strip()}" for v in run.variants if v.name in failed],
        ),
        ("Skipped levels", skipped_lines(run.variants)),
        ("Server starts", [f"[{s.log}]({up}{s.log}) at {s.started}: {s.reason}" for s in run.server_starts]),
    ):
        if items:
            lines += [f"## {title}", "", *(f"- {x}" for x in items), ""]
    return without_copies([*lines, *details], moved, whole)


def write_appendix(
    run: RunResult,
    run_dir: Path,
    rec: Recommendation,
    points: dict[str, list[Point]],
    effects: Sequence[MainEffect],
    inters: Sequence[Interaction],
    up: str = "",
    details: Sequence[str] = (),
    moved: Sequence[str] = (),
    whole: Mapping[str, Sequence[str]] = {},
) -> list[str]:
    """Write :data:`perf.markdown.APPENDIX_FILE` into ``run_dir`` (the report's folder); returns its lines
    (arguments as :func:`appendix_lines`; what report.md's pointers must name: :func:`pointed`)."""
    lines = appendix_lines(run, rec, points, effects, inters, up, details, moved, whole)
    write_kept(Path(run_dir) / APPENDIX_FILE, "\n".join(lines) + "\n")
    return lines
