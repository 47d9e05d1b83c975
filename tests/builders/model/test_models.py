"""Built-in models and how --model is resolved (built-ins, factories, model files)."""

from __future__ import annotations

import sys
import textwrap

import pytest
import torch

from builders.export.torchscript import export_torchscript
from builders.model.builtin import BUILTINS, ENCODER_VOCAB, get_builtin
from builders.model.models import load_model
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from core.errors import ModelSpecError


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_matches_its_declared_signature(name):
    b = get_builtin(name)
    model = b.factory()
    assert not model.training
    inferred = infer_outputs(model, b.spec)
    assert [(t.name, t.dtype, t.shape) for t in inferred.outputs] == [(t.name, t.dtype, t.shape) for t in b.spec.outputs]
    # deterministic weights: two factories give the same model
    x = b.spec.example_inputs(2)
    args = [torch.from_numpy(x[t.name]) for t in b.spec.inputs]
    with torch.no_grad():
        a, c = model(*args), b.factory()(*args)
    for p, q in zip(a if isinstance(a, tuple) else (a,), c if isinstance(c, tuple) else (c,)):
        assert torch.equal(p, q)


def test_cnn_is_a_resnet_style_224_classifier():
    b = get_builtin("cnn")
    assert b.spec.inputs[0].shape == (3, 224, 224) and b.spec.outputs[0].shape == (1000,)
    model = b.factory()
    assert any(type(m).__name__ == "BasicBlock" for m in model.modules())
    assert sum(p.numel() for p in model.parameters()) < 1_000_000  # small enough for CPU tests


def test_encoder_takes_token_ids_in_range_and_has_a_dynamic_seq():
    b = get_builtin("encoder")
    ids, mask = b.spec.inputs
    assert (ids.dtype, ids.shape, ids.value_range) == ("int64", ("seq",), (0, ENCODER_VOCAB - 1))
    assert mask.value_range == (0, 1)
    x = b.spec.example_inputs(3, b.spec.axis_sizes("max"))
    assert x["input_ids"].max() < ENCODER_VOCAB and x["input_ids"].shape == (3, b.spec.dynamic_axes["seq"][2])
    # padding does not leak into the pooled embedding of the real tokens
    model = b.factory()
    ids_t = torch.tensor([[5, 6, 7, 0, 0]])
    with torch.no_grad():
        full = model(ids_t, torch.tensor([[1, 1, 1, 0, 0]]))[1]
        trimmed = model(ids_t[:, :3], torch.ones(1, 3, dtype=torch.int64))[1]
    assert torch.allclose(full, trimmed, atol=1e-5)


def test_unknown_builtin_lists_the_choices():
    with pytest.raises(ModelSpecError, match="unknown built-in") as e:
        get_builtin("resnet9000")
    assert "encoder" in e.value.hint and "factory" in e.value.hint


USER_PACKAGE = """
import torch
from torch import nn

calls = []


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def make():
    calls.append(1)
    torch.manual_seed(0)
    return Net()


def not_a_module():
    return 42


def broken():
    raise RuntimeError("no weights file")


class Buggy(nn.Module):
    def forward(self, x):
        return torch.cat((x, x[:, :3]), dim=0)  # a bug: dim=1 meant


def buggy():
    return Buggy()
"""


@pytest.fixture()
def user_package(tmp_path, monkeypatch):
    pkg = tmp_path / "usermodels_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "nets.py").write_text(textwrap.dedent(USER_PACKAGE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "usermodels_pkg.nets"
    for m in [m for m in sys.modules if m.startswith("usermodels_pkg")]:
        del sys.modules[m]


SPEC = ModelSpec.from_flags(["x:float32:4"], ["y"])


def test_user_factory_runs_only_when_named(user_package):
    loaded = load_model(f"{user_package}:make", SPEC)
    assert loaded.name == "make" and loaded.kind == "factory" and not loaded.module.training
    assert sys.modules[user_package].calls == [1]
    assert loaded.fingerprint == load_model(f"{user_package}:make", SPEC).fingerprint


