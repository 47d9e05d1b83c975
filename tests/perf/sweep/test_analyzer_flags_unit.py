"""perf_analyzer's own flags at the sweep (trial 16, T16-6): ``--perf-analyzer-arg=--concurrency-range=1:4``
came last on every level's command, so each "c=16" level measured concurrency 1..4 and the report's
table, ladder and pick were built on mislabelled numbers. A flag the sweep sets itself, or one that
changes what a level is or how it is read, is refused before anything starts, in every form
perf_analyzer reads, from one table (:data:`perf.sweep.analyzer_flags.ANALYZER_FLAGS`), naming the
sweep's flag to use; so is such a flag given to the sweep itself (``perf/run_sweep.sh -p 1000`` said
only "No such option '-p'"). No server starts here."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clients.server import ServerOptions
from core.cli import CONTEXT_SETTINGS
from core.errors import FlagError, PerfError
from perf.cli import main as perf_main
from perf.measure import analyzer
from perf.records import results
from perf.records.settings import MeasureSettings
from perf.sweep.analyzer_flags import ANALYZER_FLAGS, PASS_FLAG, direct_flag_advice, pass_through_refusal
from perf.sweep.design_flags import flag_of
from perf.sweep.run import Sweep, SweepOptions

ROOT = Path(__file__).resolve().parents[3]
#: The spellings of the sweep's own options (a perf_analyzer flag of the same spelling is the sweep's there).
SWEEP_OPTIONS = {o for p in perf_main.sweep.params for o in (*p.opts, *p.secondary_opts)} | {
    *CONTEXT_SETTINGS["help_option_names"]
}
REFUSED = [f for f in ANALYZER_FLAGS if f.why is not None]


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo" / "v").mkdir(parents=True)
    (tmp_path / "repo" / "v" / "config.pbtxt").write_text(
        'name: "v"\nbackend: "python"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    return tmp_path / "repo"


@pytest.fixture()
def nothing_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """perf_analyzer is looked for before anything is started: a refusal must come before it."""

    def started(*_: Any, **__: Any) -> Any:
        raise PerfError("the sweep went on to look for perf_analyzer")

    monkeypatch.setattr(analyzer, "find_perf_analyzer", started)


def _opts(repo: Path, tmp_path: Path, *extra: str) -> SweepOptions:
    return SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        concurrency=(16,),
        results_dir=tmp_path / "results",
        run_id="r",
        measure=MeasureSettings(extra_args=extra),
    )


@pytest.mark.parametrize(
    "args, named",
    [
        (["--concurrency-range=1:4"], "--concurrency-range"),  # --flag=V (trial 16)
        (["--concurrency-range", "1:4"], "--concurrency-range"),  # --flag V: two pass-throughs
        (["--concurrency-range 1:4"], "--concurrency-range"),  # one argument with a space
        (["--conc=1:4"], "--concurrency-range"),  # getopt_long's unambiguous prefix
        (["-b4"], "-b"),  # -fV
        (["-b", "4"], "-b"),  # -f V
        (["-vb4"], "-b"),  # bundled after a flag without value
        (["--batch-size=4"], "--batch-size"),  # the long alias
        (["-p500"], "-p"),
        (["--measurement-interval", "500"], "--measurement-interval"),
        (["-u", "localhost:8001"], "-u"),
        (["-mother"], "-m"),
        (["--max-threads=16", "-s", "5"], "-s"),  # a tuning flag beside it goes through, the other is refused
    ],
)
def test_every_form_of_a_flag_the_sweep_sets_is_refused(args: list[str], named: str) -> None:
    refusal = pass_through_refusal(args)
    assert refusal is not None and refusal.flag == PASS_FLAG
    given = " ".join(f"{PASS_FLAG}={a}" for a in args if a != "--max-threads=16")
    assert refusal.message.startswith(f"{given} is refused: perf_analyzer's {named}")
    assert f"instead of {named}" in (refusal.hint or "")


@pytest.mark.parametrize(
    "args",
    [
        ["--max-threads=16"],
        ["--max-threads", "16"],
        ["--string-length", "8"],
        ["-v"],
        ["-a"],
        ["--async"],
        ["--string-data", "-b"],  # a value, not perf_analyzer's -b
        ["-H", "X-Token:-b4"],
    ],
)
def test_flags_that_only_tune_the_load_generator_go_through(args: list[str]) -> None:
    assert pass_through_refusal(args) is None


@pytest.mark.parametrize("flag", REFUSED, ids=lambda f: f.names[0])
def test_each_refused_flag_says_why_and_names_a_flag_the_sweep_has(flag: Any) -> None:
    for name in flag.names:
        refusal = pass_through_refusal([f"{name}=1" if name.startswith("--") and flag.value else name])
        assert refusal is not None and f"perf_analyzer's {name}" in refusal.message and flag.why in refusal.message
        for field in flag.instead:  # the advice is a flag of the sweep, typed as the user types it
            assert flag_of(field) in SWEEP_OPTIONS and flag_of(field) in (refusal.hint or "")
        if not flag.instead:
            assert f"{name} cannot be given to the sweep's perf_analyzer" in (refusal.hint or "")


def test_the_sweep_cli_refuses_the_trials_pass_through_before_anything_starts(
    repo: Path, tmp_path: Path, nothing_starts: None
) -> None:
    args = ["--repository", str(repo), "--perf-analyzer-arg=--concurrency-range=1:4", "--time-budget", "1m", "--run-id", "t16err"]
    res = CliRunner().invoke(perf_main.cli, ["sweep", *args, "--results-dir", str(tmp_path / "results")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert (
        "--perf-analyzer-arg=--concurrency-range=1:4 is refused: perf_analyzer's --concurrency-range is a level's concurrency"
        in text
    )
    assert "use --concurrency instead of --concurrency-range" in text and "Traceback" not in res.output
    assert not (tmp_path / "results").exists()
    ok = CliRunner().invoke(perf_main.cli, ["sweep", "--repository", str(repo), "--perf-analyzer-arg=--max-threads=16"])
    assert isinstance(ok.exception, PerfError) and "went on to look for perf_analyzer" in str(ok.exception)  # it goes through


def test_run_sweep_sh_refuses_a_pass_through_and_a_perf_analyzer_flag_given_to_it(repo: Path, tmp_path: Path) -> None:
    # a perf_analyzer that is not there: a sweep that went on would fail looking for it, not start a server
    env = {**os.environ, "VENV": str(ROOT / ".venv"), "PYTHONPATH": str(ROOT), "PERF_ANALYZER": str(tmp_path / "none")}
    script = [str(ROOT / "perf" / "run_sweep.sh"), "--repository", str(repo), "--results-dir", str(tmp_path / "results")]
    passed = subprocess.run([*script, "--perf-analyzer-arg=-b", "--perf-analyzer-arg=4"], env=env, capture_output=True, text=True)
    assert passed.returncode == 2, passed.stderr
    assert "--perf-analyzer-arg=-b --perf-analyzer-arg=4 is refused: perf_analyzer's -b (--batch-size)" in passed.stderr
    assert "use --batch-sizes instead of -b" in " ".join(passed.stderr.split())
    direct = subprocess.run([*script, "-p", "1000"], env=env, capture_output=True, text=True)
    assert direct.returncode == 2 and "Usage: perf/run_sweep.sh" in direct.stderr
    assert "use --round-window (--design rounds) or --measurement-interval (--design sequential) instead of -p" in " ".join(
        direct.stderr.split()
    )
    assert not (tmp_path / "results").exists()


def test_the_python_api_refuses_it_too(repo: Path, tmp_path: Path, nothing_starts: None) -> None:
    with pytest.raises(FlagError) as e:
        Sweep(_opts(repo, tmp_path, "--concurrency-range", "1:4"))
    assert e.value.flag == PASS_FLAG and "use --concurrency instead of --concurrency-range" in (e.value.hint or "")
    assert not (tmp_path / "results").exists()


def test_a_resumed_run_that_saved_such_a_flag_is_refused_with_a_new_runs_advice(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run started before the refusal saved its flags; resumed, it would go on mislabelling levels."""
    from perf.sweep.servers import ServerPool

    def interrupted(self: ServerPool) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ServerPool, "start_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Sweep(_opts(repo, tmp_path, "--max-threads=16")).run_all()
    path = tmp_path / "results" / "r" / results.RESULTS_FILE
    saved = json.loads(path.read_text())
    saved["settings"]["extra_args"] = ["--max-threads=16", "-b4"]  # as the older sweep saved it
    path.write_text(json.dumps(saved))
    with pytest.raises(FlagError) as e:
        Sweep(dataclasses.replace(_opts(repo, tmp_path), resume=True, given=frozenset()))
    assert e.value.message.startswith(f"{PASS_FLAG}=-b4 is refused: perf_analyzer's -b (--batch-size)")
    assert (e.value.hint or "").startswith(
        f"start a new run (--run-id NEW) without it: a resumed run keeps its saved {PASS_FLAG}"
    )


