"""`builders validate`: one small broken repository per rule, built in tmp_path; our own builds validate clean."""

from __future__ import annotations

import shutil
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper
from tritonclient.grpc import model_config_pb2 as mc

from builders.cli.main import cli
from builders.config.pbtxt import read_config, write_config
from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.validate import validate, validate_repository
from builders.repository.writer import write_variant

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (16,)),))
VARIANT = Variant("m", "onnx", max_batch_size=8, dynamic_batching=True, max_queue_delay_us=100)
NAME = VARIANT.name


def write_onnx(path: Path, shape: tuple = ("batch", 16), dtype: int = TensorProto.FLOAT) -> Path:
    """An Identity graph INPUT__0 -> OUTPUT__0 of ``shape`` (strings are symbolic dims)."""
    x = helper.make_tensor_value_info("INPUT__0", dtype, list(shape))
    y = helper.make_tensor_value_info("OUTPUT__0", dtype, list(shape))
    graph = helper.make_graph([helper.make_node("Identity", ["INPUT__0"], ["OUTPUT__0"])], "g", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A valid native-serving repository with one ONNX model (max_batch_size 8, dynamic batching)."""
    root = tmp_path / "repo"
    write_variant(root, VARIANT, write_onnx(tmp_path / "model.onnx"), SPEC, "native")
    assert validate_repository(root) == []
    return root


def edit(repo: Path, change) -> None:
    path = repo / NAME / "config.pbtxt"
    cfg = read_config(path)
    change(cfg)
    write_config(cfg, path)


def found(problems) -> set[tuple[str, str]]:
    return {(Path(p.file).name, p.field) for p in problems}


def _replace_artifact(repo: Path, content) -> None:
    path = repo / NAME / "1" / "model.onnx"
    path.unlink()  # it is a hard link to the build's file: never write through it
    content(path)


def _warmup(dims: list[int] | None):
    def change(cfg: mc.ModelConfig) -> None:
        w = cfg.model_warmup.add(name="w", batch_size=1)
        if dims is not None:
            w.inputs["INPUT__0"].data_type = mc.TYPE_FP32
            w.inputs["INPUT__0"].dims.extend(dims)
            w.inputs["INPUT__0"].zero_data = True

    return change


def _unbatched(cfg: mc.ModelConfig) -> None:
    cfg.max_batch_size = 0
    cfg.ClearField("dynamic_batching")


def _full_dims_unbatched(cfg: mc.ModelConfig) -> None:
    cfg.max_batch_size = 0
    for t in (*cfg.input, *cfg.output):
        t.dims[:] = [-1, 16]


CONFIG_RULES = {
    "name differs from folder": (lambda c: setattr(c, "name", "other"), "name"),
    "unsafe name": (lambda c: setattr(c, "name", "a b"), "name"),
    "input name not in the artifact": (lambda c: setattr(c.input[0], "name", "x"), "input[x].name"),
    "dtype differs from the artifact": (lambda c: setattr(c.input[0], "data_type", mc.TYPE_FP16), "input[INPUT__0].data_type"),
    "dims include the batch axis": (lambda c: c.input[0].dims.insert(0, -1), "input[INPUT__0].dims"),
    "dims differ from the artifact": (lambda c: c.input[0].dims.__setitem__(0, 32), "input[INPUT__0].dims"),
    "empty dims": (lambda c: c.output[0].ClearField("dims"), "output[OUTPUT__0].dims"),
    "zero dim": (lambda c: c.output[0].dims.__setitem__(0, 0), "output[OUTPUT__0].dims"),
    "unbatched dims without the batch axis": (_unbatched, "input[INPUT__0].dims"),
    "dynamic batching with max_batch_size 0": (lambda c: _full_dims_unbatched(c), "dynamic_batching"),
    "preferred size above max_batch_size": (
        lambda c: c.dynamic_batching.preferred_batch_size.append(16),
        "dynamic_batching.preferred_batch_size",
    ),
    "gpus on KIND_CPU": (lambda c: c.instance_group[0].gpus.append(0), "instance_group[0].gpus"),
    "platform and backend disagree": (lambda c: setattr(c, "backend", "python"), "backend"),
    "neither platform nor backend": (lambda c: c.ClearField("platform"), "platform"),
    "unknown platform": (lambda c: setattr(c, "platform", "onnx"), "platform"),
    "no outputs": (lambda c: c.ClearField("output"), "output"),
    "duplicate input": (lambda c: c.input.add().CopyFrom(c.input[0]), "input[INPUT__0].name"),
    "warmup without inputs": (_warmup(None), "model_warmup[w].inputs"),
    "warmup with a variable dim": (_warmup([-1]), "model_warmup[w].inputs[INPUT__0].dims"),
    "warmup batch above max_batch_size": (
        lambda c: (_warmup([16])(c), setattr(c.model_warmup[0], "batch_size", 9)),
        "model_warmup[w].batch_size",
    ),
    "specific version without a folder": (
        lambda c: c.version_policy.specific.versions.append(2),
        "version_policy.specific.versions",
    ),
    "TensorRT accelerator on torchscript": (
        lambda c: (
            setattr(c, "platform", "pytorch_libtorch"),
            setattr(c, "default_model_filename", "model.onnx"),
            c.optimization.execution_accelerators.gpu_execution_accelerator.add(name="tensorrt"),
        ),
        "optimization.execution_accelerators.gpu_execution_accelerator[0].name",
    ),
}


@pytest.mark.parametrize("rule", sorted(CONFIG_RULES))
def test_each_config_rule_is_reported_with_file_and_field(repo, rule):
    change, field = CONFIG_RULES[rule]
    edit(repo, change)
    problems = validate_repository(repo)
    assert ("config.pbtxt", field) in found(problems), problems
    assert all(p.problem and p.fix for p in problems)


def test_unbatched_full_dims_are_valid(repo):
    edit(repo, lambda c: (_full_dims_unbatched(c), c.ClearField("dynamic_batching")))
    problems = validate_repository(repo)  # valid for Triton; only the variant name (mbs8, db100) no longer says it
    assert found(problems) == {("config.pbtxt", "max_batch_size"), ("config.pbtxt", "dynamic_batching")}
    assert all(p.problem.startswith("its name says") for p in problems)


def test_config_that_does_not_parse(repo):
    (repo / NAME / "config.pbtxt").write_text('name: "m"\ninput { dims: [16 }\n')
    assert found(validate_repository(repo)) == {("config.pbtxt", "(syntax)")}


def test_missing_config(repo):
    (repo / NAME / "config.pbtxt").unlink()
    assert found(validate_repository(repo)) == {("config.pbtxt", "config.pbtxt")}


@pytest.mark.parametrize("folder", ["v1", "01", "0"])
def test_version_folders_must_be_positive_integers(repo, folder):
    (repo / NAME / folder).mkdir()
    assert found(validate_repository(repo)) == {(folder, "version folder")}


def test_no_version_folder(repo):
    shutil.rmtree(repo / NAME / "1")
    assert found(validate_repository(repo)) == {(NAME, "version folder")}


def test_model_file_the_platform_expects(repo):
    (repo / NAME / "1" / "model.onnx").unlink()
    assert found(validate_repository(repo)) == {("1", "default_model_filename")}
    edit(repo, lambda c: c.ClearField("default_model_filename"))  # hand-written: the platform's default name
    (repo / NAME / "1" / "model.plan").touch()
    assert found(validate_repository(repo)) == {("1", "model file")}


def test_artifact_that_cannot_be_read(repo):
    _replace_artifact(repo, lambda p: p.write_bytes(b"not a protobuf at all"))
    assert found(validate_repository(repo)) == {("model.onnx", "(artifact)")}


def test_batching_config_for_an_artifact_without_a_batch_axis(repo):
    _replace_artifact(repo, lambda p: write_onnx(p, (4, 16)))
    assert ("config.pbtxt", "max_batch_size") in found(validate_repository(repo))


def test_artifact_input_missing_from_the_config(repo):
    edit(repo, lambda c: setattr(c.input[0], "name", "x"))
    problems = validate_repository(repo)
    assert ("config.pbtxt", "input") in found(problems)
    assert any("'INPUT__0' is missing" in p.problem for p in problems)


def test_kind_gpu_where_the_server_has_no_gpu(repo):
    edit(repo, lambda c: setattr(c.instance_group[0], "kind", mc.ModelInstanceGroup.KIND_GPU))
    named = ("config.pbtxt", "instance_group")  # its name says cpu1
    assert found(validate_repository(repo)) == {named}  # not known where it will be served
    assert found(validate_repository(repo, server_gpu=False)) == {("config.pbtxt", "instance_group[0].kind"), named}


def test_python_backend_artifact_named_in_parameters_must_exist(tmp_path):
    root = tmp_path / "repo"
    vdir = write_variant(root, VARIANT, write_onnx(tmp_path / "model.onnx"), SPEC, "python")
    assert validate_repository(root) == []
    (vdir / "1" / "model.onnx").unlink()
    assert found(validate_repository(root)) == {("1", "parameters[artifact_file]")}
    (vdir / "1" / "model.py").unlink()
    assert ("1", "model file") in found(validate_repository(root))


@pytest.mark.slow  # real export (torch.jit.script)
def test_torchscript_module_signature_is_checked(tmp_path):
    import torch

    class Two(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return a + b, a - b

    spec = ModelSpec(
        (TensorSpec("a", "float32", (4,)), TensorSpec("b", "float32", (4,))),
        (TensorSpec("OUTPUT__0", "float32", (4,)), TensorSpec("OUTPUT__1", "float32", (4,))),
    )
    art = tmp_path / "model.pt"
    torch.jit.script(Two()).save(str(art))
    root = tmp_path / "repo"
    v = Variant("two", "torchscript", max_batch_size=4)
    write_variant(root, v, art, spec, "native")
    assert validate_repository(root, load_artifacts=True) == []
    path = root / v.name / "config.pbtxt"
    cfg = read_config(path)
    cfg.output[1].name = "diff"  # the PyTorch backend needs <name>__<index> outputs
    cfg.input[1].name = "c"  # neither an argument of forward() nor <name>__<index>
    del cfg.input[0]
    write_config(cfg, path)
    assert found(validate_repository(root, load_artifacts=True)) == {("config.pbtxt", "input"), ("config.pbtxt", "input[c].name")}
    # one convention for all outputs, else the config's order: here the names' order, served right (a warning)
    assert found(validate(root, load_artifacts=True).warnings) == {("config.pbtxt", "output[OUTPUT__0, diff].name")}


def test_every_problem_is_reported_at_once_and_the_cli_exits_non_zero(repo):
    edit(repo, lambda c: (setattr(c, "name", "other"), c.dynamic_batching.preferred_batch_size.append(99)))
    (repo / NAME / "v2").mkdir()
    assert len(validate_repository(repo)) == 4  # the preferred size also breaks what the variant name says
    r = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["validate", str(repo)])
    assert r.exit_code == 1
    for text in ("what to do", "preferred_batch_size", "version folder", "4 problems in 1 of 1 model"):
        assert text in r.output
    # the installed entry point (run_cli, not click's standalone mode) must exit 1 as well
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "builders.cli.main", "validate", str(repo)], capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr


def test_cli_on_a_valid_repository_exits_zero(repo):
    r = CliRunner().invoke(cli, ["validate", str(repo)])
    assert r.exit_code == 0 and "no problems" in r.output
    r = CliRunner().invoke(cli, ["validate", str(repo / NAME)])  # one model folder
    assert r.exit_code == 0 and "1 model checked, no problems" in r.output


def test_missing_or_empty_repository(tmp_path):
    assert found(validate_repository(tmp_path / "nope")) == {("nope", "repository")}
    assert found(validate_repository(tmp_path)) == {(tmp_path.name, "repository")}


@pytest.mark.slow  # the session's real tiny build
def test_our_builds_validate_clean_for_both_servings(tiny_repo, tiny_build, tiny_build_dir, tmp_path):
    """The shared python-serving build, and native-serving configs (not servable here) written from its artifacts."""
    assert validate_repository(tiny_repo) == []
    spec = ModelSpec.from_json(tiny_build.manifest["spec"])
    native = tmp_path / "native"
    variants = [
        Variant("tiny", "torchscript", max_batch_size=0, warmup="zero"),
        Variant("tiny", "torchscript", max_batch_size=8, dynamic_batching=True, preferred_batch_sizes=(4, 8), warmup="random"),
        Variant("tiny", "onnx", max_batch_size=0, warmup="random"),
        Variant("tiny", "onnx", kind="gpu", gpus=(0,), max_batch_size=8, dynamic_batching=True, trt_accelerator="fp16"),
    ]
    for v in variants:
        write_variant(native, v, tiny_build_dir / ("model.pt" if v.format == "torchscript" else "model.onnx"), spec, "native")
    assert validate_repository(native) == []
    gpu_name = variants[-1].name
    assert found(validate_repository(native, server_gpu=False)) == {("config.pbtxt", "instance_group[0].kind")}
    assert {Path(p.file).parent.name for p in validate_repository(native, server_gpu=False)} == {gpu_name}
    # the exported file is shared between variants, not copied
    inodes = {(native / v.name / "1" / "model.onnx").stat().st_ino for v in variants if v.format == "onnx"}
    assert inodes == {(tiny_build_dir / "model.onnx").stat().st_ino}


def test_the_summary_counts_a_problem_of_the_repository_itself_apart_from_its_models(tmp_path, repo):
    """A problem of the repository itself is in none of its models: "1 problem in 1 of 0 models"
    (an empty folder, a path that does not exist) counted a model that is not there."""
    from builders.repository.validate import Problem, summary

    empty = tmp_path / "empty"
    empty.mkdir()
    r = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["validate", str(empty)])
    assert r.exit_code == 1
    assert "1 problem in the repository itself (no model checked)" in r.output, r.output
    assert "of 0 models" not in r.output
    missing = validate(tmp_path / "missing")  # a path that is not there: the CLI refuses it as typed (exit 2, T19-2)
    assert summary(missing.problems, tmp_path / "missing") == "1 problem in the repository itself (no model checked)"
    in_model = Problem(str(repo / NAME / "config.pbtxt"), "name", "x", "y")
    index = Problem(str(repo / "index.json"), "index", "x", "y")
    assert summary([in_model], repo) == "1 problem in 1 of 1 model"
    assert summary([index], repo) == "1 problem in the repository itself"
    assert summary([in_model, index], repo) == "2 problems: 1 in 1 of 1 model, 1 in the repository itself"
