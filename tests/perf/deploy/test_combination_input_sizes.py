"""A co-location run's bundle states its variants' input sizes as a sweep's bundle does (trial 26, T26-8 said of the
sweep's bundle only): what each config takes of a dynamic dim, the build's verified range and the sizes the run
measured at (its build's sizes: colocate sends no --shape). A hand-written ONNX model, a saved record, no server."""

from __future__ import annotations

from pathlib import Path

import onnx
from click.testing import CliRunner
from onnx import TensorProto, helper

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.writer import write_variant
from clients.runtimes.identity import found_artifact
from perf.cli.main import cli
from perf.deploy.input_sizes import input_sizes_lines
from perf.records import colocation

SONAR = ModelSpec(
    (TensorSpec("pulse", "float32", (1, "span")),),
    (TensorSpec("echo", "float32", (1, "span")),),
    {"span": (400, 2000, 4000)},
)
VARIANT = Variant("sonar", "onnx", max_batch_size=8)


def _run(fake_build, tmp_path: Path) -> Path:
    repo = fake_build(SONAR, VARIANT, serving="native")
    pulse = helper.make_tensor_value_info("pulse", TensorProto.FLOAT, ["batch", 1, "span"])
    echo = helper.make_tensor_value_info("echo", TensorProto.FLOAT, ["batch", 1, "span"])
    graph = helper.make_graph([helper.make_node("Identity", ["pulse"], ["echo"])], "g", [pulse], [echo])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "model.onnx")
    write_variant(repo, VARIANT, tmp_path / "model.onnx", SONAR, "native")
    rec = colocation.ColocationRecord(
        "mix1", "2026-12-02T00:00:00", str(repo), [colocation.ColocatedModel("sonar", [VARIANT.name])]
    )
    rec.pick, rec.pick_reason = {"sonar": VARIANT.name}, "the only combination"
    rec.artifacts = {VARIANT.name: found_artifact(repo / VARIANT.name)}
    run_dir = tmp_path / "results" / "mix1"
    colocation.save(rec, run_dir)
    return run_dir


def test_the_combination_bundle_says_each_variants_verified_range_and_the_size_measured(fake_build, tmp_path: Path) -> None:
    run_dir = _run(fake_build, tmp_path)
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir)], terminal_width=400)
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    expected = (
        f"`{VARIANT.name}`'s config takes any size of its dynamic dims (pulse [1, -1] per sample; -1 = dynamic: Triton's "
        "config holds no range). The build verified its outputs against PyTorch's for span 400..4000 only, and every "
        "number of run `mix1` was measured at span=2000 (the build's opt size of axis span) only."
    )
    assert f"input sizes: {expected}" in said
    readme = (run_dir / "deployment-combination" / "README.md").read_text()
    assert f"**Input sizes.** {expected} A request outside that range was never verified nor measured" in readme
    assert readme.index("**Input sizes.**") < readme.index("## Kubernetes")


def test_several_variants_sizes_are_a_list_and_none_is_nothing() -> None:
    assert input_sizes_lines(("a.", "b.")) == ["", "**Input sizes.**", "", "- a.", "- b."]
    assert input_sizes_lines(("a.",)) == ["", "**Input sizes.** a."]
    assert input_sizes_lines(()) == []
