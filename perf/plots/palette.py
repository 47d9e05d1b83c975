"""Every colour the plots draw with, and the one rule they keep (:func:`clashes`).

Each palette (:data:`PALETTES`) is a set of colours a reader must tell apart in one picture: the
variants' series (with the grey of the context lines and the marks), and the greys of what is not a variant
(the stacked time components, the small multiples' lines).
The rule, on the CIE 1976 L*a*b* distance (ΔE*ab: Euclidean in a space made to follow what the
eye sees, from sRGB with the D65 white, IEC 61966-2-1):

* every two colours of one palette are at least :data:`MIN_DELTA_E` apart;
* every colour is that far from the white background too;
* no colour is near-black (L* below :data:`MIN_LIGHTNESS`): black draws the markers' edges,
  the rings of flagged levels and the text, and two dark fills read alike however far apart
  their channels are (reviewer, session 6: the efficiency plot's in-process #252525 and client
  recv #08306b were both near-black, 0.30 apart in RGB; trial 6 before that: two blues 0.19 apart).

A colour means one thing in every plot of a run: a colour of :data:`SERIES` is a variant's, given by
:func:`perf.plots.styles.series_looks` alone; whatever is not a variant (a time component, a line of the
small multiples) is drawn in :data:`GREYS`, of no hue, so that none :func:`read_as` a variant's colour.

Plot modules take colours from here only (a test checks that no other plot module names one).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable

#: The background.
WHITE = "#ffffff"
#: Ink: markers' edges, rings, text, the Pareto frontiers' staircase (not a palette member: the colour the others keep away from).
BLACK = "#000000"
#: Reference lines (the latency budget, achieved = offered, efficiency 1).
REFERENCE = "#808080"
#: Context series (variants not highlighted), drawn faint.
CONTEXT = "#bdbdbd"
#: Marks that call for attention: the pick, a request rate not achieved.
ALERT = "#d62728"
#: The variants' series: matplotlib's tab10 with its grey (#7f7f7f, a variant that looked like
#: the grey context and the grey budget line) replaced by an olive green, and its red (the
#: ALERT marks' red: a "not achieved" cross read as the fourth variant's) by a gold.
SERIES = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#e7ba52",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#637939",
    "#bcbd22",
    "#17becf",
)
#: Whatever a plot draws that is not a variant has no hue (trial 28, T28-6 and T28-16): :data:`SERIES` takes a
#: colour of nearly every hue (CIE LCh h: blue 265°, cyan 211°, green 138°, olive 121°, yellow-green 104°, gold
#: 85°, orange 59°, brown 37°, the ALERT red 34°, pink 338°, purple 312°), so a time component drawn blue beside a
#: blue variant read as that variant (serving_efficiency.png: "network + protocol" #2171b5, ΔE*ab 5.6 from the first
#: variant's #1f77b4; likewise #31a354 beside #2ca02c, #e6550d beside #ff7f0e), and a small-multiples line (a
#: batching setting, not a variant) drawn in a series colour read as the variant of that colour in every other plot.
#: Three greys, L* 31, 52, 73 (ΔE*ab 20 apart, and from white; at least 26 from every colour of SERIES), told apart
#: further by a hatch (:data:`COMPONENT_LOOKS`) or a marker and line style (the small multiples' lines).
GREYS = ("#4a4a4a", "#7c7c7c", "#b2b2b2")
DARK, MID, LIGHT = GREYS


@dataclasses.dataclass(frozen=True)
class Fill:
    """A bar segment that is not a variant: a grey of :data:`GREYS` and a matplotlib hatch (``""``: none)."""

    colour: str
    hatch: str

    @property
    def hatch_colour(self) -> str:
        """The hatch's ink: white on the dark grey, black on the others (each shows on its grey)."""
        return WHITE if self.colour == DARK else BLACK


