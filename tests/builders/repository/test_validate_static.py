"""`builders validate` without loading anything (issue 25, item 6): a file under a TorchScript
name is told apart by its structure, the TorchScript ``forward`` signature is read from the
archive's code text for the PyTorch backend's naming rule, and ONNX external data outside the
model folder is reported. Nothing is unpickled or run in the toolkit's process."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from builders.cli.main import cli
from builders.config.pbtxt import read_config, write_config
from builders.config.variants import Variant
from builders.model.artifact_signature import TensorIO
from builders.model.models import load_model
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.model.torchscript_archive import read_archive, static_torchscript_io
from builders.repository.validate import validate
from builders.repository.writer import write_variant
from core.errors import ConfigError, ModelSpecError

ONE = ModelSpec((TensorSpec("INPUT__0", "float32", (4,)),), (TensorSpec("OUTPUT__0", "float32", (4,)),))


class Plain(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


class Masked(torch.nn.Module):
    """Two named inputs, two outputs: (scores, pooled)."""

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scores = input_ids * attention_mask
        return scores, scores.sum(1)


def forbid_deserialising(monkeypatch):
    """From here on, any deserialisation in the toolkit's process fails the test."""

    def refuse(*_a, **_k):
        raise AssertionError("deserialised in the toolkit's process")

    for target, name in ((torch.jit, "load"), (torch, "load"), (pickle, "load"), (pickle, "loads")):
        monkeypatch.setattr(target, name, refuse)


def _folder(tmp_path: Path, make_file, spec: ModelSpec = ONE, serving: str = "native", name: str = "m") -> Path:
    """A model folder written from a real TorchScript export, whose model.pt is then replaced by ``make_file(path)``."""
    art = tmp_path / "export" / "model.pt"
    art.parent.mkdir(parents=True, exist_ok=True)
    module = Plain() if len(spec.inputs) == 1 else Masked()
    torch.jit.script(module).save(str(art))
    vdir = write_variant(tmp_path / "repo", Variant(name, "torchscript", max_batch_size=4), art, spec, serving)
    (vdir / "1" / "model.pt").unlink()
    make_file(vdir / "1" / "model.pt")
    return vdir


def _artifact_problem(result) -> str:
    (p,) = [p for p in result.problems if p.field == "(artifact)"]
    return p.problem


@pytest.mark.slow  # real TorchScript exports
@pytest.mark.parametrize(
    ("save", "what"),
    [
        (lambda p: torch.save(Plain(), p), "a zip archive written by torch.save (data.pkl without code/ or constants.pkl)"),
        (lambda p: torch.save(Plain().state_dict(), p), "a zip archive written by torch.save"),
        (
            lambda p: torch.save(Plain(), p, _use_new_zipfile_serialization=False),
            "a pickle written by torch.save in its legacy (non-zip) format",
        ),
        (lambda p: p.write_bytes(pickle.dumps({"weights": [1, 2]})), "a Python pickle (no zip archive)"),
        (lambda p: torch.export.save(torch.export.export(Plain(), (torch.ones(2, 4),)), p), "a torch.export archive"),
        (lambda p: p.write_bytes(b"\x08\x07\x12\x07pytorch"), "neither a zip archive nor a pickle"),
    ],
    ids=["torch.save-zip", "state_dict-zip", "torch.save-legacy", "pickle", "torch.export", "other"],
)
@pytest.mark.parametrize("serving", ["native", "python"])
def test_a_file_that_is_not_torchscript_is_named_by_a_default_validate(tmp_path, save, what, serving, monkeypatch):
    _folder(tmp_path, save, serving=serving)
    forbid_deserialising(monkeypatch)
    result = validate(tmp_path / "repo")
    problem = _artifact_problem(result)
    assert "is not a TorchScript archive" in problem and what in problem


@pytest.mark.slow  # real TorchScript exports
def test_the_issues_names_input0_and_scores_break_the_convention(tmp_path, monkeypatch):
    def rename(cfg):
        cfg.input[0].name = "INPUT0"
        cfg.output[0].name = "scores"

    vdir = _folder(tmp_path, lambda p: torch.jit.script(Plain()).save(str(p)))
    cfg = read_config(vdir / "config.pbtxt")
    rename(cfg)
    write_config(cfg, vdir / "config.pbtxt")
    forbid_deserialising(monkeypatch)
    result = validate(tmp_path / "repo")
    fields = {p.field for p in result.problems}
    assert {"input[INPUT0].name", "output[scores].name"} <= fields
    assert any("neither a forward() argument (['x'])" in p.problem for p in result.problems)
    r = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["validate", str(tmp_path / "repo")])
    assert r.exit_code == 1 and "input[INPUT0].name" in r.output and "output[scores].name" in r.output