@pytest.mark.parametrize(
    "target, words",
    [
        ("usermodels_pkg.nets:make", "needs an input spec"),
        ("usermodels_pkg.nets:missing", "has no 'missing'; its top-level functions: broken, buggy, make, not_a_module"),
        ("usermodels_pkg.nope:make", "cannot import"),
        ("usermodels_pkg.nets:not_a_module", "returned int"),
        ("usermodels_pkg.nets:broken", "no weights file"),
    ],
)
def test_user_factory_errors_are_clear(user_package, target, words):
    with pytest.raises(ModelSpecError, match=words):
        load_model(target, None if "needs" in words else SPEC)


def test_a_bug_in_the_users_model_names_its_line_not_only_the_spec(user_package):
    """Trial 7: a bug in forward() (torch.cat on the wrong dim) read as a wrong spec: the error's
    only advice was to check the spec, with no line of the model file."""
    loaded = load_model(f"{user_package}:buggy", SPEC)
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(loaded.module, SPEC)
    assert "raised at " in e.value.message and "nets.py:" in e.value.message
    assert "in forward: return torch.cat((x, x[:, :3]), dim=0)" in e.value.message
    assert "a bug in the model itself" in (e.value.hint or "")
    with pytest.raises(ModelSpecError) as f:  # a factory that raises: the same
        load_model(f"{user_package}:broken", SPEC)
    assert "nets.py:" in f.value.message and "in broken: raise RuntimeError" in f.value.message


def test_a_typo_in_the_factory_name_lists_the_files_functions(user_package):
    with pytest.raises(ModelSpecError) as e:
        load_model(f"{user_package}:mkae", SPEC)
    assert "its top-level functions: broken, buggy, make, not_a_module" in e.value.message
    assert e.value.hint == f"did you mean --model {user_package}:make?"


def test_a_failure_inside_torch_alone_names_no_line():
    with pytest.raises(ModelSpecError) as e:  # nn.Linear(5, 2) on 4 features: every frame is torch's or the toolkit's
        infer_outputs(torch.nn.Linear(5, 2), SPEC)
    assert "raised at" not in e.value.message and "a bug in the model" not in (e.value.hint or "")


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace, torch.export)
def test_torchscript_and_torch_export_files_are_models(tmp_path):
    b = get_builtin("tiny")
    model = b.factory()
    torch.jit.script(model).save(str(tmp_path / "net.pt"))
    ep = torch.export.export(model, (torch.randn(2, 16),), dynamic_shapes=({0: torch.export.Dim("batch", max=64)},))
    torch.export.save(ep, str(tmp_path / "net.pt2"))
    x = torch.randn(3, 16)
    for path, kind in ((tmp_path / "net.pt", "torchscript"), (tmp_path / "net.pt2", "exported_program")):
        loaded = load_model(str(path), b.spec)
        assert loaded.kind == kind and loaded.name == "net"
        with torch.no_grad():
            assert torch.allclose(loaded.module(x), model(x), atol=1e-6)
        spec = infer_outputs(loaded.module, loaded.spec)
        result = export_torchscript(loaded.module, spec, tmp_path / kind)
        assert result.path.is_file()
    with pytest.raises(ModelSpecError, match="does not exist"):
        load_model(str(tmp_path / "absent.pt"), b.spec)
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(ModelSpecError, match="could not load"):
        load_model(str(tmp_path / "junk.pt"), b.spec)


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.mark.parametrize(
    "fn, outputs, words",
    [
        (lambda x: (x, x), ["only_one"], "names 1 output "),  # "1 outputs" before trial 30, F19
        (lambda x: x.to(torch.bfloat16), [], "bfloat16"),
        (lambda x: x.reshape(-1), [], "not as one axis of the batch's size"),  # [batch * 4]
        (lambda x: x @ torch.ones(5, 2), [], "does not run on inputs made from the spec"),
    ],
)
def test_inconsistent_models_and_specs_are_refused_before_export(fn, outputs, words):
    with pytest.raises(ModelSpecError, match=words):
        infer_outputs(_Fn(fn), ModelSpec.from_flags(["x:float32:4"], outputs))


