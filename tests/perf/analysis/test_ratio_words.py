"""Ratios said beside words agree with them (issue 26, K4; trial 19): "far over the budget ... (p99 37.37 ms,
1× the budget ...)" for 1.49 (T19-3), and "0.799× slower" beside "0.799× fp32's speed" (T19-7)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perf.analysis.ranking.budget_latency import Judged
from perf.analysis.stats.paired import paired
from perf.markdown import factor, times
from perf.records.profile import PrecisionRow
from perf.report.sections.profile import speedup_cell, speedup_sentences

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("ratio", [x / 1000 for x in range(1, 30000, 37)])
def test_a_ratio_never_prints_as_1_unless_it_is_near_1_and_keeps_its_side_of_1(ratio: float) -> None:
    said = times(ratio)
    assert said.endswith("×")
    shown = float(said[:-1].replace(",", ""))
    if ratio > 1.05 or ratio < 0.95:
        assert shown != 1.0, (ratio, said)
    if ratio != 1.0:
        assert (shown > 1) == (ratio > 1) or shown == round(ratio, 3), (ratio, said)  # never across 1
    assert abs(shown - ratio) <= max(0.5, 0.05 * ratio), (ratio, said)


def test_factor_says_how_many_times_never_below_1() -> None:
    assert factor(0.799) == "1.3× slower" and factor(1.75) == "1.8× faster" and factor(0.02) == "50× slower"
    assert factor(0.5, "higher", "lower") == "2.0× lower"


def test_far_over_the_budget_says_the_ratio_over_the_bound_it_exceeds() -> None:
    """T19-3: p99 37.37 ms over a 25 ms budget, 0.6 of 2 cores used by others (at most 1.4× slower)."""
    j = Judged(37.37, 3, 37.37, 3, 3, load_pct=60.0, cores=2)
    said = j.far_over(99, 25.0)
    assert said is not None and "far over the budget" in said
    assert "1.5× the budget" in said and "1× the budget" not in said, said
    ratio, bound = (float(x) for x in re.findall(r"([\d.]+)× (?:the budget|on average)", said))
    assert ratio > bound, said  # as printed: over the bound the words say it exceeds
    close = Judged(25.0 * 1.432, 3, 25.0, 3, 3, load_pct=60.0, cores=2)  # just over the 1.4286× bound
    said = close.far_over(99, 25.0) or ""
    ratio, bound = (float(x) for x in re.findall(r"([\d.]+)× (?:the budget|on average)", said))
    assert ratio > bound, said
    light = Judged(25.0 * 13, 3, 25.0, 3, 3, load_pct=4.0, cores=2)  # a bound of 1.02: "1.0×" before (s17b's re-render)
    said = light.far_over(99, 25.0) or ""
    assert "at most 1.02× on average" in said, said


def _row(precision: str, ratio: float, verdict: str | None, low: float, high: float) -> PrecisionRow:
    r = PrecisionRow(runtime="eager PyTorch", device="cpu", precision=precision, method="autocast")
    r.speedup_vs_fp32, r.speedup_verdict, r.speedup_low, r.speedup_high = ratio, verdict, low, high
    r.speedup_p_value, r.speedup_p_tier = 0.008, "sign"
    r.rounds_ms = [1.0] * 8
    return r


def test_a_speed_ratio_below_1_is_never_said_n_times_slower() -> None:
    """T19-7: the precision table's "0.799× slower (0.677–0.922)" beside the bullet's "0.799× fp32's speed"."""
    slow, fast = _row("fp16", 0.799, "slower", 0.677, 0.922), _row("bf16", 1.75, "faster", 1.61, 1.90)
    cell = speedup_cell(slow)
    assert "0.799× slower" not in cell and "0.799× fp32's speed" in cell and "slower" in cell, cell
    assert "1.75× fp32's speed" in speedup_cell(fast) and "faster" in speedup_cell(fast)
    assert speedup_cell(slow, "too few rounds").startswith("slower in every round, not called (too few rounds)")
    bullets = " ".join(speedup_sentences([_row("fp32", 1.0, None, 1.0, 1.0), slow]))
    assert "0.799× fp32's speed" in bullets and "0.799× slower" not in bullets


def test_a_paired_cell_says_the_ratio_then_the_verdict() -> None:
    p = paired([210.0, 190.0, 200.0, 202.0, 180.0, 240.0], [300.0, 290.0, 310.0, 293.0, 280.0, 260.0])
    assert p is not None and p.median < 1
    assert not re.search(r"\d× (lower|higher|slower|faster)", p.cell()), p.cell()


def test_no_source_prints_a_ratio_whole_or_n_times_slower_by_hand() -> None:
    """The kind, across perf/: a ratio printed with no decimals beside "×"/"x" (T19-3's "1×"), or a number followed
    by a comparative word (T19-7) other than through perf.markdown.factor (N never below 1)."""
    bad = re.compile(r"(:\.0f\}|, 0\)\})(×|x\b)|\}(×|x) (slower|faster|lower|higher)\b")
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted((ROOT / "perf").rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if bad.search(line)
    ]
    assert not found, found


#: A ratio formatted by hand (s18a, issue 26): a format spec on anything but a rule's constant (``{FAR_GAP:g}×``) right
#: before "×"/"x"/"times" ("{ratio:.2f}×" printed 0.9996 as "1.00×"); a formatted number after "ratio(s)" or "min–max"
#: ("median ratio {r.median:.2f}", "min–max {low:.3g}–{high:.3g}": "1–1"); a ratio-named field with a fixed format
#: that no unit follows (the Paired ranking's "{r.median:.3f}" cell). Only perf.markdown (ratio_number, times,
#: ratio_span) formats a ratio.
HAND_RATIO = (
    re.compile(r"\{(?![A-Z_0-9]+:)[^{}]*:[^{}]*\}\s?(×|x\b|times\b)"),
    re.compile(r"(min–max|ratios?) \{[^{}]*:[^{}]*\}"),
    re.compile(r"\{[^{}]*\.(?:\w+_)?(median|low|high|ratio)\b[^{}]*:,?\.\d+[fg]\}(?!\s?(%|ms|µs|s\b|infer|MiB|GiB))"),
)


def test_no_source_formats_a_ratio_by_hand() -> None:
    """The kind, in every package: a ratio shown to a user goes through perf.markdown's one rule (a ratio that is not
    1 never prints as 1; ``:.3g``, ``:.2f``, ``:.3f`` printed 1.0004 as "1×", "1.00×", "1.000"). The rule's
    constants (``{FAR_GAP:g}×``, ``{GAP_MIN:g}×``) are given numbers, printed as given."""
    found = [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for package in ("perf", "clients", "builders", "core", "scripts")
        for p in sorted((ROOT / package).rglob("*.py"))
        if p != ROOT / "perf" / "markdown.py"
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if any(bad.search(line) for bad in HAND_RATIO)
    ]
    assert not found, found


def test_no_source_prints_n_times_a_reference_with_fixed_decimals_by_hand() -> None:
    """The kind of "{at / budget_ms:.1f}x the budget" (export-deployment's caveat: "1.0x the budget" for 1.04, an "x"
    where every other says "×"): a ratio printed with fixed decimals beside "×"/"x" and the word naming what it is a
    multiple of ("the budget", "its steady latency", "as long as") goes through perf.markdown.times, in every package."""
    bad = re.compile(r":,?\.\d+f\}(×|x) (the|its|as|of)\b")
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for package in ("perf", "clients", "builders", "core", "scripts")
        for p in sorted((ROOT / package).rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if bad.search(line)
    ]
    assert not found, found
