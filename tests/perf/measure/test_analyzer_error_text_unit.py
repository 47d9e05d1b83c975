"""What perf_analyzer said when it failed, said in full (trial 11, F21): "cb::Error : 3 (and 1 more error
line)" kept its bare status code and hid its message."""

from __future__ import annotations

from perf.measure.analyzer_output import RunOutcome, parse_output

#: perf_analyzer 2.51's stderr, given an .npz as --input-data (recorded in trial 11).
NPZ_AS_JSON = """cb::Error  : 3
Offset : 0
error: Failed to init manager inputs: failed to parse the specified json file for reading provided data
"""
GATHER = (
    "Thread [{}] had error: InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned "
    "while running Gather node. Name:'node_embedding' Status Message: indices element out of data bounds, idx=29 must "
    "be within the inclusive range [-5,4]"
)


def test_the_message_is_said_in_full_and_its_bare_code_after_it() -> None:
    problem = RunOutcome(99, False, [], "", parse_output(NPZ_AS_JSON)).problem()
    assert problem == (
        "perf_analyzer reported request errors: error: Failed to init manager inputs: failed to parse the specified json "
        "file for reading provided data (cb::Error  : 3)"
    )


def test_each_threads_same_message_is_said_once() -> None:
    text = "Failed to maintain requested inference load.\n" + "\n".join(GATHER.format(i) for i in range(4))
    problem = RunOutcome(99, False, [], "", parse_output(text)).problem()
    assert problem == f"perf_analyzer reported request errors: {GATHER.format(0)}"
