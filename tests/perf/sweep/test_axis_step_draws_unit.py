"""A mixed-size workload of axes with a step (trial 24, T24-7: ``--shapes H=64..256`` drew 191x112 for a U-Net that
takes multiples of 32, and every mixed level failed) draws multiples of the step only, across the range; axes
without one draw as before (step 1: the same sizes)."""

from __future__ import annotations

from perf.measure.mixed import MIXED_STEPS, first_size, mixed_sizes


def test_every_drawn_size_is_a_multiple_of_its_axis_step_and_the_mix_spans_the_range() -> None:
    drawn = mixed_sizes({"H": (64, 256), "W": (64, 2048)}, multiple_of={"H": 32, "W": 32})
    assert len(drawn) == MIXED_STEPS
    hs, ws = [d["H"] for d in drawn], [d["W"] for d in drawn]
    assert all(h % 32 == 0 and 64 <= h <= 256 for h in hs) and set(hs) == set(range(64, 257, 32))
    assert all(w % 32 == 0 and 64 <= w <= 2048 for w in ws) and len(set(ws)) == MIXED_STEPS
    assert min(ws) < 64 + 2048 // 16 and max(ws) > 2048 - 2048 // 16  # one in each sixteenth: the ends' too


def test_an_axis_without_a_step_draws_what_it_drew_before() -> None:
    axes = {"time": (1000, 16000), "H": (64, 256)}
    assert mixed_sizes(axes) == mixed_sizes(axes, multiple_of={}) == mixed_sizes(axes, multiple_of={"time": 1, "H": 1})
    assert mixed_sizes(axes, multiple_of={"H": 32})[0]["time"] == mixed_sizes(axes)[0]["time"]


def test_the_first_size_sent_is_the_first_drawn_multiple() -> None:
    first = first_size("H=64..256,W=128", {"H": 32})
    assert first == f"W=128,H={mixed_sizes({'H': (64, 256)}, multiple_of={'H': 32})[0]['H']}"
    assert int(first.split("H=")[1]) % 32 == 0
