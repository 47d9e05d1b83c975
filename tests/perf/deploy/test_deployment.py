"""``triton-perf export-deployment``: the bundle of a run's winner, its Kubernetes manifests read back
with the ``kubernetes`` client, resources from the instance group, refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from factories import level_result, run_result, served_model, variant_result
from kubernetes import client as k8s_client
from tritonclient.grpc import model_config_pb2 as mc

from builders.build import BuildResult
from builders.config.pbtxt import read_config
from builders.config.variants import Variant
from builders.model.spec import ModelSpecRecord
from builders.repository.records import IndexEntry
from builders.repository.view import Repository
from builders.repository.writer import update_index, write_variant
from clients.runtimes.base import TRITON_DEFAULT_PORTS
from clients.runtimes.options import DEFAULT_TAG, image_for_tag
from core import formats
from core.errors import PerfError
from perf.analysis.recommendation.recommend import recommend
from perf.deploy import k8s
from perf.deploy.bundle import MANIFEST_DIR, SERVER_FILE, STORAGE_FILE, export_deployment
from perf.deploy.choose import choose_variant
from perf.records import results

CPU1 = "tiny_onnx_cpu1_nodb_mbs8"
CPU2 = "tiny_ts_cpu2_db500_mbs8"
GPU = Variant("tiny", "onnx", kind="gpu", count=2, gpus=(0, 1), max_batch_size=8)


@pytest.fixture
def repo(tiny_build: BuildResult, tmp_path: Path) -> Path:
    """A copy of the tiny repository (python-served KIND_CPU variants) plus one natively
    served KIND_GPU x2 variant on GPUs 0 and 1, written by the builders."""
    repo = tmp_path / "repo"
    shutil.copytree(Path(tiny_build.manifest["repository"]), repo)
    build_dir = tiny_build.manifest_path.parent
    spec = ModelSpecRecord.model_validate(tiny_build.manifest["spec"]).to_spec()
    write_variant(repo, GPU, build_dir / "model.onnx", spec, "native")
    update_index(repo, [IndexEntry.of(GPU, "native", str(build_dir))])
    return repo


@pytest.fixture
def run_dir(repo: Path, tmp_path: Path) -> Path:
    """A saved run over ``repo``: the GPU variant has the best peak, CPU1 the best p99, CPU2 failed."""
    index = Repository(repo).index.entries()
    run = run_result(
        [
            variant_result(
                CPU1,
                [level_result(1, 100.0, 2.0, spread=True), level_result(2, 150.0, 4.0, spread=True)],
                params=index[CPU1].params,
            ),
            variant_result(
                GPU.name,
                [level_result(1, 400.0, 5.0, spread=True), level_result(2, 700.0, 9.0, spread=True)],
                params=index[GPU.name].params,
            ),
            variant_result(CPU2, params=index[CPU2].params, status="failed", error="server crashed while loading"),
        ],
        run_id="r1",
        created="2026-01-01T00:00:00",
        environment={
            "host": "testhost",
            "gpus": [{"name": "GPU A"}, {"name": "GPU A"}],
            "server": {"runtime": "container", "version": "2.51.0"},
        },
        settings={"repository": str(repo), "concurrency": [1, 2], "batch_sizes": [1], "protocol": "grpc"},
        finished="2026-01-01T00:01:00",
    )
    folder = tmp_path / "results" / "r1"
    folder.mkdir(parents=True)
    results.save(run, folder)
    return folder


def _by_kind(bundle_dir: Path) -> dict[str, object]:
    objs = k8s.read_manifests(bundle_dir / MANIFEST_DIR / STORAGE_FILE) + k8s.read_manifests(
        bundle_dir / MANIFEST_DIR / SERVER_FILE
    )
    return {o.kind: o for o in objs}


@pytest.mark.slow  # the session's real tiny build
def test_the_recommended_gpu_variant_gets_manifests_that_read_back(run_dir: Path, repo: Path):
    bundle = export_deployment(run_dir)
    assert bundle.chosen.variant == GPU.name and "recommendation" in bundle.chosen.why and "peak" in bundle.chosen.why
    assert bundle.folder == run_dir / f"deployment-{GPU.name}"
    # the model folder: unchanged (natively served already), named as the model
    served = bundle.folder / "model_repository" / GPU.name
    assert (served / "config.pbtxt").read_text() == (repo / GPU.name / "config.pbtxt").read_text()
    assert read_config(served / "config.pbtxt").name == GPU.name
    assert bundle.serving_note is None

    objs = _by_kind(bundle.folder)
    dep, svc, pvc, pod = objs["Deployment"], objs["Service"], objs["PersistentVolumeClaim"], objs["Pod"]
    assert isinstance(dep, k8s_client.V1Deployment) and isinstance(svc, k8s_client.V1Service)
    assert isinstance(pvc, k8s_client.V1PersistentVolumeClaim) and isinstance(pod, k8s_client.V1Pod)
    (c,) = dep.spec.template.spec.containers
    assert c.image == image_for_tag(DEFAULT_TAG)
    assert c.command == ["tritonserver"]
    assert "--model-repository=/models" in c.args and "--model-control-mode=none" in c.args
    ports = {p.name: p.container_port for p in c.ports}
    assert ports == {"http": 8000, "grpc": 8001, "metrics": 8002}
    assert (ports["http"], ports["grpc"], ports["metrics"]) == (
        TRITON_DEFAULT_PORTS.http,
        TRITON_DEFAULT_PORTS.grpc,
        TRITON_DEFAULT_PORTS.metrics,
    )
    assert c.readiness_probe.http_get.path == "/v2/health/ready" and c.readiness_probe.http_get.port == "http"
    assert c.liveness_probe.http_get.path == "/v2/health/live" and c.liveness_probe.http_get.port == "http"
    assert c.startup_probe.http_get.path == "/v2/health/live"
    # KIND_GPU x2 on GPUs [0, 1]: the pod needs two GPUs; no CPU request from a GPU group
    assert c.resources.limits == {"nvidia.com/gpu": "2"}
    assert not c.resources.requests
    (tol,) = dep.spec.template.spec.tolerations
    assert (tol.key, tol.operator, tol.effect) == ("nvidia.com/gpu", "Exists", "NoSchedule")
    ann = dep.spec.template.metadata.annotations
    assert (
        ann["prometheus.io/scrape"] == "true" and ann["prometheus.io/port"] == "8002" and ann["prometheus.io/path"] == "/metrics"
    )
    # the repository: the claim mounted read-only at /models; the loader mounts the same claim
    (mount,) = c.volume_mounts
    assert mount.mount_path == "/models" and mount.read_only
    (vol,) = dep.spec.template.spec.volumes
    assert vol.name == mount.name and vol.persistent_volume_claim.claim_name == pvc.metadata.name
    assert pod.spec.volumes[0].persistent_volume_claim.claim_name == pvc.metadata.name
    assert pvc.spec.resources.requests == {"storage": "1Gi"}
    # the service selects the deployment's pods on the three ports
    assert svc.spec.selector == dep.spec.selector.match_labels == dep.spec.template.metadata.labels
    assert {p.name: (p.port, p.target_port) for p in svc.spec.ports} == {
        "http": (8000, "http"),
        "grpc": (8001, "grpc"),
        "metrics": (8002, "metrics"),
    }
    assert dep.metadata.name == svc.metadata.name == k8s.k8s_name(GPU.name) == k8s.check_name(dep.metadata.name)
    assert dep.metadata.annotations["triton-toolkit/variant"] == GPU.name
    readme = (bundle.folder / "README.md").read_text()
    assert "run's recommendation" in readme and "700.0 infer/s" in readme and "nvidia.com/gpu limit 2" in readme
    assert f"kubectl cp model_repository/{GPU.name} {pod.metadata.name}:/models/{GPU.name}" in readme


@pytest.mark.slow  # the session's real tiny build
def test_a_python_served_cpu_variant_is_written_for_the_native_backend(run_dir: Path, repo: Path):
    (repo / CPU1 / "1" / "__pycache__").mkdir(
        exist_ok=True
    )  # what the python backend leaves after serving it (already there when an earlier test served the tiny repository)
    (repo / CPU1 / "1" / "__pycache__" / "model.cpython-311.pyc").write_bytes(b"\0")
    bundle = export_deployment(run_dir, CPU1, run_dir / "b")
    assert bundle.chosen.variant == CPU1 and bundle.chosen.why.startswith("named with --variant")
    assert bundle.chosen.level.throughput_infer_per_s == 150.0  # its best level, by the recommendation's rule
    folder = bundle.folder / "model_repository" / CPU1
    cfg = read_config(folder / "config.pbtxt")
    assert cfg.name == CPU1 and cfg.platform == formats.get("onnx").platform == "onnxruntime_onnx"
    assert sorted(p.name for p in (folder / "1").iterdir()) == ["model.onnx"]  # no model.py, no byte code
    assert [(g.kind, g.count) for g in cfg.instance_group] == [(mc.ModelInstanceGroup.KIND_CPU, 1)]
    assert read_config(repo / CPU1 / "config.pbtxt").backend == "python"  # the source is untouched
    assert "python-backend" in bundle.serving_note and "not verified here" in bundle.serving_note
    (c,) = _by_kind(bundle.folder)["Deployment"].spec.template.spec.containers
    assert c.resources.requests == {"cpu": "1"}  # one core per KIND_CPU instance
    assert not c.resources.limits  # no GPU for a KIND_CPU variant, and no CPU limit
    assert _by_kind(bundle.folder)["Deployment"].spec.template.spec.tolerations is None
    assert "not verified here" in (bundle.folder / "README.md").read_text()
    # the bundle's repository is one the toolkit reads: clients check --repository works on it
    entry = Repository(bundle.folder / "model_repository").variant(CPU1)
    assert entry.serving == "native" and entry.params == Repository(repo).variant(CPU1).params
    assert entry.served_spec is not None


@pytest.mark.slow  # the session's real tiny build
def test_the_image_is_the_runs_container_image_unless_given(run_dir: Path):
    run = results.load(run_dir)
    run.settings["server"] = {"runtime": "container", "image": "nvcr.io/nvidia/tritonserver:25.01-py3"}
    results.save(run, run_dir)
    assert export_deployment(run_dir, CPU1).plan.image == "nvcr.io/nvidia/tritonserver:25.01-py3"
    assert export_deployment(run_dir, CPU1, image="registry.local/triton:1").plan.image == "registry.local/triton:1"


@pytest.mark.slow  # the session's real tiny build
def test_the_deployment_has_the_wait_policy_the_runs_server_ran_with(run_dir: Path, monkeypatch):
    # it had the exporting environment's, whatever the run's server ran with (a sweep under ACTIVE: 15 infer/s, s21k)
    monkeypatch.setenv("OMP_WAIT_POLICY", "")

    def policy() -> dict[str, str]:
        (c,) = _by_kind(export_deployment(run_dir, CPU1).folder)["Deployment"].spec.template.spec.containers
        return {e.name: e.value for e in c.env}

    assert policy() == {"OMP_WAIT_POLICY": "PASSIVE"}  # not recorded (a run saved before it was): empty is unset
    run = results.load(run_dir)
    run.environment["server"]["omp_wait_policy"] = "ACTIVE"
    results.save(run, run_dir)
    assert policy() == {"OMP_WAIT_POLICY": "ACTIVE"}


@pytest.mark.slow  # the session's real tiny build
def test_unknown_and_failed_variants_are_refused_with_the_valid_names(run_dir: Path):
    for name, what in (("nope", "is not in run r1"), (CPU2, "was not measured in run r1 (status failed: server crashed")):
        with pytest.raises(PerfError) as e:
            export_deployment(run_dir, name)
        assert what in e.value.message
        assert e.value.hint == f"valid variants of run r1: {CPU1}, {GPU.name}"
    assert not list(run_dir.glob("deployment-*"))  # nothing written


@pytest.mark.slow  # the session's real tiny build
def test_a_latency_budget_picks_the_best_level_within_it_or_refuses(run_dir: Path):
    bundle = export_deployment(run_dir, latency_budget_ms=4.5)
    assert bundle.chosen.variant == CPU1 and "p99 budget of 4.50 ms" in bundle.chosen.why
    readme = (bundle.folder / "README.md").read_text()  # trial 16, T16-4: the pick within the budget, not the best measured
    assert "Its chosen level: `tiny_onnx_cpu1_nodb_mbs8` at concurrency 2: 150.0 infer/s" in readme
    assert "best measured level" not in readme
    # the run swept without a budget: the bundle says whose budget this is (trial 20, T20-8)
    assert "The recommendation under the given --latency-budget-ms 4.50 (a what-if: the run had no latency budget)" in readme
    with pytest.raises(
        PerfError, match="nothing to deploy from run r1: no level meets the given p99 budget of 1.00 ms"
    ) as refused:
        export_deployment(run_dir, latency_budget_ms=1.0)
    assert str(refused.value).lower().count("no level") == 1  # the report's sentence, once


def test_a_budget_given_to_export_deployment_is_not_called_the_runs_recommendation():
    """Trial 20, T20-8: ``export-deployment RUN --latency-budget-ms 21`` of a run swept for 20 ms (no level met it) was
    labelled "the run's recommendation", and the bundle never said the run's budget was 20 ms."""
    levels = [level_result(1, 300.0, 20.5, spread=True), level_result(2, 400.0, 30.0, spread=True)]
    run = run_result(
        [variant_result("a", levels)],
        run_id="w",
        settings={"concurrency": [1, 2], "batch_sizes": [1], "protocol": "grpc", "latency_budget_ms": 20.0},
        finished="2026-01-01T00:01:00",
    )
    what_if = choose_variant(run, latency_budget_ms=21.0).why
    assert what_if.startswith("the recommendation under the given --latency-budget-ms 21.00 (a what-if: the run's own is a ")
    assert "p99 budget of 20.00 ms)" in what_if and "the run's recommendation" not in what_if
    run.settings["latency_budget_ms"] = 21.0  # the run's own budget, given again: the run's recommendation
    assert choose_variant(run, latency_budget_ms=21.0).why.startswith("the run's recommendation: the best level within")
    assert choose_variant(run).why.startswith("the run's recommendation: the best level within")


