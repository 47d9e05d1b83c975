"""small_multiples.png (trial 7, F16), read back from the matplotlib artists: a line never pools
variants of different formats (or any setting off the panels' axes) into a median no variant
had; flagged levels are ringed, the legend entry the other plots' (test_ring_words.py); a panel missing a line the grid has says
which and why. Hand-made records shaped like the trial's run (tests/support/factories.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import levels, params, run_result, variant_result

from perf.analysis.stats.points import run_points
from perf.plots import small_multiples
from perf.plots.canvas import RING_LABEL
from perf.plots.styles import ALL_DISTINCT

CUT = "cut for time: after the rounds 34 s of the time budget were left; measuring it needs 60 s"


def _variant(count: int, db: bool, fmt: str, thr: list[float], busy: bool = True, **kw):
    lv = levels(thr, [2.0 * (i + 1) for i in range(len(thr))]) if thr else []
    for x in lv:
        x.host_busy, x.host_busy_pct = busy, 60.0 if busy else 1.0
    return variant_result(params=params(count, db, fmt, model="tabular"), levels=lv, **kw)


def _trial_run():
    """ONNX 200-600 infer/s, TorchScript 20-30: 2 instances with batching off cut for time; every level host busy."""
    return run_result(
        [
            _variant(1, True, "onnx", [200, 600]),
            _variant(1, False, "onnx", [270, 540]),
            _variant(2, True, "onnx", [400, 1100]),
            _variant(2, False, "onnx", [], status="skipped", error=CUT),
            _variant(1, True, "torchscript", [20, 30]),
            _variant(1, False, "torchscript", [], status="skipped", error=CUT),
            _variant(2, True, "torchscript", [25, 32]),
            _variant(2, False, "torchscript", [], status="skipped", error=CUT),
        ]
    )


@pytest.fixture
def titles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every panel title of the figure the plot closes (read back before it is closed)."""
    real = small_multiples.pyplot()
    seen: list[str] = []

    class Spy:
        def __getattr__(self, name: str):
            return getattr(real, name)

        def close(self, fig) -> None:
            seen.extend(ax.get_title() for ax in fig.axes if ax.get_visible())
            real.close(fig)

    monkeypatch.setattr(small_multiples, "pyplot", Spy)
    return seen


def test_a_line_never_pools_formats(tmp_path: Path, titles: list[str]):
    run = _trial_run()
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    one = drawn["1 instance"]
    # before: one "queue delay 500 µs" line, the median of ONNX and TorchScript (110 and 315 infer/s)
    assert one["queue delay 500 µs · onnx"] == ([1.0, 2.0], [200.0, 600.0])
    assert one["queue delay 500 µs · torchscript"] == ([1.0, 2.0], [20.0, 30.0])
    assert one["batching off · onnx"] == ([1.0, 2.0], [270.0, 540.0])
    assert not [k for k in one if k in ("queue delay 500 µs", "batching off")]


def test_flagged_levels_are_ringed(tmp_path: Path, titles: list[str]):
    run = _trial_run()
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    ring = RING_LABEL  # the other plots' words (trial 28, T28-6: "ring: a flagged level behind the point † host busy")
    for panel in drawn.values():  # every level host busy: every point drawn is ringed
        points = sorted(
            (x, y) for k, (xs, ys) in panel.items() if k != ring and not k.startswith("no line") for x, y in zip(xs, ys)
        )
        assert sorted(zip(*panel[ring])) == points
    run.variants[0].levels[1].host_busy = False  # one level not busy: its point is not ringed
    for v in run.variants[1:]:
        for lv in v.levels:
            lv.host_busy = False
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    assert drawn["1 instance"][ring] == ([1.0], [200.0])
    assert ring not in drawn["2 instances"]


def test_a_panel_missing_a_line_says_which_and_why(tmp_path: Path, titles: list[str]):
    run = _trial_run()
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    note = "no line batching off · onnx: 1 variant cut for time"
    assert note in drawn["2 instances"] and note not in drawn["1 instance"]
    # the TorchScript ones with batching off were cut in both panels: no line anywhere, still said where the grid had them
    ts = "no line batching off · torchscript: 1 variant cut for time"
    assert ts in drawn["1 instance"] and ts in drawn["2 instances"]
    (two,) = [t for t in titles if t.startswith("2 instances")]
    assert note in two.replace("\n", " ")
    run.variants[3].status, run.variants[3].error = "failed", "server crashed while loading"
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    assert "no line batching off · onnx: 1 variant failed" in drawn["2 instances"]


def test_past_the_line_limit_a_line_names_what_its_median_pools(tmp_path: Path, titles: list[str]):
    """Many settings off the axes: the lines stay within the limit, and a line that pools
    variants differing in a setting says so in its label."""
    variants = []
    for count in (1, 2):
        for db in (False, True):
            for fmt in ("onnx", "torchscript"):
                for mbs in (8, 16, 32, 64):
                    p = params(count, db, fmt, model="tabular", max_batch_size=mbs)
                    variants.append(variant_result(params=p, levels=levels([100.0 * mbs, 110.0 * mbs], [1.0, 2.0])))
    run = run_result(variants)
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    lines = {k for p in drawn.values() for k in p}
    assert 1 < len(lines) <= ALL_DISTINCT
    assert "queue delay 500 µs · onnx (median over max_batch_size)" in lines  # formats split, mbs pooled and named


def test_a_format_that_differs_only_between_panels_is_named_on_its_lines(tmp_path: Path):
    """T25-25: TorchScript only in the "1 instance" panel and ONNX only in "2 instances": the lines said "batching
    off" in both, so the format's gain read as the instance count's; the lines now name the format."""
    run = run_result(
        [
            _variant(1, True, "torchscript", [100, 135]),
            _variant(1, False, "torchscript", [110, 130]),
            _variant(2, True, "onnx", [300, 367]),
            _variant(2, False, "onnx", [310, 350]),
        ]
    )
    drawn = small_multiples.plot_small_multiples(run, run_points(run), tmp_path / "s.png")
    assert drawn is not None
    assert {k for k in drawn["1 instance"] if k != RING_LABEL} == {
        "batching off · torchscript",
        "queue delay 500 µs · torchscript",
    }
    assert {k for k in drawn["2 instances"] if k != RING_LABEL} == {"batching off · onnx", "queue delay 500 µs · onnx"}
