"""``triton-perf coldstart --into RUN``: it adds the cold starts the run lacks and keeps the ones it has
(trial 14, T14-8: it replaced the sweep's own 80.4 ms first request with a 260.2 ms one, said only after
the fact); ``--replace`` measures them again and keeps the earlier ones in results.json."""

from __future__ import annotations

import contextlib
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import make_run

import clients.server
from core.errors import PerfError
from perf.cli.main import cli as perf_cli
from perf.coldstart import measure as coldstart
from perf.records import results
from perf.records.coldstart import ColdStart, FirstRequests
from perf.records.results import RunResult, Session
from perf.records.rounds import RoundsRecord


class _FakeServer:
    runtime, runtime_reason, command_line = "bundled", "given", "tritonserver ..."
    runtime_impl = types.SimpleNamespace(launches=True, wait_policy=lambda: "PASSIVE")

    def __init__(self, opts: Any) -> None:
        pass

    def refuse_unservable(self, models: Any, nothing: str) -> dict[str, str]:
        return {}  # python-backend variants: every one servable

    def __enter__(self) -> _FakeServer:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


@pytest.fixture
def sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[RunResult, Path, Path, list[str]]:
    """A saved run of 2 variants, the first with the sweep's own cold start, the second without one
    (cut for time); a repository holding both; a server whose cold starts are the ``new`` ones; the
    list of variants measured."""
    run = make_run()
    run.variants = run.variants[:2]
    run.rounds = RoundsRecord(seed=1)  # the trial's run: a rounds sweep (its group loaded one after another)
    own = run.variants[0]
    own.cold_start = ColdStart(own.name, load_s=2.06, first=[FirstRequests(1, latencies_ms=[116.1, 9.0, 0.7, 0.6])], session=1)
    run.variants[1].cold_start = None
    run.sessions = [Session("2026-12-02T14:41:02.123456")]
    run_dir = tmp_path / "run"
    results.save(run, run_dir)
    repo = tmp_path / "repo"
    for v in run.variants:
        (repo / v.name).mkdir(parents=True)
        (repo / v.name / "config.pbtxt").write_text(f'name: "{v.name}"\nbackend: "python"\nmax_batch_size: 8\n')
    measured: list[str] = []

    def measure(srv: Any, variant: Any, *a: Any, **k: Any) -> ColdStart:
        measured.append(variant.name)
        first = [FirstRequests(1, latencies_ms=[78.3, 0.7, 0.6, 0.6])]
        return ColdStart(variant.name, load_s=2.01, first=first, others_loaded=[])

    monkeypatch.setattr(clients.server, "TritonServer", _FakeServer)
    monkeypatch.setattr(coldstart, "measure", measure)
    return run, run_dir, repo, measured


def _invoke(args: list[str]) -> Any:
    with contextlib.suppress(SystemExit):
        return CliRunner().invoke(perf_cli, ["coldstart", *args], terminal_width=400)


def test_into_measures_only_what_the_run_lacks_and_keeps_the_sweeps_own(sweep):
    run, run_dir, repo, measured = sweep
    own, cut = (v.name for v in run.variants)
    r = _invoke(["--into", str(run_dir), "-r", str(repo)])
    assert r.exit_code == 0, r.output
    assert measured == [cut]  # the sweep's own cold start is not measured again
    saved = results.load(run_dir)
    assert saved.variant(own).cold_start == run.variants[0].cold_start and not saved.variant(own).replaced_cold_starts
    assert saved.variant(cut).cold_start is not None and saved.variant(cut).cold_start.load_s == 2.01
    assert (
        f"kept the run's cold start of {own} (measured in session 1 of the run, started 2026-12-02 14:41:02: first "
        "request 116.1 ms, load 2.06 s); not measured again (--replace measures it again" in r.output
    )
    assert "replaced the cold start" not in r.output


def test_into_with_only_variants_the_run_has_is_refused_before_any_server(sweep, monkeypatch):
    run, run_dir, repo, measured = sweep
    own = run.variants[0].name
    monkeypatch.setattr(clients.server, "TritonServer", None)  # a server started would fail loudly
    before = (run_dir / results.RESULTS_FILE).read_bytes()
    r = _invoke(["--variants", own, "--into", str(run_dir), "-r", str(repo)])
    assert r.exit_code == 1 and isinstance(r.exception, PerfError) and not measured, r.output
    text = " ".join(f"{r.exception.message} -> {r.exception.hint}".split())
    assert f"run {run.run_id}" in text and f"kept the run's cold start of {own}" in text and "first request 116.1 ms" in text
    assert "--replace measures them again" in text
    assert (run_dir / results.RESULTS_FILE).read_bytes() == before


def test_replace_measures_again_and_keeps_the_replaced_one(sweep):
    """Trial 8 F13: each replaced record is named, when it was measured and its numbers against the
    new; trial 14: and it stays in results.json. One variant reads "1 variant was loaded"."""
    run, run_dir, repo, measured = sweep
    own = run.variants[0]
    r = _invoke(["--variants", own.name, "--into", str(run_dir), "-r", str(repo), "--replace"])
    assert r.exit_code == 0, r.output
    assert measured == [own.name]
    assert (
        f"replaced the cold start of {own.name} (measured in session 1 of the run, started 2026-12-02 14:41:02; kept in "
        "results.json as its replaced_cold_starts): first request 116.1 ms -> 78.3 ms, load 2.06 s -> 2.01 s"
    ) in r.output
    assert "**Cold start.** 1 variant was loaded alone on the bundled tritonserver" in r.output
    assert "variant(s)" not in r.output and "one after another" not in r.output
    saved = results.load(run_dir).variant(own.name)
    assert saved.cold_start.load_s == 2.01 and saved.replaced_cold_starts == [own.cold_start]


