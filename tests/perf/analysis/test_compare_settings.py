"""perf.analysis.comparison.settings: every recorded setting that can change a level's numbers is shown where two
compared runs differ in it, marked "(differs)" (trial 29, T29-6: a run measured with a passed-through perf_analyzer flag
was compared with one without it, and compare.md said nothing of the flag)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from clients.runtimes.options import ServerOptions
from perf.analysis.comparison.runs import compare_runs
from perf.analysis.comparison.settings import COMPARED, IN_ENV_ROWS, NOT_COMPARED, differing
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, save
from perf.records.settings import Environment, MeasureSettings, ServerRecord, SweepSettings
from perf.sweep.options import SweepOptions
from perf.sweep.refused_run import refused_flags_text
from perf.sweep.resuming import run_settings


def _run(run_id: str, settings: dict[str, Any]) -> RunResult:
    env: dict[str, Any] = {
        "host": "h",
        "cpu": "Test CPU",
        "cpu_count": 4,
        "gpus": [],
        "server": {"runtime": "bundled", "version": "2.51.0"},
        "perf_analyzer": {"version": "2.51.0"},
    }
    levels = [LevelResult(1, 1, 0, throughput_infer_per_s=100.0, latency_p99_ms=2.0)]
    return RunResult(
        run_id, "now", cast(Environment, env), cast(SweepSettings, settings), [VariantResult("v", None, "ok", None, levels)]
    )


def _header(tmp_path: Path, a: dict[str, Any], b: dict[str, Any]) -> tuple[str, dict[str, list[str]]]:
    """The comparison of two runs that differ only in ``a`` and ``b`` (the saved settings of a default sweep updated),
    and its header table's rows: label -> the two cells."""
    base = run_settings(SweepOptions(server=ServerOptions(repository=tmp_path)), ["v"], "brute")
    save(_run("before", {**base, **a}), tmp_path / "a")
    save(_run("after", {**base, **b}), tmp_path / "b")
    text = compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()
    return text, _rows(text)


def _rows(text: str) -> dict[str, list[str]]:
    """The comparison's header table: label -> the two runs' cells."""
    head = text.split("\n## ")[0]
    rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in head.splitlines() if r.startswith("|")]
    return {r[0]: r[1:] for r in rows}


def test_a_passed_through_perf_analyzer_flag_is_shown_as_differing(tmp_path: Path):
    text, rows = _header(tmp_path, {}, {"extra_args": ["--warmup-request-count=3000"]})
    assert rows["perf_analyzer flags (--perf-analyzer-arg) (differs)"] == ["none", "--warmup-request-count=3000"]
    assert text.count("--warmup-request-count=3000") == 1


def test_other_input_data_is_shown_as_differing(tmp_path: Path):
    _, rows = _header(tmp_path, {"input_data": "/data/a.json"}, {"input_data": None})
    assert rows["input data (--input-data) (differs)"] == ["/data/a.json", "none"]


def test_the_same_settings_add_no_row(tmp_path: Path):
    same = {"extra_args": ["--max-threads=16"], "input_data": "/data/a.json", "shapes": {"x": [4]}}
    _, rows = _header(tmp_path, same, same)
    assert not [k for k in rows if "differ" in k]
    assert not [k for k in rows if k.startswith(("perf_analyzer flags", "input data", "input shapes"))]


def test_a_setting_a_run_did_not_record_is_said_not_marked(tmp_path: Path):
    """A run saved before a setting was recorded: not known to differ, so said, not marked."""
    base = run_settings(SweepOptions(server=ServerOptions(repository=tmp_path)), ["v"], "brute")
    old = {k: v for k, v in base.items() if k != "shapes"}
    save(_run("before", old), tmp_path / "a")
    save(_run("after", {**base, "shapes": {"x": [4]}}), tmp_path / "b")
    text = compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()
    assert _rows(text)["input shapes (--shape)"] == ["not recorded", "x: 4"]


def test_a_sequential_only_setting_is_compared_between_sequential_runs_only(tmp_path: Path):
    _, rows = _header(tmp_path, {"max_trials": 10}, {"max_trials": 20})
    assert rows["windows before unstable (--max-trials) (differs)"] == ["10", "20"]  # both sequential (no rounds)