#: The time components of a request, one look each (no two alike) in every plot that stacks them (the efficiency
#: plot splits compute infer into in-process time and serving overhead; the breakdown bars keep it whole). In
#: either plot's order each segment's grey differs from its neighbours'.
COMPONENT_LOOKS = {
    "client_send_us": Fill(LIGHT, ""),
    "network_server_us": Fill(DARK, "//"),
    "server_queue_us": Fill(MID, ""),
    "server_compute_input_us": Fill(LIGHT, "//"),
    "server_compute_infer_us": Fill(DARK, ""),
    "in_process": Fill(DARK, ".."),
    "overhead": Fill(MID, "//"),
    "server_compute_output_us": Fill(LIGHT, ".."),
    "client_recv_us": Fill(MID, ".."),
}
#: Palettes whose colours are seen together: name -> colours.
PALETTES: dict[str, tuple[str, ...]] = {
    "series": (*SERIES, CONTEXT, REFERENCE, ALERT),  # the marks are drawn beside the series
    "not a variant": GREYS,
}
#: Least ΔE*ab between two colours of a palette, and from the background (the trial-6 blues were 15.3 apart).
MIN_DELTA_E = 20.0
#: Least CIE L* (0 black - 100 white) of a palette colour: darker is near-black (#252525 is 15, #08306b 21).
MIN_LIGHTNESS = 30.0


#: Greatest CIE L* of a label's text (:func:`ink`): a series' colour lighter than this is darkened to it.
MAX_TEXT_LIGHTNESS = 50.0


def ink(colour: str) -> str:
    """``colour`` as a label's text: the same hue, darkened (towards black) until its L* is at most
    :data:`MAX_TEXT_LIGHTNESS`, so that a small label in a light series colour (the gold, the cyan) is
    read as easily as the black ones; a colour that dark already is returned as it is."""
    from matplotlib.colors import to_hex, to_rgb

    r, g, b = to_rgb(colour)
    scale = 1.0
    while lab(to_hex((r * scale, g * scale, b * scale)))[0] > MAX_TEXT_LIGHTNESS:
        scale -= 0.02
    return to_hex((r * scale, g * scale, b * scale))


def lab(colour: str) -> tuple[float, float, float]:
    """``colour`` (any matplotlib colour) in CIE L*a*b* (D65): sRGB decoded to linear light, to XYZ, to L*a*b*."""
    from matplotlib.colors import to_rgb

    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
    r, g, b = linear
    xyz = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )
    fx, fy, fz = (t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: str, b: str) -> float:
    """ΔE*ab (CIE 1976) between two colours."""
    return sum((x - y) ** 2 for x, y in zip(lab(a), lab(b))) ** 0.5


def clashes(colours: Iterable[str]) -> list[str]:
    """What breaks the module rule in one palette, in words; empty when nothing does."""
    palette = list(colours)
    out = [
        f"{a} and {b} are {delta_e(a, b):.1f} apart (ΔE*ab; at least {MIN_DELTA_E:g})"
        for a, b in itertools.combinations([*palette, WHITE], 2)
        if delta_e(a, b) < MIN_DELTA_E
    ]
    out += [f"{c} is near-black (L* {lab(c)[0]:.0f}, at least {MIN_LIGHTNESS:g})" for c in palette if lab(c)[0] < MIN_LIGHTNESS]
    return out


#: A colour of chroma (CIE C*ab) below this has no hue a reader names: a grey.
ACHROMATIC = 10.0
#: Least difference of hue (CIE LCh h, degrees) between a colour that is not a variant's and a variant's, both with a
#: hue: a paler or darker shade of a variant's hue reads as it however far apart (the old "compute infer" #a1d99b was
#: 41.5 from the green variant #2ca02c, 2° of hue apart).
MIN_HUE_APART = 30.0


def hue(colour: str) -> float | None:
    """``colour``'s CIE LCh hue angle (degrees, 0-360); ``None`` for a grey (chroma below :data:`ACHROMATIC`)."""
    _, a, b = lab(colour)
    return None if math.hypot(a, b) < ACHROMATIC else math.degrees(math.atan2(b, a)) % 360


def read_as(colour: str, variant_colour: str) -> str | None:
    """Why ``colour`` (drawn for something that is not a variant) reads as ``variant_colour`` in one figure, in
    words: within :data:`MIN_DELTA_E` of it (T28-16's pairs: 5.6, 17.5 and 17.9), or of its hue (within
    :data:`MIN_HUE_APART`); ``None`` when it does not."""
    if (d := delta_e(colour, variant_colour)) < MIN_DELTA_E:
        return f"{colour} is {d:.1f} from {variant_colour} (ΔE*ab; at least {MIN_DELTA_E:g})"
    h, v = hue(colour), hue(variant_colour)
    if h is not None and v is not None and (apart := min(abs(h - v), 360 - abs(h - v))) < MIN_HUE_APART:
        return f"{colour} has the hue of {variant_colour} ({apart:.0f}° apart; at least {MIN_HUE_APART:g})"
    return None