@pytest.mark.slow  # real TorchScript exports
def test_forward_argument_names_are_valid_input_names_and_the_output_count_is_read(tmp_path, monkeypatch):
    """My own model: inputs named after forward()'s arguments are accepted (a traced archive
    too); a config that declares one of its two outputs is not."""
    spec = ModelSpec(
        (TensorSpec("input_ids", "float32", (4,)), TensorSpec("attention_mask", "float32", (4,))),
        (TensorSpec("OUTPUT__0", "float32", (4,)), TensorSpec("OUTPUT__1", "float32", ())),
    )
    traced = lambda p: torch.jit.trace(Masked(), (torch.ones(2, 4), torch.ones(2, 4))).save(str(p))  # noqa: E731
    vdir = _folder(tmp_path, traced, spec)
    forbid_deserialising(monkeypatch)
    assert validate(tmp_path / "repo").problems == []
    cfg = read_config(vdir / "config.pbtxt")
    del cfg.output[1]
    write_config(cfg, vdir / "config.pbtxt")
    (p,) = validate(tmp_path / "repo").problems
    assert p.field == "output" and "declares 1 outputs, the torchscript artifact has 2" in p.problem


@pytest.mark.slow  # real TorchScript exports
def test_the_static_signature_agrees_with_loading(tmp_path):
    for i, module in enumerate((Plain(), Masked())):
        path = tmp_path / f"m{i}.pt"
        torch.jit.script(module).save(str(path))
        static = static_torchscript_io(path)
        loaded = torch.jit.load(str(path))
        assert [t.name for t in static.inputs] == [a.name for a in loaded.forward.schema.arguments[1:]]
    frozen = tmp_path / "frozen.pt"
    torch.jit.freeze(torch.jit.script(Masked()).eval()).save(str(frozen))
    assert static_torchscript_io(frozen).outputs == (TensorIO("__0"), TensorIO("__1"))

    class Keyed(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
            return {"a": x}

    torch.jit.script(Keyed()).save(str(tmp_path / "keyed.pt"))
    assert static_torchscript_io(tmp_path / "keyed.pt").outputs is None  # the code does not say: not compared


def test_a_torch_save_model_file_given_to_build_is_refused_by_its_structure(tmp_path, monkeypatch):
    torch.save(Plain(), tmp_path / "net.pt")
    torch.save({"w": torch.ones(2)}, tmp_path / "w.pt", _use_new_zipfile_serialization=False)
    forbid_deserialising(monkeypatch)
    with pytest.raises(ModelSpecError, match="torch.save") as e:
        load_model(str(tmp_path / "net.pt"), ModelSpec.from_flags(["x:float32:4"]))
    assert "package.module:factory" in (e.value.hint or "")
    with pytest.raises(ConfigError, match="legacy"):
        read_archive(tmp_path / "w.pt")


# --- ONNX external data outside the model folder --------------------------------------------


def _graph_with_external(version: Path, location: str, *, in_constant: bool = False) -> Path:
    """INPUT__0 [batch, 4] + w -> OUTPUT__0, w stored at ``location`` (written where it points);
    ``in_constant``: w is a Constant node's attribute instead of an initializer."""
    version.mkdir(parents=True, exist_ok=True)
    w = numpy_helper.from_array(np.ones(4, np.float32), "w")
    raw = w.raw_data
    target = Path(location) if os.path.isabs(location) else version / location
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(raw)
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", str(len(raw)))):
        entry = w.external_data.add()
        entry.key, entry.value = k, v
    nodes = [helper.make_node("Add", ["INPUT__0", "w"], ["OUTPUT__0"])]
    inits = [w]
    if in_constant:
        nodes.insert(0, helper.make_node("Constant", [], ["w"], value=w))
        inits = []
    x = helper.make_tensor_value_info("INPUT__0", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("OUTPUT__0", TensorProto.FLOAT, ["batch", 4])
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 18)])
    onnx.save(model, str(version / "model.onnx"))
    return version / "model.onnx"


