"""A rebuild's words match what the repository and its index hold after it: the summary line
names what this build wrote and what it kept from before (new-user trial: "earlier records
dropped" beside TorchScript variants that were still served)."""

from __future__ import annotations

from pathlib import Path

from builders.cli.summary import repository_line
from builders.repository.writer import update_index


def _entry(name: str, model: str, fmt: str) -> dict:
    return {
        "name": name,
        "serving": "python",
        "build": "/b/" + model,
        "model": model,
        "format": fmt,
        "precision": "fp32",
        "kind": "cpu",
        "count": 1,
        "max_batch_size": 8,
        "dynamic_batching": False,
        "max_queue_delay_us": 0,
        "preferred_batch_sizes": [],
        "gpus": [],
        "warmup": None,
        "trt_accelerator": None,
    }


def test_the_repository_line_names_what_was_kept(tmp_path: Path):
    names = [("m_onnx_cpu1_nodb_mbs8", "m", "onnx"), ("m_ts_cpu1_nodb_mbs8", "m", "torchscript")]
    names += [("m_ts_cpu2_nodb_mbs8", "m", "torchscript"), ("o_onnx_cpu1_nodb_mbs8", "o", "onnx")]
    for n, _m, _f in names:
        (tmp_path / n).mkdir()
    update_index(tmp_path, [_entry(*x) for x in names])
    line = repository_line(tmp_path, [tmp_path / "m_onnx_cpu1_nodb_mbs8"])
    assert line == (
        f"repository: {tmp_path} (this build wrote 1 variant; its index lists 4: the 1 written now and 3 kept from "
        "before: m torchscript fp32 ×2, o onnx fp32 ×1)"
    )
    assert (
        repository_line(tmp_path, [tmp_path / n for n, _m, _f in names])
        == f"repository: {tmp_path} (this build wrote 4 variants)"
    )
