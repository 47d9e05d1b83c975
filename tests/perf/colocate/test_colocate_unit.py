"""triton-perf colocate without a server: one perf_analyzer per model started together (a fake
perf_analyzer), the flags, the refusals, and the report written from a searched record."""

from __future__ import annotations

import dataclasses
import json
import re
import stat
import sys
import types
from pathlib import Path

import colocation_source as cs
import pytest
from click.testing import CliRunner
from factories import served_model

from clients.runtimes.served import Loaded
from core.errors import PerfError
from perf.cli.main import cli
from perf.colocate import judge, neighbours
from perf.colocate.measure import ModelLoad, measure_together
from perf.colocate.options import ColocateOptions
from perf.colocate.run import Colocate
from perf.colocate.search import CoordinateSearch
from perf.plots.colocation import tradeoff_title
from perf.records import colocation
from perf.records.settings import MeasureSettings
from perf.report.colocation import report_lines, write_report

_FAKE = """#!{python}
import os, sys, time
args = sys.argv[1:]
csv = args[args.index("-f") + 1]
model = args[args.index("-m") + 1]
with open({log!r}, "a") as f:
    f.write(f"{{model}} start {{time.time()}}\\n")
time.sleep(float(os.environ.get("FAKE_PA_SLEEP_S", "0.4")))
with open({log!r}, "a") as f:
    f.write(f"{{model}} end {{time.time()}}\\n")
with open(csv, "w") as f:
    f.write("Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,"
            "Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency,"
            "Avg latency\\n")
    thr = 900 if "big" in model else 3000
    f.write(f"2,{{thr}},2,700,120,10,300,50,1,1000,2000,3000,4000,1500\\n")
print("Request concurrency: 2")
sys.exit(3 if "broken" in model else 0)
"""


def _fake_pa(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "starts.log"
    pa = tmp_path / "perf_analyzer"
    pa.write_text(_FAKE.format(python=sys.executable, log=str(log)))
    pa.chmod(pa.stat().st_mode | stat.S_IEXEC)
    return pa, log


def _srv() -> types.SimpleNamespace:  # a server on another host: its load is not sampled here
    runtime = types.SimpleNamespace(host=lambda: "203.0.113.9")
    return types.SimpleNamespace(
        grpc_url="203.0.113.9:8001", http_url="203.0.113.9:8000", container_name=None, pid=None, runtime_impl=runtime
    )


def test_one_perf_analyzer_per_model_started_together_with_the_same_windows(tmp_path: Path) -> None:
    pa, log = _fake_pa(tmp_path)
    commands: list[tuple[str, str]] = []
    loads = [ModelLoad("big", "big_x2", 2, ("--shape", "x:4")), ModelLoad("small", "small_x1", 4)]
    got = measure_together(
        pa,
        _srv(),
        loads,
        MeasureSettings(measurement_interval_ms=250),
        tmp_path / "raw",
        "s1_r0_o0",
        lambda w, c: commands.append((w, c)),
        10.0,
    )
    lines_ = [line.split() for line in log.read_text().splitlines()]
    starts = [float(t) for _, what, t in lines_ if what == "start"]
    ends = [float(t) for _, what, t in lines_ if what == "end"]
    # both ran at once: the second started before the first ended (an order, not a timing bound: a loaded CI
    # runner may delay either start, never make two runs one after the other overlap)
    assert len(starts) == 2 == len(ends) and max(starts) < min(ends)
    big, small = got.samples
    assert (big.model, big.variant, big.throughput_infer_per_s, big.latency_p99_ms) == ("big", "big_x2", 900.0, 4.0)
    assert big.server_queue_us == 120.0 and big.server_compute_us == 360.0  # input + infer + output
    assert small.throughput_infer_per_s == 3000.0
    assert got.host_busy_pct is None and not got.host_busy  # a server elsewhere: not sampled
    lines = [c for _w, c in commands]
    assert all("--measurement-interval 250" in c for c in lines)  # the same window settings
    assert "--concurrency-range 2:2" in lines[0] and "--concurrency-range 4:4" in lines[1]
    assert "--shape x:4" in lines[0]


def test_a_failing_perf_analyzer_fails_its_model_only(tmp_path: Path) -> None:
    pa, _log = _fake_pa(tmp_path)
    loads = [ModelLoad("big", "big_broken", 1), ModelLoad("small", "small_x1", 1)]
    got = measure_together(
        pa, _srv(), loads, MeasureSettings(measurement_interval_ms=100), tmp_path, "t", lambda w, c: None, 10.0
    )
    assert got.samples[0].error and not got.samples[0].ok
    assert got.samples[1].ok


def _repo(tmp_path: Path, kinds: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    for name, kind in kinds.items():
        (repo / name / "1").mkdir(parents=True)
        (repo / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\ninstance_group {{ count: 1 kind: {kind} }}\n'
        )  # a backend the bundled server has (runtime auto here): the run's pre-start checks pass
    return repo


def _invoke(args: list[str]):
    return CliRunner().invoke(cli, ["colocate", *args])


def test_bad_flags_are_one_clear_usage_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"a1": "KIND_CPU", "a2": "KIND_CPU", "b1": "KIND_CPU"})
    r = _invoke(["-r", str(repo), "--model", "a"])
    assert r.exit_code == 2 and "'a' is not NAME=PATTERN[,PATTERN]" in r.output
    r = _invoke(["-r", str(repo), "--model", "a=a*", "--mix", "a=0"])
    assert r.exit_code == 2 and "'a=0': '0' is not a CONCURRENCY" in r.output
    r = _invoke(["-r", str(repo), "--model", "a=a*", "--model", "a=b*"])
    assert r.exit_code == 2 and "a is given twice" in r.output


