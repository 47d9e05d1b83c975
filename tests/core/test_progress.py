"""A long step of counted work shows its progress as it goes (trial 16, T16-17: an fp16 build's
verification ran 1 min 44 s with no line between "verifying ... (5 input draws per point)" and
"ok"): on a terminal the status line is redrawn on every unit, off one a line is logged at most
every LOG_EVERY_S seconds and at the last unit, each with the count, the time so far and an
estimate of the rest."""

from __future__ import annotations

import io
import threading
import time

from rich.console import Console

from core.progress import (
    LOG_EVERY_S,
    NOT_YET,
    CountedProgress,
    clock_text,
    estimate_left,
    on_console,
    progress_text,
    refreshing,
)


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


def test_the_estimate_weighs_the_units_left_by_their_size():
    """Trial 16, T16-17: verification runs batch 1 first and the largest points last; the mean time of the
    small units times the units left said a fraction of what the large ones then took on a busy host."""
    clock, shown = Clock(), []
    counted = CountedProgress(shown.append, None, clock=clock)
    sizes = [1.0] * 5 + [4.0] * 5 + [16.0] * 5
    counted("verifying", 0, 15, sizes)
    for done in range(1, 6):  # the five small units, 1 s each
        clock.now += 1
        counted("verifying", done, 15, sizes)
    # one size timed, larger ones left: nothing to scale from (the mean said 0:10; in proportion to size, 1:40,
    # and trial 25, T25-23's ≈ 6:13 for 13 s: a unit's fixed cost is not in proportion to its size)
    assert shown[-1].endswith(f", {NOT_YET}")
    clock.now += 8  # a size-4 unit took 8 s, more than in proportion to 1 s at 1: the larger ones in proportion to it
    counted("verifying", 6, 15, sizes)
    assert shown[-1].endswith(f"≈ {clock_text(4 * 8 + 5 * 32)} left")  # 4 more at 8 s, 5 at 8 s × 16 / 4


def test_a_build_s_first_units_with_their_warm_up_do_not_make_an_estimate_of_minutes_for_seconds():
    """Trial 25, T25-23: ``torchscript bf16: verifying on cpu 5/25 [██░░░░░░░░] 0:10, ≈ 6:13 left``, done 13 s later
    (25/25 at 0:23): the first draw carried the artifact's warm-up, and the larger points were scaled from the small
    one in proportion to their size, whose time was mostly a fixed cost. The five points grow 8x each, a draw
    takes 0.4-0.6 s whatever its size; the first one 8.4 s."""
    clock, shown = Clock(), []
    counted = CountedProgress(shown.append, None, clock=clock)
    sizes = [float(8**p) for p in range(5) for _ in range(5)]
    took = [8.4, 0.4, 0.4, 0.4, 0.4] + [0.4 + 0.05 * (i // 5) for i in range(5, 25)]
    counted("torchscript bf16: verifying on cpu", 0, 25, sizes)
    for done, t in enumerate(took, start=1):
        clock.now += t
        counted("torchscript bf16: verifying on cpu", done, 25, sizes)
        if done == 5:
            assert shown[-1] == f"torchscript bf16: verifying on cpu 5/25 [██░░░░░░░░] 0:10, {NOT_YET}"
        if done in (6, 10, 15, 20):  # from the second point on: within 2x of what the rest took
            m, sec = shown[-1].split("≈ ")[1].split(" left")[0].split(":")
            assert sum(took[done:]) / 2 <= int(m) * 60 + int(sec) <= 2 * sum(took[done:]) + 1, shown[-1]
    assert estimate_left([8.4, 0.4, 0.4, 0.4, 0.4], sizes, 25) is None
    assert estimate_left([8.4, 0.4, 0.4, 0.4, 0.4, 0.45], sizes, 25) < 2 * sum(took[6:])


def test_a_unit_of_a_size_between_two_measured_is_interpolated_and_a_smaller_one_is_not_scaled_down():
    assert estimate_left([1.0, 9.0], [1, 5, 3, 0.5], 4) == 5.0 + 1.0  # 3: between 1 s at 1 and 9 s at 5; 0.5: 1 s
    assert estimate_left([2.0, 4.0, 6.0, 8.0], [], 6) == 2 * 6.0  # no sizes: the latest units' mean (4, 6, 8)
    assert estimate_left([], [1, 2], 2) == 0.0


def test_a_long_unit_is_redrawn_as_it_runs_and_logged_every_so_often():
    """Trial 16, T16-17: the ~45 s ONNX dynamo export said nothing while it ran."""
    clock, shown, logged = Clock(), [], []
    counted = CountedProgress(shown.append, logged.append, clock=clock)
    counted("onnx fp32: exporting via dynamo (the fp32 export via dynamo took 45.1 s)", 0, 1)
    for _ in range(25):
        clock.now += 1
        counted.refresh()
    assert shown[-1] == "onnx fp32: exporting via dynamo (the fp32 export via dynamo took 45.1 s) 0:25"
    assert [line.rsplit(" ", 1)[1] for line in logged] == ["0:10", "0:20"]
    counted("onnx fp32: exporting via dynamo (the fp32 export via dynamo took 45.1 s)", 1, 1)
    counted.refresh()
    assert len(shown) == 27 and len(logged) == 2  # done: not drawn again; its end is said by the next line


def test_the_estimate_counts_down_while_a_unit_runs_and_an_ended_step_is_not_redrawn():
    clock, shown = Clock(), []
    counted = CountedProgress(shown.append, None, clock=clock)
    counted("v", 0, 3)
    clock.now += 10
    counted("v", 1, 3)
    assert shown[-1].endswith("≈ 0:20 left")
    clock.now += 4
    counted.refresh()
    assert shown[-1] == "v 1/3 [███░░░░░░░] 0:14, ≈ 0:16 left"
    counted.end()  # the caller moved on (a step line): the step's line is not drawn again
    counted.refresh()
    assert len(shown) == 3


def test_refreshing_calls_refresh_from_its_own_thread_until_the_block_ends():
    calls = threading.Event()

    class Counting(CountedProgress):
        def refresh(self) -> None:
            calls.set()

    with refreshing(Counting(None, None), every_s=0.01) as counted:
        assert calls.wait(5.0)
        assert isinstance(counted, Counting)
    calls.clear()
    time.sleep(0.05)
    assert not calls.is_set()


def test_on_a_console_off_a_terminal_the_line_is_logged_and_always_shown_on_its_status():
    out, shown = io.StringIO(), []

    class Status:
        def update(self, text: str) -> None:
            shown.append(text)

    counted = on_console(Console(file=out, force_terminal=False, width=200), Status())
    counted("onnx fp32: exporting via dynamo [fp32]", 0, 2)
    counted("onnx fp32: exporting via dynamo [fp32]", 2, 2)
    assert shown[-1].startswith("onnx fp32: exporting via dynamo \\[fp32] 2/2")  # rich markup escaped
    assert "onnx fp32: exporting via dynamo [fp32] 2/2" in out.getvalue()


def test_a_build_error_names_its_manifest_as_a_record_not_a_log():
    """Trial 25, T25-23: the error at the end of that build said ``(log: .../manifest.json)``."""
    from core.errors import PartialBuildError, ServerError

    said = str(PartialBuildError("1 of 2 exports failed", log_path="/tmp/b/seqfp16/manifest.json"))
    assert said.endswith("\n  (record: /tmp/b/seqfp16/manifest.json)") and "(log:" not in said
    assert str(ServerError("gone", log_path="/tmp/tritonserver-1.log")).endswith("(log: /tmp/tritonserver-1.log)")
