"""One symmetric median of per-round ratios (perf.analysis.stats.paired.median_ratio, median_gain): the median of
the log ratios, so A over B is exactly 1 / (B over A) for any count of rounds (issue 26, R16-3: with 2 rounds the
arithmetic median, the mean of the two, put the pick "1.28x ahead" of a rival that was, turned, "1.06x ahead" of
it; "c=1/c=4 median ratio 0.80" beside a per-round c=1/c=4 median of 1.02)."""

from __future__ import annotations

import math
import random
import re
import statistics

import pytest
from factories import params

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.paired import median_gain, median_ratio, paired
from perf.records.build_check import BuildCheck
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.report.conclusions.pairs import ranked_text


def test_turning_every_ratio_turns_the_median_for_any_count_of_rounds() -> None:
    rng = random.Random(26)
    for _ in range(3000):
        ratios = [math.exp(rng.uniform(-3.0, 3.0)) for _ in range(rng.randint(1, 12))]
        m = median_ratio(ratios)
        assert median_ratio([1.0 / r for r in ratios]) == pytest.approx(1.0 / m, rel=1e-12, abs=0.0)
        assert median_gain([r - 1.0 for r in ratios]) == pytest.approx(m - 1.0, rel=1e-12, abs=1e-12)
        if len(ratios) % 2:  # an odd count: the middle ratio itself, as before
            assert m == statistics.median(ratios)
            assert median_gain([r - 1.0 for r in ratios]) == statistics.median([r - 1.0 for r in ratios])


def test_an_even_count_is_the_geometric_mean_of_the_two_middle_ratios() -> None:
    assert median_ratio([1.9, 0.66]) == pytest.approx(math.sqrt(1.9 * 0.66), rel=1e-15)
    assert median_ratio([4.0, 0.5, 1.0, 9.0]) == pytest.approx(2.0, rel=1e-15)
    assert median_gain([-0.3, 0.5, -0.25, 0.42]) == pytest.approx(math.sqrt(0.75 * 1.42) - 1.0, rel=1e-15)
    for bad in ([], [1.0, 0.0], [-1.0], [math.inf, 1.0], [math.nan]):
        with pytest.raises(ValueError):
            median_ratio(bad)
    with pytest.raises(ValueError):
        median_gain([-1.0, 0.2, 0.3])


def test_a_against_b_and_b_against_a_say_the_same_leader_and_the_same_size() -> None:
    a, b = [190.0, 50.0], [100.0, 100.0]  # ratios 1.9 and 0.5: the mean 1.2 one way, 1.26 turned: both "ahead"
    ab, ba = paired(a, b), paired(b, a)
    assert ab is not None and ba is not None
    assert ab.median * ba.median == pytest.approx(1.0, rel=1e-12)
    assert ab.median < 1.0 < ba.median  # B ahead, said both ways
    assert "0.975× median of the per-round ratios" in ab.describe() and "1.03× median of the per-round ratios" in ba.describe()
    rng = random.Random(3)
    for _ in range(500):
        n = rng.choice((2, 4, 6, 8))
        xs, ys = ([rng.uniform(50.0, 500.0) for _ in range(n)] for _ in range(2))
        fwd, back = paired(xs, ys), paired(ys, xs)
        assert fwd is not None and back is not None
        assert fwd.median * back.median == pytest.approx(1.0, rel=1e-12)
        assert (fwd.median > 1.0) == (back.median < 1.0)


def _lv(r: int, t: float) -> LevelResult:
    return LevelResult(4, 1, r, throughput_infer_per_s=t, latency_p99_ms=8.0)


def test_the_conclusions_say_the_pick_against_a_rival_and_the_rival_against_the_pick_alike() -> None:
    """4 rounds, per-round ratios 2.5, 2.0, 1.0 and 0.83: the pick +41.4 % over it and it -29.3 % against the pick
    (1.414 x 0.707 = 1); the arithmetic median said +50.0 % and -25.0 % (1.5 x 0.75 = 1.125)."""
    pick = [_lv(r, 1000.0) for r in range(4)]
    rival = [_lv(r, t) for r, t in enumerate((400.0, 500.0, 1000.0, 1200.0))]
    a = VariantResult(params(1, True)["name"], params(1, True), "ok", None, pick, build_check=BuildCheck())
    b = VariantResult(params(2, True)["name"], params(2, True), "ok", None, rival, build_check=BuildCheck())
    run = RunResult("r", "now", {}, {}, [a, b])
    run.rounds = RoundsRecord(seed=1)
    rec = recommend(run)
    assert rec.best_peak is not None and rec.best_peak.variant == a.name
    ahead, behind = ranked_text(run, rec, b.name), ranked_text(run, rec, b.name, of_pick=False)
    assert ahead is not None and behind is not None
    assert ahead.startswith("the median of the paired per-round ratios is +41.4 % over 4 rounds"), ahead
    assert behind.startswith("the median of the paired per-round ratios is -29.3 % over 4 rounds"), behind
    up, down = (float(re.search(r"is ([+-][\d.]+) %", t).group(1)) for t in (ahead, behind))  # type: ignore[union-attr]
    assert (1.0 + up / 100.0) * (1.0 + down / 100.0) == pytest.approx(1.0, abs=1e-3)
