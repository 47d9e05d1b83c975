"""Markdown text of the report and the run comparison: numbers, marks and tables.

Tables are written by `tabulate <https://github.com/astanin/python-tabulate>`_ in its
``pipe`` format (GitHub-flavoured markdown with column alignment). Cells are passed as
ready strings: this module never re-parses a formatted number.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from tabulate import tabulate

from core.units import ALL_CORES
from core.wording import sentence

log = logging.getLogger(__name__)

#: Mark of a flagged number: a level where perf_analyzer did not reach its stability criterion,
#: or any measurement taken while other processes used the host (:func:`flag_mark`).
UNSTABLE_MARK = "†"
#: Statuses whose numbers carry no mark.
UNFLAGGED = ("ok", "measured")


def flag_mark(status: str | None, words: bool = True) -> str:
    """The mark a number carries for its status, in every table, plot and sentence alike.

    Args:
        status: The record's status (a level's ``status``, a baseline point's or a precision
            row's :func:`perf.records.load.load_status`); ``"ok"``/``"measured"`` (and ``None``)
            carry no mark.
        words: ``" † host busy"`` (the mark and the status, for tables, legends and text);
            ``False``: ``"†"`` alone (a plot's point label, ``c=8†``).

    Returns:
        ``""`` for an unflagged number, else the mark.
    """
    if status is None or status in UNFLAGGED:
        return ""
    return f" {UNSTABLE_MARK} {status}" if words else UNSTABLE_MARK


#: What each mark means, for a text that travels without the report's captions (a bundle's README).
MARK_MEANINGS = {
    UNSTABLE_MARK: "a flagged number: unstable (perf_analyzer did not reach a stable measurement) or host busy "
    "(other processes used the host's CPU while it was measured); the words after it say which",
}


def mark_legend(text: str) -> list[str]:
    """One definition line (``"†: a flagged number: ..."``) per mark of :data:`MARK_MEANINGS` that
    ``text`` uses, so a text defines every mark it shows (trial 7: a bundle README used † undefined)."""
    return [f"{mark}: {sentence(meaning)}" for mark, meaning in MARK_MEANINGS.items() if mark in text]


Align = Literal["left", "right", "center"]

#: Significant digits :func:`fmt_given` shows of a number that has more.
GIVEN_SIGNIFICANT = 6

#: The CPU measures of a level, for tables, plots and prose: LevelResult field ->
#: (label, unit, decimals, what it counts). Host CPU is not the server's own use.
CPU_MEASURES: dict[str, tuple[str, str, int, str]] = {
    "cpu_utilization_pct": (
        "host CPU",
        ALL_CORES,  # not a process's % of one core (core.units: one rule for CPU %)
        1,
        "every process on the host, perf_analyzer included (Triton's `nv_cpu_utilization`); 100 % = every core busy",
    ),
    "server_cpu_cores": (
        "server CPU",
        "cores",
        2,
        "tritonserver and its child processes (python-backend stubs); 1.00 = one core busy",
    ),
}


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for a table: thousands separators, ``digits`` decimals, ``—`` for None."""
    return "—" if value is None else f"{value:,.{digits}f}"


#: The most decimals :func:`apart` adds to tell two numbers apart.
APART_MOST = 3


def _ratio_decimals(ratio: float, digits: int) -> int:
    """The decimals :func:`ratio_number` prints ``ratio`` (finite, above 0) with: ``digits`` significant digits
    (all of an integer part that has more), and more where those would print a ratio that is not 1 as 1."""
    d = max(0, digits - 1 - math.floor(math.log10(ratio)))
    while d < APART_MOST + 1 and ratio != 1 and float(f"{ratio:.{d}f}") == 1:
        d += 1
    return d


def ratio_number(ratio: float, digits: int = 2) -> str:
    """A ratio as a number, the one rule for every ratio the toolkit shows a user (with "×" after it:
    :func:`times`; a table cell under a "ratio" heading, "median ratio 0.73"): ``digits`` significant digits
    (whole from 10 up at the default 2: ``"13"``, ``"1.5"``, ``"0.80"``, ``"0.0024"``), and more decimals where
    those would print a ratio that is not 1 as 1 (issue 26: ``"1.00"`` and ``"1"`` for 0.9996; ``"1.04"``,
    ``"0.9996"``), up to :data:`APART_MOST` + 1 decimals. A ratio that is not finite, or not above 0, is printed
    as Python does (``"inf"``).

    Args:
        ratio: The ratio (unitless).
        digits: Significant digits (default 2; 3 in tables of paired ratios).
    """
    if not math.isfinite(ratio) or ratio <= 0:
        return f"{ratio:g}"
    return f"{ratio:,.{_ratio_decimals(ratio, digits)}f}"


def times(ratio: float, digits: int = 2) -> str:
    """A ratio as ``"1.5×"``, the one rule for every "N×" said beside words (issue 26, trial 19, T19-3: p99
    37.37 ms against a 25 ms budget printed "1× the budget" beside "far over the budget"): :func:`ratio_number`
    and "×" (``"13×"``, ``"1.5×"``, ``"0.80×"``, ``"0.0024×"``; ``"1.04×"``, ``"0.996×"`` where fewer decimals
    would print 1; ``digits`` significant digits, default 2). A ratio that is not finite is printed as Python
    does (``"inf×"``)."""
    return f"{ratio_number(ratio, digits)}×"


def ratio_span(low: float, high: float, digits: int = 2) -> str:
    """A range of ratios as ``"0.95–1.04"`` (min–max of per-round ratios): each end by :func:`ratio_number`, and
    where two ends that differ would print equal, both with the decimals that tell them apart (:func:`apart`):
    never ``"1–1"`` or ``"2.37–2.37"`` for ratios that differ."""
    lo, hi = ratio_number(low, digits), ratio_number(high, digits)
    if lo != hi or low == high or not all(math.isfinite(x) and x > 0 for x in (low, high)):
        return f"{lo}–{hi}"
    d = apart(low, high, max(_ratio_decimals(low, digits), _ratio_decimals(high, digits)))
    return f"{low:,.{d}f}–{high:,.{d}f}"


def factor(ratio: float, more: str = "faster", less: str = "slower") -> str:
    """A speed ratio (A's speed over B's) as how many times A is ``more`` or ``less``: ``"1.75× faster"``,
    and for a ratio below 1 its inverse, ``"1.25× slower"`` for 0.8, never ``"0.8× slower"`` (issue 26,
    trial 19, T19-7: "0.799× slower" beside "0.799× fp32's speed" reads as slower by 0.8×). The one rule for
    "N× faster/slower" (and higher/lower): N is never below 1. A ratio itself, below 1 or not, is said as
    what it is (``"0.80× fp32's speed"``), never with a comparative word after it."""
    return f"{times(ratio)} {more}" if ratio >= 1 else f"{times(1.0 / ratio)} {less}"


def apart(a: float, b: float, digits: int = 0) -> int:
    """The decimals to print ``a`` and ``b`` with so that numbers that differ print differently: ``digits``, or
    more (up to ``digits`` + :data:`APART_MOST`) where they would print equal (issue 26, trial 19, T19-8: "86 s
    were left: 4 variants need about 86 s" beside a cut; 86.4 and 85.8 with one decimal). The one rule for every
    "need X s / Y s left" (and "over"/"within") comparison the console and reports say; numbers equal at the
    most decimals print equal (they are)."""
    d = digits
    while d < digits + APART_MOST and f"{a:.{d}f}" == f"{b:.{d}f}" and a != b:
        d += 1
    return d


def ahead_by(leader: str, gain: float) -> str:
    """A throughput gap in words, the one rule for every "by N %" gap the toolkit prints: the higher side's
    gain, "``leader`` ahead by N %" (trial 17, T17-4). The lower side is never said "behind by N %": a
    throughput cannot be more than 100 % behind, and c=2 at 2.048x c=1 read "c=1 behind c=2 by 104.8 %".

    Args:
        leader: The side ahead, as the sentence names it (e.g. "concurrency 2").
        gain: Its gain over the other side, a fraction (``T_leader / T_other - 1``; 1.048 for +104.8 %).

    Returns:
        E.g. "concurrency 2 ahead by 104.8 %".
    """
    return f"{leader} ahead by {fmt(gain * 100.0)} %"


#: Significant digits of each number in an "a / b = r" (:func:`ratio_of`).
RATIO_SIGNIFICANT = 3


def ratio_of(a: float, b: float, digits: int = RATIO_SIGNIFICANT) -> str:
    """``"43.7 / 48.0 = 0.910×"``: the one rule for every "a / b = r" the toolkit prints. ``a`` and ``b`` are
    printed with ``digits`` significant digits (all of an integer part that has more), and the ratio is
    computed from the numbers as printed, so a reader who divides them gets the ratio said (re-check 18:
    "44 / 48 = 0.909×", rounded medians beside the ratio of the unrounded 43.67 / 48.04; 44 / 48 is 0.917).

    Args:
        a: The numerator (any unit; the same as ``b``'s).
        b: The denominator; not zero.
        digits: Significant digits of ``a``, ``b`` and the ratio (default :data:`RATIO_SIGNIFICANT`; the ratio by
            :func:`times`, so one that is not 1 never prints as 1).

    Returns:
        ``"A / B = R×"``.

    Raises:
        ZeroDivisionError: ``b`` prints as 0 at ``digits`` significant digits.
    """

    def decimals(x: float) -> int:
        return max(0, digits - 1 - math.floor(math.log10(abs(x)))) if x and math.isfinite(x) else 0

    da, db = decimals(a), decimals(b)
    return f"{fmt(a, da)} / {fmt(b, db)} = {times(round(a, da) / round(b, db), digits)}"


def fmt_given(value: float | None, digits: int = 2) -> str:
    """A number the user gave (a latency budget, a request rate): :func:`fmt` with ``digits``
    decimals, more where it needs them to stay the number given: a 0.025 ms budget printed as
    "0.03 ms" read as another budget (issue 26), and a 1e-7 one as "0.000000" read as none
    (session 6). Up to :data:`GIVEN_SIGNIFICANT` significant digits; never scientific notation,
    and a number that is not zero never reads as zero."""
    if value is None:
        return fmt(value)
    lead = -math.floor(math.log10(abs(value))) if value and math.isfinite(value) else 0  # 1e-7: the 7th decimal
    most = max(digits, lead + GIVEN_SIGNIFICANT - 1)
    more = next((d for d in range(digits, most + 1) if round(value, d) == value), most)
    return fmt(value, more)


def name_then_numbers(columns: int) -> list[Align]:
    """Alignments of a table whose first column names the row and the other ``columns - 1``
    hold numbers: left, then right."""
    numbers: list[Align] = ["right"] * (columns - 1)
    return ["left", *numbers]


def _cell(value: object) -> str:
    # a "|" inside a cell (an error message) would end the cell: escape it
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], align: Sequence[Align]) -> list[str]:
    """A markdown pipe table as lines (header, alignment row, one line per row).

    Args:
        headers: Column titles.
        rows: One sequence of cells per row; a short row is padded with empty cells.
        align: One alignment per column (``"left"``, ``"right"`` or ``"center"``).

    Returns:
        The table's lines, without a trailing blank line.
    """
    width = len(headers)
    body = [[_cell(c) for c in row] + [""] * (width - len(row)) for row in rows]
    return tabulate(body, [_cell(h) for h in headers], tablefmt="pipe", colalign=tuple(align), disable_numparse=True).splitlines()


