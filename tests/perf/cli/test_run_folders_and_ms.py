"""Trial 7 F18: a run folder given to the sweep, a run id without results/, and a budget typed
with its unit each get one message saying what to do, not click's bare "Got unexpected extra
argument", "Directory does not exist" or "not a valid float range"; a run id under results/ is
taken as that run folder by every command that reads one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import make_run

from core.units import parse_ms
from perf.cli.main import cli, sweep
from perf.records.results import save
from perf.records.unfinished import resume_command


@pytest.fixture
def in_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder whose results/ holds run t7a (a sweep's run folder)."""
    monkeypatch.chdir(tmp_path)
    save(make_run(), tmp_path / "results" / "t7a")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "index.json").write_text("{}")
    return tmp_path


def test_a_folder_given_to_the_sweep_says_how_to_resume_it(in_results: Path):
    out = CliRunner().invoke(sweep, ["results/t7a"], prog_name="perf/run_sweep.sh")
    assert out.exit_code == 2
    assert f"to continue that run: {resume_command('t7a', 'results')}" in out.output.replace("\n", " ")
    out = CliRunner().invoke(sweep, ["repo"], prog_name="perf/run_sweep.sh")
    assert "repo is a model repository; to sweep it: --repository repo" in out.output
    out = CliRunner().invoke(sweep, ["elsewhere"], prog_name="perf/run_sweep.sh")
    assert out.exit_code == 2 and "got unexpected extra argument (elsewhere): perf/run_sweep.sh takes options only" in out.output


@pytest.mark.parametrize(
    "args, module, function",
    [
        (["report", "t7a"], "perf.cli.report", "print_report"),
        (["export-deployment", "t7a"], "perf.deploy.bundle", "export_deployment"),
        (["compare", "t7a", "results/t7a"], "perf.report.compare", "compare_runs"),
    ],
)
def test_a_run_id_is_the_run_folder_under_results(
    in_results: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], module: str, function: str
):
    import importlib

    seen: list[Any] = []

    class Stop(Exception):
        pass

    def record(*a: Any, **_k: Any) -> None:
        seen.append(a[0])
        raise Stop

    monkeypatch.setattr(importlib.import_module(module), function, record)
    out = CliRunner().invoke(cli, args)
    assert isinstance(out.exception, Stop), out.output
    assert Path(seen[0]) == Path("results/t7a")


@pytest.mark.parametrize("command", [["report"], ["export-deployment"], ["compare", "t7a"], ["baseline"]])
def test_a_missing_run_says_where_runs_live(in_results: Path, command: list[str]):
    out = CliRunner().invoke(cli, [*command, "demo-20261202-111031"])
    assert out.exit_code == 2
    assert "'demo-20261202-111031' is not a folder here: a run folder is results/<run-id>" in out.output
    assert "newest there: t7a" in out.output
    assert "does not exist" not in out.output


@pytest.mark.parametrize("command", [["report"], ["export-deployment"], ["compare", "t7a"]])
def test_a_what_if_folder_given_as_a_run_names_its_run(in_results: Path, command: list[str]):
    """Re-check 20, NEW-6: the what-if folder `report` had just printed, given to export-deployment, exited 1 with
    nothing pointing to its run (a missing folder exits 2)."""
    (in_results / "results" / "t7a" / "report-budget21ms").mkdir()
    out = CliRunner().invoke(cli, [*command, "results/t7a/report-budget21ms"])
    assert out.exit_code == 2, out.output
    said = " ".join(out.output.split())
    assert "is a folder inside run results/t7a (a what-if report's, which holds no results.json)" in said
    assert "pass results/t7a, with --latency-budget-ms for another budget" in said


def test_one_ms_parser_for_every_latency_budget():
    assert parse_ms("50") == parse_ms("50ms") == parse_ms(" 50 ms ") == parse_ms(50) == 50.0
    assert parse_ms("12.5ms") == 12.5 and parse_ms(None) is None
    with pytest.raises(ValueError, match=r"'0.05s' is in s: it is given in milliseconds \(write 50 or 50ms\)"):
        parse_ms("0.05s")
    with pytest.raises(ValueError, match="not a number of milliseconds"):
        parse_ms("fast")
    with pytest.raises(ValueError, match="not above 0"):
        parse_ms("0ms")


