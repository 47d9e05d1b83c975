"""Whose models are on a server and what it runs, without a server (tests/support/fake_triton.py
stands in for Triton's model-repository API): a name someone else loaded is refused and left
alone, or replaced only when allowed and then put back; an upload the server did not load is
never taken for loaded; a served config that differs from the variant (its config.pbtxt or its
name) fails it by field; threads per instance follow each backend's rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_triton import CORRUPT, FakeTriton
from google.protobuf import json_format

from builders.config.pbtxt import parse_config
from clients.runtimes.identity import UPLOAD_PARAMETER, upload_problem
from clients.runtimes.options import ServerOptions
from clients.runtimes.remote import RemoteRuntime
from clients.runtimes.served import ServedSettings, differences, instance_threads, name_differences, settings_of_json
from clients.runtimes.tenancy import Tenancy, loaded_models
from core.errors import ServerError

NAME = "tiny_onnx_cpu1_db500_mbs8"
CONFIG = f"""name: "{NAME}"
backend: "python"
max_batch_size: 8
input {{ name: "INPUT__0" data_type: TYPE_FP32 dims: 16 }}
output {{ name: "OUTPUT__0" data_type: TYPE_FP32 dims: 8 }}
instance_group {{ count: 1 kind: KIND_CPU }}
dynamic_batching {{ max_queue_delay_microseconds: 500 }}
parameters {{ key: "artifact_format" value {{ string_value: "onnx" }} }}
parameters {{ key: "artifact_file" value {{ string_value: "model.onnx" }} }}
"""


def as_json(text: str) -> dict:
    return json_format.MessageToDict(parse_config(text), preserving_proto_field_name=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo" / NAME
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(CONFIG)
    (folder / "1" / "model.onnx").write_bytes(b"onnx bytes")
    (folder / "1" / "model.py").write_bytes(b"python model")
    return tmp_path / "repo"


def uploader(repo: Path, monkeypatch: pytest.MonkeyPatch, **kw) -> RemoteRuntime:
    rt = RemoteRuntime(ServerOptions(repo, urls=("127.0.0.1:8000",), **kw))
    monkeypatch.setattr(rt, "grpc_answers", lambda: False)  # uploads go through the given (fake) client
    return rt


def load(tenancy: Tenancy, client: FakeTriton, rt: RemoteRuntime, model: str = NAME):
    return tenancy.load(client, model, lambda: rt.load_model(client, model), lambda m: not client.unload_model(m), "hint")


def test_a_name_someone_else_loaded_is_refused_and_left_alone(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = {"name": NAME, "backend": "python", "max_batch_size": 8}
    server = FakeTriton(loaded={NAME: theirs, "their_other": {"name": "their_other"}})
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo)
    assert tenancy.found == {NAME: "READY", "their_other": "READY"}
    with pytest.raises(ServerError, match=rf"a model named {NAME} is already READY .* loaded by someone else") as e:
        load(tenancy, server, uploader(repo, monkeypatch))
    assert "--replace-models" in (e.value.hint or "") and "--no-deploy" in (e.value.hint or "")
    assert server.calls == [] and server.loaded[NAME] == theirs  # nothing sent, nothing replaced
    assert not tenancy.may_unload(NAME) and not tenancy.may_unload("their_other")
    assert tenancy.restore(server, lambda m: not server.unload_model(m)) == []  # left as found
    assert server.calls == []


def test_a_replaced_model_is_loaded_again_from_the_servers_repository(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = {"name": NAME, "backend": "python", "max_batch_size": 8}
    server = FakeTriton(repository={NAME: theirs}, loaded={NAME: theirs})
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo, replace=True)
    loaded = load(tenancy, server, uploader(repo, monkeypatch, replace_models=True))
    assert loaded.served.upload_token and server.loaded[NAME] != theirs  # measured: the upload
    assert tenancy.restore(server, lambda m: not server.unload_model(m)) == []
    assert server.loaded[NAME] == theirs  # put back from its own repository
    assert server.calls[-1] == ("load", NAME)


def test_a_replaced_upload_that_cannot_be_put_back_is_said(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = FakeTriton(loaded={NAME: {"name": NAME}})  # uploaded by someone: not in the server's repository
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo, replace=True)
    load(tenancy, server, uploader(repo, monkeypatch, replace_models=True))
    [said] = tenancy.restore(server, lambda m: not server.unload_model(m))
    assert f"{NAME} (found loaded, replaced with --replace-models) could not be loaded again" in said
    assert "not in the server's own repository" in said


def test_an_upload_carries_a_token_that_the_served_config_must_show(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = FakeTriton()
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo)
    loaded = load(tenancy, server, uploader(repo, monkeypatch))
    s = loaded.served
    assert s.upload_token and s.upload_token == server.loaded[NAME]["parameters"][UPLOAD_PARAMETER]["string_value"]
    assert UPLOAD_PARAMETER not in s.settings.parameters  # not a setting: never a difference
    assert s.artifact is not None and s.artifact.source == "uploaded"
    assert {f.path for f in s.artifact.files} == {"1/model.onnx", "1/model.py"} and all(f.sha256 for f in s.artifact.files)
    assert tenancy.may_unload(NAME)


def test_a_corrupt_upload_over_a_loaded_copy_of_ours_is_never_measured(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = FakeTriton()
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo)
    rt = uploader(repo, monkeypatch)
    first = load(tenancy, server, rt).served.upload_token
    (repo / NAME / "1" / "model.onnx").write_bytes(CORRUPT)
    with pytest.raises(Exception, match="Protobuf parsing failed"):  # a new token: the server reads the files
        load(tenancy, server, rt)
    assert server.loaded[NAME]["parameters"][UPLOAD_PARAMETER]["string_value"] == first  # the old copy kept


class StaleTriton(FakeTriton):
    """A server that answers a load of a loaded name without loading anything (the no-op Triton
    2.51 makes of a load whose config it already serves)."""

    def load_model(self, name, headers=None, query_params=None, config=None, files=None) -> None:
        self.calls.append(("load", name))
        if name not in self.loaded:
            super().load_model(name, config=config, files=files)


def test_an_upload_the_server_did_not_load_is_refused(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = StaleTriton()
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo)
    rt = uploader(repo, monkeypatch)
    load(tenancy, server, rt)
    with pytest.raises(ServerError, match=r"did not load the files uploaded for .*: it serves an earlier copy \(upload token"):
        load(tenancy, server, rt)
    assert upload_problem("m", "a", None) and "a copy the toolkit did not upload" in upload_problem("m", "a", None)
    assert upload_problem("m", None, "x") is None and upload_problem("m", "a", "a") is None


def test_a_server_copy_with_other_settings_is_refused_by_field_and_unloaded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = as_json(CONFIG.replace("count: 1", "count: 2").replace("dynamic_batching { max_queue_delay_microseconds: 500 }", ""))
    server = FakeTriton(repository={NAME: copy})
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo)
    rt = uploader(repo, monkeypatch, remote_repository="/models")
    with pytest.raises(ServerError) as e:
        load(tenancy, server, rt)
    said = e.value.message
    assert "instance_group: variant ['KIND_CPU x1'], served ['KIND_CPU x2']" in said
    assert "dynamic_batching: variant max_queue_delay 500 µs, served off" in said
    # worded for both users of the load, the sweep and clients check (trial 6: "its numbers would be filed under ...")
    assert "a result under the variant's name would not be the variant's, so nothing was measured or checked on it" in said
    assert "numbers" not in said and e.value.hint == "hint"
    assert NAME not in server.loaded and not tenancy.may_unload(NAME)  # ours, so unloaded again


def test_a_config_edited_away_from_its_name_is_caught_by_the_name(tmp_path: Path) -> None:
    served = settings_of_json(as_json(CONFIG.replace("count: 1", "count: 3")))
    assert name_differences(NAME, served) == ["instance_group: its name says ['KIND_CPU x1'], served ['KIND_CPU x3']"]
    assert name_differences("not_a_variant_name", served) == []
    nodb = settings_of_json(as_json(CONFIG.replace("max_queue_delay_microseconds: 500", "max_queue_delay_microseconds: 100")))
    assert name_differences(NAME, nodb) == [
        "dynamic_batching: its name says max_queue_delay 500 µs, served max_queue_delay 100 µs"
    ]


def test_triton_choices_are_not_differences() -> None:
    asked = settings_of_json(as_json(CONFIG.replace("instance_group { count: 1 kind: KIND_CPU }", "")))
    served = settings_of_json({**as_json(CONFIG), "instance_group": [{"kind": "KIND_CPU", "count": 1, "gpus": []}]})
    assert differences(asked, served) == []  # none asked: the server chose
    auto = settings_of_json(as_json(CONFIG.replace("KIND_CPU", "KIND_AUTO")))
    assert differences(auto, served) == []  # KIND_AUTO resolved by the server
    gpu = settings_of_json(as_json(CONFIG.replace("KIND_CPU", "KIND_GPU")))
    on0 = settings_of_json({**as_json(CONFIG), "instance_group": [{"kind": "KIND_GPU", "count": 1, "gpus": [0]}]})
    assert differences(gpu, on0) == []  # no GPUs listed: the server's choice
    two = settings_of_json(as_json(CONFIG.replace("count: 1 kind: KIND_CPU", "count: 1 kind: KIND_GPU gpus: [1]")))
    assert differences(two, on0) == ["instance_group: variant ['KIND_GPU x1 on GPUs [1]'], served ['KIND_GPU x1 on GPUs [0]']"]


def test_no_preferred_size_is_served_as_max_batch_size() -> None:
    served = {**as_json(CONFIG), "dynamic_batching": {"max_queue_delay_microseconds": 500, "preferred_batch_size": [8]}}
    assert differences(settings_of_json(as_json(CONFIG)), settings_of_json(served)) == []  # Triton 2.51 fills it in
    served["dynamic_batching"]["preferred_batch_size"] = [4]
    assert differences(settings_of_json(as_json(CONFIG)), settings_of_json(served)) == [
        "dynamic_batching: variant max_queue_delay 500 µs, served max_queue_delay 500 µs, preferred sizes [4]"
    ]


def test_parameters_warmup_and_accelerators_are_compared() -> None:
    mine = as_json(CONFIG)
    theirs = json.loads(json.dumps(mine))
    theirs["parameters"]["intra_op_threads"] = {"string_value": "4"}
    theirs["model_warmup"] = [{"name": "zero", "batch_size": 1}]
    assert differences(settings_of_json(mine), settings_of_json(theirs)) == [
        "parameters[intra_op_threads]: variant (none), served '4'",
        "model_warmup: variant none, served ['zero']",
    ]


def test_threads_per_instance_follow_each_backends_rule() -> None:
    python2 = parse_config(CONFIG.replace("count: 1", "count: 2"))
    assert instance_threads(python2, 8) == (4, "the server host's 8 cores / 2 instances (the toolkit's model.py)")
    n, why = instance_threads(python2, None)
    assert n is None and "not known here" in why
    python2.parameters["intra_op_threads"].string_value = "3"
    assert instance_threads(python2, None) == (3, "the intra_op_threads parameter")
    ort = parse_config(CONFIG.replace('backend: "python"', 'platform: "onnxruntime_onnx"').split("parameters")[0])
    n, why = instance_threads(ort, 8)
    assert n is None and "library default (no intra_op_thread_count parameter)" in why
    ort.parameters["intra_op_thread_count"].string_value = "2"
    assert instance_threads(ort, 8) == (2, "the intra_op_thread_count parameter")
    ts = parse_config(CONFIG.replace('backend: "python"', 'platform: "pytorch_libtorch"').split("parameters")[0])
    ts.parameters["INTRA_OP_THREAD_COUNT"].string_value = "1"
    assert instance_threads(ts, 8) == (1, "the INTRA_OP_THREAD_COUNT parameter")


def test_loaded_models_count_uploads_the_index_does_not_list() -> None:
    server = FakeTriton(repository={"r": {"name": "r"}}, loaded={"up": {"name": "up"}})
    assert loaded_models(server) == {"up": "READY"}
    server.load_model("r")
    assert loaded_models(server) == {"r": "READY", "up": "READY"}


def test_restore_unloads_the_toolkits_leftovers_and_says_what_differs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = FakeTriton(loaded={"theirs": {"name": "theirs"}})
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=repo)
    load(tenancy, server, uploader(repo, monkeypatch))
    server.unload_model("theirs")  # someone else unloaded theirs meanwhile
    server.loaded["newcomer"] = {"name": "newcomer"}
    said = tenancy.restore(server, lambda m: not server.unload_model(m))
    assert NAME not in server.loaded  # the toolkit's leftover unloaded
    assert "newcomer" in server.loaded  # someone else's, left
    assert said == [
        "found loaded before the run, not loaded now: theirs",
        "loaded now, not before the run: newcomer (someone else's, or the toolkit's leftovers)",
    ]


def test_served_settings_read_a_pbtxt_and_a_served_config_alike() -> None:
    mine = ServedSettings.of(parse_config(CONFIG))
    assert mine == settings_of_json({**as_json(CONFIG), "optimization": {"priority": "PRIORITY_DEFAULT"}})
    assert mine.instance_groups == ["KIND_CPU x1"] and mine.dynamic_batching == "max_queue_delay 500 µs"
    assert mine.backend == "python" and mine.max_batch_size == 8
