"""Plot colours (reviewer, session 6): the efficiency plot's in-process (#252525) and client recv
(#08306b) were both near-black; the rule (two colours of a picture apart, and from white) held for
one palette only and on RGB distance, which passed them (0.30 apart). Now one rule over every
palette (:mod:`perf.plots.palette`), read back from the artists too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from factories import make_run
from matplotlib.colors import to_hex

from perf.analysis.stats.points import run_points
from perf.plots import bars as plot_bars
from perf.plots.efficiency import SEGMENTS
from perf.plots.palette import COMPONENT_LOOKS, GREYS, PALETTES, SERIES, clashes, read_as

#: A colour named in code: a hex string, matplotlib's "C3" / "tab:red", or a CSS name.
COLOUR_LITERAL = re.compile(r"""["'](#[0-9a-fA-F]{3,8}|C\d|tab:\w+|grey|gray|black|white|red|blue|green|orange)["']""")


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_every_palette_keeps_the_rule(name: str) -> None:
    assert clashes(PALETTES[name]) == []


@pytest.mark.parametrize(
    ("colours", "why"),
    [
        (("#252525", "#08306b"), "near-black"),  # the reviewer's pair
        (("#9ecae1", "#6baed6"), "apart"),  # trial 6's two blues
        (("#d4d4d4",), "apart"),  # too close to the white background
    ],
)
def test_the_rule_catches_what_readers_could_not_tell_apart(colours: tuple[str, ...], why: str) -> None:
    found = clashes(colours)
    assert found and any(why in c for c in found), found


def test_the_time_components_are_greys_told_apart_by_their_hatch() -> None:
    """Trial 28, T28-16: the components took hues of the variants' palette (network + protocol #2171b5 beside the
    variant #1f77b4); now greys of :data:`GREYS` (themselves kept apart by the rule), no two alike with their hatch,
    none reading as a variant's colour (:func:`perf.plots.palette.read_as`), and in the efficiency plot's order no
    segment the grey of the one beside it."""
    looks = list(COMPONENT_LOOKS.values())
    assert len(set(looks)) == len(looks) and {f.colour for f in looks} <= set(GREYS)
    assert [read_as(f.colour, s) for f in looks for s in SERIES if read_as(f.colour, s)] == []
    fills = [f for _, _, f in SEGMENTS]
    assert all(a.colour != b.colour for a, b in zip(fills, fills[1:]))


def test_the_breakdown_bars_draw_the_components_looks_read_back(tmp_path: Path, keep_figures) -> None:
    figures = keep_figures(plot_bars)
    plot_bars.plot_breakdown(run_points(make_run()), tmp_path / "b.png")
    (fig,) = figures
    looks = [
        (to_hex(c.patches[0].get_facecolor()), c.patches[0].get_hatch()) for ax in fig.axes for c in ax.containers if c.patches
    ]
    assert len(looks) == 4 and len(set(looks)) == 4 and {c for c, _ in looks} <= set(GREYS)
    assert all(a[0] != b[0] for a, b in zip(looks, looks[1:]))  # each segment's grey differs from the next one's


def test_no_module_that_draws_names_a_colour_of_its_own() -> None:
    """Every colour comes from the palette module, so the rule covers every plot (the HTML report's
    charts too: review, html.py named two of its own)."""
    root = Path(__file__).resolve().parents[3] / "perf"
    drawing = [*(root / "plots").glob("*.py"), root / "report" / "html.py"]  # what draws charts (not terminal colours)
    named = {p.name: COLOUR_LITERAL.findall(p.read_text()) for p in drawing if p.name != "palette.py"}
    assert {k: v for k, v in named.items() if v} == {}


def test_the_marks_keep_the_rule_beside_the_series() -> None:
    """Review: ALERT (the pick, a rate not achieved) was the fourth series' red, and the two greys
    (reference line, context series) were 18.3 apart: marks are seen beside the series."""
    from perf.plots.palette import ALERT, CONTEXT, REFERENCE, SERIES

    assert clashes([*SERIES, CONTEXT, REFERENCE, ALERT]) == []
