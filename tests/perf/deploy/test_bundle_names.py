"""A bundle that serves other tensor names than the run measured says so first (trial 11, F25): a
TorchScript variant measured through the python backend serves ``logits`` and ``probs``; its
native PyTorch config serves ``logits__0`` and ``probs__1``, and a client written against the
measured server asks for ``probs``. The single-variant bundle and a co-location run's combination
list every renamed tensor first in the README's "What differs" and on the console."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, served_model, variant_result

from builders.backends.pytorch_libtorch import triton_names
from builders.config.pbtxt import read_config
from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository import writer
from builders.repository.view import Repository
from perf.cli.main import cli
from perf.deploy import bundle as bundle_module
from perf.records import colocation, results

SPEC = ModelSpec(
    (TensorSpec("categories", "int64", (6,), (0, 9)), TensorSpec("numeric", "float32", (10,))),
    (TensorSpec("logits", "float32", (4,)), TensorSpec("probs", "float32", (4,))),
)
TS = Variant("tab", "torchscript", max_batch_size=64)
#: What the export records for a scripted module whose forward() names its arguments as the spec does.
NAMES = triton_names(SPEC, ["categories", "numeric"])
#: What a build before the names were kept recorded (the trial's bundle served these).
OLD_NAMES = {
    "inputs": {"categories": "categories", "numeric": "numeric"},
    "outputs": {"logits": "OUTPUT__0", "probs": "OUTPUT__1"},
}


def _renamed(served: dict[str, str]) -> list[str]:
    return [
        f"output {n}: measured {n!r}, bundle {s!r} (a client asking for {n!r} gets an error: ask for {s!r})"
        for n, s in served.items()
    ]


@pytest.fixture
def repo(fake_build, tmp_path: Path, monkeypatch, request) -> Path:
    """A python-served TorchScript variant of SPEC, with the build record its native config is
    written from (the export's names: ``request.param``, default :data:`NAMES`)."""
    repo = fake_build(SPEC, TS, extra={"triton_names": getattr(request, "param", NAMES)})
    artifact = tmp_path / "model.pt"
    artifact.write_bytes(b"not read here")
    # TorchScript declares no dtypes or shapes: the configs come from the spec
    monkeypatch.setattr(writer, "read_artifact_io", lambda fmt, path: None)
    monkeypatch.setattr(bundle_module, "read_artifact_io", lambda fmt, path: None)
    writer.write_variant(repo, TS, artifact, SPEC, "python")
    return repo


def _run(repo: Path, tmp_path: Path) -> Path:
    v = variant_result(
        TS.name, [level_result(1, 100.0, 2.0, spread=True)], params=Repository(repo).index.entries()[TS.name].params
    )
    v.served = [
        served_model(TS.name, max_batch_size=64, threads_per_instance=2, threads_rule="the server host's 2 cores / 1 instance")
    ]
    run = run_result([v], run_id="t", environment={"host": "h"}, settings={"repository": str(repo)}, finished="x")
    folder = tmp_path / "results" / "t"
    folder.mkdir(parents=True)
    results.save(run, folder)
    return folder


@pytest.mark.parametrize("repo", [NAMES, OLD_NAMES], indirect=True, ids=["names-kept", "built-before"])
def test_the_bundle_lists_the_renamed_outputs_first_in_the_readme_and_on_the_console(repo: Path, tmp_path: Path):
    out = tmp_path / "b"
    res = CliRunner().invoke(cli, ["export-deployment", str(_run(repo, tmp_path)), "--variant", TS.name, "--out", str(out)])
    assert res.exit_code == 0, res.output
    cfg = read_config(out / "model_repository" / TS.name / "config.pbtxt")
    recorded = Repository(repo).variant(TS.name).export.extra["triton_names"]["outputs"]
    assert cfg.platform == "pytorch_libtorch" and [o.name for o in cfg.output] == list(recorded.values())
    assert [i.name for i in cfg.input] == ["categories", "numeric"]
    renamed = _renamed(recorded)
    assert f"{TS.name}: the bundle serves other tensor names than the run measured:" in res.output
    assert all(f"  {line}" in res.output for line in renamed)
    readme = (out / "README.md").read_text().splitlines()
    first = readme.index("What differs from what was measured:")
    assert readme[first + 1 : first + 3] == [f"- **{line}**" for line in renamed]  # before the backend and parameters
    assert readme[first + 3] == "- backend: measured python, bundle pytorch"


def test_a_combination_bundle_lists_its_renamed_outputs_in_the_readme_and_on_the_console(repo: Path, tmp_path: Path):
    rec = colocation.ColocationRecord("c", "2026-12-02T00:00:00", str(repo), [colocation.ColocatedModel("tab", [TS.name])])
    rec.pick, rec.pick_reason = {"tab": TS.name}, "the pick"
    run_dir = tmp_path / "run"
    colocation.save(rec, run_dir)
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert f"{TS.name}: the bundle serves other tensor names than the run measured:" in res.output
    renamed = _renamed({"logits": "logits__0", "probs": "probs__1"})
    assert all(f"  {line}" in res.output for line in renamed)
    readme = (tmp_path / "b" / "README.md").read_text().splitlines()
    first = readme.index("What differs from what was measured:")
    assert readme[first + 1 : first + 3] == [f"- **`{TS.name}` {line}**" for line in renamed]
