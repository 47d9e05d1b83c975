"""A count printed beside its noun agrees with it, never "(s)" (``core/wording.py``'s rule).

``f"{len(failed)} variant(s) failed"`` reads "1 variant(s) failed" to a user; the library says
``count(len(failed), "variant")`` instead ("1 variant", "2 variants"), and the verb agrees
("1 variant has", "2 variants have"). This scans the library's source (core, builders, clients,
perf, scripts) for an f-string whose placeholder is followed by a noun written with "(s)", and
for a %-format (a log line) that does the same.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("builders", "clients", "perf", "core", "scripts")
# the text right after a placeholder: a noun, perhaps with words before it, then "(s)"
# ("{n} variant(s)", "{n} flagged level(s)", "{n} intra-op thread(s)", "{n} c= label(s)")
NOUN_S = re.compile(r"^\s*[\w =-]*\w\(s\)")
# the same after a %-placeholder of a number: "uploading %d file(s)"
PERCENT_NOUN_S = re.compile(r"%(?:\.\d+)?[dgfi]\s+[\w ]*\w\(s\)")


def _sources() -> list[Path]:
    """Every Python file of the library folders, sorted."""
    return sorted(p for f in FOLDERS for p in (ROOT / f).rglob("*.py") if "__pycache__" not in p.parts)


def _scan(text: str) -> list[tuple[int, str]]:
    """The line and the text of each count written as "N noun(s)" in the Python source ``text``."""
    hits = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.JoinedStr):
            for before, after in zip(node.values, node.values[1:]):
                if (
                    isinstance(before, ast.FormattedValue)
                    and isinstance(after, ast.Constant)
                    and isinstance(after.value, str)
                    and NOUN_S.match(after.value)
                ):
                    hits.append((after.lineno, "{...}" + after.value.strip()[:60]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and PERCENT_NOUN_S.search(node.value):
            hits.append((node.lineno, node.value.strip()[:60]))
    return hits


def test_the_library_is_found() -> None:
    """The scan looks at real files (a wrong root would pass it vacuously)."""
    sources = _sources()
    assert len(sources) > 50 and (ROOT / "core" / "wording.py") in sources


def test_the_scan_finds_a_count_with_s() -> None:
    """The patterns catch what they are for, and leave help texts and code alone."""
    src = (
        'a = f"{len(x)} variant(s) failed"\n'
        'b = f"{n} flagged level(s) measured"\n'
        'c = "uploading %d file(s)"\n'
        'h = f"{n} intra-op thread(s)"\n'
        'd = "Export format(s), e.g. torchscript,onnx"\n'
        "e = [list(s) for s in v]\n"
        "g = f\"{count(n, 'variant')} failed\"\n"
    )
    assert [line for line, _ in _scan(src)] == [1, 2, 3, 4]


def test_no_count_is_written_with_s() -> None:
    hits = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p in _sources() for line, text in _scan(p.read_text())]
    assert not hits, (
        f"{len(hits)} counts written as 'N noun(s)' (use core.wording.count(n, noun) or of(k, n, noun), and make "
        "the verb agree):\n" + "\n".join(hits)
    )
