"""Where a build's model comes from (issue 19, items 2 and 12): ``--name``; a build of one
name from another source is refused unless ``--force`` or another name; the current
directory is importable; ``nn.Module`` objects with a spec or example inputs, end to end."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import ConfigError, ModelSpecError

pytestmark = (
    pytest.mark.slow
)  # real builds (torch.jit.script/trace, torch.onnx.export, torch.export): `make test`, not `make test-unit`

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
SPEC = ModelSpec((TensorSpec("x", "float32", (8,)),), ())


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


class TwoInputs(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(50, 4)

    def forward(self, ids: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return self.emb(ids).sum(1) * scale


def _opts(model, tmp: Path, **kw) -> BuildOptions:
    kw.setdefault("formats", ("torchscript",))
    return BuildOptions(model, grid=GRID, repository=tmp / "repo", build_dir=tmp / "builds", **kw)


@pytest.fixture
def model_files(tmp_path: Path) -> tuple[Path, Path]:
    m = Net().eval()
    pt, pt2 = tmp_path / "x.pt", tmp_path / "x.pt2"
    torch.jit.save(torch.jit.trace(m, torch.randn(2, 8)), pt)
    batch = torch.export.Dim("batch", max=64)
    torch.export.save(torch.export.export(m, (torch.randn(2, 8),), dynamic_shapes={"x": {0: batch}}), pt2)
    return pt, pt2


def test_a_pt_then_a_pt2_of_the_same_name_is_refused_not_replaced(model_files: tuple[Path, Path], tmp_path: Path) -> None:
    pt, pt2 = model_files
    first = build(_opts(str(pt), tmp_path, spec=SPEC))
    assert first.manifest["source"] == str(pt.resolve())
    with pytest.raises(
        ConfigError, match=r"holds the build of model 'x' from .*x\.pt; this build's model comes from .*x\.pt2"
    ) as e:
        build(_opts(str(pt2), tmp_path, spec=SPEC))
    assert "--name" in e.value.hint and "--force" in e.value.hint
    assert json.loads((tmp_path / "builds" / "x" / "manifest.json").read_text())["source"] == str(pt.resolve())  # untouched
    other = build(_opts(str(pt2), tmp_path, spec=SPEC, name="x_exported"))
    assert other.manifest["model"] == "x_exported" and all(v.startswith("x_exported_") for v in other.manifest["variants"])
    forced = build(_opts(str(pt2), tmp_path, spec=SPEC, force=True))
    assert forced.manifest["source"] == str(pt2.resolve())


def test_rebuilding_the_same_file_is_not_refused(
    model_files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pt, _ = model_files
    build(_opts(str(pt), tmp_path, spec=SPEC))
    monkeypatch.chdir(pt.parent)  # the same file named relative to another directory
    again = build(_opts("x.pt", tmp_path, spec=SPEC))
    assert all(e["reused"] for e in again.manifest["exports"])


def test_two_factories_with_the_same_function_name_do_not_replace_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for mod in ("net_a", "net_b"):
        (tmp_path / f"{mod}.py").write_text(
            textwrap.dedent("""
            import torch
            def make():
                torch.manual_seed(0)
                return torch.nn.Sequential(torch.nn.Linear(8, 2)).eval()
        """)
        )
    monkeypatch.chdir(tmp_path)  # the current directory is importable: no PYTHONPATH needed
    build(_opts("net_a:make", tmp_path, spec=SPEC))
    with pytest.raises(ConfigError, match="from net_a:make; this build's model comes from net_b:make"):
        build(_opts("net_b:make", tmp_path, spec=SPEC))


def test_cli_name_and_a_factory_in_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mymodel.py").write_text("import torch\ndef make_onnx_friendly():\n    return torch.nn.Linear(8, 2).eval()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    res = CliRunner().invoke(
        cli,
        [
            "build",
            "--model",
            "mymodel:make_onnx_friendly",
            "--name",
            "mynet",
            "--input",
            "x:float32:8",
            "--format",
            "torchscript",
            "--instance-counts",
            "1",
            "--dynamic-batching",
            "off",
            "--max-batch-sizes",
            "4",
        ],
    )
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "builds" / "mynet" / "manifest.json").read_text())
    assert manifest["model"] == "mynet" and manifest["source"] == "mymodel:make_onnx_friendly"
    assert (tmp_path / "model_repository" / "mynet_ts_cpu1_nodb_mbs4").is_dir()
    res = CliRunner().invoke(
        cli, ["build", "--model", "mymodel:make_onnx_friendly", "--name", "bad name", "--input", "x:float32:8"]
    )
    assert res.exit_code == 1 and "--name: 'bad name' is not safe" in str(res.exception)


def test_an_nn_module_with_example_inputs_builds_end_to_end(tmp_path: Path) -> None:
    result = build(_opts(Net(), tmp_path, example_inputs=torch.randn(4, 8), formats=("torchscript", "onnx")))
    m = result.manifest
    assert m["model"] == "net" and m["model_kind"] == "module"
    assert m["source"] == f"{__name__}.Net (nn.Module object)"
    json.dumps(m)  # JSON-safe, also on disk
    assert json.loads(result.manifest_path.read_text())["source"] == m["source"]
    (x,) = m["spec"]["inputs"]
    assert (x["name"], x["dtype"], x["shape"], x.get("value_range")) == ("x", "float32", [8], None)  # forward()'s parameter name
    assert [o["shape"] for o in m["spec"]["outputs"]] == [[3]]
    assert sorted(m["variants"]) == ["net_onnx_cpu1_nodb_mbs4", "net_ts_cpu1_nodb_mbs4"]


def test_an_nn_module_with_a_dict_of_example_inputs_keeps_forward_order_and_int_ranges(tmp_path: Path) -> None:
    example = {"scale": torch.ones(3, 1), "ids": torch.tensor([[1, 7, 3], [0, 49, 2], [5, 5, 5]])}
    result = build(_opts(TwoInputs(), tmp_path, example_inputs=example, name="emb"))
    inputs = result.manifest["spec"]["inputs"]
    assert [i["name"] for i in inputs] == ["ids", "scale"]
    # each position would keep its own range where the example's columns differ (trial 11, F17: a tabular
    # input's columns index tables of different sizes), but these ids all index one table: one range, the
    # example's min..max over them (trial 23, T23-14; tests/builders/model/test_shared_table_ranges.py)
    assert (inputs[0]["dtype"], inputs[0]["shape"], inputs[0]["value_range"]) == ("int64", [3], [0, 49])


def test_an_nn_module_with_a_spec_and_without_either(tmp_path: Path) -> None:
    assert build(_opts(Net(), tmp_path, spec=SPEC, name="withspec")).manifest["spec"]["inputs"][0]["name"] == "x"
    with pytest.raises(ModelSpecError, match="needs an input spec") as e:
        build(_opts(Net(), tmp_path))
    assert "example_inputs" in e.value.hint
    with pytest.raises(ModelSpecError, match="scalar"):
        ModelSpec.from_example(torch.tensor(1.0), ["x"])


def test_the_readmes_python_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block, "the README has a Python example"
    code = textwrap.dedent(block.group(1))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "mynet_ts_cpu1_nodb_mbs64" in printed and (tmp_path / "model_repository" / "mynet_onnx_cpu2_db500_mbs64").is_dir()


def test_the_readmes_factory_example_builds_the_model_it_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `--model mymodel:make` built a model named `make` (the factory's name) without
    a word: its example now names the model it builds, and the build names it so."""
    import re
    import sys

    from builders.model.models import load_model

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    said = re.search(r"`--model (\w+):(\w+)` finds `def (\w+)\(\)` in `\./(\w+)\.py` and builds the model `(\w+)`", readme)
    assert said, "the README's factory example says which model it builds"
    module, factory, defined, file, name = said.groups()
    assert (module, factory) == (file, defined)
    (tmp_path / f"{module}.py").write_text(f"import torch\n\ndef {factory}():\n    return torch.nn.Linear(8, 2)\n")
    monkeypatch.chdir(tmp_path)
    sys.modules.pop(module, None)  # another test's `mymodel` (its own file)
    try:
        assert load_model(f"{module}:{factory}", SPEC).name == name
    finally:
        sys.modules.pop(module, None)
    assert "a factory called `make` names the model `make`" in readme  # the rule said where a newcomer reads it
