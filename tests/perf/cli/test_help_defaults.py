"""Every default a ``triton-perf`` command's ``-h`` states is what the command does without the flag
(issue 26: ``export-deployment -h`` said "else best peak" and refused; help texts checked against
behaviour by running the command). As tests/project/test_help_defaults.py does for ``builders`` and
``clients`` (tests/support/cli_defaults.py reads the help): a default click renders from the
declared value is read from what the command passes on when run without the flag (its work
replaced by a recorder); a default stated in words has a check that runs what the words promise.
A stated default without a check fails: adding a flag is adding its check."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_defaults import run_recorded, stated_defaults
from factories import level_result, run_result, served_model, variant_result
from synthetic_runs import DEMO_RUN

from perf.cli.main import cli as perf_cli
from perf.sweep.refused_run import refused_flags_text

GROUP = "triton-perf"


class _Stop(Exception):
    """Raised by a recorder in place of the work below the CLI."""


def _sweep_opts(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The :class:`perf.sweep.options.SweepOptions` ``triton-perf sweep`` builds without flags."""
    import perf.sweep.run

    return run_recorded(monkeypatch, perf.sweep.run, "Sweep", GROUP, ["sweep"])["args"][0]


def _coldstart(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``triton-perf coldstart`` without flags: the server options and the measure call's arguments."""
    import builders.repository.view
    import clients.server
    import perf.coldstart.measure

    seen: dict[str, Any] = {}

    class Server:
        def __init__(self, opts: Any) -> None:
            seen["server"] = opts

        def refuse_unservable(self, models: Any, nothing: str) -> dict[str, str]:
            return {}

        def __enter__(self) -> Server:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(clients.server, "TritonServer", Server)
    monkeypatch.setattr(builders.repository.view.Repository, "names", lambda self, *a, **k: ["m"])
    monkeypatch.setattr(builders.repository.view.Repository, "variant", lambda self, name: name)
    monkeypatch.setattr("perf.measure.inputs.check_variant_shapes", lambda *a, **k: None)  # no config.pbtxt here
    seen.update(run_recorded(monkeypatch, perf.coldstart.measure, "measure", GROUP, ["coldstart"]))
    return seen


def _report_call(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    import perf.report.write

    return run_recorded(monkeypatch, perf.report.write, "write_report", GROUP, ["report", str(DEMO_RUN)])


def _deploy_call(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    import perf.deploy.bundle

    return run_recorded(monkeypatch, perf.deploy.bundle, "export_deployment", GROUP, ["export-deployment", str(DEMO_RUN)])


def _baseline_opts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    import perf.profile.baseline

    return run_recorded(monkeypatch, perf.profile.baseline, "run_baseline", GROUP, ["baseline", str(tmp_path)])["args"][0]


def _colocate_opts(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The :class:`perf.colocate.options.ColocateOptions` ``triton-perf colocate`` builds without flags."""
    import perf.colocate.run

    return run_recorded(monkeypatch, perf.colocate.run, "Colocate", GROUP, ["colocate"])["args"][0]


def _field(path: str) -> Callable[[Any], Any]:
    """``"server.http_port"`` -> a reader of that attribute path."""

    def read(obj: Any) -> Any:
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    return read


#: ``(command, parameter) -> (how the command is run without the flag, what of it holds the value,
#: the value the stated default means)``: defaults click renders from the declared value.
DECLARED: dict[tuple[str, str], tuple[Callable[..., Any], Callable[[Any], Any], Any]] = {
    ("sweep", "server_repository"): (_sweep_opts, _field("server.repository"), Path("model_repository")),
    ("sweep", "concurrency"): (_sweep_opts, _field("concurrency"), "auto"),
    ("sweep", "batch_sizes"): (_sweep_opts, _field("batch_sizes"), (1,)),
    ("sweep", "design"): (_sweep_opts, _field("design"), "rounds"),
    ("sweep", "measure_protocol"): (_sweep_opts, _field("measure.protocol"), "grpc"),
    ("sweep", "measure_measurement_mode"): (_sweep_opts, _field("measure.measurement_mode"), "time_windows"),
    ("sweep", "measure_measurement_interval_ms"): (_sweep_opts, _field("measure.measurement_interval_ms"), 2000),
    ("sweep", "measure_measurement_request_count"): (_sweep_opts, _field("measure.measurement_request_count"), 50),
    ("sweep", "measure_stability_pct"): (_sweep_opts, _field("measure.stability_pct"), 10.0),
    ("sweep", "measure_max_trials"): (_sweep_opts, _field("measure.max_trials"), 10),
    ("sweep", "measure_unstable_retries"): (_sweep_opts, _field("measure.unstable_retries"), 1),
    ("sweep", "trials"): (_sweep_opts, _field("trials"), 1),
    ("sweep", "host_busy_threshold_pct"): (_sweep_opts, _field("host_busy_threshold_pct"), 10.0),
    ("sweep", "results_dir"): (_sweep_opts, _field("results_dir"), Path("results")),
    ("sweep", "server_runtime"): (_sweep_opts, _field("server.runtime"), "auto"),
    ("sweep", "server_http_port"): (_sweep_opts, _field("server.http_port"), 0),
    ("sweep", "server_grpc_port"): (_sweep_opts, _field("server.grpc_port"), 0),
    ("sweep", "server_metrics_port"): (_sweep_opts, _field("server.metrics_port"), 0),
    ("sweep", "server_address"): (_sweep_opts, _field("server.address"), "127.0.0.1"),
    ("sweep", "server_log_verbose"): (_sweep_opts, _field("server.log_verbose"), 0),
    ("sweep", "server_metrics_interval_ms"): (_sweep_opts, _field("server.metrics_interval_ms"), 500),
    ("sweep", "server_start_timeout_s"): (_sweep_opts, _field("server.start_timeout_s"), 120.0),
    ("sweep", "server_gpus"): (_sweep_opts, _field("server.gpus"), "all"),
    ("report", "top"): (_report_call, lambda c: c["kwargs"]["top_n"], 10),
    ("coldstart", "batch_sizes"): (_coldstart, lambda c: c["args"][2], (1,)),
    ("coldstart", "protocol"): (_coldstart, lambda c: c["args"][3], "http"),
    ("coldstart", "repository"): (_coldstart, lambda c: c["server"].repository, Path("model_repository")),
    ("coldstart", "runtime"): (_coldstart, lambda c: c["server"].runtime, "auto"),
    ("coldstart", "http_port"): (_coldstart, lambda c: c["server"].http_port, 0),
    ("coldstart", "grpc_port"): (_coldstart, lambda c: c["server"].grpc_port, 0),
    ("coldstart", "metrics_port"): (_coldstart, lambda c: c["server"].metrics_port, 0),
    ("coldstart", "address"): (_coldstart, lambda c: c["server"].address, "127.0.0.1"),
    ("coldstart", "log_verbose"): (_coldstart, lambda c: c["server"].log_verbose, 0),
    ("coldstart", "metrics_interval_ms"): (_coldstart, lambda c: c["server"].metrics_interval_ms, 500),
    ("coldstart", "start_timeout_s"): (_coldstart, lambda c: c["server"].start_timeout_s, 120.0),
    ("coldstart", "gpus"): (_coldstart, lambda c: c["server"].gpus, "all"),
    ("colocate", "server_repository"): (_colocate_opts, _field("server.repository"), Path("model_repository")),
    ("colocate", "min_rounds"): (_colocate_opts, _field("min_rounds"), 3),
    ("colocate", "objective"): (_colocate_opts, _field("objective"), "throughput"),
    ("colocate", "max_rounds"): (_colocate_opts, _field("max_rounds"), 10),
    ("colocate", "window_ms"): (_colocate_opts, _field("window_ms"), 300),
    ("colocate", "protocol"): (_colocate_opts, _field("protocol"), "grpc"),
    ("colocate", "results_dir"): (_colocate_opts, _field("results_dir"), Path("results")),
    ("colocate", "server_runtime"): (_colocate_opts, _field("server.runtime"), "auto"),
    ("colocate", "server_http_port"): (_colocate_opts, _field("server.http_port"), 0),
    ("colocate", "server_grpc_port"): (_colocate_opts, _field("server.grpc_port"), 0),
    ("colocate", "server_metrics_port"): (_colocate_opts, _field("server.metrics_port"), 0),
    ("colocate", "server_address"): (_colocate_opts, _field("server.address"), "127.0.0.1"),
    ("colocate", "server_log_verbose"): (_colocate_opts, _field("server.log_verbose"), 0),
    ("colocate", "server_metrics_interval_ms"): (_colocate_opts, _field("server.metrics_interval_ms"), 500),
    ("colocate", "server_start_timeout_s"): (_colocate_opts, _field("server.start_timeout_s"), 120.0),
    ("colocate", "server_gpus"): (_colocate_opts, _field("server.gpus"), "all"),
}
#: Declared defaults whose run needs its own set-up (the baseline's target folder).
BASELINE_DECLARED = {("baseline", "min_run_time"): 0.2, ("baseline", "warmup"): 0.05}


@pytest.mark.parametrize("key", list(DECLARED), ids=" ".join)
def test_a_declared_default_is_what_the_command_does(key: tuple[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    text, declared = stated_defaults({GROUP: perf_cli})[(GROUP, *key)]
    assert text == declared, f"-h of {key[0]} now says {text!r} for {key[1]}"
    run, read, value = DECLARED[key]
    monkeypatch.chdir(tmp_path)
    assert read(run(monkeypatch)) == value


def test_the_baseline_timing_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    stated = stated_defaults({GROUP: perf_cli})
    opts = _baseline_opts(monkeypatch, tmp_path)
    assert stated[(GROUP, "baseline", "min_run_time")][0].startswith("0.2;") and opts.timing.min_run_time_s == 0.2
    assert stated[(GROUP, "baseline", "warmup")][0].startswith("0.05;") and opts.timing.warmup_s == 0.05


# ---------------------------------------------------------------- defaults stated in words


def sweep_variants(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_build: Callable[..., Path]) -> None:
    """[default: every model in the repository] (sweep and coldstart)"""
    from builders.config.variants import Variant
    from builders.model.builtin import get_builtin
    from builders.repository.view import Repository

    assert _sweep_opts(monkeypatch).variants == ()
    repo = fake_build(get_builtin("tiny").spec, Variant("tiny", "onnx", max_batch_size=4))
    (repo / "hand_made").mkdir()
    (repo / "hand_made" / "config.pbtxt").write_text('name: "hand_made"\n')
    assert set(Repository(repo).names((), indexed=False)) == {"tiny_onnx_cpu1_nodb_mbs4", "hand_made"}


def search(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: prune above 4 variants]"""
    from perf.records.search import SearchRules
    from perf.search.policy import resolve_mode

    assert _sweep_opts(monkeypatch).search is None
    assert resolve_mode(None, 4, SearchRules()) == "brute" and resolve_mode(None, 5, SearchRules()) == "prune"


def baseline_time_budget(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: none]"""
    assert _baseline_opts(monkeypatch, tmp_path).deadline is None


def request_rates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: none]"""
    assert _sweep_opts(monkeypatch).request_rates == ()


def sweep_axes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: each axis at the build's opt size, said in the report]"""
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec
    from perf.measure.inputs import describe_dynamic, resolve_shapes

    assert _sweep_opts(monkeypatch).sweep_axes == {}
    spec = ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 9)),), (), {"seq": (1, 24, 64)})
    config = {"name": "m", "max_batch_size": 8, "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]}]}
    assert resolve_shapes(config, spec) == {"ids": [24]}
    assert describe_dynamic(config, spec) == "seq=24 (the build's opt size of axis seq)"  # what the report says


def perf_analyzer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: $PERF_ANALYZER, the venv, PATH]"""
    import sys

    from perf.measure.analyzer import find_perf_analyzer

    assert _sweep_opts(monkeypatch).perf_analyzer is None
    for where in ("env", "venv/bin", "path"):
        (tmp_path / where).mkdir(parents=True)
        (tmp_path / where / "perf_analyzer").write_text("#!/bin/sh\n")
        (tmp_path / where / "perf_analyzer").chmod(0o755)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    monkeypatch.setenv("PERF_ANALYZER", str(tmp_path / "env" / "perf_analyzer"))
    assert find_perf_analyzer() == tmp_path / "env" / "perf_analyzer"
    monkeypatch.delenv("PERF_ANALYZER")
    assert find_perf_analyzer() == tmp_path / "venv" / "bin" / "perf_analyzer"
    (tmp_path / "venv" / "bin" / "perf_analyzer").unlink()
    assert find_perf_analyzer() == tmp_path / "path" / "perf_analyzer"


def input_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: generated from the model's signature]"""
    from perf.measure.inputs import input_args

    assert _sweep_opts(monkeypatch).input_data is None
    config = {"name": "m", "max_batch_size": 8, "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [4]}]}
    args = input_args(config, None, tmp_path)
    assert args == ["--input-data", str(tmp_path / "input_data_m.json")]  # written from the signature


def seed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: from the run id; recorded]"""
    from perf.sweep.context import _seed

    assert _sweep_opts(monkeypatch).seed is None
    assert _seed("r1") == _seed("r1") != _seed("r2")


def round_window(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: 300]: the round rules' window when none is given."""
    opts = _sweep_opts(monkeypatch)
    assert opts.round_window_ms is None and opts.round_rules.window_ms == 300