def test_a_factory_in_the_current_directory_is_importable(tmp_path, monkeypatch):
    import sys

    (tmp_path / "my_cwd_model.py").write_text("import torch\n\ndef make():\n    return torch.nn.Linear(4, 2)\n")
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    spec = ModelSpec.from_flags(["x:float32:4"])
    loaded = load_model("my_cwd_model:make", spec)
    assert loaded.name == "make" and loaded.kind == "factory"
    assert sys.path == before  # the current directory was added only for the import


def test_an_nn_module_object_is_a_model(tmp_path):
    import torch

    class TwoHeads(torch.nn.Module):
        def forward(self, x):
            return x * 2

    spec = ModelSpec.from_flags(["x:float32:4"])
    loaded = load_model(TwoHeads(), spec)
    assert (loaded.name, loaded.kind) == ("twoheads", "module")
    with pytest.raises(ModelSpecError, match="needs an input spec"):
        load_model(TwoHeads(), None)


def test_builtin_fingerprints_hash_what_defines_them():
    import hashlib

    empty = hashlib.sha256(b"").hexdigest()[:16]
    prints = {name: load_model(name, None).fingerprint for name in ("mlp", "tiny", "cnn", "encoder")}
    assert empty not in prints.values()
    assert len(set(prints.values())) == 4


def test_an_installed_packages_frame_is_never_the_users_wherever_its_venv_is():
    """Reviewer: a venv inside the checkout under another name (VENV=venv) made torch's frames the user's."""
    from pathlib import Path

    from builders.model import user_frame

    root = Path(user_frame.__file__).resolve().parents[2]
    assert not user_frame._is_users(str(root / "venv/lib/python3.11/site-packages/torch/nn/modules/linear.py"))
    assert not user_frame._is_users("/opt/env/lib/python3/dist-packages/torch/functional.py")
    assert user_frame._is_users(str(root / "my_model.py")) and not user_frame._is_users(str(root / "builders/build.py"))


def test_an_output_dim_is_fixed_only_if_it_kept_its_size_while_every_axis_changed():
    """Reviewer: with seq=1,128,128 (opt == max) the max run did not vary seq, so an output that
    follows seq was recorded as a fixed 128, and the config then froze the exported model's -1."""
    spec = ModelSpec.from_flags(["x:float32:seq,4"], [], ["seq=1,128,128"])
    out = infer_outputs(_Fn(lambda x: x.sum(dim=-1, keepdim=True).expand(-1, -1, 8)), spec).outputs[0]
    assert out.shape == ("seq", 8)
    fixed = infer_outputs(_Fn(lambda x: x.mean(dim=1)), spec).outputs[0]
    assert fixed.shape == (4,)  # a dim that does not follow seq stays fixed


def test_a_missing_model_file_is_said_before_a_missing_spec(tmp_path):
    """Trial 8 F2: a typo'd file without --spec said "needs an input spec"; with a spec added, "does not exist"."""
    with pytest.raises(ModelSpecError, match=r"tinycn\.py does not exist"):
        load_model(f"{tmp_path}/tinycn.py:tinycnn", None)


def test_a_broken_import_is_said_before_a_missing_spec(tmp_path):
    (tmp_path / "syntax_net.py").write_text("import torch\ndef broken()\n    return torch.nn.Linear(4, 2)\n")
    with pytest.raises(ModelSpecError, match="SyntaxError"):
        load_model(f"{tmp_path}/syntax_net.py:broken", None)