def test_replace_without_into_is_a_usage_error(sweep):
    _run, _run_dir, repo, measured = sweep
    r = _invoke(["--replace", "-r", str(repo)])
    said = " ".join(r.output.split())  # the one rule of unread flags (core.flag_refusals.refuse_unread), s19
    assert r.exit_code == 2 and not measured, said
    assert "--replace would be ignored: it measures again the cold starts a run has, and no --into RUN names one" in said
    assert "add --into RUN, or drop --replace" in said


@pytest.mark.parametrize("named", ["both", "pattern"])
def test_a_named_variant_the_run_lacks_is_refused_by_name_beside_the_runs_own(sweep, monkeypatch, named):
    """Re-check 14, NEW-4: ``--variants OWN,OTHER`` (OTHER in the repository, not in the run) dropped OTHER
    without a word and said the run "has the cold start of each variant chosen"."""
    run, run_dir, repo, measured = sweep
    own = run.variants[0].name
    other = own.replace("onnx", "tensorrt")
    (repo / other).mkdir()
    (repo / other / "config.pbtxt").write_text(f'name: "{other}"\nbackend: "python"\nmax_batch_size: 8\n')
    monkeypatch.setattr(clients.server, "TritonServer", None)  # a server started would fail loudly
    before = (run_dir / results.RESULTS_FILE).read_bytes()
    given = f"{own},{other}" if named == "both" else own.replace("onnx", "*")  # a pattern matching both
    r = _invoke(["--variants", given, "--into", str(run_dir), "-r", str(repo)])
    assert r.exit_code == 2 and not measured, r.output
    text = " ".join(r.output.split())
    assert f"'--variants': {other}" in text and f"not in the run {run_dir}" in text, text
    assert "each variant chosen" not in text
    assert (run_dir / results.RESULTS_FILE).read_bytes() == before


def test_into_sends_at_the_runs_sizes_and_refuses_other_sizes_before_any_server(sweep, monkeypatch):
    """Trial 16, T16-11: a cold start's steady reference is the run's level at the same batch size and shape; a
    --shape other than the run's compared the first requests with levels of another input size (and, without
    --shape, the build's opt sizes were sent whatever the run had swept at)."""
    run, run_dir, repo, measured = sweep
    cut = run.variants[1].name
    dynamic = 'input [{ name: "input_ids" data_type: TYPE_INT64 dims: [-1] }]\n'
    (repo / cut / "config.pbtxt").write_text(f'name: "{cut}"\nbackend: "python"\nmax_batch_size: 8\n{dynamic}')
    run.settings["shapes"] = {"input_ids": [32]}  # the sweep's own --shape input_ids:32
    results.save(run, run_dir)
    got: list[Any] = []
    monkeypatch.setattr(coldstart, "measure", lambda srv, variant, *a, **k: got.append(a[2]) or ColdStart(variant.name))
    r = _invoke(["--variants", cut, "--into", str(run_dir), "-r", str(repo), "--shape", "input_ids:128"])
    # a typed --shape that does not go with --into RUN: a usage mistake, exit 2 (trial 20: it exited 1)
    assert r.exit_code == 2 and not got, r.output
    assert f"{cut}: input_ids [128] per sample (--shape) where the run sent [32] per sample" in " ".join(r.output.split())
    _invoke(["--variants", cut, "--into", str(run_dir), "-r", str(repo)])
    assert got == [{"input_ids": [32]}]  # no --shape: the run's own


def test_a_batch_size_no_chosen_variant_takes_is_refused_before_the_runs_held_cold_starts(sweep, monkeypatch):
    """s22z, Z-17: ``coldstart --into RUN --batch-sizes 8`` over variants of max_batch_size 4, each cold start held,
    answered "nothing measured: run RUN has the cold start of each variant chosen ... (--replace measures it again)",
    never that 8 is unsendable (with --replace it was then refused for 8). The flag's mistake is said first."""
    run, run_dir, repo, measured = sweep
    own = run.variants[0].name
    monkeypatch.setattr(clients.server, "TritonServer", None)  # a server started would fail loudly
    before = (run_dir / results.RESULTS_FILE).read_bytes()
    r = _invoke(["--variants", own, "--into", str(run_dir), "-r", str(repo), "--batch-sizes", "64"])
    out = " ".join(r.output.split())
    assert r.exit_code == 2 and not measured, out
    assert f"batch size 64 is above the max_batch_size of every variant of this cold start ({own} 8)" in out
    assert "each variant chosen" not in out and "--replace" not in out
    assert (run_dir / results.RESULTS_FILE).read_bytes() == before


def test_into_reads_each_variants_config_once(sweep, monkeypatch):
    """coldstart --into read each chosen variant's config.pbtxt twice before any server (its batch limits for the
    early --batch-sizes refusal, then again for the shape checks and the same limits)."""
    import builders.config.pbtxt as pbtxt

    run, run_dir, repo, measured = sweep
    read, real = [], pbtxt.read_config
    monkeypatch.setattr(pbtxt, "read_config", lambda path, *a, **k: read.append(Path(path).parent.name) or real(path, *a, **k))
    r = _invoke(["--into", str(run_dir), "-r", str(repo), "--replace", "--batch-sizes", "1"])
    assert r.exit_code == 0, r.output
    assert measured == [v.name for v in run.variants]
    assert sorted(read) == sorted(measured), read