def test_a_shape_sweep_is_ranked_per_shape_as_the_report_ranks_it():
    run = run_result(
        [
            variant_result(
                "a",
                [
                    level_result(1, 500.0, 2.0, spread=True, shape="seq=16"),
                    level_result(1, 100.0, 20.0, spread=True, shape="seq=128"),
                ],
            ),
            variant_result("b", [level_result(1, 400.0, 3.0, spread=True)]),
        ],
        run_id="s",
        settings={"concurrency": [1], "batch_sizes": [1], "protocol": "grpc"},
        finished="2026-01-01T00:01:00",
    )
    # merged over shapes, a's two levels would read as two trials with a median of 300 infer/s
    chosen = choose_variant(run)
    assert chosen.variant == "a" and chosen.level.variant == "a [seq=16]" and chosen.level.throughput_infer_per_s == 500.0
    assert choose_variant(run, "a").level.variant == "a [seq=16]"
    assert choose_variant(run, latency_budget_ms=2.5).level.variant == "a [seq=16]"


def test_an_unfinished_runs_recommendation_is_refused_unless_asked_and_said_when_given():
    # the trial: a run Ctrl-C'd after 1 visit, 3 of 4 variants pending, exported "the only ranked variant" and exit 0
    run = run_result(
        [
            variant_result("a", [level_result(1, 400.0, 3.0, spread=True)], status="pending"),
            *(variant_result(n, status="pending") for n in ("b", "c", "d")),
        ],
        run_id="k",
        settings={"concurrency": [1, 2], "batch_sizes": [1], "protocol": "grpc"},
    )
    with pytest.raises(PerfError) as e:
        choose_variant(run)
    assert "run `k` did not finish" in e.value.message
    assert "numbers for 1 of 4 variants (1 of them part-measured: `a`), 3 not measured (`b`, `c`, `d`)" in e.value.message
    assert "--resume k" in (e.value.hint or "") and "--allow-unfinished" in (e.value.hint or "")
    # issue 26: the Ctrl-C line said `perf/run_sweep.sh --resume kwint --results-dir results`, this refusal
    # `triton-perf sweep --resume kwint`: one function spells it (perf.records.unfinished.resume_command)
    with pytest.raises(PerfError) as e:
        choose_variant(run, results_dir=Path("results"))
    from perf.records.unfinished import SWEEP_SCRIPT

    assert SWEEP_SCRIPT.is_file()
    assert f"finish it first with `{SWEEP_SCRIPT} --resume k --results-dir {Path('results').resolve()}`" in (e.value.hint or "")
    for chosen in (choose_variant(run, allow_unfinished=True), choose_variant(run, "a")):
        assert chosen.variant == "a" and chosen.unfinished is not None and "did not finish" in chosen.unfinished
    run.finished = "2026-01-01T00:01:00"
    run.variants[0].status = "ok"
    assert choose_variant(run).unfinished is None


