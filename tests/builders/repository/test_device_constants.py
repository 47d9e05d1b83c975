"""Devices baked into traced TorchScript graphs (issue 11, item 2): detected, recorded in the
manifest, and variants of another device kind refused with a message naming the constant, at
build time and by `builders validate`."""

from __future__ import annotations

import sys
import textwrap

import pytest
import torch

from builders.build import BuildOptions, build
from builders.config.checks import device_constant_problems
from builders.config.pbtxt import read_config, write_config
from builders.config.variants import Variant, VariantGrid
from builders.model.artifact_io import device_constants, read_artifact_io
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.validate import validate
from builders.repository.writer import write_variant
from core.errors import ConfigError

TRACE_ONLY = '''
import torch
from torch import nn


class Bias(nn.Module):
    """Trace-only (forward(*args) is not scriptable); a tensor made on x.device in forward."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, *args):
        x = args[0]
        return self.lin(x) + torch.ones(x.shape[0], 16, device=x.device)


class Positions(nn.Module):
    """Another of the kind: torch.arange(n) in forward (a factory call on the default device)."""

    def forward(self, *args):
        x = args[0]
        return x + torch.arange(x.shape[1], dtype=x.dtype)


def bias():
    torch.manual_seed(0)
    return Bias().eval()


def positions():
    return Positions().eval()
'''


@pytest.fixture()
def pkg(tmp_path, monkeypatch):
    (tmp_path / "trace_only_pkg.py").write_text(textwrap.dedent(TRACE_ONLY))
    monkeypatch.syspath_prepend(str(tmp_path))
    import trace_only_pkg

    yield trace_only_pkg
    sys.modules.pop("trace_only_pkg", None)


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_device_constants_are_found_in_traced_graphs_only(pkg, tmp_path):
    x = torch.randn(2, 16)
    traced = torch.jit.trace(pkg.bias(), (x,))
    assert device_constants(traced) == ["cpu (aten::ones)"]
    assert device_constants(torch.jit.trace(pkg.positions(), (x,))) == ["cpu (aten::arange)"]

    class Scripted(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + torch.ones(x.shape[0], 16, device=x.device)

    assert device_constants(torch.jit.script(Scripted())) == []  # reads the device at run time
    traced.save(str(tmp_path / "model.pt"))
    assert read_artifact_io("torchscript", tmp_path / "model.pt").device_constants == ("cpu (aten::ones)",)


def test_the_rule():
    assert device_constant_problems("KIND_CPU", ["cpu (aten::ones)"], "instance_group[0]") == []
    (p,) = device_constant_problems("KIND_GPU", ["cpu (aten::ones)"], "instance_group[0]")
    assert p.field == "instance_group[0].kind" and "cpu (aten::ones)" in p.problem
    assert device_constant_problems("KIND_CPU", ["cuda:0 (aten::zeros)"], "g")  # a GPU trace served on CPU


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
@pytest.mark.parametrize("factory,constant", [("bias", "cpu (aten::ones)"), ("positions", "cpu (aten::arange)")])
def test_build_refuses_gpu_variants_of_a_cpu_trace(pkg, tmp_path, factory, constant):
    spec = ModelSpec.from_flags(["x:float32:16"])
    res = build(
        BuildOptions(
            f"trace_only_pkg:{factory}",
            formats=("torchscript",),
            serving="native",
            spec=spec,
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
            grid=VariantGrid(kinds=("cpu", "gpu"), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,), server_gpu=True),
        )
    )
    (ts,) = [e for e in res.manifest["exports"] if e["format"] == "torchscript"]
    assert ts["strategy"] == "trace" and ts["extra"]["device_constants"] == [constant]  # flagged in the manifest
    assert [n for n in res.manifest["variants"]] and all("_cpu" in n for n in res.manifest["variants"])
    skipped = {s["what"]: s["reason"] for s in res.manifest["skipped_variants"]}
    (gpu_variant,) = [w for w in skipped if "_gpu" in w]
    assert constant in skipped[gpu_variant] and "KIND_GPU" in skipped[gpu_variant]
    assert validate(tmp_path / "repo").problems == []


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_validate_reports_a_kind_gpu_config_of_a_cpu_trace(pkg, tmp_path):
    spec = ModelSpec.from_flags(["x:float32:16"])
    res = build(
        BuildOptions(
            "trace_only_pkg:bias",
            formats=("torchscript",),
            spec=spec,
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
            grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
        )
    )
    (name,) = res.manifest["variants"]
    cfg_path = tmp_path / "repo" / name / "config.pbtxt"
    cfg = read_config(cfg_path)
    cfg.instance_group[0].kind = cfg.instance_group[0].KIND_GPU
    write_config(cfg, cfg_path)
    problems = validate(tmp_path / "repo").problems  # from the build record, nothing loaded
    assert [p.field for p in problems] == ["instance_group", "instance_group[0].kind"]  # the name says cpu1 too
    assert "cpu (aten::ones)" in problems[1].problem
    # a repository without a build record: found in the graph with --load-artifacts (in a child process)
    torch.jit.trace(pkg.bias(), (torch.randn(2, 16),)).save(str(tmp_path / "model.pt"))
    v = Variant("bias", "torchscript", kind="gpu", max_batch_size=4)
    with pytest.raises(ConfigError, match="device constants"):
        write_variant(
            tmp_path / "native",
            v,
            tmp_path / "model.pt",
            ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (16,)),)),
            "native",
        )
    write_variant(
        tmp_path / "native",
        Variant("bias", "torchscript", max_batch_size=4),
        tmp_path / "model.pt",
        ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (16,)),)),
        "native",
    )
    (folder,) = [d for d in (tmp_path / "native").iterdir() if d.is_dir()]
    cfg = read_config(folder / "config.pbtxt")
    cfg.instance_group[0].kind = cfg.instance_group[0].KIND_GPU
    write_config(cfg, folder / "config.pbtxt")
    found = validate(tmp_path / "native").problems  # from the archive's code text, nothing loaded (issue 25, item 6)
    assert [p.field for p in found] == ["instance_group", "instance_group[0].kind"] and "cpu (aten::ones)" in found[1].problem
    loaded = validate(tmp_path / "native", load_artifacts=True).problems
    assert [p.field for p in loaded] == ["instance_group", "instance_group[0].kind"]
