"""TorchScript export: script first, trace as the fallback, names Triton's PyTorch backend accepts."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from builders.backends.pytorch_libtorch import triton_names
from builders.export.torchscript import export_torchscript, sort_constant_lines
from builders.model.builtin import get_builtin
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec, output_placeholder
from builders.serving.runners import load_runner
from builders.verify.input_draws import DRAWS
from builders.verify.verification import verify_artifact
from core.errors import ExportError


class DictOut(nn.Module):
    """Two inputs of different dtypes, dict output of different dtypes."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, feats: torch.Tensor, ids: torch.Tensor) -> dict[str, torch.Tensor]:
        h = self.emb(ids).sum(dim=1) + feats
        return {"h": h, "best": h.argmax(dim=1)}


DICT_SPEC = ModelSpec(
    (TensorSpec("feats", "float32", (4,)), TensorSpec("ids", "int64", ("seq",), (0, 9))),
    (output_placeholder("h"), output_placeholder("best")),
    {"seq": (1, 3, 6)},
)


@pytest.mark.slow  # real export (torch.jit.script); real export (torch.jit.script, torch.jit.trace)
@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_builtin_is_scripted_and_verifies_in_every_precision(tmp_path, precision):
    b = get_builtin("tiny")
    model = b.factory()
    spec = infer_outputs(model, b.spec)
    result = export_torchscript(model, spec, tmp_path, precision)
    assert result.strategy == "script" and [a.ok for a in result.attempts] == [True]
    assert result.path.name == "model.pt" and result.size_bytes > 0
    checks = verify_artifact(result, model, spec, 8, {})
    assert [(c["batch"], c["draw"]) for c in checks] == [(b, d) for b in (1, 4, 8) for d in DRAWS]


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_dict_outputs_are_flattened_and_dtypes_kept(tmp_path):
    torch.manual_seed(0)
    model = DictOut().eval()
    spec = infer_outputs(model, DICT_SPEC)
    assert [(t.name, t.dtype) for t in spec.outputs] == [("h", "float32"), ("best", "int64")]
    result = export_torchscript(model, spec, tmp_path)
    assert result.strategy == "script"
    run = load_runner("torchscript", result.path, ["feats", "ids"], ["h", "best"])
    out = run(spec.example_inputs(3, {"seq": 5}))
    assert out["h"].shape == (3, 4) and out["best"].dtype.name == "int64"
    verify_artifact(result, model, spec, 4, {})
    # the dict is flattened by a traced wrapper that takes forward()'s argument names (trial 15, T15-8): the
    # inputs keep them; the outputs follow <name>__<index>, the spec's names kept
    assert result.extra["triton_names"] == {
        "inputs": {"feats": "feats", "ids": "ids"},
        "outputs": {"h": "h__0", "best": "best__1"},
    }


