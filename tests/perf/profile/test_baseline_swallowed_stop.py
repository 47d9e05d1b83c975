"""A Ctrl-C that onnxruntime, torch or a user's factory swallows, or turns into an ordinary error, while the in-process
baseline loads a key stops the baseline as a Ctrl-C does: it was recorded as that key's failure ("failed:
RuntimeError ...") and the other keys were loaded and timed (trial 28, T28-11's kind, found in ``builders build``)."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from perf.profile import points
from perf.profile.baseline import SWEEP_TIMING
from perf.records.baseline import BaselineKey


@pytest.fixture(autouse=True)
def ctrl_c_raises() -> None:
    """A suite started in the background hands SIGINT down ignored: Ctrl-C raises here as in a terminal."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def test_a_stop_a_key_s_load_turns_into_an_error_stops_the_baseline(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[int | None] = []

    def load(key: BaselineKey, rv: Any, file: str) -> Any:
        loaded.append(key.threads)
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:  # as a library that catches it and raises its own error
            raise RuntimeError("session creation failed") from None
        raise AssertionError("the Ctrl-C never came")

    monkeypatch.setattr(points, "_load", load)
    group = {BaselineKey("kws", "onnx", "fp32", "cpu", t): (None, "f", [(None, 1)]) for t in (1, 2)}
    with pytest.raises(KeyboardInterrupt):
        points.measure_keys(group, SWEEP_TIMING)  # type: ignore[arg-type]
    assert loaded == [1]  # the second key was never loaded
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_stop_a_point_s_first_call_swallows_stops_the_baseline_before_its_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    def swallowing(inputs: Any) -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:
            pass  # a runtime that caught it and went on

    monkeypatch.setattr(points, "_load", lambda key, rv, file: (swallowing, {}))
    monkeypatch.setattr(points, "inputs_at", lambda rv, reference, shape: {})
    monkeypatch.setattr(points, "batch_inputs", lambda inputs, b: inputs)
    monkeypatch.setattr(points, "time_interleaved", lambda *a, **k: pytest.fail("timed after the stop"))
    with pytest.raises(KeyboardInterrupt):
        points.measure_keys({BaselineKey("kws", "onnx"): (None, "f", [(None, 1)])}, SWEEP_TIMING)  # type: ignore[dict-item]


def test_a_stop_a_trace_turns_into_a_failed_trace_stops_the_profile(
    fake_build: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The traces and the precision study (``triton-perf baseline --trace/--precision``) recorded such a stop as a
    "failed" trace and went on with the study."""
    import numpy as np
    from served_configs import write_variant_config

    from builders.config.variants import Variant
    from builders.model.spec import ModelSpec
    from builders.repository.view import Repository
    from perf.profile import run as profile_run
    from perf.profile.baseline import BaselineOptions
    from perf.profile.stopped import ProfileInterrupted
    from perf.records.levels import LevelResult
    from perf.records.results import RunResult, VariantResult

    real = profile_run._trace

    def trace(*args: Any, **kwargs: Any) -> Any:
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:
            pass  # torch's profiler caught it and went on
        return real(*args, **kwargs)

    monkeypatch.setattr(profile_run, "_trace", trace)
    spec, variant = ModelSpec.from_flags(["x:float32:16"], ["y"]), Variant("echo", "onnx", max_batch_size=8)
    repo = fake_build(spec, variant)  # an nn.Module object's build with no artifact: its trace and study are not run here
    write_variant_config(repo, spec, variant)
    build_dir = Repository(repo).variant(variant.name).build_dir
    assert build_dir is not None
    manifest = build_dir / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"model_kind": null', '"model_kind": "object"'))
    np.savez(build_dir / "reference.npz", **{"input:x": np.zeros((1, 16), np.float32), "output:y": np.zeros((1, 16), np.float32)})
    levels = [LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=3.0)]
    run = RunResult("r", "now", variants=[VariantResult(variant.name, status="ok", levels=levels)])
    opts = BaselineOptions(repo, run=run, eager=False)
    with pytest.raises(ProfileInterrupted) as stop:
        profile_run.profile_variants(opts, tmp_path, trace=True, precisions=("fp32",))
    assert [t.status for t in stop.value.record.traces] == ["interrupted (Ctrl-C)"]
    assert all(r.status == "interrupted (Ctrl-C)" for r in stop.value.record.precision)
