"""A bundle's native config keeps its warmup data within each input's domain, under the native
backend's input names (issue 25, left over: the data files follow the config they serve)."""

from __future__ import annotations

import types
from pathlib import Path

from builders.config.pbtxt import read_config
from builders.config.variants import Variant
from builders.config.warmup import WARMUP_FOLDER, warmup_domain_problems, warmup_file_problems
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository import writer
from perf.deploy import bundle

SPEC = ModelSpec(
    (
        TensorSpec("input_ids", "int64", ("seq",), (0, 999)),
        TensorSpec("attention_mask", "int64", ("seq",), (0, 1), domain="mask"),
    ),
    (TensorSpec("embeddings", "float32", (8,)),),
    {"seq": (2, 16, 64)},
)
#: The native PyTorch backend's names for a TorchScript model's tensors.
NATIVE = {"inputs": {"input_ids": "INPUT__0", "attention_mask": "INPUT__1"}, "outputs": {"embeddings": "OUTPUT__0"}}


def test_the_native_config_of_a_python_served_variant_gets_warmup_files_of_its_own_input_names(tmp_path: Path, monkeypatch):
    v = Variant("enc_ts_cpu1_nodb_mbs8_warm-zero", "torchscript", max_batch_size=8, warmup="zero")
    artifact = tmp_path / "model.pt"
    artifact.write_bytes(b"not read here")
    # TorchScript declares no dtypes or shapes: the configs come from the spec
    monkeypatch.setattr(writer, "read_artifact_io", lambda fmt, path: None)
    monkeypatch.setattr(bundle, "read_artifact_io", lambda fmt, path: None)
    src = writer.write_variant(tmp_path / "repo", v, artifact, SPEC, "python")
    export = types.SimpleNamespace(served_names=lambda serving: NATIVE if serving == "native" else None)
    rv = types.SimpleNamespace(name=v.name, folder=src, serving="python", params=v, spec=SPEC, export=export, entry=None)
    dest = tmp_path / "bundle"
    dest.mkdir()
    bundle.copy_variant(rv, dest, threads=1)
    folder = dest / v.name
    cfg = read_config(folder / "config.pbtxt")
    assert cfg.platform == "pytorch_libtorch" and [i.name for i in cfg.input] == ["INPUT__0", "INPUT__1"]
    assert not warmup_file_problems(cfg, folder)  # every file its warmup reads is there, with enough bytes
    assert not warmup_domain_problems(cfg, SPEC.renamed(NATIVE))
    names = sorted(p.name for p in (folder / WARMUP_FOLDER).iterdir())
    assert names and all(n.startswith("INPUT__1.zero.") for n in names)  # the python names' files are gone