class TupleOut(nn.Module):
    def forward(self, feats: torch.Tensor, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return feats * 2, ids + 1


@pytest.mark.slow  # real export (torch.jit.script)
def test_forward_argument_names_are_kept_for_a_scripted_model(tmp_path):
    spec = infer_outputs(TupleOut(), DICT_SPEC)
    result = export_torchscript(TupleOut(), spec, tmp_path)
    assert result.strategy == "script"
    assert result.extra["triton_names"] == {
        "inputs": {"feats": "feats", "ids": "ids"},
        "outputs": {"h": "h__0", "best": "best__1"},
    }


def test_triton_names_keep_conventional_names():
    spec = ModelSpec(
        (TensorSpec("INPUT__0", "float32", (2,)), TensorSpec("x__0", "float32", (2,))),
        (TensorSpec("logits__0", "float32", (2,)), TensorSpec("out__5", "float32", (2,))),
    )
    names = triton_names(spec, ["a", "b"])
    assert names["inputs"] == {"INPUT__0": "INPUT__0", "x__0": "INPUT__1"}  # index must match position
    assert names["outputs"] == {"logits__0": "logits__0", "out__5": "OUTPUT__1"}


#: Trial 11's model (F25): outputs whose names are not the PyTorch backend's convention.
TRIAL_SPEC = ModelSpec(
    (TensorSpec("categories", "int64", (6,), (0, 9)), TensorSpec("numeric", "float32", (10,))),
    (TensorSpec("logits", "float32", (4,)), TensorSpec("probs", "float32", (4,))),
)


def test_native_pytorch_outputs_keep_the_spec_name_as_name__index():
    names = triton_names(TRIAL_SPEC, ["categories", "numeric"])
    assert names["outputs"] == {"logits": "logits__0", "probs": "probs__1"}  # was OUTPUT__0, OUTPUT__1
    assert names["inputs"] == {"categories": "categories", "numeric": "numeric"}  # forward()'s names
    traced = triton_names(TRIAL_SPEC, [])  # forward(*args): no argument names to keep
    assert traced["inputs"] == {"categories": "categories__0", "numeric": "numeric__1"}


def test_a_name_the_backend_would_split_elsewhere_falls_back_to_the_prefix():
    # the backend reads the index after the FIRST "__": "a__b__1" would be index "b__1", "out___1" "_1"
    spec = ModelSpec(
        (TensorSpec("a__b", "float32", (2,)), TensorSpec("x_", "float32", (2,))),
        (TensorSpec("out_", "float32", (2,)), TensorSpec("y__z", "float32", (2,)), TensorSpec("ok", "float32", (2,))),
    )
    names = triton_names(spec, [])
    assert names["inputs"] == {"a__b": "INPUT__0", "x_": "INPUT__1"}
    assert names["outputs"] == {"out_": "OUTPUT__0", "y__z": "OUTPUT__1", "ok": "ok__2"}


class NotExportable(nn.Module):
    def forward(self, x, *rest):  # varargs: not scriptable
        return x.tolist()  # Python numbers: not traceable


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_every_strategy_is_recorded_when_all_fail(tmp_path):
    spec = ModelSpec((TensorSpec("x", "float32", (3,)),), (TensorSpec("y", "float32", (3,)),))
    with pytest.raises(ExportError, match=r"script: \w+Error: .*; trace: \w+Error") as e:
        export_torchscript(NotExportable(), spec, tmp_path)
    assert "scriptable" in e.value.hint


#: One export in a fresh Python process: a model with many constants (a Conv1d's stride, padding,
#: dilation, ...; a BatchNorm's eps, momentum, ...), exported by the toolkit into argv[1].
_EXPORT_IN_A_PROCESS = """
import sys
from pathlib import Path
import torch
from torch import nn
from builders.export.onnx import export_onnx
from builders.export.torchscript import export_torchscript
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec, output_placeholder

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv1d(4, 8, 3, dilation=2, padding=2), nn.BatchNorm1d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 16, 3)
).eval()
spec = infer_outputs(model, ModelSpec((TensorSpec("x", "float32", (4, 16)),), (output_placeholder("y"),)))
fmt, precision = sys.argv[2:4]
(export_onnx if fmt == "onnx" else export_torchscript)(model, spec, Path(sys.argv[1]), precision)
"""


@pytest.mark.slow  # real exports (torch.jit.script, torch.onnx.export), two Python processes each
@pytest.mark.parametrize(("fmt", "precision"), [("torchscript", "fp32"), ("torchscript", "fp16"), ("onnx", "fp32")])
def test_the_same_model_exports_the_same_bytes_in_every_process(tmp_path, fmt, precision):
    # trial 9, F32: each build process printed the scripted constants in its own set order (the
    # string hash seed), so a rebuild of the very model a run measured never matched it again;
    # ONNX was stable already and stays so (a run's identity of its files holds for both)
    import hashlib
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    paths = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        subprocess.run([sys.executable, "-c", _EXPORT_IN_A_PROCESS, str(out), fmt, precision], env=env, check=True, cwd=root)
        paths.append(out / ("model.onnx" if fmt == "onnx" else "model.pt"))
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]
    assert digests[0] == digests[1]
    if fmt == "onnx":
        return
    x = torch.randn(5, 4, 16, dtype=torch.float16 if precision == "fp16" else torch.float32)
    outs = [torch.jit.load(str(p))(x) for p in paths]
    assert torch.equal(outs[0], outs[1]) and outs[0].shape == (5, 3)


def test_constant_lines_are_sorted_by_name_and_nothing_else_moves():
    code = (
        "class Conv1d(Module):\n  __parameters__ = []\n  training : bool\n"
        '  stride : Final[Tuple[int]] = (1,)\n  padding_mode : Final[str] = "zeros"\n  groups : Final[int] = 1\n'
        "  def forward(self: __torch__.Conv1d,\n    input: Tensor) -> Tensor:\n    return input\n"
    )
    done = sort_constant_lines(code)
    assert done.splitlines()[3:6] == [
        "  groups : Final[int] = 1",
        '  padding_mode : Final[str] = "zeros"',
        "  stride : Final[Tuple[int]] = (1,)",
    ]
    assert done.splitlines()[:3] == code.splitlines()[:3] and done.splitlines()[6:] == code.splitlines()[6:]
    assert len(done) == len(code) and sort_constant_lines(done) == done
