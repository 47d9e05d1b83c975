"""Served tensor names (trial 11, F25): a native PyTorch config keeps the spec's names as
``<name>__<index>`` (``probs`` -> ``probs__1``), and one comparison says every name a config
serves differently from the one clients were written against (a deployment bundle's against the
measured variant's), inputs and outputs, any backend."""

from __future__ import annotations

from builders.backends.pytorch_libtorch import triton_names
from builders.config.pbtxt import make_config
from builders.config.settings import tensor_name_differences
from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec

#: The trial's model: two inputs, two outputs whose names are not the PyTorch backend's convention.
SPEC = ModelSpec(
    (TensorSpec("categories", "int64", (6,), (0, 9)), TensorSpec("numeric", "float32", (10,))),
    (TensorSpec("logits", "float32", (4,)), TensorSpec("probs", "float32", (4,))),
)
TS = Variant("tab", "torchscript", max_batch_size=64)
ONNX = Variant("tab", "onnx", max_batch_size=64)


def _native(variant: Variant, names: dict[str, dict[str, str]] | None):
    return make_config(variant, SPEC.renamed(names), "native")


def test_a_libtorch_config_with_two_renamed_outputs_says_both_with_the_name_to_ask_for():
    measured = make_config(TS, SPEC, "python")
    old = _native(TS, {"inputs": {}, "outputs": {"logits": "OUTPUT__0", "probs": "OUTPUT__1"}})  # a build before the fix
    assert tensor_name_differences(measured, old, "measured", "bundle") == [
        "output logits: measured 'logits', bundle 'OUTPUT__0' (a client asking for 'logits' gets an error: ask for 'OUTPUT__0')",
        "output probs: measured 'probs', bundle 'OUTPUT__1' (a client asking for 'probs' gets an error: ask for 'OUTPUT__1')",
    ]
    kept = _native(TS, triton_names(SPEC, ["categories", "numeric"]))
    # the name is recognisable, but a client asking for 'probs' still fails: still said
    assert tensor_name_differences(measured, kept, "measured", "bundle") == [
        "output logits: measured 'logits', bundle 'logits__0' (a client asking for 'logits' gets an error: ask for 'logits__0')",
        "output probs: measured 'probs', bundle 'probs__1' (a client asking for 'probs' gets an error: ask for 'probs__1')",
    ]


def test_an_onnx_native_config_keeps_every_name_and_differs_in_none():
    assert tensor_name_differences(make_config(ONNX, SPEC, "python"), _native(ONNX, None)) == []


def test_a_renamed_input_is_said_before_the_outputs():
    measured = make_config(TS, SPEC, "python")
    renamed = _native(TS, {"inputs": {"numeric": "INPUT__1"}, "outputs": {"probs": "probs__1"}})
    diffs = tensor_name_differences(measured, renamed, "measured", "bundle")
    assert (
        diffs[0]
        == "input numeric: measured 'numeric', bundle 'INPUT__1' (a client asking for 'numeric' gets an error: ask for 'INPUT__1')"
    )
    assert [d.split(":")[0] for d in diffs] == ["input numeric", "output probs"]


def test_names_swapped_between_tensors_are_said_as_another_tensor():
    swapped = _native(ONNX, {"inputs": {}, "outputs": {"logits": "probs", "probs": "logits"}})
    diffs = tensor_name_differences(make_config(ONNX, SPEC, "python"), swapped, "measured", "bundle")
    assert diffs == [
        "output logits: measured 'logits', bundle 'probs' (a client asking for 'logits' gets another output's tensor)",
        "output probs: measured 'probs', bundle 'logits' (a client asking for 'probs' gets another output's tensor)",
    ]


def _export(fmt: str, precision: str, extra: dict) -> dict:
    return {
        "format": fmt,
        "file": "m",
        "precision": precision,
        "strategy": "script",
        "export_s": 1.0,
        "size_bytes": 1,
        "sha256": "0",
        "extra": extra,
    }


def test_a_native_build_summary_says_the_names_its_configs_serve(capsys):
    from builders.cli.summary import WHY_RENAMED, print_build_summary, served_names_lines
    from builders.repository.records import BuildManifest

    names = triton_names(SPEC, [])  # forward(*args): every tensor <name>__<index>
    manifest = BuildManifest.model_validate(
        {
            "model": "tab",
            "source": "tab.py:make",
            "created": "2025-01-01T00:00:00+0000",
            "spec": SPEC.to_json(),
            "max_batch_size": 64,
            "input_binding": {"categories": "INPUT__0"},
            "exports": [
                _export("torchscript", "fp32", {"triton_names": names}),
                _export("torchscript", "fp16", {"triton_names": names}),
                _export("onnx", "fp32", {}),
            ],
        }
    )
    (line,) = served_names_lines(manifest, "native")  # both precisions serve the same names: one line
    ts = manifest.exports[0]
    served = _native(TS, ts.served_names("native"))  # what the build writes into each config (builders.build)
    said = [f"input {a} as {b}" for a, b in zip([t.name for t in SPEC.inputs], [t.name for t in served.input])]
    said += [f"output {a} as {b}" for a, b in zip([t.name for t in SPEC.outputs], [t.name for t in served.output])]
    assert line.startswith(f"served names (torchscript fp32, torchscript fp16; --serving native): {', '.join(said)} (")
    assert "input categories as categories__0" in line and "output probs as probs__1" in line
    # why each kind is renamed, which forward() argument an input is passed as, and which exports keep the
    # spec's names (trial 15, T15-8: the line did not say why a variant served other names)
    assert f"inputs: {WHY_RENAMED['inputs']} (passed as: categories -> INPUT__0)" in line
    assert f"outputs: {WHY_RENAMED['outputs']}" in line and "onnx fp32 serves the spec's names" in line
    assert served_names_lines(manifest, "python") == []  # the python backend serves the spec's names
    print_build_summary(manifest, "native")
    out = capsys.readouterr().out
    assert out.count("served names (") == 1 and "clients send the served names below" in out
    print_build_summary(manifest)  # the serving unknown: nothing said of served names
    assert "served names (" not in capsys.readouterr().out


def test_served_names_are_said_only_of_the_exports_this_build_wrote():
    """Trial 16, T16-16: a native build printed served names for the fp16 export kept from an earlier
    (python-served) build, whose variants it did not write and which serve the spec's names."""
    from builders.cli.summary import served_names_lines
    from builders.repository.records import BuildManifest

    names = triton_names(SPEC, [])
    manifest = BuildManifest.model_validate(
        {
            "model": "tab",
            "source": "tab.py:make",
            "created": "2025-01-01T00:00:00+0000",
            "spec": SPEC.to_json(),
            "max_batch_size": 64,
            "exports": [
                _export("torchscript", "fp32", {"triton_names": names}),
                {**_export("torchscript", "fp16", {"triton_names": names}), "kept": True},
            ],
        }
    )
    (line,) = served_names_lines(manifest, "native")
    assert line.startswith("served names (torchscript fp32; --serving native): ")
