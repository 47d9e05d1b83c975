"""`builders validate` blind spots (issue 11, item 8): ONNX external data, the target release's
limits, unreadable TensorRT plans, bracketed names in the console, and not deserialising
TorchScript or plans in the toolkit's own process."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper
from tritonclient.grpc import model_config_pb2 as mc

from builders.cli.main import cli
from builders.config.pbtxt import read_config, write_config
from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.validate import validate, validate_repository
from builders.repository.writer import write_variant
from builders.triton.releases import NOT_CONFIRMED, ONNXRUNTIME_LIMITS, RELEASES, release
from core.errors import ConfigError

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (16,)),))


def found(problems) -> set[tuple[str, str]]:
    return {(Path(p.file).name, p.field) for p in problems}


def onnx_with_weights(path: Path, *, opset: int = 18, ir_version: int | None = None, location: str | None = None) -> Path:
    """INPUT__0 [batch,16] + w -> OUTPUT__0; ``location`` stores w as external data in that file."""
    w = numpy_helper.from_array(np.ones(16, np.float32), "w")
    x = helper.make_tensor_value_info("INPUT__0", TensorProto.FLOAT, ["batch", 16])
    y = helper.make_tensor_value_info("OUTPUT__0", TensorProto.FLOAT, ["batch", 16])
    graph = helper.make_graph([helper.make_node("Add", ["INPUT__0", "w"], ["OUTPUT__0"])], "g", [x], [y], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if ir_version is not None:
        model.ir_version = ir_version
    if location:
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=location, size_threshold=0)
    else:
        onnx.save(model, path)
    return path


def native_repo(tmp_path: Path, artifact: Path, fmt: str = "onnx") -> tuple[Path, Path]:
    root = tmp_path / "repo"
    v = Variant("m", fmt, max_batch_size=8)
    vdir = write_variant(root, v, artifact, SPEC, "native")
    return root, vdir


@pytest.mark.parametrize("location", ["model.onnx.data", "weights.bin"])
def test_missing_onnx_external_data_is_a_problem(tmp_path, location):
    art = onnx_with_weights(tmp_path / "model.onnx", location=location)
    root, vdir = native_repo(tmp_path, art)
    os.link(tmp_path / location, vdir / "1" / location)
    assert validate_repository(root) == []
    (vdir / "1" / location).unlink()
    problems = validate_repository(root)
    assert found(problems) == {("model.onnx", "external data")}
    assert location in problems[0].problem


def test_target_release_limits_onnx_opset_and_ir_version(tmp_path):
    root, vdir = native_repo(tmp_path, onnx_with_weights(tmp_path / "model.onnx", opset=23, ir_version=11))
    no_target = validate(root)
    assert no_target.problems == []
    assert "target server limits" in {s.field for s in no_target.skipped}  # said, not silently skipped
    r = validate(root, target=release("24.05"))  # ONNX Runtime 1.18.0: opset <= 21, IR <= 10 (sourced)
    assert "target server limits" not in {s.field for s in r.skipped}
    assert found(r.problems) == {("model.onnx", "ONNX opset"), ("model.onnx", "ONNX IR version")}
    assert any("1.18.0" in p.problem and "<= 21" in p.problem for p in r.problems)
    assert any("1.18.0" in p.problem and "<= 10" in p.problem for p in r.problems)
    # an opset the release reads is fine
    root2, _ = native_repo(tmp_path / "b", onnx_with_weights(tmp_path / "b.onnx", opset=17, ir_version=8))
    assert validate(root2, target=release("24.05")).problems == []


def test_target_release_with_unconfirmed_limits_lists_the_check_as_not_run(tmp_path):
    """25.03 carries ONNX Runtime 1.21.0 (sourced), but 1.21's opset/IR limits are not: no verdict
    against a guess, the check is listed as not run with the reason."""
    root, _ = native_repo(tmp_path, onnx_with_weights(tmp_path / "model.onnx", opset=23, ir_version=11))
    r = validate(root, target=release("25.03"))
    assert r.problems == []
    skipped = [s for s in r.skipped if s.field.startswith("ONNX limits of Triton 25.03")]
    assert len(skipped) == 1 and NOT_CONFIRMED in skipped[0].problem and "1.21.0" in skipped[0].problem


def test_target_release_names(tmp_path):
    assert release("24.10").onnxruntime == "1.19.2" and release("24.10").server is None  # 2.51.0 not sourced
    assert release("nvcr.io/nvidia/tritonserver:24.10-py3") is RELEASES["24.10"]
    assert release("2.56.0").container == "25.03"
    assert release("25.03").onnxruntime == "1.21.0"  # the release table, not build.py's 25.03dev 1.20.1
    with pytest.raises(ConfigError) as e:
        release("23.99")
    assert "25.03 (2.56.0)" in (e.value.hint or "") and "24.10" in (e.value.hint or "")
    with pytest.raises(ConfigError):
        release("2.51.0")  # a server version the table does not confirm is refused, not guessed


def test_every_table_value_has_a_recorded_source():
    fields = ("server", "onnxruntime", "tensorrt")
    for r in RELEASES.values():
        assert set(r.sources) <= set(fields), r.container
        for f in fields:
            if getattr(r, f) is not None:
                assert r.sources.get(f, "").strip(), f"{r.container}.{f} has no source"
            else:
                assert f not in r.sources, f"{r.container}.{f} is None but names a source"
    for minor, limits in ONNXRUNTIME_LIMITS.items():
        assert limits.source.strip() and minor in limits.source, minor


def test_tensorrt_check_not_run_when_the_release_tensorrt_is_not_confirmed(tmp_path):
    root = tmp_path / "repo"
    vdir = root / "m_trt"
    (vdir / "1").mkdir(parents=True)
    (vdir / "1" / "model.plan").write_bytes(b"not a plan")
    (vdir / "config.pbtxt").write_text(
        'name: "m_trt"\nplatform: "tensorrt_plan"\nmax_batch_size: 8\n'
        'input { name: "x" data_type: TYPE_FP32 dims: [16] }\n'
        'output { name: "y" data_type: TYPE_FP32 dims: [16] }\n'
    )
    assert RELEASES["24.09"].tensorrt is None
    r = validate(root, target=release("24.09"))
    assert r.problems == []
    trt = [s for s in r.skipped if s.field.startswith("TensorRT version against Triton 24.09")]
    assert len(trt) == 1 and NOT_CONFIRMED in trt[0].problem


def test_tensorrt_plan_version_recorded_by_the_build(tmp_path):
    """A plan's TensorRT version comes from its build manifest (via index.json); none recorded: said."""
    from builders.repository.records import INDEX_FILE  # noqa: F401 - the repository written below has no index

    root = tmp_path / "repo"
    vdir = root / "m_trt"
    (vdir / "1").mkdir(parents=True)
    (vdir / "1" / "model.plan").write_bytes(b"not a plan")
    (vdir / "config.pbtxt").write_text(
        'name: "m_trt"\nplatform: "tensorrt_plan"\nmax_batch_size: 8\n'
        'input { name: "x" data_type: TYPE_FP32 dims: [16] }\n'
        'output { name: "y" data_type: TYPE_FP32 dims: [16] }\n'
    )
    r = validate(root, target=release("24.10"))
    assert r.problems == []
    checks = {s.field for s in r.skipped}
    assert any(c.startswith("TensorRT version against Triton 24.10") for c in checks)
    assert "inputs/outputs against the artifact" in checks  # the plan was not loaded: listed, not silent