def test_a_syntax_error_names_its_line_and_says_to_fix_it(tmp_path):
    """Trial 8 F3: a SyntaxError got advice about naming a top-level function."""
    path = tmp_path / "syntax_net.py"
    path.write_text("import torch\ndef broken()\n    return torch.nn.Linear(4, 2)\n")
    with pytest.raises(ModelSpecError) as e:
        load_model(f"{path}:broken", SPEC)
    assert f"{path}:2: SyntaxError: expected ':'" in e.value.message and "def broken()" in e.value.message
    assert (e.value.hint or "").startswith(f"fix line 2 of {path}")
    assert "top-level function" not in (e.value.hint or "") and "--model takes" not in (e.value.hint or "")


def test_an_error_at_the_top_of_the_users_file_names_its_line(tmp_path):
    path = tmp_path / "top_net.py"
    path.write_text("import torch\nimport not_a_real_pkg_xyz\ndef make():\n    return torch.nn.Linear(4, 2)\n")
    with pytest.raises(ModelSpecError) as e:
        load_model(f"{path}:make", SPEC)
    hint = e.value.hint or ""
    assert "imports 'not_a_real_pkg_xyz', which is not installed" in hint and f"{path}:2" in hint
    assert "top-level function" not in hint
    path.write_text("import torch\nraise RuntimeError('boom')\ndef make():\n    return torch.nn.Linear(4, 2)\n")
    with pytest.raises(ModelSpecError) as e:
        load_model(f"{path}:make", SPEC)
    assert (e.value.hint or "").startswith(f"fix the error at {path}:2") and "RuntimeError: boom" in e.value.message


def test_a_module_not_found_keeps_the_form_advice():
    with pytest.raises(ModelSpecError) as e:
        load_model("nosuchpkg_xyz.nets:make", SPEC)
    assert "No module named 'nosuchpkg_xyz'" in e.value.message and "--model takes" in (e.value.hint or "")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("return Net", "returned the class Net, not an instance (call it: Net())"),
        ("return helper", "returned the function helper, not what it returns (call it: helper())"),
        ("Net()", "returned None (the factory has no `return` of the model)"),
        ("return 3", "returned int (3)"),
    ],
)
def test_a_factory_returning_no_module_says_what_it_returned(tmp_path, body, words):
    """Trial 8 F4: a factory returning the class said "returned type"."""
    path = tmp_path / "net.py"
    path.write_text(
        "import torch\nclass Net(torch.nn.Linear):\n    def __init__(self):\n        super().__init__(4, 2)\n"
        f"def helper():\n    return Net()\ndef make():\n    {body}\n"
    )
    with pytest.raises(ModelSpecError) as e:
        load_model(f"{path}:make", SPEC)
    assert words in e.value.message


@pytest.mark.parametrize("given", ["tinycn.py", "models/tinycn.py", "nodir/"])
def test_a_missing_path_without_factory_says_it_does_not_exist(tmp_path, monkeypatch, given):
    """The same order as F2: a missing file is said before the missing ':factory'."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelSpecError) as e:
        load_model(given, None)
    assert "does not exist" in e.value.message and "without the factory" not in e.value.message
    assert str(tmp_path) in (e.value.hint or "")


def test_a_factory_file_is_recorded_by_its_absolute_path_and_loads_again_from_another_folder(tmp_path, monkeypatch):
    """s22z, Z-1: a build run in the model's folder with ``--model net.py:make`` recorded ``net.py:make``, and the
    sweep's in-process baseline, run from the checkout, failed: "net.py does not exist". The file is recorded by its
    absolute path; a package's ``module:factory`` as given."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "net.py").write_text("import torch\n\ndef make():\n    return torch.nn.Linear(4, 2)\n")
    monkeypatch.chdir(folder)
    loaded = load_model("net.py:make", SPEC)
    assert loaded.source == f"{folder.resolve()}/net.py:make"
    elsewhere = tmp_path / "checkout"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_model(loaded.source, SPEC).fingerprint == loaded.fingerprint  # the baseline's load, from another folder
    with pytest.raises(ModelSpecError, match="does not exist"):
        load_model("net.py:make", SPEC)  # the text as typed: found only in the model's folder


def test_a_package_factory_is_recorded_as_given(user_package):
    assert load_model(f"{user_package}:make", SPEC).source == f"{user_package}:make"
