"""A capped list's "… N more" in appendix.md points at a list that is there (trial 27, T27-6: the appendix's copy of a
moved list said "… 2 more in its full list above", and the appendix, the list's home, had no fuller list)."""

from __future__ import annotations

from perf.report.appendix import more_pointed, without_copies

MOVED = [
    "## Recommendation: the variants excluded",
    "",
    "- `a`: failed",
    "- `b`: failed",
    "- … 2 more in [appendix.md](appendix.md).",
    "",
]


def test_a_moved_capped_list_names_the_section_holding_every_item() -> None:
    held = ["## Other", "", "- x", "", "## Every exclusion", "", *[f"- `{v}`: failed" for v in "abcd"], ""]
    lines = without_copies(held, MOVED)
    assert "- … 2 more in its full list, section “Every exclusion” above." in lines, lines
    assert not any("more in [appendix.md]" in ln for ln in lines)


def test_a_capped_list_with_no_full_list_here_points_nowhere() -> None:
    lines = without_copies(["## Other", "", "- `a`: failed", ""], MOVED)
    assert "- … 2 more." in lines, lines
    assert not any("full list" in ln or "more in [appendix.md]" in ln for ln in lines)


def test_a_list_shorter_than_the_count_is_no_full_list_and_below_is_said() -> None:
    secs = [MOVED, ["## Every exclusion", "", "- `a`: failed", "- `b`: failed", "- `c`: failed", ""]]
    assert "- … 2 more." in more_pointed(secs)  # 3 items: not the 4
    secs[1].insert(-1, "- `d`: failed")
    assert "- … 2 more in its full list, section “Every exclusion” below." in more_pointed(secs)


def test_a_count_without_the_ellipsis_is_pointed_the_same() -> None:
    """Main effects' interactions end "- 2 more in appendix.md" (no "…"): moved with their section, the same rule."""
    moved = ["## Main effects", "", "- a flips b.", "- 2 more in [appendix.md](appendix.md).", ""]
    held = ["## Interactions that change an effect's sign", "", "- a flips b.", "- c flips d.", "- e flips f.", ""]
    assert "- 2 more in its full list, section “Interactions that change an effect's sign” above." in without_copies(held, moved)