def test_empty_plan_is_a_problem(tmp_path):
    vdir = tmp_path / "repo" / "m"
    (vdir / "1").mkdir(parents=True)
    (vdir / "1" / "model.plan").write_bytes(b"")
    (vdir / "config.pbtxt").write_text(
        'name: "m"\nplatform: "tensorrt_plan"\nmax_batch_size: 0\n'
        'input { name: "x" data_type: TYPE_FP32 dims: [16] }\n'
        'output { name: "y" data_type: TYPE_FP32 dims: [16] }\n'
    )
    assert found(validate_repository(tmp_path / "repo")) == {("model.plan", "(artifact)")}


FAKE_TENSORRT = """
__version__ = "10.5.0.18"
class Logger:
    ERROR = 0
    def __init__(self, level): pass
class Runtime:
    def __init__(self, logger): pass
    def deserialize_cuda_engine(self, data): return None  # what TensorRT returns for a plan it cannot read
"""


def test_plan_tensorrt_cannot_read_is_a_problem(tmp_path, monkeypatch):
    """Where tensorrt imports, a plan it cannot deserialise is reported (a stand-in tensorrt
    module: no GPU here), read in the child process with --load-artifacts."""
    fake = tmp_path / "fake"
    (fake / "tensorrt").mkdir(parents=True)
    (fake / "tensorrt" / "__init__.py").write_text(FAKE_TENSORRT)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(fake), *sys.path]))
    vdir = tmp_path / "repo" / "m"
    (vdir / "1").mkdir(parents=True)
    (vdir / "1" / "model.plan").write_bytes(b"garbage")
    (vdir / "config.pbtxt").write_text(
        'name: "m"\nplatform: "tensorrt_plan"\nmax_batch_size: 0\n'
        'input { name: "x" data_type: TYPE_FP32 dims: [16] }\n'
        'output { name: "y" data_type: TYPE_FP32 dims: [16] }\n'
    )
    assert validate(tmp_path / "repo").problems == []  # not loaded by default: listed as skipped
    problems = validate_repository(tmp_path / "repo", load_artifacts=True)
    assert found(problems) == {("model.plan", "(artifact)")}
    assert "10.5.0.18" in problems[0].problem