@pytest.mark.parametrize(
    ("models", "extra", "message"),
    [
        ({"a": ("a*",)}, {}, "co-location needs two models at least"),
        ({"a": ("a*",), "b": ("b*",)}, {"mix": {"c": 2}}, "--mix names c, not a --model of this run"),
        ({"a": ("a*",), "b": ("*1",)}, {}, "variant a1 is matched by both --model a and --model b"),
        ({"a": ("a*",), "b": ("b*",)}, {"starts": {"a": "b1"}}, "--start a=b1: not one of its variants"),
    ],
)
def test_bad_models_are_refused_before_anything_starts(tmp_path: Path, models, extra, message) -> None:
    from clients.runtimes.options import ServerOptions

    repo = _repo(tmp_path, {"a1": "KIND_CPU", "a2": "KIND_CPU", "b1": "KIND_CPU"})
    opts = ColocateOptions(server=ServerOptions(repository=repo), models=models, results_dir=tmp_path / "results", **extra)
    with pytest.raises(PerfError, match=message.replace("*", r"\*")):
        Colocate(opts)


def _searched(tmp_path: Path) -> colocation.ColocationRecord:
    src = cs.SynthSource(0)
    rec = cs.record(0)
    CoordinateSearch(rec, src, clock=src.clock, save=lambda: colocation.save(rec, tmp_path)).run()
    return rec


def test_the_report_explains_the_pick_in_four_parts(tmp_path: Path) -> None:
    rec = _searched(tmp_path)
    path = write_report(tmp_path)
    text = path.read_text()
    assert "**What**: " + judge.describe(rec.pick) in text
    assert "**Why**: " + rec.pick_reason in text
    assert "**The numbers**" in text and "co-located / alone" in text
    assert "**What it beats**" in text and "- beats " in text
    assert "## Every combination measured" in text and "(the pick)" in text
    assert f"{rec.combinations_measured} of 64 combinations measured" in text
    assert f"![{tradeoff_title(rec)}](colocation_tradeoff.png)" in text  # the plot's own title
    assert (tmp_path / "colocation_tradeoff.png").stat().st_size > 0
    for row in neighbours.neighbour_cost(rec):  # alone vs co-located, measured in the same rounds
        assert row.paired is not None and row.paired.rounds >= 6
        assert row.together < row.alone  # the neighbours cost each model throughput


