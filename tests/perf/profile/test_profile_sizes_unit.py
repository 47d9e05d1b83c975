"""The traces and the precision study say the input size and batch they ran at (issue 26): they run at the
build's reference inputs, at the largest batch the server formed at any size, while the sweep's levels may
have sent other sizes (``--shapes``); the report named the batch only. The size comes from one source,
:func:`perf.profile.runners.reference_size`, which the in-process baseline's plan reads too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from served_configs import write_variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.repository.view import Repository
from perf.profile import run as profile_run
from perf.profile.baseline import BaselineOptions, plan_targets
from perf.profile.runners import reference_size
from perf.records.levels import LevelResult
from perf.records.profile import PrecisionRow, TraceRecord
from perf.records.results import RunResult, VariantResult
from perf.report.sections.profile import precision_lines, trace_lines

SPEC = ModelSpec.from_flags(["x:float32:time"], ["y"], ["time=16,64,256"])
VARIANT = Variant("echo", "onnx", max_batch_size=8)


def _repo(fake_build, reference_time: int) -> Path:
    repo = fake_build(SPEC, VARIANT)
    write_variant_config(repo, SPEC, VARIANT)
    build_dir = Repository(repo).variant(VARIANT.name).build_dir
    manifest = build_dir / "manifest.json"  # an nn.Module object's build: its study row says it is not run here
    manifest.write_text(manifest.read_text().replace('"model_kind": null', '"model_kind": "object"'))
    x = np.zeros((1, reference_time), np.float32)
    np.savez(build_dir / "reference.npz", **{"input:x": x, "output:y": x})
    return repo


def test_the_traces_and_the_study_record_the_reference_inputs_size(fake_build, tmp_path: Path) -> None:
    repo = _repo(fake_build, 24)  # the reference inputs at time=24; the sweep sent time=64 and 256
    levels = [
        LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=b, shape=s)
        for s, b in (("time=64", 3.4), ("time=256", 2.0))
    ]
    run = RunResult("r", "now", variants=[VariantResult(VARIANT.name, status="ok", levels=levels)])
    opts = BaselineOptions(repo, run=run, eager=False)
    record = profile_run.profile_variants(opts, tmp_path, trace=True, precisions=("fp32",))
    assert reference_size(Repository(repo).variant(VARIANT.name)) == "time=24"
    assert record.traces and record.precision  # not run here (no artifact, no eager model): each still says where
    for r in [*record.traces, *record.precision]:
        assert (r.shape, r.batch_size) == ("time=24", 3), r
    # the baseline's plan reads the same source for a level not swept
    planned, _ = plan_targets(BaselineOptions(repo, eager=False))
    assert planned[0][0].shape == "time=24"


def test_the_report_says_the_size_and_batch_each_ran_at() -> None:
    trace = TraceRecord("onnx", "onnxruntime", "cpu", 8, threads=2, file="traces/t.json", shape="time=24")
    text = "\n".join(trace_lines([trace], operators=3))
    assert "**onnx on cpu, input size time=24, batch 8, 2 threads**" in text
    assert "Each traces one batch of the build's reference inputs, at the largest batch the server formed" in text
    rows = [PrecisionRow("eager PyTorch", "cpu", p, "cast", batch_size=8, shape="time=24") for p in ("fp32", "bf16")]
    text = "\n".join(precision_lines(rows))
    assert "eager PyTorch on the build's reference inputs, at the largest batch the server formed" in text
    assert ": input size time=24, batch 8;" in text
    # rows of two sizes (two models): each row names its own
    other = PrecisionRow("eager PyTorch", "cpu", "fp32", "cast", batch_size=2, shape="time=16")
    lines = precision_lines([*rows, other])
    assert "the input size and batch each row names" in "\n".join(lines)
    assert any(line.startswith("| input size time=16, batch 2 |") for line in lines), lines


def test_a_record_without_a_size_says_the_batch_alone() -> None:
    text = "\n".join(trace_lines([TraceRecord("onnx", "onnxruntime", "cpu", 8, file="traces/t.json")], operators=3))
    assert "**onnx on cpu, batch 8**" in text


def test_each_format_is_traced_at_the_largest_batch_any_of_its_variants_formed() -> None:
    """Trial 14, T14-13: the demo's traces were at batch 1 beside levels that formed 9: a format was traced at
    the batch its first variant formed (a no-batching one's 1). Each (model, format, device) now takes the largest
    any of its variants formed; the eager model's trace and the study the largest over the model's formats."""
    from types import SimpleNamespace

    from perf.records.baseline import EAGER, BaselineKey

    def vr(name: str, formed: float) -> VariantResult:
        return VariantResult(name, status="ok", levels=[LevelResult(4, throughput_infer_per_s=1.0, avg_server_batch_size=formed)])

    run = RunResult("r", "now", variants=[vr("m_ts_nodb", 1.0), vr("m_ts_db", 8.6), vr("m_onnx_db", 3.2)])
    targets = [
        SimpleNamespace(variant=n, key=BaselineKey("m", f, "fp32", "cpu", 1))
        for n, f in (("m_ts_nodb", "torchscript"), ("m_ts_db", "torchscript"), ("m_onnx_db", "onnx"))
    ]
    largest = profile_run._largest_formed(BaselineOptions(Path("repo"), run=run), targets)
    assert largest[("m", "torchscript", "cpu")] == 9 and largest[("m", "onnx", "cpu")] == 3
    assert largest[("m", EAGER, "cpu")] == 9 and largest[("m", "", "")] == 9