def test_bracketed_names_survive_the_console(tmp_path):
    """rich markup swallowed `[a]`: two different bad inputs printed as the same `input.data_type`."""
    x = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", 4]) for n in ("a", "b")]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "g", x, [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), tmp_path / "model.onnx")
    spec = ModelSpec((TensorSpec("a", "float32", (4,)), TensorSpec("b", "float32", (4,))), (TensorSpec("y", "float32", (4,)),))
    vdir = write_variant(tmp_path / "repo", Variant("m", "onnx", max_batch_size=8), tmp_path / "model.onnx", spec, "native")
    cfg = read_config(vdir / "config.pbtxt")
    for t in cfg.input:
        t.data_type = mc.TYPE_FP64
    write_config(cfg, vdir / "config.pbtxt")
    r = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(tmp_path / "repo")])
    assert r.exit_code == 1
    assert "input[a].data_type" in r.output and "input[b].data_type" in r.output, r.output


@pytest.mark.slow  # real export (torch.jit.script)
def test_torchscript_is_not_loaded_in_the_toolkit_process(tmp_path, monkeypatch):
    """Validating someone else's repository must not run their TorchScript here: by default it
    is not loaded (and the skipped check says so); --load-artifacts loads it in a child process."""
    import torch

    class Two(torch.nn.Module):
        def forward(self, a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return a + 1, a - 1

    torch.jit.script(Two()).save(str(tmp_path / "model.pt"))
    spec = ModelSpec(
        (TensorSpec("a", "float32", (4,)),), (TensorSpec("OUTPUT__0", "float32", (4,)), TensorSpec("OUTPUT__1", "float32", (4,)))
    )
    vdir = write_variant(
        tmp_path / "repo", Variant("two", "torchscript", max_batch_size=4), tmp_path / "model.pt", spec, "native"
    )
    cfg = read_config(vdir / "config.pbtxt")
    del cfg.output[1]
    write_config(cfg, vdir / "config.pbtxt")

    def refuse(*_a, **_k):
        raise AssertionError("torch.jit.load ran in the toolkit's process")

    monkeypatch.setattr(torch.jit, "load", refuse)
    r = validate(tmp_path / "repo")  # the output count comes from the archive's code text (issue 25, item 6)
    assert found(r.problems) == {("config.pbtxt", "output")}
    assert any("not deserialised" in s.problem and "--load-artifacts" in s.fix for s in r.skipped)
    assert any("read from their structure and code text" in n and "(--load-artifacts)" in n for n in r.notes)
    loaded = validate(tmp_path / "repo", load_artifacts=True)  # the child process is not patched
    assert ("config.pbtxt", "output") in found(loaded.problems)
    assert any("separate process" in n for n in loaded.notes)
    out = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(tmp_path / "repo")]).output
    assert "checks not run" in out and "--load-artifacts" in out