#: Where the report's long lists continue (written beside ``report.md`` by :mod:`perf.report.appendix`).
APPENDIX_FILE = "appendix.md"
#: Variants per level table of the report, plus the baseline (``triton-perf report --top``); the
#: plots of a larger run highlight as many by peak throughput.
TOP_N = 10
#: Items a list of the report shows before it says "... more in the appendix".
LIST_LIMIT = 5


def capped(items: Sequence[str], limit: int = LIST_LIMIT, indent: str = "") -> list[str]:
    """Markdown bullet lines of the first ``limit`` ``items`` (each already a bullet's text),
    then one bullet saying how many more are in :data:`APPENDIX_FILE`."""
    lines = [f"{indent}- {x}" for x in items[:limit]]
    if len(items) > limit:
        lines.append(f"{indent}- … {len(items) - limit} more in [{APPENDIX_FILE}]({APPENDIX_FILE}).")
    return lines


#: The most characters :func:`packed` puts on one line; report.md's lines stay within 1,200 (trial 19, T19-17).
PACKED_CHARS = 1000


def packed(parts: Sequence[str], limit: int = PACKED_CHARS, sep: str = " ") -> list[str]:
    """A paragraph's sentences as markdown lines: the first line holds the first part and as many more as fit in
    ``limit`` characters, then one bullet (``"- "``) each holding as many of the rest as fit, in order, ``sep``
    between parts on a line: a long paragraph becomes a short one and a list (trial 19, T19-17: one line of 2,205
    characters), without a line per short sentence (the report's line bound)."""
    lines: list[str] = []
    for part in (p for p in parts if p):
        if lines and len(lines[-1]) + len(sep) + len(part) <= limit:
            lines[-1] += sep + part
        else:
            lines.append(part if not lines else f"- {part}")
    return lines