def test_report_command_writes_a_colocation_runs_report(tmp_path: Path) -> None:
    _searched(tmp_path)
    r = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "report.md").is_file() and "report:" in r.output


def test_no_pick_is_said_in_the_report(tmp_path: Path) -> None:
    src = cs.SynthSource(4)
    rec = cs.with_budgets(cs.record(4), dict.fromkeys(cs.MODELS, 0.5))
    CoordinateSearch(rec, src, clock=src.clock).run()
    text = "\n".join(report_lines(rec))
    assert "**What**: not achieved." in text and "**Why**: no combination found within every model's budget" in text
    assert "**The closest** measured: " in text and "**What it beats**: nothing" in text
    assert json.loads(json.dumps(colocation.COLOCATION_KIND.dump(rec)))["pick"] is None


def _picked_run(tmp_path: Path, pick: dict[str, str] | None) -> Path:
    """A co-location run folder over a hand-made repository whose record picked ``pick``."""
    repo = _repo(tmp_path, {"a1": "KIND_CPU", "b1": "KIND_CPU"})
    (repo / "a1" / "1" / "model.onnx").write_bytes(b"onnx")
    run_dir = tmp_path / "run"
    rec = colocation.ColocationRecord(
        "run",
        "2026-12-01T00:00:00",
        str(repo),
        [colocation.ColocatedModel("a", ["a1"]), colocation.ColocatedModel("b", ["b1"])],
        pick=pick,
        pick_reason="no move of any model raised the weighted throughput" if pick else "no combination found",
    )
    colocation.save(rec, run_dir)
    return run_dir


def test_export_deployment_of_a_colocation_run_writes_one_repository_with_each_models_variant(tmp_path: Path) -> None:
    run_dir = _picked_run(tmp_path, {"a": "a1", "b": "b1"})
    r = CliRunner().invoke(cli, ["export-deployment", str(run_dir)])
    assert r.exit_code == 0, r.output
    bundle = run_dir / "deployment-combination"
    assert "combination: a=a1, b=b1" in r.output and str(bundle) in r.output
    assert (bundle / "model_repository" / "a1" / "1" / "model.onnx").read_bytes() == b"onnx"
    assert (bundle / "model_repository" / "b1" / "config.pbtxt").is_file()
    readme = (bundle / "README.md").read_text()
    assert "a=a1, b=b1" in readme and "--model-control-mode=none" in readme and "## Kubernetes" in readme
    again = CliRunner().invoke(cli, ["export-deployment", str(run_dir)])  # a previous bundle is replaced
    assert again.exit_code == 0, again.output
    wrong = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--variant", "a1"])
    assert wrong.exit_code == 2 and "is a co-location run" in wrong.output