def test_a_config_edited_away_from_its_variant_name_is_a_problem_as_the_sweep_refuses_it(tmp_path):
    # trial 6: `sed -i 's/count: 2/count: 1/' <variant>/config.pbtxt` passed validate ("no problems")
    # while the sweep and clients check refused the variant by its name
    art = onnx_with_weights(tmp_path / "model.onnx")
    root = tmp_path / "repo"
    vdir = write_variant(
        root, Variant("m", "onnx", count=2, dynamic_batching=True, max_queue_delay_us=500, max_batch_size=8), art, SPEC, "native"
    )
    assert validate_repository(root) == []
    cfg = read_config(vdir / "config.pbtxt")
    cfg.instance_group[0].count = 1
    cfg.dynamic_batching.max_queue_delay_microseconds = 100
    write_config(cfg, vdir / "config.pbtxt")
    problems = validate_repository(root)
    assert found(problems) == {("config.pbtxt", "instance_group"), ("config.pbtxt", "dynamic_batching")}
    by_field = {p.field: p.problem for p in problems}
    assert by_field["instance_group"] == "its name says ['KIND_CPU x2'], its config.pbtxt ['KIND_CPU x1']"
    assert by_field["dynamic_batching"] == "its name says max_queue_delay 500 µs, its config.pbtxt max_queue_delay 100 µs"
    res = CliRunner().invoke(cli, ["validate", str(root)])
    assert res.exit_code == 1 and "no problems" not in res.output


def test_the_target_advice_names_the_releases_each_check_is_confirmed_for(tmp_path):
    """Trial 11, F6: the advice gave 24.10 as its example, whose ONNX opset/IR check is then listed as
    not run; the hint, --help and the README name the releases from the table (releases.coverage)."""
    from pathlib import Path

    from click.testing import CliRunner

    from builders.cli.main import cli
    from builders.triton.releases import RELEASES, coverage

    root, _ = native_repo(tmp_path, onnx_with_weights(tmp_path / "model.onnx", opset=17, ir_version=8))
    (hint,) = [s.fix for s in validate(root).skipped if s.field == "target server limits"]
    assert coverage() in hint and "e.g. 24.10" not in hint
    onnx = [c for c in RELEASES if RELEASES[c].onnxruntime_limits is not None]
    assert onnx and all(c in coverage().split(";")[0] for c in onnx) and "25.03" not in coverage().split(";")[0]
    for c in onnx:  # every release the advice names for the ONNX check runs it
        assert "target server limits" not in {s.field for s in validate(root, target=release(c)).skipped}
    assert " ".join(coverage().split()) in " ".join(CliRunner().invoke(cli, ["validate", "--help"]).output.split())
    assert coverage() in (Path(__file__).resolve().parents[3] / "README.md").read_text()


def test_a_target_with_no_artifacts_lists_the_onnx_check_as_not_run(tmp_path):
    """s19: `validate --no-artifacts --target-triton 24.08` on native ONNX variants ran no ONNX opset/IR check (the graph
    is not read) and listed none as not run, so "no problems" stood for a check that did not happen."""
    root, _ = native_repo(tmp_path, onnx_with_weights(tmp_path / "model.onnx", opset=17, ir_version=8))
    target = release("24.08")
    rows = [s for s in validate(root, check_artifacts=False, target=target).skipped if s.field.startswith("ONNX limits")]
    assert [(r.problem, r.fix) for r in rows] == [
        (
            "not read: --no-artifacts opens no model file, and the graph's IR version and opset are in it",
            "drop --no-artifacts to check them",
        )
    ]
    assert not [s for s in validate(root, target=target).skipped if s.field.startswith("ONNX limits")]  # read: checked