def errors_text(*errors: str | None) -> str:
    """Errors for a table cell or a line: each one's first line, whole (a sentence cut at a
    character count read as a different error), each distinct one once, joined with ``; ``."""
    return "; ".join(dict.fromkeys(e.strip().splitlines()[0] for e in errors if e and e.strip()))


#: Characters of an error message a report or console line shows (perf_analyzer's messages can run
#: to pages); the whole message stays in ``results.json`` and ``flat.csv``.
ERROR_CHARS = 240


def short_error(*errors: str | None) -> str:
    """:func:`errors_text`, cut at :data:`ERROR_CHARS` on a word, saying where the rest is."""
    text = errors_text(*errors)
    if len(text) <= ERROR_CHARS:
        return text
    return text[:ERROR_CHARS].rsplit(" ", 1)[0] + " … (cut; the whole message is in results.json)"


def md_text(text: str) -> str:
    """``text`` (a program's message) safe in a markdown line: every character markdown would
    read as markup (emphasis, code, links, HTML, a table's ``|``) escaped with a backslash."""
    return re.sub(r"([\\`*_\[\]<>|#~])", r"\\\1", text)


# ---------------------------------------------------------------- files a user may edit

#: The record, in each folder the toolkit writes reports into, of the digest of each file as it wrote it last.
WRITTEN_FILE = ".written.json"


