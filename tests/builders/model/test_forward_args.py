"""Spec input names against ``forward()``'s (new-user trial, MAJOR): inputs are passed by
position in the spec's order, so forward()'s names in another order or a misspelt one are
refused before anything is exported; other names are built and the binding is said once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

from builders.cli.main import cli
from builders.cli.summary import print_build_summary
from builders.model.builtin import BUILTINS
from builders.model.models import load_model
from builders.model.spec import ModelSpec
from builders.repository.records import BuildManifest
from core.cli import EXIT_USAGE, run_cli
from core.errors import ModelSpecError


class Mixed(torch.nn.Module):
    """Two inputs of one dtype and shape, used differently: swapping them changes the result."""

    def forward(self, categories: torch.Tensor, numeric: torch.Tensor) -> torch.Tensor:
        return categories * 2 + numeric


class Ids(torch.nn.Module):
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return (input_ids * attention_mask).float()


class Varargs(torch.nn.Module):
    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return args[0] * 2 + args[1]


class WithDefault(torch.nn.Module):
    def forward(self, x: torch.Tensor, scale: torch.Tensor | None = None) -> torch.Tensor:
        return x if scale is None else x * scale


SWAPPED = ["numeric:float32:3", "categories:float32:3"]
FORWARD_ORDER = ["categories:float32:3", "numeric:float32:3"]


def _spec(flags: list[str]) -> ModelSpec:
    return ModelSpec.from_flags(flags)


def test_forward_names_in_another_order_are_refused_naming_both_orders() -> None:
    with pytest.raises(ModelSpecError) as e:
        load_model(Mixed(), _spec(SWAPPED))
    assert (
        "the spec lists its inputs as (numeric, categories), in another order than forward(categories, numeric)"
        in e.value.message
    )
    assert "'numeric' would be passed as 'categories'" in e.value.message
    assert "list --input in forward() order (categories, numeric)" in (e.value.hint or "")


def test_forward_order_builds_and_says_nothing() -> None:
    assert load_model(Mixed(), _spec(FORWARD_ORDER)).input_binding == {}


def test_a_name_of_another_position_is_refused_when_the_spec_has_fewer_inputs() -> None:
    with pytest.raises(ModelSpecError, match=r"'scale' would be passed as 'x'"):
        load_model(WithDefault(), _spec(["scale:float32:3"]))
    assert load_model(WithDefault(), _spec(["x:float32:3"])).input_binding == {}


def test_more_inputs_than_forward_takes_are_refused_before_any_export() -> None:
    """Review of F18's fix: a spec of three inputs for forward(categories, numeric) failed later, in the
    first export, with torch's TypeError; it is refused naming both counts."""
    with pytest.raises(ModelSpecError) as e:
        load_model(Mixed(), _spec([*FORWARD_ORDER, "extra:float32:3"]))
    assert e.value.message.startswith("the spec has 3 inputs (categories, numeric, extra) and forward(categories, numeric)")
    assert "takes 2" in e.value.message and "(categories, numeric)" in (e.value.hint or "")
    assert load_model(Varargs(), _spec([*FORWARD_ORDER, "extra:float32:3"])).input_binding == {}  # *args: not checked


def test_a_case_changed_name_of_another_position_is_refused() -> None:
    with pytest.raises(ModelSpecError, match=r"'NUMERIC' would be passed as 'categories'"):
        load_model(Mixed(), _spec(["NUMERIC:float32:3", "CATEGORIES:float32:3"]))


def test_a_typo_of_a_forward_argument_is_refused_with_did_you_mean() -> None:
    with pytest.raises(ModelSpecError) as e:
        load_model(Ids(), _spec(["input_id:int64:8:0..9", "attention_mask:int64:8:mask"]))
    assert "spec input 'input_id' is not an argument of forward(input_ids, attention_mask)" in e.value.message
    assert "(did you mean 'input_ids'?)" in e.value.message
    assert "rename the input 'input_id' to 'input_ids'" in (e.value.hint or "")


def test_triton_style_names_build_and_record_which_argument_each_is_passed_as() -> None:
    loaded = load_model(Mixed(), _spec(["INPUT__0:float32:3", "INPUT__1:float32:3"]))
    assert loaded.input_binding == {"INPUT__0": "categories", "INPUT__1": "numeric"}


def test_entirely_other_names_build_and_record_the_binding() -> None:
    loaded = load_model(Ids(), _spec(["tokens:int64:8:0..9", "mask:int64:8:mask"]))
    assert loaded.input_binding == {"tokens": "input_ids", "mask": "attention_mask"}


def test_a_triton_style_name_out_of_its_position_is_refused() -> None:
    with pytest.raises(
        ModelSpecError, match=r"'INPUT__1' is input 0 of the spec \(INPUT__1, INPUT__0\) but its name says position 1"
    ):
        load_model(Mixed(), _spec(["INPUT__1:float32:3", "INPUT__0:float32:3"]))


def test_a_varargs_forward_is_not_checked() -> None:
    assert load_model(Varargs(), _spec(SWAPPED)).input_binding == {}


def test_a_dict_of_example_inputs_is_put_in_forward_order() -> None:
    loaded = load_model(Mixed(), None, {"numeric": torch.randn(2, 3), "categories": torch.randn(2, 3)})
    assert [t.name for t in loaded.spec.inputs] == ["categories", "numeric"] and loaded.input_binding == {}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_spec_is_in_its_forward_order(name: str) -> None:
    assert load_model(name, None).input_binding == {}


