"""Every ratio shown to a user goes through one rule (perf.markdown.ratio_number / times / ratio_span; issue 26, K4):
a ratio that is not 1 never prints as 1. Before, the paired cells and spreads (``:.3g``), the precision table
(``:.3g``), Serving efficiency (``:.2f``), Main effects (``:.3f``), the Paired ranking table (``:.3f``) and the tie
words (``:.2f``) printed 1.0004 as "1×", "1.00×" or "1.000", and a min–max of 1.0003–1.0005 as "1–1"."""

from __future__ import annotations

import re

import pytest

from perf.analysis.ranking.operating import Comparison, Side
from perf.analysis.ranking.standing import times_words
from perf.analysis.stats.paired import Paired, paired
from perf.markdown import ratio_number, ratio_of, ratio_span, times
from perf.records.profile import PrecisionRow
from perf.report.sections.effects import _ranked_words
from perf.report.sections.efficiency_table import ratio_text
from perf.report.sections.profile import speedup_cell, speedup_sentences
from perf.report.sections.ranking import _row

#: A ratio printed as 1 (whole or with zeros after the point, "×" or not) where the ratio is not 1.
AS_ONE = re.compile(r"(?<![\d.])1(\.0+)?(×| times|–|\)|,|$)")


def _near_one() -> Paired:
    """Three paired rounds ahead by 0.03-0.05 %: median 1.0004, min–max 1.0003–1.0005."""
    p = paired([1000.3, 1000.4, 1000.5], [1000.0, 1000.0, 1000.0])
    assert p is not None and p.median != 1.0
    return p


def _comparison() -> Comparison:
    return Comparison(Side("a", 4, 1), Side("b", 4, 1), (0, 1, 2), _near_one())


def test_the_rule_prints_a_ratio_near_1_with_the_decimals_that_tell_it_from_1() -> None:
    assert ratio_number(0.9996) == "0.9996" and times(1.0004) == "1.0004×" and times(1.0004, 3) == "1.0004×"
    assert ratio_span(1.0003, 1.0005, 3) == "1.0003–1.0005" and ratio_span(0.95, 1.04) == "0.95–1.04"
    assert times(1.144, 3) == "1.14×" and times(0.887, 3) == "0.887×" and times(13.4, 3) == "13.4×"
    assert times(1.0) == "1.0×" and ratio_number(2.374, 3) == "2.37"
    assert ratio_of(100_000.0, 100_010.0).endswith("= 0.9999×"), ratio_of(100_000.0, 100_010.0)


@pytest.mark.parametrize(
    "said",
    [
        pytest.param(lambda: _near_one().spread_text(), id="paired spread"),
        pytest.param(lambda: _near_one().cell(), id="paired cell"),
        pytest.param(lambda: ratio_text(0.9996), id="serving efficiency"),
        pytest.param(lambda: _ranked_words(_comparison(), "its twin"), id="main effects"),
        pytest.param(lambda: " | ".join(_row(_comparison(), Side("a", 4, 1))[2:4]), id="paired ranking table"),
        pytest.param(lambda: times_words(_comparison(), "behind"), id="tie words"),
    ],
)
def test_no_output_prints_a_ratio_that_is_not_1_as_1(said) -> None:
    text = said()
    assert not AS_ONE.search(text), text
    assert re.search(r"(0\.9996|1\.000[345])", text), text


def test_the_precision_rows_print_a_speed_ratio_near_1_with_its_decimals() -> None:
    r = PrecisionRow(runtime="eager PyTorch", device="cpu", precision="fp16", method="autocast")
    r.speedup_vs_fp32, r.speedup_verdict, r.speedup_low, r.speedup_high = 0.9996, None, 0.9993, 0.9998
    r.speedup_p_value, r.speedup_p_tier = 0.5, "sign"
    r.rounds_ms = [1.0] * 8
    for text in (speedup_cell(r), " ".join(speedup_sentences([r]))):
        assert "0.9996× fp32's speed" in text and "0.999–0.9998" in text, text
        assert not AS_ONE.search(text), text
