"""A colour means one thing in every plot of a run (trial 28, T28-6 and T28-16), read back from the matplotlib
artists of the report's own plots (:func:`perf.plots.figures.write_plots` and the serving-efficiency section's):

* T28-6: small_multiples.png drew its lines (a batching setting and a format, not a variant) in the variants'
  palette by line order, so its orange line "batching off · torchscript" was the pick's orange in every other plot
  of the same run, and its green the orange line's variant there;
* T28-16: serving_efficiency.png's time components were other shades of the variants' hues: "network + protocol"
  #2171b5 beside a variant's #1f77b4 (ΔE*ab 5.6), and likewise a green and an orange.

The threshold of "reads as": :func:`perf.plots.palette.read_as` (within ΔE*ab 20, the palettes' own rule, or of a
hue within 30° of the variant's; a grey has no hue)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.colors import to_hex
from matplotlib.container import BarContainer, ErrorbarContainer
from synthetic_runs import synthetic_run, with_baseline

from perf.analysis.recommendation.recommend import recommend
from perf.plots import bars, canvas, efficiency, small_multiples
from perf.plots import figures as plots
from perf.plots.palette import SERIES, read_as
from perf.report.sections.efficiency import efficiency_section

#: The trial's grid: two formats, one and two instances, batching off and a 500 µs queue delay (8 variants).
GRID_8 = {"formats": ("onnx", "torchscript"), "counts": (1, 2), "delays": (None, 500), "mbs": (64,)}


def _drawn(fig) -> list[tuple[str, str]]:
    """``(colour, label)`` of every curve, point, mark and bar ``fig`` draws (a mark drawn hollow: its edge's
    colour; an unlabelled artist, a ring or a band, goes with its line and is left out, and so does a legend note in
    words, which draws nothing whatever its default colour)."""
    out = []
    for ax in fig.axes:
        for c in ax.containers:
            if isinstance(c, ErrorbarContainer):
                out.append((to_hex(c.lines[0].get_color()), c.get_label()))
            elif isinstance(c, BarContainer):
                out += [(to_hex(p.get_facecolor()), c.get_label()) for p in c.patches if p.get_width() > 0]
        for ln in ax.get_lines():
            hollow = ln.get_linestyle() in ("None", "none", "")
            if hollow and ln.get_marker() in (None, "None", "none", ""):
                continue  # a legend note in words: draws nothing
            out.append((to_hex(ln.get_markeredgecolor() if hollow else ln.get_color()), ln.get_label()))
    return out


def _meaning(label: str, variants: list[str]) -> str | None:
    """What an artist stands for: the one variant its label names (a curve, a pick, a frontier point's
    ``_frontier levels of ...``), else its label (a setting, a component); ``None`` for an artist without a label
    of its own or one naming several variants."""
    named = [v for v in variants if v in label and not any(v != w and v in w and w in label for w in variants)]
    if len(named) == 1:
        return named[0]
    return None if named or label.startswith("_") else label


def _figures(tmp_path: Path, keep_figures) -> tuple[list, list[str]]:
    run = with_baseline(synthetic_run(GRID_8, concurrency=(1, 2, 4, 8)))
    for module in (canvas, efficiency, small_multiples, bars):
        kept = keep_figures(module)
    made = plots.write_plots(run, tmp_path, latency_budget_ms=40.0, rec=recommend(run, 40.0))
    assert "Throughput by factor (small multiples)" in made
    efficiency_section(run, tmp_path, tmp_path)
    assert (tmp_path / "serving_efficiency.png").exists()
    return kept, [v.name for v in run.variants]


def test_a_colour_of_the_variants_means_one_variant_in_every_plot_of_a_run(tmp_path: Path, keep_figures) -> None:
    kept, variants = _figures(tmp_path, keep_figures)
    means: dict[str, dict[str, set[str]]] = {}  # variant palette colour -> meaning -> the figures drawing it so
    colour_of: dict[str, set[str]] = {}
    for fig in kept:
        title = fig.get_suptitle() or " / ".join(ax.get_title() for ax in fig.axes)
        for colour, label in _drawn(fig):
            meaning = _meaning(label, variants)
            if meaning is None:
                continue
            if meaning in variants:
                colour_of.setdefault(meaning, set()).add(colour)
            if colour in SERIES:
                means.setdefault(colour, {}).setdefault(meaning, set()).add(title[:60])
    assert len(colour_of) == len(variants) and all(len(c) == 1 for c in colour_of.values()), colour_of
    assert {c: m for c, m in means.items() if len(m) > 1} == {}  # before: orange the pick and "batching off · ..."
    assert set(means) == {next(iter(c)) for c in colour_of.values()}  # no variant colour on anything else


def test_no_time_component_reads_as_a_variant_colour_in_its_figure(tmp_path: Path, keep_figures) -> None:
    kept, variants = _figures(tmp_path, keep_figures)
    checked = 0
    for fig in kept:
        colours = {c for c, label in _drawn(fig) if _meaning(label, variants) in variants}
        fills = {to_hex(p.get_facecolor()) for ax in fig.axes for c in ax.containers if isinstance(c, BarContainer) for p in c}
        said = [why for c in fills for v in colours if (why := read_as(c, v))]
        assert said == [], (fig.axes[0].get_title(), said)  # before: "network + protocol" 5.6 from the blue variant
        checked += bool(fills and colours)
    assert checked == 1  # serving_efficiency.png: its variants' lines beside its components' bars