def previous_path(path: Path) -> Path:
    """Where an earlier ``path`` is kept when the toolkit writes it anew: beside it, the lowest free N, a folder as
    ``<name>.previous-N`` (an earlier deployment bundle), a file as ``<stem>.previous-N<suffix>`` (``report.md`` ->
    ``report.previous-1.md``, which still opens as markdown). The one naming rule of every kept copy."""
    n = 1
    while (kept := _previous(path, n)).exists():
        n += 1
    return kept


def _previous(path: Path, n: int) -> Path:
    name = f"{path.name}.previous-{n}" if path.is_dir() or not path.suffix else f"{path.stem}.previous-{n}{path.suffix}"
    return path.with_name(name)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _written(folder: Path) -> dict[str, str]:
    try:
        record = json.loads((folder / WRITTEN_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in record.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(record, dict) else {}


def write_kept(path: Path, text: str) -> Path | None:
    """Write ``text`` to ``path`` (a report, its appendix, a comparison: files a user may add notes to); an earlier
    ``path`` that differs from what the toolkit last wrote there (its digest, recorded in the folder's
    :data:`WRITTEN_FILE`; a file of no record counts as edited) and from ``text`` is kept aside first as
    :func:`previous_path`, said in one line (trial 25, T25-17: ``triton-perf report RUN`` and a ``--resume`` of a
    finished run rewrote report.md, a user's notes in it lost with no copy). An unedited one is replaced silently.

    Returns:
        Where the earlier file was kept, else ``None``.
    """
    path = Path(path)
    data = text.encode()
    written = _written(path.parent)
    kept = None
    if path.is_file():
        before = path.read_bytes()
        if before != data and written.get(path.name) != _digest(before):
            kept = previous_path(path)
            path.rename(kept)
            why = (
                "differs from what the toolkit last wrote there (edited?)"
                if path.name in written
                else "was written before the toolkit recorded what it writes, so an edit in it cannot be told"
            )
            log.warning("%s %s: kept as %s", path, why, kept.name)
    path.write_bytes(data)
    (path.parent / WRITTEN_FILE).write_text(json.dumps({**written, path.name: _digest(data)}, indent=1, sort_keys=True) + "\n")
    return kept


def mark_written(path: Path, line: str, blank: bool = True) -> None:
    """Put ``line`` (a mark: :mod:`perf.report_state`) after the title of ``path``, a file :func:`write_kept`
    wrote; one as the toolkit wrote it stays the toolkit's (its digest recorded again, so the next :func:`write_kept`
    replaces it silently), an edited one stays told as edited (kept aside when written anew). ``blank``: a blank line
    between the title and ``line`` (without: ``line`` takes no more read lines than itself)."""
    before = path.read_bytes()
    lines = before.decode("utf-8", errors="replace").split("\n")
    at = 1 if lines and lines[0].startswith("# ") else 0
    data = "\n".join([*lines[:at], *([""] if at and blank else []), line, *([] if at else [""]), *lines[at:]]).encode()
    path.write_bytes(data)
    written = _written(path.parent)
    if written.get(path.name) == _digest(before):
        (path.parent / WRITTEN_FILE).write_text(
            json.dumps({**written, path.name: _digest(data)}, indent=1, sort_keys=True) + "\n"
        )