def test_the_summary_says_the_binding_once(capsys: pytest.CaptureFixture[str]) -> None:
    binding = {"INPUT__0": "categories", "INPUT__1": "numeric"}
    manifest = BuildManifest.model_validate(
        {
            "model": "mixed",
            "source": "mixed.py:make",
            "created": "2025-01-01T00:00:00+0000",
            "spec": _spec(["INPUT__0:float32:3", "INPUT__1:float32:3"]).to_json(),
            "max_batch_size": 4,
            "input_binding": binding,
        }
    )
    print_build_summary(manifest)
    out = capsys.readouterr().out
    assert out.count("inputs passed to forward() by position") == 1
    assert "INPUT__0 -> categories, INPUT__1 -> numeric" in out


FACTORY = """\
import torch


class Mixed(torch.nn.Module):
    def forward(self, categories, numeric):
        return categories * 2 + numeric


def make():
    return Mixed().eval()
"""


def _cli_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inputs: list[str], *extra: str) -> Path:
    (tmp_path / "mixed.py").write_text(FACTORY)
    spec = {"inputs": [{"name": n, "dtype": d, "shape": [int(s)]} for n, d, s in (f.split(":") for f in inputs)]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("mixed", None)  # another test's file of that name
    argv = ["builders", "build", "--model", "mixed.py:make", "--spec", "spec.json", "--format", "torchscript"]
    monkeypatch.setattr("sys.argv", [*argv, "--build-dir", "b", "-r", "r", *extra])
    return tmp_path


def test_the_cli_refuses_a_swapped_spec_in_one_message_before_exporting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _cli_build(tmp_path, monkeypatch, SWAPPED)
    with pytest.raises(SystemExit) as exit_:
        run_cli(cli)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith("Error: ")]
    assert exit_.value.code == EXIT_USAGE and len(errors) == 1, err  # a mistake in the spec typed (trial 30, F8)
    first, rest = lines[errors[0]], lines[errors[0] + 1 :]
    assert first.startswith("Error: the spec lists its inputs as (numeric, categories), in another order than ")
    assert first.endswith("so 'numeric' would be passed as 'categories'"), first
    assert rest and rest[0].strip().startswith("-> list --input in forward() order (categories, numeric)"), err
    assert "Traceback" not in err and not (tmp_path / "b").exists() and not (tmp_path / "r").exists()


@pytest.mark.slow  # a real TorchScript export
def test_the_cli_builds_triton_style_names_and_says_the_binding_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    grid = ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
    _cli_build(tmp_path, monkeypatch, ["INPUT__0:float32:3", "INPUT__1:float32:3"], *grid)
    run_cli(cli)
    captured = capsys.readouterr()
    said = (captured.out + captured.err).count("inputs passed to forward() by position")
    assert said == 1, captured.out + captured.err
    assert "INPUT__0 -> categories, INPUT__1 -> numeric" in captured.out
    manifest = json.loads((tmp_path / "b" / "make" / "manifest.json").read_text())
    assert manifest["input_binding"] == {"INPUT__0": "categories", "INPUT__1": "numeric"}


@pytest.mark.slow  # torch.jit.script / trace
def test_a_torchscript_file_is_checked_by_its_forward_signature(tmp_path: Path) -> None:
    scripted, traced = tmp_path / "mixed.pt", tmp_path / "varargs.pt"
    torch.jit.save(torch.jit.script(Mixed()), scripted)
    torch.jit.save(torch.jit.trace(Varargs(), (torch.randn(2, 3), torch.randn(2, 3))), traced)  # argument_1, argument_2
    with pytest.raises(ModelSpecError, match=r"in another order than forward\(categories, numeric\)"):
        load_model(str(scripted), _spec(SWAPPED))
    assert load_model(str(scripted), _spec(["a:float32:3", "b:float32:3"])).input_binding == {"a": "categories", "b": "numeric"}
    assert load_model(str(traced), _spec(SWAPPED)).input_binding == {}  # names made up for *args: not checked


@pytest.mark.slow  # torch.export.export
def test_a_pt2_file_is_checked_by_its_forward_signature(tmp_path: Path) -> None:
    named, varargs = tmp_path / "mixed.pt2", tmp_path / "varargs.pt2"
    example = (torch.randn(2, 3), torch.randn(2, 3))
    torch.export.save(torch.export.export(Mixed(), example), named)
    torch.export.save(torch.export.export(Varargs(), example), varargs)  # args_0, args_1
    with pytest.raises(ModelSpecError, match=r"in another order than forward\(categories, numeric\)"):
        load_model(str(named), _spec(["numeric:float32:3", "categories:float32:3"]))
    with pytest.raises(ModelSpecError, match=r"did you mean 'numeric'\?"):
        load_model(str(named), _spec(["categories:float32:3", "numerics:float32:3"]))
    assert load_model(str(varargs), _spec(SWAPPED)).input_binding == {}


def test_forward_names_of_a_module_without_a_signature_are_unknown() -> None:
    from builders.model.forward_args import forward_names

    assert forward_names(Mixed()) == ("categories", "numeric")
    assert forward_names(WithDefault()) == ("x", "scale")
    assert forward_names(Varargs()) is None
    assert forward_names(object()) is None  # no forward at all
