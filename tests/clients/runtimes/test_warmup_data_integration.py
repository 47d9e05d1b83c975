"""Warmup data files on the real bundled tritonserver (issue 25, left over): a variant whose
attention mask is warmed up from ``warmup/`` (ones, not Triton's zeros) loads from the server's
repository and through an upload (``file:warmup/...`` in the load request), and Triton does read
that file: one too short fails the load with Triton's own "warmup setting expects" message.

The model is a hand-made ONNX graph, a masked mean of the token ids: ``sum(ids * mask) /
sum(mask)``, which a row of zeros makes 0/0 (NaN), as attention over a fully masked row can.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from builders.config.pbtxt import read_config
from builders.config.variants import Variant
from builders.config.warmup import WARMUP_FOLDER
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.records import IndexEntry
from builders.repository.writer import update_index, write_variant
from clients.infer import infer
from clients.runtimes.host import port_in_use
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError

pytestmark = pytest.mark.integration

SPEC = ModelSpec(
    (
        TensorSpec("input_ids", "int64", ("seq",), (0, 999)),
        TensorSpec("attention_mask", "int64", ("seq",), (0, 1), domain="mask"),
    ),
    (TensorSpec("mean_id", "float32", (1,)),),
    {"seq": (2, 8, 16)},
)
VARIANT = Variant("maskmean", "onnx", max_batch_size=4, warmup="zero")


def _masked_mean_onnx(path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["ids_f", "mask_f"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "axes"], ["num"], keepdims=1),
        helper.make_node("ReduceSum", ["mask_f", "axes"], ["den"], keepdims=1),
        helper.make_node("Div", ["num", "den"], ["mean_id"]),
    ]
    graph = helper.make_graph(
        nodes,
        "maskmean",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("mean_id", TensorProto.FLOAT, ["batch", 1])],
        [axes],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, path)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("warmup")
    _masked_mean_onnx(root / "model.onnx")
    repo = root / "repo"
    write_variant(repo, VARIANT, root / "model.onnx", SPEC, "python")
    update_index(repo, [IndexEntry.of(VARIANT, "python", None)])
    return repo


def _port_block() -> int:
    import random

    for _ in range(200):
        p = random.randint(20000, 60000)
        if not any(port_in_use(p + i) for i in range(3)):
            return p
    raise AssertionError("no three consecutive free ports")


@contextlib.contextmanager
def _server(repo: Path, **kw) -> Iterator[TritonServer]:
    with TritonServer(ServerOptions(repo, runtime="bundled", start_timeout_s=120, **kw)) as srv:
        yield srv


def _truncated(repo: Path, dest: Path) -> Path:
    """A copy of ``repo`` whose mask warmup files hold one byte."""
    import shutil

    shutil.copytree(repo, dest)
    for f in (dest / VARIANT.name / WARMUP_FOLDER).iterdir():
        f.write_bytes(b"\x01")
    return dest


def test_the_mask_warmup_file_is_read_by_triton_from_its_repository(repo: Path, tmp_path: Path):
    cfg = read_config(repo / VARIANT.name / "config.pbtxt")
    assert all(s.inputs["attention_mask"].input_data_file for s in cfg.model_warmup)
    with _server(repo) as srv:
        srv.load(VARIANT.name)
        out = infer(
            srv.http_url,
            "http",
            VARIANT.name,
            {"input_ids": np.array([[2, 4, 6, 8]], np.int64), "attention_mask": np.array([[1, 1, 0, 0]], np.int64)},
        )
        assert out["mean_id"].tolist() == [[3.0]]
        srv.unload(VARIANT.name)
    with _server(_truncated(repo, tmp_path / "short")) as srv, pytest.raises(ServerError, match="warmup setting expects"):
        srv.load(VARIANT.name)


def test_an_upload_carries_the_warmup_files(repo: Path, tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    p = _port_block()
    with _server(empty, http_port=p, grpc_port=p + 1, metrics_port=p + 2, model_control="explicit") as remote:
        url = f"127.0.0.1:{remote.http_port}"
        with TritonServer(ServerOptions(repo, runtime="remote", urls=(url,))) as srv:
            srv.load(VARIANT.name)  # the upload's token read back: the new files were loaded
            srv.unload(VARIANT.name)
        with TritonServer(ServerOptions(_truncated(repo, tmp_path / "short"), runtime="remote", urls=(url,))) as srv:
            with pytest.raises(ServerError, match="warmup setting expects"):
                srv.load(VARIANT.name)
