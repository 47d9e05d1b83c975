"""Where a report is written and how long it may be.

Two rules, used by :func:`perf.report.write.write_report` for every report:

- **What-if views** (:func:`what_if`, :func:`report_folder`): a report whose options differ from the
  run's own (another latency budget or percentile than ``results.json`` records, another ``--top``)
  is written into its own folder beside the run's ``report.md`` (``report-budget5ms/``, with its own
  appendix and plots), never over the run's report.
- **Length** (:func:`fit`): ``report.md`` stays within :data:`MAX_REPORT_LINES` *read lines* at any
  grid and ladder size (:func:`read_lines`: a line as a reader's screen shows it, folded at
  :data:`READ_WIDTH` columns; trial 23, T23-5: 246 lines kept the bound by lines of up to 1,256
  characters, 599 lines folded at 100 columns). Each section already shortens itself (top-N tables,
  capped lists, the levels that matter); when the whole is still longer, the longest parts that are
  detail move to ``appendix.md`` whole, one line saying so in their place: a section of tables a
  reader looks up, or the lookup part of a findings section (:func:`split_details`: each variant's
  knee, every flagged level, the design and rule paragraphs every rounds report holds), its short
  finding kept, then the level tables. The findings themselves (the pick, its numbers, the runner-up and tie,
  the pick's caveats) never move; a few findings longer than their one line (the levels over the budget,
  another client workload's picks: :attr:`Part.late`) move last, so that the bound holds at every run size
  (trial 25, T25-1: 8-variant runs read as 256-277 lines once every other part had moved). A long paragraph of
  the findings (:func:`briefs`) may keep its opening, its full text moving under a heading of its own, before the
  level tables move, the Recommendation's last (trial 28, T28-2: at 8 variants and 3 levels the picks' paragraphs
  filled the bound); a section that says in one line why it is empty stays as that line (:attr:`Part.one_line`:
  trial 28, T28-3).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from perf.analysis.ranking.budget_latency import DEFAULT_LATENCY_PERCENTILE
from perf.markdown import APPENDIX_FILE, TOP_N, fmt_given
from perf.records.results import RunResult

#: report.md's length at any grid and ladder size, in read lines (:func:`read_lines`; issue 18: "about 250
#: lines at 200 variants"; issue 26: also with a dozen ladder levels, traces and the serving efficiency).
MAX_REPORT_LINES = 250
#: The width a reader's screen folds report.md's lines at (:func:`read_lines`), in characters.
READ_WIDTH = 100
#: Read lines of the bound report.md's layout leaves free for an "Out of date" mark put after its title later
#: (:func:`perf.report_state.mark_outdated`, in its one-line form where the full one does not fit; trial 29, T29-8:
#: the mark took t29a's report.md from 248 to 252 read lines).
MARK_ROOM = 1


def read_rule(limit: int = MAX_REPORT_LINES) -> str:
    """The bound as :func:`read_lines` counts it, for every sentence that states it (trial 24, T24-3: "within 250
    lines at 100 columns" read as `fold -w 100`, 296 lines, where a table row counts one). Whole words: trial 25,
    T25-2's warning ended "..., a table row one", read as a line cut short."""
    return f"{limit} lines at {READ_WIDTH} columns, a table row one line"


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


def read_lines(lines: Sequence[str], width: int = READ_WIDTH) -> int:
    """How many lines ``lines`` take as read: each folded at ``width`` characters (an empty line is one),
    but a table row (a line starting with ``|``) is one line whatever its length, since markdown
    renderers do not fold a table's rows (they scroll it sideways), and a table is read row by row.

    The measure of :data:`MAX_REPORT_LINES` (trial 23, T23-5: report.md's 246 lines were 599 at 100 columns)."""
    return sum(1 if ln.startswith("|") else max(1, -(-len(ln) // width)) for ln in lines)


@dataclasses.dataclass
class Part:
    """A run of report.md's lines.

    Attributes:
        lines: Its markdown lines.
        detail: It may move to the appendix whole when the report is too long (a table a reader
            looks up; the findings never move).
        kept: Lines of it that stay in report.md, under its heading, when it moves (a finding the
            section holds: trial 21, T21-3's unusable baseline; a list's first line, its finding).
        name: What a part inside a section holds (``"Recommendation: each variant's knee"``): when it
            moves, report.md keeps one bullet naming it, and the appendix gives its lines this heading.
            Empty for a part that is a whole section (its own ``## `` heading).
        last: It moves only when no other detail part is left to move but :attr:`late` ones (the level tables:
            the numbers).
        late: A finding that may move (the levels over the budget, another workload's picks): only when no
            other detail part is left to move, the level tables too (trial 25, T25-1: at 8 variants the findings
            alone read as 256-277 lines).
        brief: A long paragraph's brief form (:func:`briefs`): its opening, what report.md keeps in its place, with a
            pointer to its full text in the appendix, under :attr:`name` (trial 28, T28-2).
        headline: A :attr:`brief` paragraph of the headline sections (:data:`HEADLINES`: the picks, their runner-ups
            and caveats): shortened only when no other paragraph or section is left to move, before the level tables.
    """

    lines: list[str]
    detail: bool = False
    kept: list[str] = dataclasses.field(default_factory=list)
    name: str = ""
    last: bool = False
    late: bool = False
    brief: str = ""
    headline: bool = False

    @property
    def title(self) -> str:
        """Its :attr:`name`, else its first ``## `` heading without the hashes (``""`` when it has none)."""
        return self.name or next((ln[3:] for ln in self.lines if ln.startswith("## ")), "")

    @property
    def one_line(self) -> bool:
        """A whole section whose content is one line of prose (no table, list or image): what it says is why it is
        empty ("No in-process baseline in this run (skipped for time ...)"), a finding that stays where it is; its
        pointer would say less and tell the reader an analysis is in the appendix (trial 28, T28-3)."""
        said = [ln for ln in self.lines[1:] if ln.strip()]
        return (
            not self.name
            and self.lines[:1] == [f"## {self.title}"]
            and len(said) == 1
            and not said[0].startswith(("|", "- ", "* ", "!", "#", " ", "\t"))
        )

    def moved(self, limit: int, held: Mapping[str, str] = {}) -> tuple[list[str], list[str]]:
        """``(what report.md keeps in its place, the lines appendix.md gets)`` when it moves. A whole section keeps its
        heading, the appendix's for it; a part names the appendix's section that holds it (s21o: it said only "In
        appendix.md"): its :attr:`name`, or the section ``held`` names for it (the appendix's whole form of it:
        :data:`perf.report.appendix.FULL_FORMS`: "Knees" for each variant's knee); a long paragraph keeps its
        :attr:`brief` form, pointing to its full text there."""
        if self.brief:  # the paragraph's opening, then where the rest is (one pointer per paragraph)
            section = f"[{APPENDIX_FILE}]({APPENDIX_FILE}), section “{self.name}”"
            return [f"{self.brief} … (the rest: {section})"], [f"## {self.name}", "", *(ln.strip() for ln in self.lines), ""]
        if not self.name:  # under the heading it keeps there, right above (one read line)
            where = f"[{APPENDIX_FILE}]({APPENDIX_FILE}) (moved to stay within {read_rule(limit)})"
            return [f"## {self.title}", "", *self.kept, f"In {where}.", ""], self.lines
        section = f"[{APPENDIX_FILE}]({APPENDIX_FILE}), section “{held.get(self.title, self.title)}”"
        under = self.lines[len(self.kept) :] if self.lines[: len(self.kept)] == self.kept else self.lines  # a kept head stays
        indent = min((len(ln) - len(ln.lstrip()) for ln in under if ln.strip()), default=0)
        # a capped list's "… 9 more in appendix.md" is pointed there at the section holding its full list
        # (perf.report.appendix.more_pointed: trial 27, T27-6: "its full list above" said of a list that was not there)
        body = [ln[indent:] for ln in under]
        pad = " " * (len(self.kept[-1]) - len(self.kept[-1].lstrip()) + 2) if self.kept else ""
        what = self.name.split(": ", 1)[-1]  # under its section's heading: "each variant's knee"
        place = f"{pad}- {what[:1].upper()}{what[1:]}: in {section}."  # where, in one read line mostly
        return [*self.kept, place], [f"## {self.name}", "", *body, ""]


def split_details(
    lines: Sequence[str],
    names: Mapping[str, str] | Mapping[str | re.Pattern[str], str],
    keep_head: Sequence[str | re.Pattern[str]] = (),
) -> list[Part]:
    """``lines`` (one section or more) as parts: each line that starts with a key of ``names`` (spaces
    collapsed; a pattern key: that it matches at its start, for a bullet that opens with a count), with what is
    under it (a bullet's indented lines, a table's rows, a ``### `` subsection's lines to the next heading), and the lines right after it that start with a key naming the same part, become one
    :attr:`Part.detail` part named ``names[key]``; the rest stay findings. Where the
    key is in ``keep_head`` the bullet's own line stays in report.md (:attr:`Part.kept`: the finding, e.g.
    "14 flagged levels; what that means for the pick") and only the list under it may move.

    Args:
        lines: Markdown lines.
        names: Bullet starts (``"- **Saturation (knee)**"``, or a pattern) to the name of the part each opens.
        keep_head: The keys whose bullet line stays when its part moves.
    """
    named: dict[str | re.Pattern[str], str] = {k: v for k, v in names.items()}
    parts: list[Part] = [Part([])]
    for ln in lines:
        said = " ".join(ln.split())
        key = next((k for k in named if (k.match(said) if isinstance(k, re.Pattern) else said.startswith(k))), None)
        last = parts[-1]
        opened = last.lines[0][:1] if last.lines else ""
        # under it: a table's rows, a subsection's lines to the next heading, a bullet's indented lines
        under = not ln.startswith("#") if opened == "#" else ln.startswith("|" if opened == "|" else (" ", "\t"))
        under = under or (opened == "#" and not ln.strip())
        if key is not None and not (last.detail and last.name == named[key]):
            parts.append(Part([ln], detail=True, kept=[ln] if key in keep_head else [], name=named[key]))
        elif key is not None or (last.detail and under and (ln.strip() or opened == "#")):
            last.lines.append(ln)
        else:
            if last.detail:
                parts.append(Part([]))
            parts[-1].lines.append(ln)
    return [p for p in parts if p.lines]


#: A long paragraph's :attr:`Part.brief` holds at most this many characters of its opening, cut where a clause ends
#: (:func:`brief_of`); with its pointer it reads as 2-3 lines at :data:`READ_WIDTH` columns.
BRIEF_CHARS = 160
#: Where a brief may end, strongest first: a sentence, a dash's aside, a clause, a list's item, a colon, a word.
_ENDS = (". ", " — ", "; ", ", ", ": ", " ")


def _whole(text: str) -> bool:
    """``text`` closes what it opens: parentheses, code spans and bold (a cut inside one would break the markdown)."""
    return text.count("(") == text.count(")") and text.count("`") % 2 == 0 and text.count("**") % 2 == 0


def brief_of(line: str, chars: int = BRIEF_CHARS) -> str | None:
    """``line``'s opening, at most ``chars`` characters after its indent and bullet, cut at the end of a sentence, a
    dash's aside, a clause, an item, a colon or else a word (:data:`_ENDS`, the strongest that fits), outside any
    parenthesis, code span or bold; ``None`` when no such end is in reach (the line stays whole)."""
    body = line.lstrip()
    lead = line[: len(line) - len(body)]
    if body.startswith(("- ", "* ")):
        lead, body = lead + body[:2], body[2:]
    for end in _ENDS:
        at = [i for i in range(len(body)) if body.startswith(end, i) and 40 <= i <= chars and _whole(body[:i])]
        if at:
            cut = body[: at[-1] + (1 if end == ". " else 0)].rstrip(":;,")
            return lead + cut
    return None


def _label(line: str) -> str:
    """What a paragraph is, for its heading in the appendix: its bold opening (``**The numbers.**``), else its words
    up to its first colon, else its first six words."""
    body = line.strip().removeprefix("- ").removeprefix("* ")
    if body.startswith("**") and (end := body.find("**", 2)) > 2:
        return body[2:end].rstrip(":. ")
    head = body.split(": ", 1)[0]
    words = body.split()
    return head if len(head) <= 60 and _whole(head) else " ".join(words[:6]).strip(":,;") + " …"


#: The sections whose paragraphs are shortened last (:attr:`Part.headline`): the picks with their runner-ups and caveats,
#: which the Conclusions and the Paired ranking say again in their own words (trial 23, T23-5's findings).
HEADLINES = ("Recommendation",)


def briefs(parts: Sequence[Part], width: int = READ_WIDTH) -> list[Part]:
    """``parts``, each long paragraph of their findings (a line of a part that never moves, in a section no part of
    which moves whole) apart as a :attr:`Part.detail` part with a :attr:`Part.brief` form: report.md may keep its
    opening and point to its full text in the appendix, under ``"<section>: <what it is>"`` (trial 28, T28-2: at 8
    variants and 3 levels the picks' paragraphs, 600-1,500 characters each, filled the bound once every table had
    moved; the level tables then get the room the briefs leave). A table row, a heading, a quoted warning and a line
    that already points to the appendix stay as they are, and so does a line its brief would not shorten."""
    whole = {p.title for p in parts if p.detail and not p.name}
    out: list[Part] = []
    names: set[str] = set()
    at = top = ""  # the section a line is in, and the paragraph a sub-bullet is under
    for p in parts:
        if p.detail or p.name:
            at = next((ln[3:] for ln in p.lines if ln.startswith("## ")), at)
            out.append(p)
            continue
        run: list[str] = []
        for ln in p.lines:
            at = ln[3:] if ln.startswith("## ") else at
            top = _label(ln) if ln[:1] not in " \t" and ln.strip() else top
            cut = None if ln.startswith(("|", "#", ">", "!")) or APPENDIX_FILE in ln or at in whole else brief_of(ln)
            base = name = f"{at}: " + (_label(ln) if ln[:1] not in " \t" else f"{top}, continued")  # a bullet's sub-bullet
            while name in names:
                name = f"{base} ({len([n for n in names if n.startswith(base)]) + 1})"
            part = Part([ln], detail=True, name=name, brief=cut or "", headline=at in HEADLINES)
            if cut is None or read_lines([ln], width) < read_lines(part.moved(0)[0], width) + 2:  # it saves 2 lines or more
                run.append(ln)
                continue
            names.add(name)
            if run:
                out.append(Part(run))
                run = []
            out.append(part)
        if run:
            out.append(Part(run))
    return out


def fit(parts: Sequence[Part], limit: int = MAX_REPORT_LINES, held: Mapping[str, str] = {}) -> tuple[list[str], list[str]]:
    """report.md's lines within ``limit`` read lines (:func:`read_lines`): while the whole is longer, a
    :attr:`Part.detail` part is replaced by what it keeps and one line pointing to the appendix
    (:meth:`Part.moved`): a section's lookup part (:attr:`Part.name`) before a whole section, the longest
    (in read lines) first, a :attr:`Part.last` one only when no other is left but :attr:`Part.late` ones (findings),
    those last.

    Args:
        parts: The report in order.
        limit: Read lines report.md may have (default :data:`MAX_REPORT_LINES`).
        held: A moved part's title -> the appendix's section that holds it whole, which its pointer names
            (:meth:`Part.moved`); a title not in it: its own section.

    Returns:
        ``(report lines, moved lines)``: the moved parts' lines go to the end of ``appendix.md``, in
        report order, a part inside a section under its name as a heading.
    """
    kept = list(parts)
    moved: dict[int, list[str]] = {}

    def total() -> int:
        return read_lines([ln for p in kept for ln in p.lines])

    while total() > limit:
        movable = [  # a part whose move shortens the report
            p
            for p in kept
            if p.detail
            and p.title
            and not p.one_line  # a section saying in one line why it is empty stays (T28-3)
            and any(p is q for q in parts)
            and read_lines(p.lines) > read_lines(p.moved(limit, held)[0])
        ]
        if not movable:
            break
        # lookups first, the longest; then a long paragraph's rest or a whole section, the longest, the headline's
        # paragraphs last (trial 28, T28-2: so that the picks' level table keeps its room at
        # 8 variants and 3 levels)
        longest = max(
            movable, key=lambda p: (not p.late, not p.last, bool(p.name) and not p.brief, not p.headline, read_lines(p.lines))
        )
        place, there = longest.moved(limit, held)
        at = next(i for i, p in enumerate(kept) if p is longest)
        kept[at] = Part(place)
        moved[at] = there
        if not longest.name:  # a whole section: its one line says where it went, its parts' own lines go (T25-1)
            for i in moved:
                if parts[i].name.startswith(f"{longest.title}: "):
                    kept[i] = Part([])
    report = [ln for p in kept for ln in p.lines]
    return report, [ln for i in sorted(moved) for ln in moved[i]]
