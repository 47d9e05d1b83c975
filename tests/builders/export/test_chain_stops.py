"""A stop that an exporter swallows, or wraps in an ordinary error, is no failure of that strategy (trial 28,
T28-11: a Ctrl-C during the dynamo ONNX export came out of torch.export as ``TorchExportError`` <- ``AttributeError``,
the chain tried the TorchScript-based exporter next, and the build wrote every variant and exited 0).

The fake strategies receive a real SIGINT (``os.kill`` of this process) and do with the ``KeyboardInterrupt`` what
torch did: raise an ordinary error in its place, or go on as if nothing happened."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from builders.export.artifacts import ExportResult
from builders.export.chain import first_verified
from core.errors import VerificationError
from core.processes import held_stops, ignored_stops, raise_recorded_stop, recorded_stops, stop_recorded


@pytest.fixture(autouse=True)
def ctrl_c_raises() -> None:
    """A suite started in the background hands SIGINT down ignored: Ctrl-C raises here as in a terminal
    (the conftest's ``signal_state`` puts the handler back after)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # the handler runs before os.kill returns to the next line


def _wrapped_stop() -> ExportResult:
    try:
        _ctrl_c()
    except KeyboardInterrupt:  # as torch.export did: an ordinary error in its place
        raise RuntimeError("Failed to export the model with torch.export") from AttributeError("torch._dynamo has no 'exc'")
    raise AssertionError("the Ctrl-C never came")


def _result(tmp_path: Path) -> ExportResult:
    return ExportResult("onnx", tmp_path / "model.onnx", "fp32", "torchscript", [], 0.0)


def test_a_stop_an_exporter_wraps_in_an_error_stops_the_chain_without_the_next_strategy(tmp_path: Path) -> None:
    tried: list[str] = []

    def fallback() -> ExportResult:
        tried.append("torchscript")
        return _result(tmp_path)

    with recorded_stops(), pytest.raises(KeyboardInterrupt):
        first_verified("onnx", [("dynamo", _wrapped_stop), ("torchscript", fallback)])
    assert tried == []  # the old chain took the stop for dynamo's failure and exported via torchscript
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_a_stop_a_verification_swallows_stops_the_chain(tmp_path: Path) -> None:
    def swallowing(_result: ExportResult) -> None:  # a runtime that caught the stop and went on
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            pass
        raise VerificationError("outputs differ")

    tried: list[str] = []

    def second() -> ExportResult:
        tried.append("second")
        return _result(tmp_path)

    with recorded_stops(), pytest.raises(KeyboardInterrupt):
        first_verified("onnx", [("dynamo", lambda: _result(tmp_path)), ("torchscript", second)], verify=swallowing)
    assert tried == []


def test_the_record_names_the_signal_and_raises_once() -> None:
    with recorded_stops():
        assert not stop_recorded()
        with pytest.raises(KeyboardInterrupt):
            _ctrl_c()
        assert stop_recorded()
        with pytest.raises(KeyboardInterrupt):
            raise_recorded_stop()
        raise_recorded_stop()  # raised once
    raise_recorded_stop()  # outside: nothing recorded, nothing raised


def test_a_stop_held_by_a_clean_up_inside_is_recorded_too() -> None:
    with recorded_stops():
        with pytest.raises(KeyboardInterrupt), held_stops():
            _ctrl_c()  # held until the clean-up ends, then raised through the recording handler
        assert stop_recorded()


def test_ignored_stops_names_what_came_and_raises_nothing() -> None:
    with ignored_stops() as came:
        _ctrl_c()
    assert came == ["Ctrl-C"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
