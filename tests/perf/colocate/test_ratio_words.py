"""Every "a / b = r" the toolkit prints: the ratio follows from the numbers printed (re-check 18: colocate's cell
"the medians' ratio 44 / 48 = 0.909×" printed rounded medians beside the ratio of the unrounded 43.67 / 48.04)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from perf.analysis.stats.paired import paired
from perf.colocate.neighbours import Neighbours
from perf.markdown import ratio_of

ROOT = Path(__file__).resolve().parents[3]
SAID = re.compile(r"([\d,.]+) / ([\d,.]+) = ([\d,.]+)×")


def _follows(text: str) -> bool:
    """Whether the printed ratio is the printed numbers' quotient at the ratio's printed precision (its decimals):
    comparing both at 3 significant digits rounded twice ("418,247 / 7.00 = 59,750×": 59,749.6 is 5.97e+04, the
    printed 59,750 5.98e+04; hypothesis found it, session 22)."""
    said = SAID.search(text).groups()  # type: ignore[union-attr]
    a, b, r = (float(x.replace(",", "")) for x in said)
    decimals = len(said[2].split(".")[1]) if "." in said[2] else 0
    return abs(a / b - r) <= 0.5 * 10**-decimals * (1 + 1e-9)


@example(418247.0, 7.0)  # rounded twice by the old check
@given(st.floats(1e-4, 1e6), st.floats(1e-4, 1e6))
def test_dividing_the_printed_numbers_gives_the_printed_ratio(a: float, b: float) -> None:
    text = ratio_of(a, b)
    assert _follows(text), text
    assert abs(float(SAID.search(text).group(3).replace(",", "")) / (a / b) - 1) < 0.02, text  # type: ignore[union-attr]


def test_colocate_s_medians_ratio_follows_from_the_medians_it_prints() -> None:
    together, alone = [43.67, 35.0, 65.0], [48.04, 30.0, 60.0]  # per round 0.909, 1.17, 1.08: the medians disagree
    p = paired(together, alone)
    assert p is not None and p.median > 1
    row = Neighbours("segnet", "segnet_onnx_cpu2_nodb_mbs8", 48.04, 43.67, p, 39.0, 870.0, 6842.0)
    for short in (True, False):
        cell = row.ratio_words(short)
        assert "medians' ratio 43.7 / 48.0 = 0.910×" in cell and _follows(cell), cell


def test_no_other_a_over_b_equals_r_is_formatted_in_perf() -> None:
    """One rule (:func:`perf.markdown.ratio_of`): no f-string elsewhere in perf/ writes "{a} / {b} = {r}"."""
    pattern = re.compile(r"\{[^{}]+\} ?/ ?\{[^{}]+\} ?= ?\{")
    offenders = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted((ROOT / "perf").rglob("*.py"))
        if p.name != "markdown.py"
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