def _recorded_keys() -> set[str]:
    """Every key a run records in ``settings`` (with ``server.`` its launch settings), and the environment's server
    record (``environment.server.``)."""
    saved = run_settings(SweepOptions(server=ServerOptions(repository=Path("."))), ["v"], "brute")
    top = set(saved) | set(SweepSettings.__annotations__) | set(MeasureSettings.__dataclass_fields__)
    return (
        (top - {"server"})
        | {f"server.{k}" for k in saved["server"]}
        | {f"environment.server.{k}" for k in ServerRecord.__annotations__}
    )


def test_every_recorded_setting_is_compared_or_said_not_to_change_the_numbers():
    """A setting recorded later must be put in COMPARED, in the env rows, or in NOT_COMPARED with why: none forgotten."""
    compared = {s.key for s in COMPARED}
    placed = [*compared, *IN_ENV_ROWS, *NOT_COMPARED]
    assert len(placed) == len(set(placed)), "a setting is placed twice"
    missing = _recorded_keys() - set(placed)
    assert not missing, f"recorded settings neither compared nor said not to change the numbers: {sorted(missing)}"
    assert not set(placed) - _recorded_keys(), "a placed setting is no longer recorded"


def test_the_server_s_openmp_wait_policy_is_compared(tmp_path: Path):
    """OMP_WAIT_POLICY is recorded in the environment's server record (None: a server not started here, not known)."""
    base = run_settings(SweepOptions(server=ServerOptions(repository=tmp_path)), ["v"], "brute")
    a, b = _run("before", base), _run("after", base)
    a.environment["server"]["omp_wait_policy"] = "PASSIVE"
    b.environment["server"]["omp_wait_policy"] = None
    save(a, tmp_path / "a")
    save(b, tmp_path / "b")
    text = compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()
    assert _rows(text)["server OMP_WAIT_POLICY (differs)"] == ["PASSIVE", "not known (a server not started here)"]


def test_values_are_compared_as_values_not_as_their_words(tmp_path: Path):
    """s23r m8: "(differs)" compared the values as said: the same perf_analyzer flags in another order (perf_analyzer
    reads them by name, in any order), a flag's value given as the next argument, ``1`` and ``1.0``, were marked."""
    base = run_settings(SweepOptions(server=ServerOptions(repository=tmp_path)), ["v"], "brute")
    flags = ["--max-threads=16", "--string-length", "8", "-v"]

    def rows(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
        return [label for label, _, _, _ in differing(_run("a", {**base, **a}), _run("b", {**base, **b}))]

    assert rows({"extra_args": flags}, {"extra_args": ["-v", "--string-length=8", "--max-threads", "16"]}) == []
    assert rows({"stability_pct": 10}, {"stability_pct": 10.0}) == []
    assert rows({"extra_args": flags}, {"extra_args": ["--max-threads=16", "--string-length", "9", "-v"]}) == [
        "perf_analyzer flags (--perf-analyzer-arg)"
    ]
    assert rows({"concurrency": [1, 2, 4]}, {"concurrency": [4, 2, 1]}) == ["concurrency asked (--concurrency)"]


def test_the_server_s_flags_in_another_order_are_the_same_flags(tmp_path: Path):
    """s24b (m8's kind): tritonserver reads its flags by name, as perf_analyzer does, so the same --server-arg flags in
    another order are the same server; they were compared as a sequence and marked "(differs)"."""
    base = run_settings(SweepOptions(server=ServerOptions(repository=tmp_path)), ["v"], "brute")

    def rows(a: list[str], b: list[str]) -> list[str]:
        sa, sb = ({**base, "server": {**base["server"], "extra_args": x}} for x in (a, b))
        return [label for label, _, _, _ in differing(_run("a", sa), _run("b", sb))]

    flags = ["--log-info=true", "--exit-on-error", "false", "--model-control-mode=explicit"]
    assert rows(flags, ["--model-control-mode", "explicit", "--exit-on-error=false", "--log-info=true"]) == []
    assert rows(flags, ["--log-info=false", "--exit-on-error", "false", "--model-control-mode=explicit"]) == [
        "server flags (--server-arg)"
    ]


def test_other_input_shapes_are_shown_and_their_order_is_not(tmp_path: Path):
    """T29-6 named --shape beside the passed-through flags and --input-data: shown where the runs differ; the same
    shapes recorded in another key order (a dict: m8) are the same."""
    _, rows = _header(tmp_path, {"shapes": {"x": [1, 16]}}, {})
    assert "input shapes (--shape) (differs)" in rows, rows
    _, rows = _header(tmp_path, {"shapes": {"x": [1, 16], "y": [4]}}, {"shapes": {"y": [4], "x": [1, 16]}})
    assert not [r for r in rows if r.startswith("input shapes")], rows
