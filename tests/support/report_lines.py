"""A report's lines as a reader says them, for tests that check that moving parts to appendix.md loses nothing."""

from __future__ import annotations

import re


def said_lines(text: str) -> list[str]:
    """A report's lines as said, bullets and indents taken off, spaces collapsed; headings, blank lines and
    the lines that point to the appendix (how much moved differs by design) left out."""
    out = []
    for ln in text.splitlines():
        said = " ".join(re.sub(r"^\s*(?:[->] )?", "", ln).split())
        if said and not ln.startswith("#") and "appendix.md" not in said:
            out.append(said)
    return out
