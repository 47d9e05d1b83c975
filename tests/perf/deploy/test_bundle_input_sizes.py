"""A deployment bundle says what its config takes of a dynamic dim, the build's verified range of the axis and the
sizes the run measured at (trial 26, T26-8: a bundle with config dims [1, -1] said neither the verified range
time 1600..16000 nor that every number was measured at time=8000 only). A hand-written ONNX model of this file's
own (no export), a saved run, no server."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result
from onnx import TensorProto, helper

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.view import Repository
from builders.repository.writer import write_variant
from perf.cli.main import cli
from perf.deploy.bundle import README_FILE, export_deployment
from perf.deploy.input_sizes import input_sizes
from perf.records import results

#: A sonar model: a pulse of one channel over a dynamic span verified for 400..4000, a gain of fixed size.
SONAR = ModelSpec(
    (TensorSpec("pulse", "float32", (1, "span")),),
    (TensorSpec("echo", "float32", (1, "span")),),
    {"span": (400, 2000, 4000)},
)
VARIANT = Variant("sonar", "onnx", max_batch_size=8)
OPT = "span=2000 (the build's opt size of axis span)"  # perf.measure.inputs.describe_dynamic's record


@pytest.fixture
def repo(fake_build, tmp_path: Path) -> Path:
    """The sonar variant, natively served: its build record (fake_build), its model file and config."""
    repo = fake_build(SONAR, VARIANT, serving="native")
    pulse = helper.make_tensor_value_info("pulse", TensorProto.FLOAT, ["batch", 1, "span"])
    echo = helper.make_tensor_value_info("echo", TensorProto.FLOAT, ["batch", 1, "span"])
    graph = helper.make_graph([helper.make_node("Identity", ["pulse"], ["echo"])], "g", [pulse], [echo])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "model.onnx")
    write_variant(repo, VARIANT, tmp_path / "model.onnx", SONAR, "native")
    return repo


def _run(repo: Path, tmp_path: Path, shape: str | None = None, **recorded: object) -> Path:
    params = Repository(repo).index.entries()[VARIANT.name].params
    levels = [level_result(c, 100.0 * c, 2.0 * c, spread=True, shape=shape) for c in (1, 2)]
    run = run_result(
        [variant_result(VARIANT.name, levels, params=params, **recorded)],
        run_id="sonar1",
        settings={"repository": str(repo), "concurrency": [1, 2], "batch_sizes": [1]},
        finished="2026-01-01T00:01:00",
    )
    folder = tmp_path / "results" / "sonar1"
    folder.mkdir(parents=True, exist_ok=True)
    results.save(run, folder)
    return folder


def test_the_bundle_says_the_verified_range_and_the_size_measured(repo: Path, tmp_path: Path):
    run_dir = _run(repo, tmp_path, axis_ranges={"span": [400, 2000, 4000]}, dynamic_axes=OPT)
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir)], terminal_width=400)
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "input sizes: The bundle's config takes any size of its dynamic dims (pulse [1, -1] per sample" in said
    assert "verified its outputs against PyTorch's for span 400..4000 only" in said
    assert f"every number of run `sonar1` was measured at {OPT} only" in said
    readme = (run_dir / f"deployment-{VARIANT.name}" / README_FILE).read_text()
    section = readme.split("## What was measured and what the bundle runs")[1].split("## ")[0]
    assert "**Input sizes.**" in section and "span 400..4000" in section and "never verified" in section
    assert "span=2000" in section


def test_a_run_without_recorded_ranges_takes_the_builds_and_a_swept_size_is_the_series(repo: Path, tmp_path: Path):
    run_dir = _run(repo, tmp_path, shape="span=900")  # a --shapes series; the run recorded no ranges (older runs)
    bundle = export_deployment(run_dir)
    said = bundle.input_sizes or ""
    assert "span 400..4000 only" in said  # the repository build's spec
    assert "measured at span=900 only (its `--shapes` size deployed)" in said


def test_the_words_of_a_mixed_workload_and_of_no_dynamic_dim():
    run = run_result([variant_result("v", axis_ranges={"span": [400, 2000, 4000]})], run_id="m")
    mixed = input_sizes(run, "v", "span=400..4000", [("pulse", [1, -1])])
    assert mixed is not None and "measured at span=400..4000 (mixed): sizes drawn across that range" in mixed
    assert input_sizes(run, "v", None, [("gain", [2])]) is None  # nothing dynamic: nothing to say
    bare = input_sizes(run_result([variant_result("v")], run_id="m"), "v", None, [("pulse", [-1, 3])], batching=False)
    assert bare is not None and "(pulse [-1, 3] (max_batch_size 0: the whole request);" in bare
    assert bare is not None and "The build recorded no verified range for them; run `m` did not record" in bare


def test_a_stepped_axis_is_said_with_its_step(fake_build, tmp_path: Path) -> None:
    """Trial 27, T27-5: the README said "H 64..256" of a build that takes multiples of 16 only (``multiple_of``); a
    client following it would send H=100, which Triton accepts (config dims -1)."""
    spec = dataclasses.replace(SONAR, dynamic_axes={"span": (400, 2000, 4000)}, multiple_of={"span": 400})
    repo = fake_build(spec, VARIANT, serving="native")
    pulse = helper.make_tensor_value_info("pulse", TensorProto.FLOAT, ["batch", 1, "span"])
    echo = helper.make_tensor_value_info("echo", TensorProto.FLOAT, ["batch", 1, "span"])
    graph = helper.make_graph([helper.make_node("Identity", ["pulse"], ["echo"])], "g", [pulse], [echo])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "model.onnx")
    write_variant(repo, VARIANT, tmp_path / "model.onnx", spec, "native")
    run_dir = _run(repo, tmp_path, axis_ranges={"span": [400, 2000, 4000]}, dynamic_axes=OPT)
    said = export_deployment(run_dir).input_sizes or ""
    assert "for span 400..4000 in steps of 400 only" in said, said
    readme = (run_dir / f"deployment-{VARIANT.name}" / README_FILE).read_text()
    assert "span 400..4000 in steps of 400" in " ".join(readme.split())
