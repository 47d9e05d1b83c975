"""Every command that starts a server for named models refuses, before the server starts, a set its
server can load none of, by the sweep's one rule (:func:`clients.runtimes.servable.refuse_unservable`);
trial 15, T15-9: ``clients check --runtime bundled`` on a ``--serving native`` build started the bundled
server and failed each load, where the sweep and colocate refused up front. No server is started here."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.records import INDEX_KIND, IndexEntry, RepositoryIndex
from clients.cli.main import cli as clients_cli
from clients.runtimes.choose import resolve_runtime
from clients.runtimes.servable import refuse_unservable
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError
from core.records import write_record
from perf.cli.main import cli as perf_cli

SPEC = ModelSpec((TensorSpec("x", "float32", (4,)),), (TensorSpec("y", "float32", (4,)),))
#: A --serving native build's variants: ONNX Runtime's and LibTorch's backends, which the bundled server lacks.
NATIVE = {
    Variant("fc2", "onnx", max_batch_size=8): 'platform: "onnxruntime_onnx"',
    Variant("fc2", "torchscript", max_batch_size=8): 'platform: "pytorch_libtorch"',
}
SAID = "the bundled runtime's server cannot load any of the 2 variants: model 'fc2_"


@pytest.fixture
def native_repo(fake_build) -> Path:
    """A toolkit repository (index and build record) of two ``--serving native`` variants of one model."""
    repo = Path()
    for v, platform in NATIVE.items():
        repo = fake_build(SPEC, v, serving="native")
        (repo / v.name / "config.pbtxt").write_text(f'name: "{v.name}"\n{platform}\nmax_batch_size: 8\n')
    build_dir = repo.parent / "builds" / "fc2"
    write_record(
        repo / "index.json", INDEX_KIND, RepositoryIndex(variants=[IndexEntry.of(v, "native", str(build_dir)) for v in NATIVE])
    )
    return repo


@pytest.fixture
def no_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server started is a failure of the test (the old code started the bundled server, then failed each load)."""
    monkeypatch.setattr(TritonServer, "start", lambda self: pytest.fail("a server was started"))


def _refusal(res) -> ServerError:
    """The command's refusal (CliRunner hands a ToolkitError back; the console shows it as one message and exit 1)."""
    assert isinstance(res.exception, ServerError), res.output
    return res.exception


def test_clients_check_refuses_before_a_server_starts_a_build_it_can_load_none_of(native_repo: Path, no_start) -> None:
    res = CliRunner().invoke(clients_cli, ["check", "-r", str(native_repo), "--runtime", "bundled", "--variants", "fc2_*"])
    e = _refusal(res)
    assert e.message.startswith(SAID) and e.message.endswith("nothing was started or checked")
    for backend in ("onnxruntime", "pytorch"):
        assert f"needs Triton's '{backend}' backend" in e.message
    assert "--runtime local" in (e.hint or "") and "--serving python" in (e.hint or "")
    assert "server ready" not in res.output


def test_coldstart_refuses_before_a_server_starts_a_build_it_can_load_none_of(native_repo: Path, no_start) -> None:
    res = CliRunner().invoke(perf_cli, ["coldstart", "-r", str(native_repo), "--runtime", "bundled", "--variants", "fc2_*"])
    e = _refusal(res)
    assert e.message.startswith(SAID) and e.message.endswith("nothing was started or measured")
    assert "loading" not in res.output


def test_the_launcher_names_every_model_loaded_at_start_that_it_cannot_load(native_repo: Path) -> None:
    """The launcher's --load-model needs each (Triton stops at start when one fails): it named the first only."""
    with pytest.raises(ServerError) as e:
        TritonServer(ServerOptions(native_repo, runtime="bundled", load_models=("fc2_*",)))
    assert e.value.message.startswith("the bundled runtime's server cannot load ")
    assert all(v.name in e.value.message for v in NATIVE) and e.value.message.endswith("nothing was started")
    assert "or leave them out of the --load-model patterns" in (e.value.hint or "")


def test_a_set_with_a_model_the_server_can_load_is_not_refused_and_the_others_are_named(native_repo: Path) -> None:
    python = native_repo / "fc2_python"
    python.mkdir()
    (python / "config.pbtxt").write_text('name: "fc2_python"\nbackend: "python"\nmax_batch_size: 8\n')
    runtime, reason = resolve_runtime(ServerOptions(native_repo, runtime="bundled"))
    names = ["fc2_python", *(v.name for v in NATIVE)]
    unservable = refuse_unservable(runtime, reason, native_repo, names)  # the sweep's rule: the others fail unloaded
    assert sorted(unservable) == sorted(v.name for v in NATIVE)
    with pytest.raises(ServerError) as e:  # one the command needs: refused
        refuse_unservable(runtime, reason, native_repo, names, every="the --model patterns")
    assert e.value.message.startswith("the bundled runtime's server cannot load fc2_onnx")