def test_a_combination_bundle_has_the_manifests_of_one_server_serving_every_model(tmp_path: Path) -> None:
    """The single-model bundle's manifests (perf.deploy.k8s), for one pod loading every model of
    the pick: the resources add up, the loader copies each model's folder."""
    from perf.deploy.k8s import GPU_RESOURCE, read_manifests

    repo = tmp_path / "repo"
    groups = {"a1": "count: 2 kind: KIND_CPU", "b1": "count: 1 kind: KIND_GPU gpus: [0]", "c1": "count: 3 kind: KIND_CPU"}
    for name, group in groups.items():
        (repo / name / "1").mkdir(parents=True)
        (repo / name / "1" / "model.onnx").write_bytes(b"x" * 10)
        (repo / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "onnxruntime"\nmax_batch_size: 8\ninstance_group {{ {group} }}\n'
        )
    run_dir = tmp_path / "run"
    models = [colocation.ColocatedModel(m, [f"{m}1"]) for m in ("a", "b", "c")]
    rec = colocation.ColocationRecord(
        "r7", "2026-12-01T00:00:00", str(repo), models, pick={"a": "a1", "b": "b1", "c": "c1"}, pick_reason="the pick"
    )
    colocation.save(rec, run_dir)
    r = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--name", "triton-shop", "--image", "my/triton:1"])
    assert r.exit_code == 0, r.output
    bundle = run_dir / "deployment-combination"
    assert str(bundle / "kubernetes" / "triton.yaml") in r.output
    objects = {o.kind: o for o in read_manifests(bundle / "kubernetes" / "triton.yaml")}
    objects |= {o.kind: o for o in read_manifests(bundle / "kubernetes" / "storage.yaml")}
    assert set(objects) == {"Deployment", "Service", "PersistentVolumeClaim", "Pod"}
    container = objects["Deployment"].spec.template.spec.containers[0]
    assert container.image == "my/triton:1" and "--model-control-mode=none" in container.args
    assert container.resources.requests == {"cpu": "5"}  # 2 + 3 KIND_CPU instances, one core each
    assert container.resources.limits == {GPU_RESOURCE: "1"}  # b1 on GPU 0
    assert objects["Deployment"].metadata.name == "triton-shop" and objects["Pod"].metadata.name == "triton-shop-loader"
    readme = (bundle / "README.md").read_text()
    for v in ("a1", "b1", "c1"):
        assert f"kubectl cp model_repository/{v} triton-shop-loader:/models/{v}" in readme
    assert "5 CPU cores requested in all: the sum over the models" in readme
    assert f"{GPU_RESOURCE} limit 1: the most any model needs" in readme
    bad = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--name", "Not_A_Name"])
    assert bad.exit_code == 2 and "--name: 'Not_A_Name' is not a Kubernetes service name" in bad.output


def test_a_run_without_a_pick_deploys_nothing(tmp_path: Path) -> None:
    run_dir = _picked_run(tmp_path, None)
    r = CliRunner().invoke(cli, ["export-deployment", str(run_dir)])
    assert isinstance(r.exception, PerfError) and "picked no combination: no combination found" in str(r.exception)
    assert not (run_dir / "deployment-combination").exists()


def test_a_run_without_a_pick_is_told_a_larger_time_budget_only_where_the_budget_cut_it(tmp_path: Path) -> None:
    """Trial 19, T19-11: a search that ended its moves with 59 s of its 180 s unused, no combination within
    every model's budget, was told "a larger --latency-budget-ms or --time-budget"."""
    run_dir = _picked_run(tmp_path, None)
    r = CliRunner().invoke(cli, ["export-deployment", str(run_dir)])
    hint = r.exception.hint or ""  # type: ignore[union-attr]
    assert "a larger --latency-budget-ms" in hint and "a larger --time-budget would change nothing" in hint
    assert "--required-throughput" not in hint  # none was given
    rec = colocation.load(run_dir)
    rec.cuts = ["step 2 (move a): cut (≈40 s needed, 11 s left of 88 s)"]  # cut, but the search reached its final step
    rec.steps = [colocation.SearchStep(0, "final", None, {"a": "a1", "b": "b1"}, [], rounds=3)]
    rec.models[0] = dataclasses.replace(rec.models[0], required_throughput=300.0)
    colocation.save(rec, run_dir)
    r = CliRunner().invoke(cli, ["export-deployment", str(run_dir)])
    hint = r.exception.hint or ""  # type: ignore[union-attr]
    assert "with a larger --time-budget (the time budget cut the search)" in hint and "would change nothing" not in hint
    assert "a lower --required-throughput" in hint


def test_the_tradeoff_plot_draws_every_combination_and_marks_the_pick(tmp_path: Path) -> None:
    from perf.plots.colocation import plot_tradeoff

    rec = _searched(tmp_path)
    drawn = plot_tradeoff(rec, tmp_path / "t.png")
    (panel,) = drawn.values()
    (pick,) = [k for k in panel if k.startswith("the pick (")]  # "the pick (step N, R rounds)"
    assert len(panel[pick][0]) == 1
    points = sum(len(xs) for k, (xs, _) in panel.items() if k.startswith(("every model meets its", "a model misses its")))
    assert points == rec.combinations_measured


