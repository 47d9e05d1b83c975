"""A flag that names an input or axis the model does not have is one error naming it, the
closest valid name and every valid one, from one check (core.names) in builders, clients and
perf (new-user trial: a typo'd --dynamic-axis was reported as "inputs use dynamic axes ['seq']
with no declared range", the typo never named)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients import shapes
from core.errors import ClientError, FlagError, ModelSpecError
from core.names import file_problem, require_known, unknown_names_error


def test_a_typo_d_dynamic_axis_is_named_with_the_axes_the_inputs_use(tmp_path):
    r = CliRunner().invoke(
        builders_cli,
        ["build", "--model", "tiny", "--input", "INPUT__0:float32:seq", "--dynamic-axis", "sq=1,8,16"]
        + ["--build-dir", str(tmp_path / "b"), "--repository", str(tmp_path / "r")],
    )
    assert r.exit_code == 2, r.output  # a name typed that is not there: a usage error (T17-15)
    text = r.output
    assert "--dynamic-axis 'sq' (did you mean 'seq'?) names no dynamic axis of the model's inputs" in text
    assert "the dynamic axes of the model's inputs: seq" in text and "--dynamic-axis seq=1,64,128" in text
    assert not (tmp_path / "r").exists()


def test_a_spec_file_s_unknown_axis_is_named_too():
    with pytest.raises(ModelSpecError, match=r"'seqq' \(did you mean 'seq'\?\) names no dynamic axis"):
        ModelSpec.from_json(
            {"inputs": [{"name": "ids", "dtype": "int64", "shape": ["seq"]}], "dynamic_axes": {"seqq": [1, 8, 16]}}
        )


def test_a_typo_d_shape_input_is_named_with_the_model_s_inputs():
    spec = ModelSpec(inputs=(TensorSpec("input_ids", "int64", ("seq",)),), outputs=(), dynamic_axes={"seq": (1, 8, 16)})
    with pytest.raises(ClientError) as e:  # clients infer, triton-perf sweep and coldstart --shape: one rule
        shapes.resolve("m", [("input_ids", [-1])], 8, spec, {"input_idz": (8,)})
    assert e.value.message == "--shape 'input_idz' (did you mean 'input_ids'?) names no input of m; the inputs of m: input_ids"


def test_the_shared_check_names_every_unknown_and_refuses_nothing_valid():
    assert unknown_names_error("--shape", ["a"], ["a", "b"], kind="input", owner="m") is None
    err = unknown_names_error("--shapes", ["x", "y"], [], kind="dynamic axis", owner="the builds")
    assert isinstance(err, FlagError) and err.flag == "--shapes"
    assert err.message == "'x', 'y' name no dynamic axes of the builds; the dynamic axes of the builds: none"
    assert (err.hint or "").startswith("drop --shapes")
    with pytest.raises(ModelSpecError, match="--rtol 'logit' \\(did you mean 'logits'\\?\\)"):
        require_known("--rtol", ["logit"], ["logits"], kind="output", owner="the model", error=ModelSpecError)


def test_clients_infer_names_an_output_the_model_does_not_have(monkeypatch, tmp_path):
    import clients.infer
    from clients.cli.main import cli as clients_cli
    from clients.inputs import ModelSignature, TensorInfo

    sig = ModelSignature(
        "m", (TensorInfo("x", "float32", "TYPE_FP32", (4,)),), (TensorInfo("logits", "float32", "TYPE_FP32", (2,)),), 8
    )
    monkeypatch.setattr(clients.infer, "model_signature", lambda *_a: sig)
    res = CliRunner().invoke(clients_cli, ["infer", "m", "-r", str(tmp_path), "--output", "logit"])
    assert res.exit_code == 2, res.output  # before any request is sent; a usage error (T17-15)
    assert "--output 'logit' (did you mean 'logits'?) names no output of m; the outputs of m: logits" in res.output


def test_the_readmes_full_variant_name_is_what_the_naming_rule_writes() -> None:
    """Trial 11, F20: the README described five parts of a name; a `--warmup random` build added a
    suffix it never mentioned. Its full example is the rule's own output, and reads back."""
    from pathlib import Path

    from core.naming import NameParts, parse_variant_name, variant_name

    parts = NameParts(
        "mlp", "onnx", precision="fp16", kind="gpu", count=2, gpus=(0, 1), dynamic_batching=True,
        max_queue_delay_us=500, preferred_batch_sizes=(4, 8), trt_accelerator="fp16", warmup="random",
    )  # fmt: skip
    name = variant_name(parts)
    assert f"`{name}`" in (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert parse_variant_name(name) == parts


def test_a_missing_file_in_a_missing_folder_lists_no_other_folders_files(tmp_path, monkeypatch):
    """closest_files falls back to the current folder when the parent is none: file_problem said
    "(in /missing: a.json)" of a file in the current folder (break test B10's kind)."""
    (tmp_path / "spec_v2.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    message, _hint = file_problem(tmp_path / "missing" / "spec.json", "spec file", "*.json") or ("", "")
    assert message == f"spec file {tmp_path}/missing/spec.json does not exist (nor does its folder {tmp_path}/missing)"
    message, _hint = file_problem(tmp_path / "spec.json", "spec file", "*.json") or ("", "")
    assert message.endswith(f"(in {tmp_path}: spec_v2.json)")


def test_a_missing_file_lists_only_the_files_named_like_it(tmp_path):
    """Break test B10: ``DEMO_SPEC=/missing`` was answered "(in /: container_info.json)", the one JSON file
    of /, named nothing like it: only files whose names are close to the given one (the did-you-mean
    rule), or hold it, are listed, closest first."""
    for name in ("container_info", "kwspot_spec", "spec_v2", "specs"):
        (tmp_path / f"{name}.json").write_text("{}")
    message, _hint = file_problem(tmp_path / "missing", "DEMO_SPEC", "*.json") or ("", "")
    assert message == f"DEMO_SPEC {tmp_path}/missing does not exist"
    message, _hint = file_problem(tmp_path / "spec.json", "DEMO_SPEC", "*.json") or ("", "")
    assert message.endswith(f"(in {tmp_path}: specs.json, spec_v2.json, kwspot_spec.json)")
