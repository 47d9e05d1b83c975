"""Triton's PyTorch backend's input and output names, one rule each (pytorch_backend
``src/libtorch.cc``, ``GetNamingConvention``; Triton docs, "Model Configuration: Special
Conventions for PyTorch Backend"): an index is what follows the FIRST ``__``; one convention
is chosen for all inputs (all outputs) of a config, else the config's order decides."""

from __future__ import annotations

import pytest
from tritonclient.grpc import model_config_pb2 as mc

from builders.backends.pytorch_libtorch import (
    FORWARD_ARGUMENT,
    NAMED_INDEX,
    STRICT_CONFIG_ORDERING,
    naming_convention,
    tensor_name_problems,
    triton_names,
)
from builders.config.pbtxt import make_config
from builders.config.variants import Variant
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.forward_args import convention_index, input_binding
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import ConfigError, ModelSpecError

ARGS = ("x", "attention_mask")


def _inputs(*names: str) -> list[mc.ModelInput]:
    cfg = mc.ModelConfig()
    for n in names:
        cfg.input.add(name=n)
    return list(cfg.input)


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("INPUT__0", 0),
        ("OUTPUT__12", 12),
        ("__1", 1),
        ("x__", 0),
        ("a__b__3", None),
        ("x___1", None),
        ("x", None),
        ("x__١", None),
    ],
)
def test_the_index_is_what_follows_the_first_separator_when_it_is_ascii_digits(name, index):
    assert convention_index(name) == index


def test_the_backend_chooses_one_convention_for_all_inputs():
    assert naming_convention(["x", "attention_mask"], ARGS) == FORWARD_ARGUMENT
    assert naming_convention(["x__0", "mask__1"], ARGS) == NAMED_INDEX
    assert naming_convention(["x", "mask__1"], ARGS) == STRICT_CONFIG_ORDERING
    assert naming_convention(["a__b__1"], None) == STRICT_CONFIG_ORDERING  # outputs: no index read from it


def test_a_name_with_a_second_separator_is_not_taken_for_its_last_index():
    # the old greedy pattern read "b__c__0" as index 0 and refused it at position 1; the backend reads no index
    # from it (the rest after the first "__" is "c__0"): a name like any other, passed by position
    assert input_binding(["a", "b__c__0"], ARGS, "m") == {"a": "x", "b__c__0": "attention_mask"}
    with pytest.raises(ModelSpecError, match="its name says position 1"):
        input_binding(["INPUT__1", "INPUT__0"], ARGS, "m")


def test_mixed_input_names_are_one_problem_saying_what_the_backend_does():
    (p,) = tensor_name_problems("input", _inputs("x", "mask__1"), tuple(TensorIO(a) for a in ARGS))
    assert p.field == "input[x, mask__1].name"
    assert "STRICT_CONFIG_ORDERING" in p.problem and "reads none of the names" in p.problem
    assert "x -> argument 0 (x), mask__1 -> argument 1 (attention_mask)" in p.problem
    assert "right only while the config keeps this order" in p.problem
    assert "by its forward() argument (x, attention_mask) or every one <name>__<index> (x__0, mask__1)" in p.fix


def test_mixed_names_in_another_order_say_which_input_goes_elsewhere():
    (p,) = tensor_name_problems("input", _inputs("mask__1", "x"), tuple(TensorIO(a) for a in ARGS))
    assert "mask__1 -> argument 0 (x), its name says 1" in p.problem
    assert "so mask__1, x go to another position than the name says" in p.problem


def test_mixed_output_names_are_one_problem():
    cfg = mc.ModelConfig()
    cfg.output.add(name="OUTPUT__1"), cfg.output.add(name="logits")
    (p,) = tensor_name_problems("output", cfg.output, (TensorIO("__0"), TensorIO("__1")))
    assert p.field == "output[OUTPUT__1, logits].name" and "OUTPUT__1 -> returned tensor 0, its name says 1" in p.problem


