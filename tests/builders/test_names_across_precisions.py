"""One model serves one set of tensor names across its precisions (trial 15, T15-8): the fp16
TorchScript export wrapped the model in a cast wrapper whose ``forward(*args)`` was traced with the
argument name ``a``, so Triton's PyTorch backend could not find ``history`` by name and the fp16
variant served ``history__0`` where the fp32 variant served ``history``. Every wrapper now takes the
model's own ``forward()`` argument names (the spec's where those are unknown), in every precision
and strategy; the build's served-names line says why a backend still renames a tensor."""

from __future__ import annotations

import inspect
import sys
import textwrap

import pytest

from builders.build import BuildOptions, build
from builders.cli.summary import served_names_lines
from builders.config.pbtxt import read_config
from builders.config.variants import VariantGrid
from builders.export.precision import argument_names, prepare_module
from builders.export.torchscript import export_torchscript
from builders.model.forward_args import forward_names
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.records import BuildManifest

#: The trial's model: a GRU forecaster, ``history`` [T, 4] -> ``forecast`` [8].
FORECASTER = """
import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(input_size=4, hidden_size=8, num_layers=1, batch_first=True)
        self.head = nn.Linear(8, 8)

    def forward(self, history: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(history)
        return self.head(out[:, -1, :])


def forecaster():
    torch.manual_seed(0)
    return Forecaster().eval()
"""

PRECISIONS = ("fp32", "fp16")


@pytest.fixture()
def forecaster(tmp_path, monkeypatch):
    (tmp_path / "t158_forecaster.py").write_text(textwrap.dedent(FORECASTER))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "t158_forecaster:forecaster"
    sys.modules.pop("t158_forecaster", None)


@pytest.mark.slow  # real TorchScript and ONNX exports in two precisions
def test_fp32_and_fp16_variants_of_one_model_serve_the_same_names(tmp_path, forecaster):
    spec = ModelSpec.from_flags(["history:float32:T,4"], ["forecast"], ["T=4,8,16"])
    result = build(
        BuildOptions(
            forecaster,
            spec=spec,
            formats=("torchscript", "onnx"),
            precisions=PRECISIONS,
            serving="native",
            grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    configs = {d.name: read_config(d / "config.pbtxt") for d in result.variant_dirs}
    by_format: dict[str, set[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for cfg in configs.values():
        names = (tuple(i.name for i in cfg.input), tuple(o.name for o in cfg.output))
        by_format.setdefault(cfg.platform, set()).add(names)
    assert len(configs) == len(PRECISIONS) * 2  # one variant per format and precision
    # one set of names per format across precisions; the input keeps the spec's (= forward()'s) name
    assert by_format == {
        "pytorch_libtorch": {(("history",), ("forecast__0",))},
        "onnxruntime_onnx": {(("history",), ("forecast",))},
    }
    manifest = BuildManifest.model_validate(result.manifest)
    (line,) = served_names_lines(manifest, "native")  # both TorchScript precisions: one line
    assert line.startswith(
        "served names (torchscript fp32, torchscript fp16; --serving native): output forecast as forecast__0 ("
    )
    assert "outputs have no names" in line and "onnx fp32, onnx fp16 serve the spec's names" in line
    assert "input history" not in line


def _models():
    import torch
    from torch import nn

    class Pair(nn.Module):  # dict outputs: flattened by the wrapper in every precision
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, feats, bias):
            h = self.lin(feats) + bias
            return {"low": h, "high": h * 2}

    class Star(nn.Module):  # forward(*args): not scriptable, traced; its names are unknown
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, *args):
            return self.lin(args[0]) + args[1]

    torch.manual_seed(0)
    ins = (TensorSpec("feats", "float32", (4,)), TensorSpec("bias", "float32", (3,)))
    pair_out = (TensorSpec("low", "float32", (3,)), TensorSpec("high", "float32", (3,)))
    return {
        "dict outputs": (Pair().eval(), ModelSpec(ins, pair_out), ("feats", "bias")),
        "forward(*args)": (Star().eval(), ModelSpec(ins, (TensorSpec("out", "float32", (3,)),)), ("feats", "bias")),
        # the spec renames forward()'s inputs: every precision serves the spec's INPUT__<i>, passed as feats, bias
        "renamed inputs": (
            Pair().eval(),
            ModelSpec((TensorSpec("INPUT__0", "float32", (4,)), TensorSpec("INPUT__1", "float32", (3,))), pair_out),
            ("INPUT__0", "INPUT__1"),
        ),
    }


@pytest.mark.slow  # real TorchScript exports (script, and trace for forward(*args))
@pytest.mark.parametrize("case", ["dict outputs", "forward(*args)", "renamed inputs"])
def test_every_precision_and_strategy_exports_the_same_argument_names(tmp_path, case):
    import torch

    module, spec, served = _models()[case]
    args, names = {}, {}
    for precision in (*PRECISIONS, "bf16"):
        result = export_torchscript(module, spec, tmp_path / precision, precision)
        args[precision] = forward_names(torch.jit.load(str(result.path)))
        names[precision] = result.extra["triton_names"]["inputs"]
    assert len(set(args.values())) == 1 and None not in args.values(), args  # one set of real names
    assert all(tuple(n.values()) == served for n in names.values()), names


def test_the_wrapper_takes_the_models_own_names_else_the_specs():
    from torch import nn

    class Named(nn.Module):
        def forward(self, x, y, scale=1.0):
            return x * y * scale

    class Star(nn.Module):
        def forward(self, *args):
            return args[0]

    assert argument_names(Named(), ["a", "b"]) == ("x", "y")  # forward()'s, as the bare model's export has
    assert argument_names(Star(), ["a", "b"]) == ("a", "b")  # unknown: the spec's
    assert argument_names(Star(), ["input.1"]) is None  # not a Python name: forward(*args) as before
    assert argument_names(Star(), ["class"]) is None
    assert argument_names(Named(), []) is None
    spec = ModelSpec((TensorSpec("a", "float32", (2,)), TensorSpec("b", "float32", (2,))), (TensorSpec("o", "float32", (2,)),))
    for precision in ("fp32", "fp16"):  # what torch.jit.trace and torch.export read the names from
        assert list(inspect.signature(prepare_module(Named(), precision, spec).forward).parameters) == ["x", "y"]
