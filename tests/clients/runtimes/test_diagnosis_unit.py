"""The not-started and not-loaded messages read the server log for known causes first (issue
26: the launcher suggested raising --start-timeout when its own log showed model.py missing);
raising the timeout is suggested only when the log shows a model still loading or the server
still starting."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clients.runtimes.diagnosis import known_causes, not_ready_hint, still_loading
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError

LOADING = 'I1201 16:38:08.255885 3866 model_lifecycle.cc:472] "loading: tiny_onnx_cpu1_nodb_mbs4:1"'
NO_MODEL_PY = (
    "I1201 16:38:08.291115 3874 pb_stub.cc:2105]  Failed to preinitialize Python stub: Python model file not found in "
    "'/repo/tiny_onnx_cpu1_nodb_mbs4/1/model.py'"
)
STARTED = 'I1201 16:38:09.000000 3866 http_server.cc:4700] "Started HTTPService at 127.0.0.1:8000"'
HARMLESS = 'E1201 16:38:08.253627 3866 server.cc:241] "CudaDriverHelper has not been initialized."'


def test_a_missing_model_py_is_named_and_waiting_longer_is_not_suggested() -> None:
    hint = not_ready_hint("\n".join([HARMLESS, LOADING, NO_MODEL_PY]), None, 120)
    assert "/repo/tiny_onnx_cpu1_nodb_mbs4/1/model.py is missing" in hint and "builders build" in hint
    assert "--start-timeout" not in hint


@pytest.mark.parametrize(
    "line,named",
    [
        (
            "E1201 10:00:00.0 1 model_lifecycle.cc:654] \"failed to load 'm' version 1: Invalid argument: model 'm', "
            "tensor 'y': the model expects 2 dimensions (shape [-1,4]) but the model configuration specifies 3\"",
            "model 'm' failed to load: Invalid argument: model 'm', tensor 'y': the model expects 2 dimensions",
        ),
        (
            "E1201 10:00:00.0 1 main.cc:1] failed to start HTTP service: Unavailable - Socket '127.0.0.1:8000' already in use",
            "HTTP port is already in use (127.0.0.1:8000)",
        ),
        (
            "E1201 10:00:00.0 1 model_lifecycle.cc:654] \"failed to load 'm' version 1: Invalid argument: unable to find "
            "backend library for backend 'onnxruntime', try specifying runtime on the model configuration.\"",
            "this tritonserver has no 'onnxruntime' backend",
        ),
        (
            "E1201 10:00:00.0 1 pb_stub.cc:1] ModuleNotFoundError: No module named 'sentencepiece'",
            "could not import a module (No module named 'sentencepiece')",
        ),
    ],
)
def test_known_causes_are_named_with_what_to_do(line: str, named: str) -> None:
    (cause,) = known_causes(line)
    assert named in cause
    assert "--start-timeout" not in not_ready_hint(line, None, 120)


def test_the_timeout_is_suggested_only_while_loading_or_starting() -> None:
    hint = not_ready_hint("\n".join([HARMLESS, STARTED, LOADING]), None, 120)
    assert hint.startswith("tiny_onnx_cpu1_nodb_mbs4 was still loading when the 120 s ran out") and "--start-timeout" in hint
    assert "raise --start-timeout" in not_ready_hint("pulling image layers...", None, 60)  # not started yet, no error
    loaded = LOADING + "\nI1201 16:38:10.0 3866 model_lifecycle.cc:839] \"successfully loaded 'tiny_onnx_cpu1_nodb_mbs4'\""
    assert still_loading(loaded) == []
    assert "--start-timeout" not in not_ready_hint(STARTED + "\n" + loaded, None, 60)
    unknown = "E1201 10:00:00.0 1 server.cc:1] something this toolkit has never seen"
    assert "does not recognise" in not_ready_hint(unknown + "\n" + LOADING, None, 60)
    assert "--start-timeout" not in not_ready_hint(unknown + "\n" + LOADING, None, 60)
    assert not_ready_hint(LOADING, "the container's /dev/shm is too small: --shm-size 1g", 60).startswith("the container's")


def test_the_launcher_reads_its_own_log_before_suggesting_a_longer_wait(tmp_path: Path) -> None:
    exe = tmp_path / "fake-tritonserver"
    (tmp_path / "lines").write_text(f"{LOADING}\n{NO_MODEL_PY}\n")
    exe.write_text(f"#!/bin/sh\ncat {tmp_path / 'lines'}\nexec sleep 60\n")
    exe.chmod(0o755)
    (tmp_path / "repo").mkdir()
    srv = TritonServer(
        ServerOptions(tmp_path / "repo", runtime="local", binary=exe, start_timeout_s=60, log_file=tmp_path / "s.log")
    )
    t0 = time.monotonic()
    with pytest.raises(ServerError, match="a load Triton never ends") as e:  # the stub's line: not waited for (T30 F21)
        srv.start()
    assert time.monotonic() - t0 < 15
    assert "model.py is missing" in (e.value.hint or "") and "--start-timeout" not in (e.value.hint or "")


TRIAL25_LOG = Path(__file__).resolve().parents[2] / "data" / "trial25_broken_model" / "tritonserver.log"


def test_a_model_that_failed_to_load_at_start_is_one_line_with_what_to_do():
    """Trial 25, T25-21: a server started with a model whose model.onnx was truncated (the trial's real log, bundled
    server, python backend) exited, and the launcher printed 38 lines of raw log (the option table, the python
    stub's frames), then the advice with literal \\n escapes and the frames inlined, and nothing to do."""
    from clients.runtimes.diagnosis import exited_words, failed_hint, failed_loads, known_causes

    text = TRIAL25_LOG.read_text()
    first = (
        "Internal: InvalidProtobuf: [ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from "
        "/work/trial25/model_repository/brokenseq/1/model.onnx failed:Protobuf parsing failed."
    )
    assert failed_loads(text) == {"brokenseq": first}
    assert all("\\n" not in c and "At:" not in c for c in known_causes(text)), known_causes(text)
    hint = failed_hint(text, None, "read the log above")
    message, hint = exited_words(
        text,
        "tritonserver exited with code 1",
        "TAIL",
        hint,
        Path("model_repository"),
        ["brokenseq", "seqnet_onnx_cpu1_nodb_mbs64"],
    )
    assert message == (
        f"tritonserver exited with code 1 during start-up: 1 of the 2 models it was to load failed:\n  brokenseq: {first}"
    )
    assert hint == (
        "`builders validate model_repository` names what is wrong; or leave brokenseq out of --load-model to start the "
        "rest (seqnet_onnx_cpu1_nodb_mbs64)"
    )
    assert "TAIL" not in message and "onnxruntime_inference_collection" not in message + hint
    # a log without a failed load: the log's last lines, as before
    assert exited_words("E1205 boom", "tritonserver exited with code 1", "TAIL", "h", Path("r"), []) == (
        "tritonserver exited with code 1 during start-up; last lines of its log:\nTAIL",
        "h",
    )
