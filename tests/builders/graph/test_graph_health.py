"""Graph health (issue 17, item 3): ONNX and TorchScript facts, `builders inspect`, the build's record."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from builders.build import BuildResult
from builders.cli.main import cli
from builders.graph.facts import build_summary_lines, facts, summary_line
from builders.graph.inspect import inspect_path
from builders.graph.onnx_health import ORT_LEVEL, ORT_PROVIDER, onnx_health
from builders.graph.torchscript import torchscript_health
from builders.repository.graph_records import OnnxHealth, TorchScriptHealth
from builders.repository.records import MANIFEST_KIND

OPSET = 17


def _save(graph, path: Path, **save_kwargs) -> Path:
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save_model(model, str(path), **save_kwargs)
    return path


def _init(name: str, array: np.ndarray):
    from onnx import numpy_helper

    return numpy_helper.from_array(array, name)


def conv_bn_relu_onnx(path: Path) -> Path:
    """x[batch,3,8,8] -> Conv -> BatchNormalization -> Relu -> y: unfused, as an exporter in
    training mode (or with constant folding off) leaves it."""
    from onnx import TensorProto, helper

    rng = np.random.default_rng(0)
    c = 4
    inits = [
        _init("w", rng.standard_normal((c, 3, 3, 3)).astype(np.float32)),
        _init("b", rng.standard_normal(c).astype(np.float32)),
        _init("scale", rng.uniform(0.5, 1.5, c).astype(np.float32)),
        _init("bias", rng.standard_normal(c).astype(np.float32)),
        _init("mean", rng.standard_normal(c).astype(np.float32)),
        _init("var", rng.uniform(0.5, 1.5, c).astype(np.float32)),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"], name="bn0"),
        helper.make_node("Relu", ["n"], ["y"], name="relu0"),
    ]
    graph = helper.make_graph(
        nodes,
        "conv_bn_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", c, 8, 8])],
        inits,
    )
    return _save(graph, path)


def shape_gather_onnx(path: Path, index: int) -> Path:
    """x[batch,4,6] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), index)), [-1])): the
    shape chain a traced `x.view(x.size(0), -1)` exports (index 0 = the batch axis)."""
    from onnx import TensorProto, helper

    inits = [_init("idx", np.array(index, dtype=np.int64)), _init("axes", np.array([0], dtype=np.int64))]
    inits.append(_init("minus1", np.array([-1], dtype=np.int64)))
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape0"),
        helper.make_node("Gather", ["s", "idx"], ["n"], name="gather0", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsqueeze0"),
        helper.make_node("Concat", ["n1", "minus1"], ["shape"], name="concat0", axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"], name="flatten_reshape"),
    ]
    graph = helper.make_graph(
        nodes,
        "view",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 24])],
        inits,
    )
    return _save(graph, path)


def embedding_onnx(path: Path) -> Path:
    """ids[batch,seq] (int64) -> Gather(table) -> y[batch,seq,16], plus an output with an
    unnamed dynamic dim; the 1000x16 table (64000 bytes) in external data file `w.data`."""
    from onnx import TensorProto, helper

    table = np.random.default_rng(1).standard_normal((1000, 16)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["y"], name="embed"),
        helper.make_node("ReduceMean", ["y"], ["pooled"], name="pool", axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "embed",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 16]),
            helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [None, 16]),
        ],
        [_init("table", table)],
    )
    return _save(graph, path, save_as_external_data=True, all_tensors_to_one_file=True, location="w.data", size_threshold=0)


# -- ONNX facts ---------------------------------------------------------------------------


def test_conv_bn_relu_is_unfused_as_exported_and_fused_after_onnx_runtime(tmp_path):
    h = onnx_health(conv_bn_relu_onnx(tmp_path / "m.onnx"))
    assert (h.opset, h.ir_version, h.producer) == (OPSET, 8, "test")
    assert h.op_counts == {"Conv": 1, "BatchNormalization": 1, "Relu": 1} and h.node_count == 3
    assert [(p.conv, p.batch_norm, p.relu) for p in h.conv_bn_unfused] == [("conv0", "bn0", "relu0")]
    opt = h.optimized
    assert opt is not None, h.not_optimized
    assert (opt.level, opt.provider) == (ORT_LEVEL, ORT_PROVIDER) and opt.onnxruntime
    assert opt.conv_bn_unfused == [] and "BatchNormalization" not in opt.op_counts  # ORT folded it
    assert opt.node_count < h.node_count and sum(opt.op_counts.values()) == opt.node_count
    rows = {f.name: f for f in facts(h)}
    row = rows["Conv -> BatchNormalization unfused"]
    assert row.value == "1 as exported, 0 after ONNX Runtime" and "folds them" in row.meaning
    assert "Conv+BN unfused 1 -> 0" in summary_line(h)


@pytest.mark.parametrize(
    ("how", "after"),
    [
        ({"do_constant_folding": False}, 0),  # eval mode, folding off: BN left for ORT, which folds it
        ({"training": "PRESERVE"}, 0),  # the module is in eval mode: the same
        ({"training": "TRAINING", "do_constant_folding": False}, 1),  # training-mode BN: ORT cannot fold it
    ],
)
@pytest.mark.slow  # real export (torch.onnx.export)
def test_a_real_conv_bn_relu_export_before_and_after_onnx_runtime(tmp_path, how, after):
    """torch's TorchScript-based exporter with constant folding off (or in training mode)
    leaves BatchNormalization after the Conv; whether ORT folds it is what the report says
    (in a training-mode export ORT's Conv becomes com.microsoft.nchwc.Conv and reaches the
    BatchNormalization through a ReorderOutput: still counted)."""
    import torch

    kwargs = {k: getattr(torch.onnx.TrainingMode, v) if k == "training" else v for k, v in how.items()}
    path = tmp_path / "m.onnx"
    torch.onnx.export(_Net.make(), (torch.randn(2, 3, 8, 8),), str(path), dynamo=False, input_names=["x"], **kwargs)
    h = onnx_health(path)
    assert len(h.conv_bn_unfused) == 1 and h.conv_bn_unfused[0].relu is not None
    assert h.optimized is not None and len(h.optimized.conv_bn_unfused) == after
    assert ("BatchNormalization" in h.optimized.op_counts) == bool(after)
    meaning = {f.name: f for f in facts(h)}["Conv -> BatchNormalization unfused"].meaning
    assert ("left them separate" in meaning) == bool(after) and ("folds them" in meaning) != bool(after)


def test_conv_bn_left_unfused_when_onnx_runtime_is_not_asked(tmp_path):
    h = onnx_health(conv_bn_relu_onnx(tmp_path / "m.onnx"), optimize=False)
    assert h.optimized is None and len(h.conv_bn_unfused) == 1
    assert {f.name: f.value for f in facts(h)}["operators after ONNX Runtime"] == "not measured"


def test_a_reshape_fed_by_the_batch_axis_is_named(tmp_path):
    h = onnx_health(shape_gather_onnx(tmp_path / "m.onnx", index=0))
    assert len(h.batch_shape_chains) == 1
    c = h.batch_shape_chains[0]
    assert (c.source, c.consumer, c.consumer_op) == ("x", "flatten_reshape", "Reshape")
    assert c.path == ["Shape", "Gather", "Unsqueeze", "Concat", "Reshape"]
    row = {f.name: f for f in facts(h)}["shapes computed from the batch size"]
    assert "flatten_reshape" in row.value and "x: Shape -> Gather -> Unsqueeze -> Concat -> Reshape" in row.value
    assert "batch size at run time" in row.meaning


def test_a_shape_of_another_axis_is_not_a_batch_chain(tmp_path):
    h = onnx_health(shape_gather_onnx(tmp_path / "m.onnx", index=1), optimize=False)
    assert h.batch_shape_chains == []
    assert {f.name: f.value for f in facts(h)}["shapes computed from the batch size"] == "none"


class Flatten:
    @staticmethod
    def make():
        import torch

        class Flatten(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return torch.relu(x.view(x.size(0), -1))

        return Flatten().eval()


@pytest.mark.slow  # real export (torch.onnx.export)
def test_the_torchscript_exporters_view_of_the_batch_size_is_named(tmp_path):
    """A real export: the TorchScript-based exporter writes `x.view(x.size(0), -1)` as
    Shape -> Gather(0) -> Unsqueeze -> Concat -> Reshape, which ONNX Runtime rewrites away."""
    import torch

    path = tmp_path / "legacy.onnx"
    x = torch.randn(2, 4, 6)
    torch.onnx.export(Flatten.make(), (x,), str(path), dynamo=False, input_names=["x"], dynamic_axes={"x": {0: "batch"}})
    h = onnx_health(path)
    assert [(c.source, c.path, c.consumer_op) for c in h.batch_shape_chains] == [
        ("x", ["Shape", "Gather", "Unsqueeze", "Concat", "Reshape"], "Reshape")
    ]
    assert h.optimized is not None and h.optimized.batch_shape_chains == []
    row = {f.name: f for f in facts(h)}["shapes computed from the batch size"]
    assert row.value.startswith("1 (0 after ONNX Runtime): x: Shape -> Gather") and "rewrote them away" in row.meaning


@pytest.mark.slow
def test_the_dynamo_exporters_shape_from_the_batch_size_is_named(tmp_path):
    """A real export: the dynamo exporter writes `x.view(b, s, 2, -1)` (batch and seq
    dynamic) as Shape(start=0, end=1) -> Concat -> Reshape; the report names that Reshape.
    (`x.view(x.size(0), -1)` alone it writes as a Reshape to [-1, 24]: no chain.)"""
    import torch
    from torch.export import Dim

    class Heads(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, s, _ = x.shape
            return x.view(b, s, 2, -1).transpose(1, 2)

    path = tmp_path / "dynamo.onnx"
    shapes = {"x": {0: Dim("batch", min=1, max=8), 1: Dim("seq", min=1, max=16)}}
    torch.onnx.export(Heads().eval(), (torch.randn(2, 4, 6),), str(path), dynamo=True, input_names=["x"], dynamic_shapes=shapes)
    h = onnx_health(path)
    assert [(c.source, c.path[0], c.path[-1]) for c in h.batch_shape_chains] == [("x", "Shape", "Reshape")]
    assert "Reshape" in {f.name: f for f in facts(h)}["shapes computed from the batch size"].value
    assert [(d.tensor, d.axis, d.name) for d in h.dynamic_dims if d.io == "input"] == [("x", 0, "batch"), ("x", 1, "seq")]


def test_dynamic_dims_with_names_and_external_data_bytes(tmp_path):
    path = embedding_onnx(tmp_path / "m.onnx")
    h = onnx_health(path)
    assert [(d.io, d.tensor, d.axis, d.name) for d in h.dynamic_dims] == [
        ("input", "ids", 0, "batch"),
        ("input", "ids", 1, "seq"),
        ("output", "y", 0, "batch"),
        ("output", "y", 1, "seq"),
        ("output", "pooled", 0, None),
    ]
    assert h.external_data_files == ["w.data"]
    assert h.external_data_bytes == (tmp_path / "w.data").stat().st_size == 1000 * 16 * 4
    assert h.optimized is not None, h.not_optimized  # ORT read the external data beside the graph
    rows = {f.name: f for f in facts(h)}
    assert "ids[1]=seq" in rows["dynamic dims"].value and "pooled[0]=?" in rows["dynamic dims"].value
    assert "1 dynamic dim has no name" in rows["dynamic dims"].meaning
    assert rows["external data"].value == "64000 bytes in w.data"
    assert "dynamic dims ?, batch, seq" in summary_line(h) and "external data 64000 bytes" in summary_line(h)


def test_a_graph_onnx_runtime_refuses_is_not_optimized_with_the_reason(tmp_path):
    from onnx import TensorProto, helper

    node = helper.make_node("NoSuchOp", ["x"], ["y"], domain="example.custom")
    graph = helper.make_graph(
        [node],
        "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    import onnx

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("example.custom", 1)])
    model.ir_version = 8
    onnx.save_model(model, str(tmp_path / "m.onnx"))
    h = onnx_health(tmp_path / "m.onnx")
    assert h.optimized is None and h.not_optimized and "ONNX Runtime could not optimise it" in h.not_optimized
    assert h.op_counts == {"example.custom.NoSuchOp": 1}


# -- TorchScript --------------------------------------------------------------------------


class _Net:
    @staticmethod
    def make():
        import torch

        return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU()).eval()


@pytest.mark.slow  # real export (torch.jit.script)
def test_torchscript_frozen_or_not(tmp_path):
    import torch

    scripted = torch.jit.script(_Net.make())
    h = torchscript_health(scripted)
    assert not h.frozen and h.parameters == 4 and h.attribute_reads > 0 and h.node_count > 0
    frozen = torch.jit.freeze(scripted)
    torch.jit.save(frozen, str(tmp_path / "frozen.pt"))
    (named,) = inspect_path(tmp_path / "frozen.pt")  # a file the user names is loaded, in a separate process
    assert named.how == "loaded in a separate process" and isinstance(named.health, TorchScriptHealth)
    hf = named.health
    assert hf.frozen and hf.parameters == 0 and hf.attribute_reads == 0
    assert hf.node_count < h.node_count  # freezing folded BatchNorm into the Conv and dropped the reads
    rows = {f.name: f for f in facts(h)}
    assert rows["frozen"].value.startswith("no (4 parameters") and "torch.jit.freeze" in rows["frozen"].meaning
    assert summary_line(hf).startswith("frozen (0 parameters)")


def test_a_file_that_is_not_torchscript_is_an_error(tmp_path, capsys):
    from builders.graph.torchscript import _main

    (tmp_path / "bad.pt").write_bytes(b"not an archive")
    assert _main([str(tmp_path / "bad.pt")]) == 0  # what the child process prints, run here
    assert "is not a TorchScript archive: neither a zip archive nor a pickle" in json.loads(capsys.readouterr().out)["error"]


# -- folders, the build's record, the CLI ---------------------------------------------------


@pytest.mark.slow  # the session's real tiny build
def test_inspect_a_repository_reads_each_onnx_once_and_loads_torchscript_only_when_asked(tiny_build: BuildResult, tmp_path):
    import shutil

    repo = Path(tiny_build.manifest["repository"])
    found = inspect_path(repo)
    onnx_files = [i for i in found if i.format == "onnx"]
    assert len(onnx_files) == 1 and len(onnx_files[0].copies) == 3  # four variants share one export
    assert isinstance(onnx_files[0].health, OnnxHealth) and onnx_files[0].health.optimized is not None
    assert onnx_files[0].how == "parsed here"
    ts = [i for i in found if i.format == "torchscript"]
    # not loaded: the build's record (the index names the build, the sha256 matches) is shown
    assert ts and all(isinstance(i.health, TorchScriptHealth) and i.how.startswith("recorded by its build") for i in ts)
    loaded = [i for i in inspect_path(repo, load_artifacts=True) if i.format == "torchscript"]
    assert loaded and all(isinstance(i.health, TorchScriptHealth) and i.how == "loaded in a separate process" for i in loaded)
    assert loaded[0].health == ts[0].health
    # a repository no build record reaches: the archive is not loaded, and the report says how to load it
    name = next(p.parent.parent.name for p in repo.rglob("model.pt"))
    shutil.copytree(repo / name, tmp_path / "repo" / name)
    (ts_alone,) = inspect_path(tmp_path / "repo")
    assert ts_alone.health is None and "--load-artifacts" in (ts_alone.skipped or "")


@pytest.mark.slow  # the session's real tiny build
def test_the_build_records_graph_health_and_old_manifests_still_load(tiny_build: BuildResult):
    manifest = MANIFEST_KIND.parse(tiny_build.manifest, "manifest")
    by_format = {e.format: e.graph_health for e in manifest.exports}
    assert isinstance(by_format["onnx"], OnnxHealth) and by_format["onnx"].optimized is not None
    assert isinstance(by_format["torchscript"], TorchScriptHealth) and by_format["torchscript"].node_count > 0
    lines = build_summary_lines(manifest)
    assert any(line.startswith("graph health, onnx fp32: opset ") for line in lines)
    assert any(line.startswith("graph health, torchscript fp32: ") for line in lines)
    old = json.loads(json.dumps(tiny_build.manifest))
    for e in old["exports"]:
        e.pop("graph_health", None)
    assert all(e.graph_health is None for e in MANIFEST_KIND.parse(old, "old manifest").exports)
    assert build_summary_lines(MANIFEST_KIND.parse(old, "old manifest")) == []


def test_cli_inspect_prints_facts_with_meanings_and_json(tmp_path):
    path = conv_bn_relu_onnx(tmp_path / "m.onnx")
    r = CliRunner().invoke(cli, ["inspect", str(path)])
    assert r.exit_code == 0, r.output
    assert "Conv -> BatchNormalization unfused" in r.output and "1 as exported, 0 after ONNX Runtime" in r.output
    assert "what this usually means" in r.output
    r = CliRunner().invoke(cli, ["inspect", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc[0]["path"] == "m.onnx" and len(doc[0]["health"]["conv_bn_unfused"]) == 1


def test_cli_inspect_exits_1_for_an_unreadable_file_and_refuses_another_kind(tmp_path):
    (tmp_path / "broken.onnx").write_bytes(b"\x00\x01garbage")
    r = CliRunner().invoke(cli, ["inspect", str(tmp_path / "broken.onnx")])
    assert r.exit_code == 1 and "not a readable ONNX model" in r.output
    (tmp_path / "notes.txt").write_text("x")
    r = CliRunner().invoke(cli, ["inspect", str(tmp_path / "notes.txt")])
    assert r.exit_code != 0 and "expected an .onnx or TorchScript .pt file" in str(r.exception or r.output)


@pytest.mark.parametrize(
    ("after", "said"),
    [
        ({"Conv": 1, "Relu": 1}, "ORT fused or removed 1 node"),  # "1 nodes" before trial 30, F19
        ({"Conv": 1, "BatchNormalization": 1, "Relu": 1}, "ORT left the node count as it was"),
        (
            {
                "com.microsoft.nchwc.Conv": 1,
                "com.microsoft.nchwc.ReorderInput": 1,
                "com.microsoft.nchwc.ReorderOutput": 2,
                "Relu": 1,
            },
            "ORT added 2 nodes (more of: com.microsoft.nchwc.ReorderOutput 2, com.microsoft.nchwc.Conv 1, "
            "com.microsoft.nchwc.ReorderInput 1)",
        ),
    ],
)
def test_the_node_count_after_onnx_runtime_is_worded_by_its_direction(tmp_path, after, said):
    """Trial 14, T14-2: an fp16 graph ORT grew from 31 to 57 nodes (layout reorders) was said "ORT left the
    node count as it was"; a graph it grew says it added nodes and which operator types grew."""
    h = onnx_health(conv_bn_relu_onnx(tmp_path / "m.onnx"))
    assert h.optimized is not None
    h.optimized = h.optimized.model_copy(update={"op_counts": after, "node_count": sum(after.values())})
    meaning = {f.name.split(" (")[0]: f.meaning for f in facts(h)}["operators after ONNX Runtime"]
    assert meaning.startswith(said), meaning