class _FakeServer:
    """What ServerSource and measure_together use of a TritonServer (another host's: not sampled)."""

    def __init__(self) -> None:
        self.grpc_url, self.http_url, self.container_name, self.pid = "203.0.113.9:8001", "203.0.113.9:8000", None, None
        self.runtime_impl = types.SimpleNamespace(host=lambda: "203.0.113.9", launches=True, wait_policy=lambda: "PASSIVE")
        self.runtime, self.runtime_reason, self.command_line = "fake", "a test's fake", "tritonserver --fake"
        self.loaded: list[str] = []
        self.events: list[str] = []

    def start(self) -> _FakeServer:
        self.events.append("start")
        return self

    def stop(self) -> None:
        self.events.append("stop")

    def load(self, name: str) -> Loaded:
        self.loaded.append(name)
        self.events.append(f"load {name}")
        return Loaded(served_model(name), 0.01)

    def unload(self, name: str) -> bool:
        self.loaded.remove(name)
        self.events.append(f"unload {name}")
        return True


def test_a_run_loads_what_each_step_needs_and_measures_the_pick_alone_and_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clients.runtimes.options import ServerOptions
    from perf.colocate.run import ServerSource

    pa, _log = _fake_pa(tmp_path)
    repo = _repo(tmp_path, {"big_x1": "KIND_CPU", "big_x2": "KIND_CPU", "small_x1": "KIND_CPU", "small_x2": "KIND_CPU"})
    monkeypatch.setattr(ServerSource, "_inputs", lambda self, v: ["--shape", f"x:{len(v)}"])
    monkeypatch.setenv("FAKE_PA_SLEEP_S", "0")
    opts = ColocateOptions(
        server=ServerOptions(repository=repo),
        models={"big": ("big_*",), "small": ("small_*",)},
        mix={"big": 3},
        window_ms=50,
        warmup_requests=0,
        perf_analyzer=pa,
        results_dir=tmp_path / "results",
        run_id="r",
        time_budget_s=None,
    )
    srv = _FakeServer()
    rec = Colocate(opts).run(start_server=lambda o, d: srv)
    assert srv.events[0] == "start" and srv.events[-1] == "stop"
    assert [s.kind for s in rec.steps][0] == "alone" and rec.steps[-1].kind == "final"
    assert rec.steps[0].loaded == ["big_x1", "big_x2", "small_x1", "small_x2"]  # every variant alone, loaded together
    assert rec.pick is not None and set(rec.pick) == {"big", "small"}
    assert set(rec.steps[-1].loaded) == set(rec.pick.values())  # the final step: only the pick loaded
    final = [v for v in rec.visits if v.step == rec.steps[-1].index]
    assert sorted(len(v.combination) for v in final[:3]) == [1, 1, 2] and len(final) == 3 * rec.steps[-1].rounds
    commands = (tmp_path / "results" / "r" / "commands.txt").read_text()
    assert "tritonserver --fake" in commands and "--concurrency-range 3:3" in commands and "--shape x:6" in commands
    assert colocation.load(tmp_path / "results" / "r").finished is not None
    assert neighbours.neighbour_cost(rec)  # alone vs co-located from the same final rounds