def _edit_index(repo: Path, name: str, **fields: object) -> None:
    index = json.loads((repo / "index.json").read_text())
    next(v for v in index["variants"] if v["name"] == name).update(fields)
    (repo / "index.json").write_text(json.dumps(index))


@pytest.mark.slow  # the session's real tiny build
def test_a_variant_rebuilt_since_the_run_is_refused_and_the_previous_bundle_kept(run_dir: Path, repo: Path):
    out = run_dir / "bundle"
    export_deployment(run_dir, GPU.name, out)
    before = (out / MANIFEST_DIR / SERVER_FILE).read_text()
    _edit_index(repo, GPU.name, count=1)
    with pytest.raises(PerfError, match="count: measured 2, now 1"):
        export_deployment(run_dir, GPU.name, out)
    assert (out / MANIFEST_DIR / SERVER_FILE).read_text() == before
    assert sorted(p.name for p in run_dir.iterdir() if "bundle" in p.name) == ["bundle"]  # no partial folder left


@pytest.mark.slow  # the session's real tiny build
def test_a_python_served_variant_without_its_build_manifest_is_refused(run_dir: Path, repo: Path, tmp_path: Path):
    _edit_index(repo, CPU1, build=str(tmp_path / "gone"))
    with pytest.raises(PerfError, match="python-backend model.py") as e:
        export_deployment(run_dir, CPU1)
    assert "--serving native" in e.value.hint
    assert not list(run_dir.glob("deployment-*"))