@pytest.mark.parametrize("command", [["report", "t7a"], ["export-deployment", "t7a"], ["sweep"], ["colocate"]])
def test_every_ms_budget_option_takes_50ms_and_refuses_seconds(in_results: Path, command: list[str]):
    """The budget is parsed before the command's work: '50s' is refused naming ms; '50ms' is taken."""
    out = CliRunner().invoke(cli, [*command, "--latency-budget-ms", "0.05s"])
    assert out.exit_code == 2 and "is in s: it is given in milliseconds (write 50 or 50ms)" in out.output
    assert "not a valid float" not in out.output
    from core.options import specs
    from perf.sweep.options import SweepOptions

    (spec,) = [s for s in specs(SweepOptions) if "--latency-budget-ms" in s.decls]
    assert spec.attrs["callback"](_Ctx(), _Param(), "50ms") == 50.0


def test_colocate_per_model_budgets_take_ms_too():
    from perf.colocate.options import EVERY_MODEL, per_model

    parse = per_model("MS", "25 or mlp=25,tiny=10", parse_ms)
    assert parse(("25ms,tiny=10ms",)) == {EVERY_MODEL: 25.0, "tiny": 10.0}
    with pytest.raises(ValueError, match="in milliseconds"):
        parse(("tiny=1s",))


class _Ctx:
    resilient_parsing = False

    def get_parameter_source(self, _name: str) -> Any:
        import click

        return click.core.ParameterSource.COMMANDLINE


class _Param:
    name = "latency_budget_ms"


def test_a_number_in_any_plain_form_is_read_and_a_hint_never_uses_an_exponent() -> None:
    """Review: `1e2` was refused (colocate's per-model budgets took it before), and `50m` was
    answered with "write 3e+06"."""
    assert parse_ms("1e2") == parse_ms("5e1ms") * 2 == 100.0
    with pytest.raises(ValueError, match=r"write 3000000 or 3000000ms"):
        parse_ms("50m")
    with pytest.raises(ValueError, match=r"is in μs: it is given in milliseconds \(write 0.5 or 0.5ms\)"):
        parse_ms("500μs")  # Greek mu, as some keyboards type it


def test_a_run_id_wins_over_a_local_folder_and_an_empty_one_is_refused(in_results: Path, monkeypatch: pytest.MonkeyPatch):
    """Review: a local folder named like a run (here t7a beside results/) was taken for it, "" was
    read as ".", and a sweep given "." from inside a run folder said `--resume ''`."""
    import click

    from perf.cli.runs import RunFolder, extra_argument_hint

    (in_results / "t7a").mkdir()  # not a run: no results.json
    assert RunFolder().convert("t7a", None, None) == Path("results") / "t7a"
    with pytest.raises(click.BadParameter, match="an empty run folder"):
        RunFolder().convert(" ", None, None)
    monkeypatch.chdir(in_results / "results" / "t7a")
    assert f"to continue that run: {resume_command('t7a', in_results / 'results')}" in (extra_argument_hint(["."]) or "")


@pytest.mark.parametrize("command", [["report"], ["export-deployment"]])
def test_the_results_folder_itself_is_told_to_pass_one_of_its_runs(in_results: Path, command: list[str]):
    """T25-26: `triton-perf report results` said "writing the report and its plots of results ..." and then "no
    results.json in results", exit 1; the folder of runs is a usage mistake (exit 2) that names the runs in it."""
    out = CliRunner().invoke(cli, [*command, "results"], terminal_width=200)
    said = " ".join(out.output.split())
    assert out.exit_code == 2 and "writing the report" not in said, said
    assert "'results' is a folder of runs, not a run: pass one of them, e.g. results/t7a (newest there: t7a)" in said