def run_id(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: a timestamp]"""
    import re

    from perf.records.results import new_run_id

    assert _sweep_opts(monkeypatch).run_id is None
    assert re.fullmatch(r"\d{8}-\d{6}", new_run_id())


def time_budget(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: (6m)]"""
    assert _sweep_opts(monkeypatch).time_budget_s == 360.0


def sweep_budget(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--latency-budget-ms [default: none]"""
    assert _sweep_opts(monkeypatch).latency_budget_ms is None


def sweep_percentile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--latency-percentile [default: the run's, else 99]: 99 for a new run, the run's on resume."""
    from clients.runtimes.options import ServerOptions
    from perf.sweep.options import SweepOptions
    from perf.sweep.resuming import resumed_options

    assert _sweep_opts(monkeypatch).latency_percentile == 99
    saved = {"repository": str(tmp_path), "variants": ["a"], "concurrency": [1], "batch_sizes": [1], "trials": 1}
    fresh = SweepOptions(ServerOptions(tmp_path), resume=True, run_id="r", given=frozenset())
    assert resumed_options(fresh, {**saved, "latency_percentile": 95}).latency_percentile == 95


def deploy_unfinished(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--allow-unfinished [default: refused; resume the run, or name --variant]"""
    from core.errors import PerfError
    from perf.deploy.choose import choose_variant

    call = _deploy_call(monkeypatch)
    assert call["kwargs"]["allow_unfinished"] is False
    run = run_result([variant_result("a", [level_result(1, 100.0, 2.0)], status="pending")], run_id="k")
    with pytest.raises(PerfError, match="did not finish") as refused:
        choose_variant(run)
    assert "--resume k" in (refused.value.hint or "")
    assert choose_variant(run, "a").variant == "a"


def deploy_cut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--allow-cut [default: refused, naming them and the --time-budget or --resume that measures them; or name
    --variant]"""
    from core.errors import PerfError
    from perf.deploy.choose import choose_variant
    from perf.records.rounds import Cut, RoundsRecord

    assert _deploy_call(monkeypatch)["kwargs"]["allow_cut"] is False
    run = run_result(
        [variant_result("a", [level_result(1, 100.0, 2.0)]), variant_result("b", status="skipped")], run_id="k", finished="x"
    )
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: cut for time", "b", need_s=100.0)])
    with pytest.raises(PerfError, match="not measured \\(cut for time\\): `b`; `--time-budget 2m` measures it") as refused:
        choose_variant(run)
    assert "--variant NAME" in (refused.value.hint or "")
    assert choose_variant(run, "a").variant == "a" == choose_variant(run, allow_cut=True).variant


def deploy_refused_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--allow-refused-flags [default: refused, naming the flag and why; the bundle's README says it first]"""
    from core.errors import PerfError
    from perf.deploy.choose import choose_variant
    from perf.deploy.readme import first_lines

    assert _deploy_call(monkeypatch)["kwargs"]["allow_refused_flags"] is False
    run = run_result([variant_result("a", [level_result(1, 100.0, 2.0)])], run_id="k", settings={"extra_args": ["-p500"]})
    with pytest.raises(PerfError, match="--perf-analyzer-arg=-p500 is refused: perf_analyzer's -p") as refused:
        choose_variant(run, "a")
    assert "--allow-refused-flags" in (refused.value.hint or "")
    said = first_lines(choose_variant(run, "a", allow_refused_flags=True))
    assert said[1].startswith("**Deployed from numbers that may be mislabelled**")


def deploy_changed_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--allow-changed-model [default: refused, naming the files; the bundle's README says when they were not measured]"""
    from clients.runtimes.identity import found_artifact
    from core.errors import PerfError
    from perf.records.measured_files import SHIPPED, refuse_changed

    assert _deploy_call(monkeypatch)["kwargs"]["allow_changed_model"] is False
    (tmp_path / "a" / "1").mkdir(parents=True)
    (tmp_path / "a" / "1" / "model.onnx").write_bytes(b"measured")
    v = variant_result("a", [level_result(1, 100.0, 2.0)])
    v.served = [served_model("a", artifact=found_artifact(tmp_path / "a"))]
    run = run_result([v], run_id="k")
    (tmp_path / "a" / "1" / "model.onnx").unlink()
    (tmp_path / "a" / "1" / "model.onnx").write_bytes(b"rebuilt, other weights")
    with pytest.raises(PerfError, match=r"1/model\.onnx: measured 8 bytes") as refused:
        refuse_changed(run, ["a"], tmp_path, "bundle", SHIPPED, "--allow-changed-model")
    assert "--allow-changed-model" in (refused.value.hint or "")


def failed_exit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--allow-failed-variants [default: exit 3]"""
    from core.cli import EXIT_VARIANT_FAILED

    assert EXIT_VARIANT_FAILED == 3  # tests/perf/sweep/test_sweep_cli_unit.py runs a sweep that exits with it


def max_loaded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: as many as the host's memory holds]"""
    from perf.sweep.rounds import MEMORY_RESERVE_FRACTION

    assert _sweep_opts(monkeypatch).max_loaded is None and 0 < MEMORY_RESERVE_FRACTION < 1


def server_words(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--tag (24.10), --image (from --tag), --shm-size, --binary, --metrics-url, --max-upload-bytes,
    --log-file: the same ServerOptions fields as ``clients``' (their behaviour checked in
    tests/project/test_help_prose_defaults.py); here: the perf commands pass them on unset."""
    for server in (_sweep_opts(monkeypatch).server, _coldstart(monkeypatch)["server"]):
        assert server.tag is None and server.image == "nvcr.io/nvidia/tritonserver:24.10-py3"
        assert server.shm_size is None and server.binary is None and server.metrics_urls == ()
        assert server.max_upload_bytes is None and server.log_file is None


def report_budget(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """report --latency-budget-ms [default: the run's own, if it had one] and --latency-percentile
    [default: the run's, else 99]: the run's own report, not a what-if view."""
    from perf.records.results import load
    from perf.report.layout import what_if
    from perf.report.write import write_report

    call = _report_call(monkeypatch)
    assert call["args"][1] is None and call["kwargs"]["latency_percentile"] is None
    monkeypatch.undo()
    shutil.copy(DEMO_RUN / "results.json", tmp_path / "results.json")
    assert what_if(load(tmp_path), None, None) == []
    text = write_report(tmp_path, html=False).read_text()
    assert "**Best under the p99 budget of 25.00 ms:**" in text  # the run's 25 ms, on p99


def compare_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: RUN_B/compare_<RUN_A id>.md]"""
    import json

    from perf.analysis.comparison.runs import compare_runs

    data = json.loads((DEMO_RUN / "results.json").read_text())
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps({**data, "run_id": f"run-{name}"}))
    assert compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text) == tmp_path / "b" / "compare_run-a.md"


def deploy_workload(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--workload [default: the report's first pick's: of every workload's pick the one with the most infer/s,
    for an input-size axis usually the smallest input's]: not passed on, and the first pick stands at
    the workload of the most infer/s."""
    from perf.deploy.choose import choose_variant

    call = _deploy_call(monkeypatch)
    assert call["kwargs"]["workload"] is None
    levels = [level_result(1, 1000.0 / t, 2.0, shape=f"seq={t}") for t in (1, 8)]
    run = run_result([variant_result("v", levels)], finished="2026-01-01T00:01:00")
    assert choose_variant(run).level.variant == "v [seq=1]"


def deploy_variant(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--variant [default: the run's recommendation: the best level within the budget, else, for a run
    without a budget, the best peak; when no level meets the budget nothing is deployed unasked and the
    message names the --variant of the lowest latency at the budget's percentile and of the best peak]
    and --latency-budget-ms [default: the run's own], the budget a named --variant's level is chosen
    within too (its help said "when --variant is not given"), on the run's percentile (the help said
    "lowest p99" of a p95 budget's refusal)."""
    from core.errors import PerfError
    from perf.deploy.choose import choose_variant

    call = _deploy_call(monkeypatch)
    assert call["args"][1] is None and call["kwargs"]["latency_budget_ms"] is None
    run = run_result(
        [
            variant_result("low", [level_result(1, 100.0, 2.0, spread=True), level_result(2, 150.0, 4.0, spread=True)]),
            variant_result("peak", [level_result(1, 400.0, 5.0, spread=True), level_result(2, 700.0, 9.0, spread=True)]),
        ],
        settings={"latency_budget_ms": 4.5},
        finished="2026-01-01T00:01:00",
    )
    assert choose_variant(run).variant == "low" and "within the p99 budget of 4.50 ms" in choose_variant(run).why
    assert choose_variant(run, latency_budget_ms=6.0).variant == "peak"  # 400 infer/s at 5 ms
    named = choose_variant(run, "peak")  # the run's 4.5 ms: none of its levels within it, its best peak
    assert named.level.concurrency == 2 and "none of its levels is within the p99 budget of 4.50 ms" in named.why
    named = choose_variant(run, "peak", latency_budget_ms=6.0)  # a named variant's level is chosen within the budget given
    assert named.level.concurrency == 1 and "its best level within the p99 budget of 6.00 ms" in named.why
    with pytest.raises(PerfError) as refused:
        choose_variant(run, latency_budget_ms=1.0)
    hint = refused.value.hint or ""
    assert (
        "--variant low (the lowest p99, 2.00 ms at c=1)" in hint
        and "--variant peak (the best measured (peak not told), 700.0" in hint
    )  # one trial a level: +75 % at c=2 is not told from noise (spread unknown), nor is a peak
    assert "--latency-budget-ms 2" in hint
    run.settings["latency_percentile"] = 95  # the budget's percentile is the run's: its refusal names the lowest p95
    with pytest.raises(PerfError) as refused:
        choose_variant(run, latency_budget_ms=1.0)
    assert "--variant low (the lowest p95, 1.80 ms at c=1)" in (refused.value.hint or "")
    run.settings.pop("latency_percentile")
    run.settings.pop("latency_budget_ms")
    why = choose_variant(run).why  # its c=2 +75 % of one trial: the highest measured, said so (perf.analysis.saturation.peaks)
    assert choose_variant(run).variant == "peak" and "best measured throughput (whether it is the peak is not told: " in why
    assert "spread unknown (1 trial)" in why


def deploy_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--out [default: RUN/deployment-VARIANT], --repository [default: the one the run swept],
    --name [default: triton-VARIANT], --image [default: the image the run's container runtime
    used, else NVIDIA's image of the toolkit's default release]."""
    import perf.deploy.bundle as bundle
    from clients.runtimes.options import DEFAULT_TAG, image_for_tag
    from perf.deploy.k8s import k8s_name
    from perf.records.results import load

    call = _deploy_call(monkeypatch)
    assert [call["args"][2], *(call["kwargs"][k] for k in ("repository", "name", "image"))] == [None] * 4
    monkeypatch.undo()
    shutil.copy(DEMO_RUN / "results.json", tmp_path / "results.json")
    seen: dict[str, Any] = {}

    def source(repository: Path, name: str, measured: Any = None) -> None:
        seen["repository"], seen["variant"] = repository, name

    def out(folder: Path) -> None:
        seen["out"] = folder
        raise _Stop

    monkeypatch.setattr(bundle, "source_variant", source)
    monkeypatch.setattr(bundle, "refuse_missing", lambda run, names, repository, doing: seen.update(checked=repository))
    monkeypatch.setattr(bundle, "_check_out", out)
    with pytest.raises(_Stop):
        bundle.export_deployment(tmp_path)
    run = load(tmp_path)
    assert (
        seen["repository"] == seen["checked"] == Path(run.settings["repository"])
        and seen["out"] == tmp_path / f"deployment-{seen['variant']}"
    )
    assert k8s_name("mlp_onnx_cpu1_db500_mbs64") == "triton-mlp-onnx-cpu1-db500-mbs64"
    assert bundle._image(run, None) == image_for_tag(DEFAULT_TAG)  # a bundled run: NVIDIA's default image
    run.settings["server"] = {**run.settings["server"], "runtime": "container", "image": "my/triton:1"}
    assert bundle._image(run, None) == "my/triton:1"


def baseline_repository(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """baseline -r/--repository [default: the one the run swept]."""
    import perf.profile.baseline as api
    from perf.records.results import RunResult, VariantResult, save

    seen: list[Path] = []

    def measure(opts: Any, progress: Any = None) -> None:
        seen.append(opts.repository)
        raise _Stop

    for repo in (tmp_path / "swept", tmp_path / "other"):
        (repo / "v").mkdir(parents=True)
        (repo / "v" / "config.pbtxt").write_text('name: "v"\n')
    save(
        RunResult("r", "now", settings={"repository": str(tmp_path / "swept")}, variants=[VariantResult("v", status="ok")]),
        tmp_path,
    )
    monkeypatch.setattr(api, "run_baseline", measure)
    for given in (None, tmp_path / "other"):
        with pytest.raises(_Stop):
            api.baseline_for_run(tmp_path, repository=given)
    assert seen == [tmp_path / "swept", tmp_path / "other"]


def baseline_words(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--variants [default: the run's, else every one] and --out [default: results/baseline-<timestamp>]."""
    import perf.profile.baseline as api

    opts = _baseline_opts(monkeypatch, tmp_path)
    assert opts.variants == ()  # a run folder: its variants (baseline_for_run); a repository: every one
    monkeypatch.setattr(api, "run_baseline", lambda *a, **k: None)

    def written(result: Any, out: Path) -> Path:
        raise _Stop(out)

    monkeypatch.setattr(api, "write_baseline", written)
    from click.testing import CliRunner

    res = CliRunner().invoke(perf_cli, ["baseline", str(tmp_path)])
    assert isinstance(res.exception, _Stop) and str(res.exception.args[0]).startswith("results/baseline-")


def coldstart_shapes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--shape [default: the build's opt sizes]: no sizes given, the one rule sizes them by the spec's opt."""
    assert _coldstart(monkeypatch)["args"][4] == {}
    sweep_axes(monkeypatch, tmp_path)  # the same rule (clients.shapes) as the sweep's


def colocate_words(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """colocate --mix, --weight [default: 1 each], --start [default: its best variant alone, measured
    first in the same run], --latency-budget-ms and --required-throughput [default: none], --time-budget [default: (10m)],
    --run-id [default: colocate- and a timestamp], --perf-analyzer, --seed [default: from the run id;
    recorded], and the server flags the perf commands pass on unset."""
    import re

    import colocation_source as cs

    from clients.runtimes.options import ServerOptions
    from perf.colocate.run import Colocate
    from perf.colocate.search import CoordinateSearch

    opts = _colocate_opts(monkeypatch)
    assert opts.mix == {} and opts.weights == {} and opts.starts == {} and opts.latency_budget_ms == {}
    assert opts.required_throughput == {}
    assert opts.time_budget_s == 600.0 and opts.run_id is None and opts.perf_analyzer is None and opts.seed is None
    server = opts.server
    assert server.tag is None and server.image == "nvcr.io/nvidia/tritonserver:24.10-py3"
    assert server.shm_size is None and server.binary is None and server.metrics_urls == ()
    assert server.max_upload_bytes is None
    monkeypatch.undo()
    for name in ("a1", "b1"):
        (tmp_path / "repo" / name).mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(f'name: "{name}"\n')
    fake = tmp_path / "perf_analyzer"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PERF_ANALYZER", str(fake))  # the same finder as the sweep's (perf_analyzer above)
    base = type(opts)(server=ServerOptions(tmp_path / "repo"), models={"a": ("a1",), "b": ("b1",)}, results_dir=tmp_path)
    run = Colocate(base)
    got = [(m.concurrency, m.weight, m.latency_budget_ms, m.required_throughput) for m in run.record.models]
    assert got == [(1, 1.0, None, None), (1, 1.0, None, None)]
    run.close()  # its folder, free for the next (perf.records.run_lock)
    assert re.fullmatch(r"colocate-\d{8}-\d{6}", run.run_id)
    # the seed comes from the run id: the same id gives the same seed (two runs a second apart have two ids: the
    # default run ids are compared only where they are equal; a full suite under load crossed a second between them)
    again = Colocate(base)
    again.close()
    if again.run_id == run.run_id:
        assert again.record.seed == run.record.seed
    named = [dataclasses.replace(base, run_id="colocate-20260101-000000", results_dir=tmp_path / d) for d in ("x", "y")]
    seeds = []
    for o in named:
        c = Colocate(o)
        seeds.append(c.record.seed)
        c.close()
    assert seeds[0] == seeds[1]
    src = cs.SynthSource(0)
    rec = cs.record(0)
    CoordinateSearch(rec, src, clock=src.clock).run()
    assert rec.steps[0].kind == "alone" and all(m.start_reason.startswith("best alone") for m in rec.models)


#: ``(command, parameter) -> check`` of every default stated in words.
PROSE: dict[tuple[str, str], Callable[..., None]] = {
    ("sweep", "variants"): sweep_variants,
    ("coldstart", "variants"): sweep_variants,
    ("sweep", "search"): search,
    ("sweep", "request_rates"): request_rates,
    ("sweep", "sweep_axes"): sweep_axes,
    ("sweep", "perf_analyzer"): perf_analyzer,
    ("sweep", "input_data"): input_data,
    ("sweep", "seed"): seed,
    ("sweep", "round_window_ms"): round_window,
    ("sweep", "run_id"): run_id,
    ("sweep", "time_budget_s"): time_budget,
    ("sweep", "latency_budget_ms"): sweep_budget,
    ("sweep", "latency_percentile"): sweep_percentile,
    ("sweep", "allow_failed_variants"): failed_exit,
    ("sweep", "max_loaded"): max_loaded,
    **{
        ("sweep", f"server_{k}"): server_words for k in ("tag", "image", "shm_size", "binary", "metrics_urls", "max_upload_bytes")
    },
    **{
        ("coldstart", k): server_words
        for k in ("tag", "image", "shm_size", "binary", "metrics_urls", "max_upload_bytes", "log_file")
    },
    ("report", "latency_budget_ms"): report_budget,
    ("report", "latency_percentile"): report_budget,
    ("compare", "out"): compare_out,
    ("export-deployment", "variant"): deploy_variant,
    ("export-deployment", "workload"): deploy_workload,
    ("export-deployment", "allow_unfinished"): deploy_unfinished,
    ("export-deployment", "allow_cut"): deploy_cut,
    ("export-deployment", "allow_changed_model"): deploy_changed_model,
    ("export-deployment", "allow_refused_flags"): deploy_refused_flags,
    ("export-deployment", "latency_budget_ms"): deploy_variant,
    **{("export-deployment", k): deploy_paths for k in ("out", "repository", "name", "image")},
    ("baseline", "variants"): baseline_words,
    ("baseline", "time_budget"): baseline_time_budget,
    ("baseline", "out"): baseline_words,
    ("baseline", "repository"): baseline_repository,
    ("coldstart", "shapes"): coldstart_shapes,
    **{
        ("colocate", k): colocate_words
        for k in (
            "mix",
            "weights",
            "starts",
            "latency_budget_ms",
            "required_throughput",
            "time_budget_s",
            "run_id",
            "perf_analyzer",
            "seed",
            *(f"server_{x}" for x in ("tag", "image", "shm_size", "binary", "metrics_urls", "max_upload_bytes")),
        )
    },
}


def test_every_stated_default_has_a_check():
    stated = stated_defaults({GROUP: perf_cli})
    assert len(stated) > 60, "the help texts were not read"
    unchecked = [
        f"{' '.join(key)}: -h says the default is {text!r}"
        for (_, *key), (text, declared) in stated.items()
        if tuple(key) not in DECLARED and tuple(key) not in PROSE and tuple(key) not in BASELINE_DECLARED
    ]
    assert not unchecked, "stated defaults nothing checks:\n" + "\n".join(unchecked)


@pytest.mark.parametrize("check", sorted(set(PROSE.values()), key=lambda f: f.__name__), ids=lambda f: f.__name__)
def test_a_default_stated_in_words_is_what_the_command_does(
    check: Callable[..., None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(tmp_path)
    extra = {"fake_build": request.getfixturevalue("fake_build")} if "fake_build" in check.__code__.co_varnames else {}
    check(monkeypatch, tmp_path, **extra)
