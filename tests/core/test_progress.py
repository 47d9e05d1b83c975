"""A long step of counted work shows its progress as it goes (trial 16, T16-17: an fp16 build's
verification ran 1 min 44 s with no line between "verifying ... (5 input draws per point)" and
"ok"): on a terminal the status line is redrawn on every unit, off one a line is logged at most
every LOG_EVERY_S seconds and at the last unit, each with the count, the time so far and an
estimate of the rest."""

from __future__ import annotations

from core.progress import LOG_EVERY_S, CountedProgress, clock_text, progress_text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_says_the_count_the_time_so_far_and_the_estimate_of_the_rest():
    assert progress_text("torchscript fp16: verifying on cpu", 5, 25, 20.0) == (
        "torchscript fp16: verifying on cpu 5/25 [██░░░░░░░░] 0:20, ≈ 1:20 left"
    )
    assert progress_text("x", 0, 25, 0.0) == "x 0/25 [░░░░░░░░░░] 0:00"  # nothing done: no estimate
    assert progress_text("x", 25, 25, 104.0) == "x 25/25 [██████████] 1:44"  # done: no estimate
    assert clock_text(3723) == "1:02:03" and clock_text(59.6) == "1:00"


def test_off_a_terminal_a_line_is_logged_every_so_often_and_at_the_end():
    clock, shown, logged = Clock(), [], []
    counted = CountedProgress(shown.append, logged.append, clock=clock)
    total = 25
    step_s = LOG_EVERY_S / 4  # four units between two logged lines
    for done in range(total + 1):
        counted("verifying", done, total)
        clock.now += step_s
    assert len(shown) == total + 1  # the terminal's line: every unit
    assert logged[-1].startswith("verifying 25/25")  # the last unit, whenever it falls
    assert [line.split()[1] for line in logged] == ["4/25", "8/25", "12/25", "16/25", "20/25", "24/25", "25/25"]
    assert "≈ 0:42 left" in logged[1]  # 8 units in 20 s: 17 left at 2.5 s each, 42.5 s


def test_a_new_step_starts_its_own_clock():
    clock, logged = Clock(), []
    counted = CountedProgress(None, logged.append, clock=clock)
    counted("onnx fp16: verifying on cpu", 0, 2)
    clock.now += 30
    counted("onnx fp16: verifying on cpu", 2, 2)
    counted("torchscript fp16: verifying on cpu", 0, 4)
    clock.now += 1
    counted("torchscript fp16: verifying on cpu", 4, 4)
    assert logged == [
        "onnx fp16: verifying on cpu 2/2 [██████████] 0:30",
        "torchscript fp16: verifying on cpu 4/4 [██████████] 0:01",
    ]
