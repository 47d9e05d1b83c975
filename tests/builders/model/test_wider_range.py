"""The one "rebuild with a wider range" advice (builders.model.spec_flags.wider_range_hint): the end
a refused size lies beyond moves out to it, ``opt`` stays within ``[min, max]`` (trial 9, F11:
``clients infer --shape series:4,8`` on ``time=16,128,512`` was told to rebuild with ``time=16,128,512``)."""

from __future__ import annotations

import pytest

from builders.model.spec import ModelSpec
from builders.model.spec_flags import parse_axis_flag, widened_range, wider_range_hint
from builders.model.tensor import TensorSpec


@pytest.mark.parametrize(
    "bounds, sizes, wide",
    [
        ((16, 128, 512), [8], (8, 128, 512)),  # below min: the left end moves
        ((16, 128, 512), [1024], (16, 128, 1024)),  # above max: the right end moves
        ((16, 128, 512), [600, 8, 1024], (8, 128, 1024)),  # both ends, several sizes
        ((16, 16, 512), [2], (2, 16, 512)),  # opt at min: it stays, still within the wider range
        ((64, 64, 64), [1], (1, 64, 64)),  # a one-size range: opt stays at its max
        ((16, 128, 512), [16, 512], (16, 128, 512)),  # sizes within change nothing
    ],
)
def test_the_range_widens_at_the_end_a_size_lies_beyond(bounds: tuple, sizes: list, wide: tuple) -> None:
    got = widened_range(bounds, sizes)
    assert got == wide and got[0] <= got[1] <= got[2]
    assert all(got[0] <= s <= got[2] for s in sizes)
    ModelSpec((TensorSpec("x", "float32", ("t",)),), (), {"t": got})  # a range the spec accepts


def test_the_hint_gives_a_flag_the_build_parses_and_the_spec_file_entry() -> None:
    hint = wider_range_hint("time", (16, 128, 512), [8])
    assert hint.startswith("to serve 8, rebuild with a wider range: builders build ... --dynamic-axis time=8,128,512 ")
    assert '(a spec file: "dynamic_axes": {"time": [8, 128, 512]})' in hint
    flag = hint.split("--dynamic-axis ")[1].split(" ")[0]
    assert parse_axis_flag(flag) == ("time", (8, 128, 512), None)
    two = wider_range_hint("time", (16, 128, 512), [1024, 8, 8], verb="sweep")
    assert two.startswith("to sweep 8 and 1024, rebuild with a wider range: builders build ... --dynamic-axis time=8,128,1024 ")


@pytest.mark.parametrize(
    "sizes, said",
    [
        ([10, 130], "10 and 130 are not multiples"),  # trial 29, T29-12: time=16,64,144/16 holds neither
        ([130], "130 is not a multiple"),
        ([144, 10], "10 is not a multiple"),  # 144 is on the step: the wider range holds it
    ],
)
def test_a_size_off_the_step_is_not_promised_by_the_rebuild(sizes: list, said: str) -> None:
    """The rebuild flag keeps the axis's step, so no rebuild of it serves a size off the step: the advice says so and
    which multiples the wider range takes, never "to sweep 10 and 130" of a range that holds neither."""
    hint = wider_range_hint("time", (16, 64, 128), sizes, verb="sweep", step=16)
    assert said in hint, hint
    flag = hint.split("--dynamic-axis ")[1].split(" ")[0]
    axis, (lo, _, hi), step = parse_axis_flag(flag)
    taken = [s for s in sizes if lo <= s <= hi and s % (step or 1) == 0]
    promised = [s for s in sizes if f"to sweep {s}" in hint or f"sweep {s} " in hint]
    assert set(promised) <= set(taken), hint
    assert "144" in hint and all(s % 16 == 0 for s in (lo, hi))


def test_sizes_on_the_step_are_promised_as_before() -> None:
    hint = wider_range_hint("time", (16, 64, 128), [144], verb="sweep", step=16)
    assert hint.startswith("to sweep 144, rebuild with a wider range: builders build ... --dynamic-axis time=16,64,144/16 ")