@pytest.mark.slow  # the session's real tiny build
def test_an_existing_folder_is_replaced_only_when_it_is_a_bundle(run_dir: Path, tmp_path: Path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(PerfError, match="is not a deployment bundle"):
        export_deployment(run_dir, CPU1, out)
    assert (out / "notes.txt").read_text() == "keep me"
    first = export_deployment(run_dir, CPU1, tmp_path / "bundle")
    (first.folder / "MYNOTES.txt").write_text("my edits")  # what a user adds to a bundle is never lost
    again = export_deployment(run_dir, GPU.name, tmp_path / "bundle")
    assert not (first.folder / "model_repository" / CPU1).exists() and (again.folder / "model_repository" / GPU.name).is_dir()
    assert first.previous is None and again.previous == tmp_path / "bundle.previous-1"
    assert (again.previous / "MYNOTES.txt").read_text() == "my edits" and (again.previous / "model_repository" / CPU1).is_dir()
    third = export_deployment(run_dir, CPU1, tmp_path / "bundle")
    assert third.previous == tmp_path / "bundle.previous-2"


def test_resources_from_each_instance_kind():
    def cfg(*groups: tuple[int, int, list[int]]) -> mc.ModelConfig:
        c = mc.ModelConfig(name="m")
        for kind, count, gpus in groups:
            c.instance_group.add(kind=kind, count=count, gpus=gpus)
        return c

    G, C = mc.ModelInstanceGroup.KIND_GPU, mc.ModelInstanceGroup.KIND_CPU
    assert k8s.resources(cfg((G, 3, []))).gpus == 1  # every visible GPU: one is the least
    assert k8s.resources(cfg((G, 1, [2]))).gpus == 3  # GPU 2 needs GPUs 0..2 visible
    r = k8s.resources(cfg((C, 2, []), (C, 3, [])))
    assert (r.gpus, r.cpu_cores) == (None, 5)
    assert k8s.resources(cfg((mc.ModelInstanceGroup.KIND_MODEL, 1, []))) == k8s.Resources(
        None, None, ("KIND_MODEL: the model chooses its devices, nothing requested",)
    )
    assert k8s.resources(mc.ModelConfig(name="m")).cpu_cores == 1


def test_the_cpu_request_s_reason_says_its_cores_in_agreement():
    """'1 CPU core(s) requested' read as a form; the reason the measured request replaces goes, whatever its wording."""
    one = mc.ModelConfig(name="m")
    one.instance_group.add(kind=mc.ModelInstanceGroup.KIND_CPU, count=1)
    assert "1 CPU core requested, one per instance: " in k8s.resources(one).why[-1]
    measured = k8s.resources(one, 1.0, "c=1").why
    assert measured[0] == "KIND_CPU x1" and measured[1].startswith("1 CPU core requested: the server's own CPU measured at c=1 ")
    none = k8s.resources(mc.ModelConfig(name="m"), 1.6, "c=8")
    assert len(none.why) == 1 and none.why[0].startswith("1.6 CPU cores requested: the server's own CPU measured at c=8 ")
    default = k8s.resources(mc.ModelConfig(name="m")).why
    assert default[0] == "no instance_group: Triton's default is one instance (on a GPU where there is one); 1 CPU core requested"
    assert default[1].startswith("1 CPU core requested, one per instance")


def test_kubernetes_names():
    assert k8s.k8s_name("mlp_onnx_cpu2_db500_mbs64") == "triton-mlp-onnx-cpu2-db500-mbs64"
    long_a, long_b = "m" * 80 + "_a", "m" * 80 + "_b"
    assert len(k8s.k8s_name(long_a)) <= k8s.MAX_NAME and k8s.k8s_name(long_a) != k8s.k8s_name(long_b)
    assert k8s.check_name(k8s.k8s_name(long_a))
    for bad in ("Triton", "1abc", "a_b", "x" * 60):
        with pytest.raises(ValueError):
            k8s.check_name(bad)


@pytest.mark.slow  # the session's real tiny build
def test_a_flagged_pick_is_exported_with_a_warning(run_dir: Path):
    """The demo on a loaded host deployed a host-busy pick without a word: the CLI now says the
    chosen level is flagged and what to do."""
    from click.testing import CliRunner

    from perf.cli.main import cli

    run = results.load(run_dir)
    for v in run.variants:
        for lv in v.levels:
            lv.host_busy = True
    results.save(run, run_dir)
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--out", str(run_dir / "bundle")])
    assert res.exit_code == 0, res.output
    assert "the chosen level is host busy" in res.output and "quiet host" in res.output
    assert "--trials 3" in res.output and "--time-budget" not in res.output  # a sequential run's repetitions
    # trial 7 (F15): the bundle's README, what travels to whoever deploys, says the same and defines its †
    readme = " ".join((run_dir / "bundle" / "README.md").read_text().split())
    why = readme.split("## Why this variant", 1)[1].split("## ", 1)[0]
    assert "not a measurement to deploy on; sweep again on a quiet host (or with --trials 3)" in why
    assert "† host busy" in why and "†: a flagged number" in why


@pytest.mark.slow  # the session's real tiny build
def test_a_flagged_pick_of_a_rounds_run_is_advised_a_longer_time_budget_not_trials(run_dir: Path):
    """--trials is the sequential design's flag: a rounds run gets more rounds from a longer --time-budget."""
    from click.testing import CliRunner

    from perf.cli.main import cli
    from perf.records.rounds import RoundsRecord

    run = results.load(run_dir)
    for v in run.variants:
        for lv in v.levels:
            lv.host_busy = True
    run.rounds = RoundsRecord(seed=1)
    results.save(run, run_dir)
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--out", str(run_dir / "bundle")])
    assert res.exit_code == 0, res.output
    assert "with a longer --time-budget, for more rounds per level" in res.output and "--trials" not in res.output


def _stamped_run(repo: Path, tmp_path: Path, name: str, served, cpu: float | None) -> Path:
    """A saved run of one variant, stamped with what the server ran (``served``) and the
    server's own CPU at its one level (``cpu`` cores)."""
    index = Repository(repo).index.entries()
    v = variant_result(name, [level_result(1, 100.0, 2.0, spread=True, server_cpu_cores=cpu)], params=index[name].params)
    v.served = [served]
    run = run_result([v], run_id="s", environment={"host": "h"}, settings={"repository": str(repo)}, finished="x")
    folder = tmp_path / "results" / "s"
    folder.mkdir(parents=True)
    results.save(run, folder)
    return folder


@pytest.mark.slow  # the session's real tiny build
def test_the_bundle_deploys_the_threads_cpu_and_groups_that_were_measured(repo: Path, tmp_path: Path):
    # the case: 2 python-backend instances on 2 cores ran 1 intra-op thread each, the
    # level measured 1.52 cores of server CPU
    name = "tiny_onnx_cpu2_nodb_mbs8"
    ran = served_model(
        name,
        count=2,
        max_batch_size=8,
        parameters={"artifact_file": "model.onnx", "artifact_format": "onnx", "artifact_outputs": '["OUTPUT__0"]'},
        threads_per_instance=1,
        threads_rule="the server host's 2 cores / 2 instances (the toolkit's model.py)",
    )
    bundle = export_deployment(_stamped_run(repo, tmp_path, name, ran, 1.52), name)
    cfg = read_config(bundle.folder / "model_repository" / name / "config.pbtxt")
    assert cfg.parameters["intra_op_thread_count"].string_value == "1"  # not ONNX Runtime's every-core default
    assert cfg.parameters["inter_op_thread_count"].string_value == "1"
    assert [(g.kind, g.count) for g in cfg.instance_group] == [(mc.ModelInstanceGroup.KIND_CPU, 2)]
    (c,) = _by_kind(bundle.folder)["Deployment"].spec.template.spec.containers
    assert c.resources.requests == {"cpu": "1600m"}  # the measured 1.52 cores, not 1 per instance
    readme = " ".join((bundle.folder / "README.md").read_text().split())
    assert "Measured with 1 intra-op thread per instance (the server host's 2 cores / 2 instances" in readme
    assert "backend: measured python, bundle onnxruntime" in readme
    assert "parameters[intra_op_thread_count]: measured (none), bundle '1'" in readme
    assert "parameters[artifact_file]: measured 'model.onnx', bundle (none)" in readme
    assert "1.6 CPU cores requested: the server's own CPU measured at concurrency 1, batch 1" in readme
    assert "--no-deploy --repository" in readme  # the check reads the served config back against the bundle's


@pytest.mark.slow  # the session's real tiny build
def test_a_torchscript_bundle_gets_libtorch_threads_and_unknown_threads_are_not_invented(repo: Path, tmp_path: Path):
    name = "tiny_ts_cpu1_nodb_mbs8"
    ran = served_model(name, max_batch_size=8, threads_per_instance=2, threads_rule="the server host's 2 cores / 1 instance")
    bundle = export_deployment(_stamped_run(repo, tmp_path / "a", name, ran, None), name)
    cfg = read_config(bundle.folder / "model_repository" / name / "config.pbtxt")
    assert cfg.platform == "pytorch_libtorch" and cfg.parameters["INTRA_OP_THREAD_COUNT"].string_value == "2"
    (c,) = _by_kind(bundle.folder)["Deployment"].spec.template.spec.containers
    assert c.resources.requests == {"cpu": "1"}  # not measured: one core per instance, said
    assert "one per instance: the server's CPU was not measured" in (bundle.folder / "README.md").read_text()
    elsewhere = served_model(name, max_batch_size=8, threads_rule="the server host's cores / instances; not known here")
    bundle = export_deployment(_stamped_run(repo, tmp_path / "b", name, elsewhere, 0.4), name)
    cfg = read_config(bundle.folder / "model_repository" / name / "config.pbtxt")
    assert "INTRA_OP_THREAD_COUNT" not in cfg.parameters  # not known: no number made up
    assert (
        "threads per instance: the server host's cores / instances; not known here" in (bundle.folder / "README.md").read_text()
    )


@pytest.mark.slow  # the session's real tiny build
def test_a_bundle_that_would_differ_from_what_ran_is_refused(repo: Path, tmp_path: Path):
    ran = served_model(CPU1, count=2, max_batch_size=8, dynamic_batching="max_queue_delay 100 µs")
    with pytest.raises(PerfError, match=r"would differ from what the run measured \(instance_group: measured \['KIND_CPU x2'\]"):
        export_deployment(_stamped_run(repo, tmp_path, CPU1, ran, 1.0), CPU1)


def test_cpu_requests_round_up_the_measured_server_cpu():
    from perf.deploy.measured import Measured, cpu_request_cores

    assert [cpu_request_cores(Measured(None, c, "")) for c in (1.52, 1.5, 0.01, None)] == [1.6, 1.5, 0.1, None]
    c = mc.ModelConfig(name="m")
    c.instance_group.add(kind=mc.ModelInstanceGroup.KIND_CPU, count=4)
    r = k8s.resources(c, 1.6, "concurrency 8, batch 1")
    assert r.cpu_quantity == "1600m" and r.requirements().requests == {"cpu": "1600m"}
    assert k8s.resources(c).cpu_quantity == "4"


def test_a_given_budget_is_said_with_its_digits_and_as_the_given_one_not_the_runs():
    """Issue 26: `--latency-budget-ms 0.025` read "the p99 budget of 0.03 ms" and "its p99 budget" (the run's was 10 ms)."""
    run = run_result(
        [variant_result("a", [level_result(1, 400.0, 3.0)])],
        run_id="k",
        settings={"latency_budget_ms": 10.0},
        finished="2026-12-02T05:00:00",
    )
    with pytest.raises(PerfError, match=r"nothing to deploy from run k: no level meets the given p99 budget of 0\.025 ms"):
        choose_variant(run, latency_budget_ms=0.025)
    assert recommend(run, 0.025).budget_text == "p99 budget of 0.025 ms"
    assert recommend(run, 25.0).budget_text == "p99 budget of 25.00 ms"  # a round number keeps its 2 decimals
    assert choose_variant(run).why.endswith("the best level within the p99 budget of 10.00 ms")


def test_the_cpu_request_of_a_pick_at_a_client_batch_size_is_its_levels(tmp_path: Path):
    # trial 10, F14: a run swept --batch-sizes 1,8 and picked `v [b=8]` at c=1; the server's CPU at
    # c=1, b=8 was measured (1.24 cores) but the bundle said "not measured at the deployed level"
    from perf.analysis.recommendation.choice import Choice
    from perf.deploy.measured import measured

    levels = [
        level_result(1, 900.0, 5.0, batch_size=1, server_cpu_cores=0.7),
        level_result(1, 1900.0, 9.0, batch_size=8, server_cpu_cores=1.24),
    ]
    run = run_result([variant_result("v", levels)], run_id="s")
    m = measured(run, "v", Choice("v [b=8]", 1, 8, 1900.0, 9.0, True, 1))
    assert (m.server_cpu_cores, m.level) == (1.24, "concurrency 1, batch 8")
    assert measured(run, "v", Choice("v [b=1]", 1, 1, 900.0, 5.0, True, 1)).server_cpu_cores == 0.7
    shaped = [level_result(1, 900.0, 5.0, batch_size=8, shape="seq=64", server_cpu_cores=0.9), *levels]
    m = measured(run_result([variant_result("v", shaped)], run_id="s"), "v", Choice("v [seq=64, b=8]", 1, 8, 900.0, 5.0, True, 1))
    assert (m.server_cpu_cores, m.level) == (0.9, "concurrency 1, batch 8, seq=64")


@pytest.mark.slow  # the session's real tiny build
def test_the_bundle_says_what_its_image_could_not_be_checked_for(run_dir: Path):
    """Trial 11, F18: an image whose release has no confirmed ONNX limits (25.03 here): the bundle says the check was
    not run; the default image's release (24.10: ONNX Runtime 1.19.2, confirmed since T24-14) is checked."""
    unknown = export_deployment(run_dir, CPU1, run_dir / "b", image="nvcr.io/nvidia/tritonserver:25.03-py3")
    assert unknown.release_check is not None and unknown.release_check.not_run
    text = (unknown.folder / "README.md").read_text()
    assert all(line in text for line in unknown.release_check.lines()) and "**Not checked:** model.onnx: ONNX limits" in text
    default = export_deployment(run_dir, CPU1, run_dir / "c").release_check  # T24-14: never skipped for the default
    assert default is not None and default.not_run == () and "Checked against Triton 24.10" in default.lines()[0]
    checked = export_deployment(run_dir, CPU1, run_dir / "d", image="nvcr.io/nvidia/tritonserver:24.05-py3").release_check
    assert checked is not None and checked.not_run == () and "Checked against Triton 24.05" in checked.lines()[0]


def test_a_cpu_measured_while_the_host_was_busy_is_not_the_request(tmp_path: Path):
    """Trial 18, T18-9: 0.4 CPU cores requested for a 2-instance KIND_CPU variant whose level was measured while
    other processes took 1.5 of the host's 2 cores: what they left the server, not what it needs."""
    from perf.analysis.recommendation.choice import Choice
    from perf.deploy.measured import busy_words, cpu_request_cores, measured

    busy = level_result(2, 37.6, 60.0, server_cpu_cores=0.36)
    busy.host_busy, busy.host_busy_pct = True, 150.0
    m = measured(run_result([variant_result("v", [busy])], run_id="s"), "v", Choice("v", 2, 1, 37.6, 60.0, True, 1))
    assert (m.server_cpu_cores, m.others_cpu_cores, cpu_request_cores(m)) == (0.36, 1.5, None)
    cfg = mc.ModelConfig(instance_group=[mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_CPU, count=2)])
    res = k8s.resources(cfg, cpu_request_cores(m), m.level, busy_words(m))
    assert res.cpu_cores == 2  # one per instance, as where it was not measured
    assert res.why[-1] == (
        "2 CPU cores requested, one per instance: the server's own CPU at concurrency 2, batch 1, 0.36 cores, was "
        "measured while other processes used 1.5 cores of the host: what they left it, not what it needs on a node of its own"
    )
    quiet = level_result(2, 37.6, 60.0, server_cpu_cores=0.36)
    quiet.host_busy_pct = 30.0  # sampled, under the threshold: the measurement stands
    q = measured(run_result([variant_result("v", [quiet])], run_id="s"), "v", Choice("v", 2, 1, 37.6, 60.0, True, 1))
    assert (cpu_request_cores(q), busy_words(q)) == (0.4, None)