def _onnx_folder(tmp_path: Path, location: str, **kw) -> Path:
    """A repository with one ONNX model folder whose graph keeps its weights at ``location``."""
    root = tmp_path / "repo"
    art = _graph_with_external(tmp_path / "src", "w.data")
    vdir = write_variant(root, Variant("g", "onnx", max_batch_size=4), art, ONE, "native")
    (vdir / "1" / "model.onnx").unlink()
    (vdir / "1" / "w.data").unlink(missing_ok=True)
    _graph_with_external(vdir / "1", location, **kw)
    return root


@pytest.mark.parametrize(
    ("location", "said"),
    [("../w.data", "through '..'"), ("sub/../../w.data", "through '..'"), ("ABS", "absolute path")],
)
def test_external_data_outside_the_model_folder_is_reported(tmp_path, location, said):
    loc = str(tmp_path / "elsewhere" / "w.data") if location == "ABS" else location
    problems = validate(_onnx_folder(tmp_path, loc)).problems
    assert [(p.field, said in p.problem) for p in problems] == [("external data", True)]
    assert "ONNX Runtime refuses" in problems[0].problem


def test_external_data_inside_the_folder_passes_and_a_link_out_of_it_does_not(tmp_path):
    assert validate(_onnx_folder(tmp_path, "sub/../w.data")).problems == []
    root = _onnx_folder(tmp_path / "link", "w.data")
    (vdir,) = [d for d in root.iterdir() if d.is_dir()]
    data = vdir / "1" / "w.data"
    outside = tmp_path / "outside.data"
    outside.write_bytes(data.read_bytes())
    data.unlink()
    data.symlink_to(outside)
    (p,) = validate(root).problems
    assert p.field == "external data" and "is a link to" in p.problem


def test_external_data_of_a_constant_node_is_checked_too(tmp_path):
    """My own case: the weights are a Constant node's attribute, not an initializer."""
    (p,) = validate(_onnx_folder(tmp_path, "../c.data", in_constant=True)).problems
    assert p.field == "external data" and "'../c.data'" in p.problem


def test_the_escape_rule_is_what_onnxruntime_applies(tmp_path):
    import onnxruntime as ort

    for loc, refused in (("../w.data", True), ("sub/../w.data", False)):
        path = _graph_with_external(tmp_path / loc.replace("/", "_") / "1", loc)
        try:
            ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            ok = True
        except Exception:  # onnxruntime raises its own Fail/InvalidArgument types
            ok = False
        if not refused:
            assert ok
        elif ok:
            pytest.skip(
                f"onnxruntime {ort.__version__} still accepts {loc!r} (later ones refuse it: microsoft/onnxruntime#26776)"
            )


def test_an_archive_whose_code_does_not_show_forward_is_listed_not_guessed(tmp_path, monkeypatch):
    """A TorchScript-shaped archive (data.pkl, code/, constants.pkl) whose root class is not in
    its code text: no names are invented; the check is listed as not run."""
    import zipfile

    _graph_with_external(tmp_path / "src", "w.data")
    vdir = write_variant(
        tmp_path / "repo", Variant("m", "onnx", max_batch_size=4), tmp_path / "src" / "model.onnx", ONE, "python"
    )
    cfg = read_config(vdir / "config.pbtxt")
    for p in cfg.parameters.values():  # the python model now serves a TorchScript file
        if p.string_value == "onnx":
            p.string_value = "torchscript"
    cfg.parameters["artifact_file"].string_value = "model.pt"
    write_config(cfg, vdir / "config.pbtxt")
    with zipfile.ZipFile(vdir / "1" / "model.pt", "w") as z:
        z.writestr("m/data.pkl", b"\x80\x02c__torch__\nMissing\nq\x00.")
        z.writestr("m/code/__torch__/other.py", "class Other(Module):\n  def forward(self, x: Tensor) -> Tensor:\n    return x\n")
        z.writestr("m/constants.pkl", b"\x80\x02).")
    forbid_deserialising(monkeypatch)
    result = validate(tmp_path / "repo")
    assert result.problems == []
    assert any("does not show forward()" in s.problem for s in result.skipped)