@pytest.mark.parametrize(
    ("flags", "budgets"),
    [
        (["--latency-budget-ms", "25"], {"a": 25.0, "b": 25.0}),
        (["--latency-budget-ms", "a=25,b=10"], {"a": 25.0, "b": 10.0}),
        (["--latency-budget-ms", "25,b=10"], {"a": 25.0, "b": 10.0}),
        (["--latency-budget-ms", "a=25", "--latency-budget-ms", "b=10.5"], {"a": 25.0, "b": 10.5}),
        (["--latency-budget-ms", "b=10"], {"a": None, "b": 10.0}),
        ([], {"a": None, "b": None}),
    ],
)
def test_latency_budgets_are_one_for_every_model_or_one_per_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], budgets: dict[str, float | None]
) -> None:
    repo = _repo(tmp_path, {"a1": "KIND_CPU", "b1": "KIND_CPU"})
    seen: dict[str, float | None] = {}
    import perf.colocate.run as run_module

    original = run_module.resolve_models

    def resolved(opts: ColocateOptions, repo_view: object) -> list:
        models = original(opts, repo_view)
        seen.update({m.name: m.latency_budget_ms for m in models})
        raise SystemExit(0)

    monkeypatch.setattr(run_module, "resolve_models", resolved)
    r = _invoke(["-r", str(repo), "--model", "a=a*", "--model", "b=b*", *flags])
    assert r.exit_code == 0, r.output
    assert seen == budgets


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a=fast", "'a=fast' is not NAME=MS or MS"),
        ("a=0", "'a=0': latency budget '0' is not above 0 ms"),
        ("-3", "'-3': latency budget '-3' is not above 0 ms"),
        ("a=0.02s", "latency budget '0.02s' is in s: it is given in milliseconds (write 20 or 20ms)"),
        ("a=5,a=6", "a is given twice"),
        ("5,6", "a value for every model is given twice"),
        ("=5", "'=5' is not NAME=MS or MS"),
    ],
)
def test_a_bad_latency_budget_is_one_clear_usage_error(tmp_path: Path, value: str, message: str) -> None:
    repo = _repo(tmp_path, {"a1": "KIND_CPU", "b1": "KIND_CPU"})
    r = _invoke(["-r", str(repo), "--model", "a=a*", "--model", "b=b*", "--latency-budget-ms", value])
    assert r.exit_code == 2 and message in r.output, r.output
    assert "Traceback" not in r.output


def test_a_latency_budget_for_a_model_not_in_the_run_is_refused(tmp_path: Path) -> None:
    from clients.runtimes.options import ServerOptions

    repo = _repo(tmp_path, {"a1": "KIND_CPU", "b1": "KIND_CPU"})
    opts = ColocateOptions(
        server=ServerOptions(repository=repo),
        models={"a": ("a*",), "b": ("b*",)},
        latency_budget_ms={"c": 5.0},
        results_dir=tmp_path / "results",
    )
    with pytest.raises(PerfError, match="--latency-budget-ms names c, not a --model of this run"):
        Colocate(opts)
    # a number through the Python API is every model's budget
    one = ColocateOptions(server=ServerOptions(repository=repo), models={"a": ("a*",), "b": ("b*",)}, latency_budget_ms=7)
    assert one.latency_budget_ms == {"*": 7.0}


def test_a_schema_1_record_gets_its_one_budget_on_every_model(tmp_path: Path) -> None:
    rec = _searched(tmp_path)
    data = colocation.COLOCATION_KIND.dump(rec)
    data["schema"] = 1
    data["latency_budget_ms"] = 12.5
    for m in data["models"]:
        del m["latency_budget_ms"]
    (tmp_path / colocation.COLOCATION_FILE).write_text(json.dumps(data))
    back = colocation.load(tmp_path)
    assert back.budgets == dict.fromkeys(cs.MODELS, 12.5)


def test_the_report_and_the_bundle_give_each_models_own_budget(tmp_path: Path) -> None:
    from perf.deploy.combination import readme_lines

    src = cs.SynthSource(9)
    rec = cs.with_budgets(cs.record(9), {"small": 3.0})
    CoordinateSearch(rec, src, clock=src.clock).run()
    text = "\n".join(report_lines(rec))
    assert "Latency budget: each model's own p99 budget (big 20 ms, mid 20 ms, small 3 ms)" in text
    assert re.search(r"\| model +\| variants \(instances\) +\| +concurrency \| +weight \| +p99 budget ms \|", text)
    row = r"\| small +\| small_x1 \(1\), small_x2 \(2\), small_x3 \(3\), small_x4 \(4\) +\| +4 \| +4 \| +3 \| +— \| small_x2 +\|"
    assert re.search(row + r" best alone: .* \(within 3 ms\)", text)
    assert any(
        line.startswith("p99 budget: each model's own p99 budget (big 20 ms, mid 20 ms, small 3 ms); required throughput: none")
        for line in readme_lines(rec, ())
    )
    uniform = cs.record(0)
    assert judge.budget_words(uniform) == "20 ms (each model's p99)"