@pytest.mark.parametrize(
    "flag, advice",
    [
        ("-p", "use --round-window (--design rounds) or --measurement-interval (--design sequential) instead of -p"),
        ("-b", "use --batch-sizes instead of -b"),
        ("-m", "use --variants instead of -m"),
        ("-u", "use --url instead of -u"),
        ("-i", "use --protocol instead of -i"),
        ("-f", "-f cannot be given to the sweep's perf_analyzer"),
        ("--concurrency-range", "use --concurrency instead of --concurrency-range"),
        ("--max-threads", f"pass it through, {PASS_FLAG}=--max-threads=VALUE"),
        ("-a", f"pass it through, {PASS_FLAG}=--async"),
    ],
)
def test_a_perf_analyzer_flag_given_to_the_sweep_is_told_what_to_give(
    flag: str, advice: str, repo: Path, tmp_path: Path, nothing_starts: None
) -> None:
    res = CliRunner().invoke(perf_main.cli, ["sweep", "--repository", str(repo), flag, "1"])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert f"Error: {flag} is a perf_analyzer flag" in text and advice in text


def test_every_perf_analyzer_flag_the_sweep_lacks_gets_the_tables_advice() -> None:
    for flag in ANALYZER_FLAGS:
        for name in flag.names:
            if name not in SWEEP_OPTIONS:
                res, advice = CliRunner().invoke(perf_main.sweep, [name]), direct_flag_advice(name)
                assert res.exit_code == 2 and advice is not None and advice in " ".join(res.output.split()), (name, res.output)
    res = CliRunner().invoke(perf_main.sweep, ["--no-such-flag"])  # not perf_analyzer's: click's own message
    assert "No such option: --no-such-flag" in res.output or "No such option '--no-such-flag'" in res.output


def test_a_flag_that_exits_before_measuring_is_refused() -> None:
    """Recheck of trial 16, R16-2: --version went through and every level failed with the version string."""
    for args in (["--version"], ["--help"]):
        refusal = pass_through_refusal(args)
        assert refusal is not None and "exits (no level would be measured)" in refusal.message