SPEC = ModelSpec(
    (TensorSpec("x", "float32", (4,)), TensorSpec("mask", "int64", (4,), (0, 1))),
    (TensorSpec("logits", "float32", (2,)),),
)


def test_a_native_build_never_mixes_conventions():
    names = triton_names(SPEC, ARGS)  # x is forward()'s, mask is not: every input <name>__<index>
    assert names["inputs"] == {"x": "x__0", "mask": "mask__1"}  # was {"x": "x", "mask": "mask__1"}: config order only
    io = ArtifactIO("torchscript", tuple(TensorIO(a) for a in ARGS), (TensorIO("__0"),), positional=True)
    make_config(Variant("m", "torchscript", max_batch_size=4), SPEC.renamed(names), "native", io=io)
    all_args = triton_names(
        ModelSpec((TensorSpec("x", "float32", (4,)), TensorSpec("attention_mask", "int64", (4,))), SPEC.outputs), ARGS
    )
    assert all_args["inputs"] == {"x": "x", "attention_mask": "attention_mask"}


def test_a_mix_in_the_names_order_is_a_warning_and_one_a_name_contradicts_is_refused(caplog):
    # a config Triton serves right (x -> argument 0, mask__1 -> argument 1) is no failure (an older native
    # build's bundle, _to_native, makes it again): warned; a name its position contradicts is refused
    io = ArtifactIO("torchscript", tuple(TensorIO(a) for a in ARGS), (TensorIO("__0"),), positional=True)
    (p,) = tensor_name_problems("input", _inputs("x", "mask__1"), io.inputs)
    assert p.warning
    (wrong,) = tensor_name_problems("input", _inputs("mask__1", "x"), io.inputs)
    assert not wrong.warning
    mixed = SPEC.renamed({"inputs": {"mask": "mask__1"}, "outputs": {"logits": "logits__0"}})
    with caplog.at_level("WARNING"):
        make_config(Variant("m", "torchscript", max_batch_size=4), mixed, "native", io=io)
    assert any("input[x, mask__1].name: the inputs mix naming conventions" in r.getMessage() for r in caplog.records)
    swapped = SPEC.renamed({"inputs": {"x": "x__1", "mask": "attention_mask"}, "outputs": {"logits": "logits__0"}})
    with pytest.raises(ConfigError, match=r"input\[x__1, attention_mask\]\.name: the inputs mix naming conventions"):
        make_config(Variant("m", "torchscript", max_batch_size=4), swapped, "native", io=io)


@pytest.mark.slow  # real export (torch.jit.script)
def test_validate_says_an_existing_repository_mixes_input_conventions(tmp_path):
    import torch

    from builders.config.pbtxt import read_config, write_config
    from builders.repository.validate import validate, validate_repository
    from builders.repository.writer import write_variant

    class Masked(torch.nn.Module):
        def forward(self, x: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return x * attention_mask

    art = tmp_path / "model.pt"
    torch.jit.script(Masked()).save(str(art))
    spec = ModelSpec(
        (TensorSpec("x", "float32", (4,)), TensorSpec("attention_mask", "float32", (4,))),
        (TensorSpec("OUTPUT__0", "float32", (4,)),),
    )
    root = tmp_path / "repo"
    v = Variant("masked", "torchscript", max_batch_size=4)
    write_variant(root, v, art, spec, "native")
    assert validate_repository(root) == []
    path = root / v.name / "config.pbtxt"
    cfg = read_config(path)
    cfg.input[1].name = "mask__1"  # what a build before one convention wrote for a spec input "mask"
    write_config(cfg, path)
    result = validate(root)  # Triton serves it right: a warning, not a failure
    assert result.problems == []
    (p,) = result.warnings
    assert (p.field, p.file) == ("input[x, mask__1].name", str(path))
    assert "x -> argument 0 (x), mask__1 -> argument 1 (attention_mask)" in p.problem
    cfg.input[0].name, cfg.input[1].name = "mask__1", "x"  # the index contradicts the position: an error
    write_config(cfg, path)
    (p,) = validate_repository(root)
    assert not p.warning and "its name says 1" in p.problem
