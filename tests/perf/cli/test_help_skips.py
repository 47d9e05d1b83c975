"""What a ``triton-perf`` flag's --help says it leaves out ("Do not ...") is what it leaves out, and what the help says
is still done is done (trial 26, T26-10: `perf/run_sweep.sh --help` said "--no-report  Do not write report.md at the
end."; a --no-report sweep also left out the plots, the console's summary table and its Recommendation line). Each
such flag has a check that runs it with and without the flag; adding one is adding its check."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result
from fake_colocation_server import invoke_faked
from saved_sweeps import fake_sweep

from perf.cli.main import cli as perf_cli

#: Every triton-perf flag whose help says what it leaves out, with the test that runs it.
SKIPS = {
    # below: the files it names are not written, the console lines it names are printed as without it
    ("triton-perf sweep", "--no-report"): "test_sweep_no_report_leaves_out_the_files_its_help_names_and_only_them",
    ("triton-perf colocate", "--no-report"): "test_colocate_no_report_leaves_out_the_files_its_help_names_and_only_them",
    # tests/perf/sweep/test_sweep_opening_unit.py: a finished run owing its baseline measures it, not with --no-baseline
    ("triton-perf sweep", "--no-baseline"): "test_a_resumed_finished_run_with_rebuilt_files_refuses_before_its_resume_line",
    # tests/perf/profile/test_profile_run.py: --no-eager traces only the artifacts, no eager row
    ("triton-perf baseline", "--no-eager"): "test_cli_on_a_repository_writes_profile_json",
}


def _helps(cmd: click.Command = perf_cli, path: str = "triton-perf") -> Iterator[tuple[str, str, str]]:
    """(command, flag, help) of every triton-perf option (tests/perf/cli/test_help_promises.py walks every CLI so)."""
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from _helps(sub, f"{path} {name}")
        return
    for p in cmd.params:
        yield path, (p.opts or [p.name or ""])[0], getattr(p, "help", None) or ""


def _skips() -> dict[tuple[str, str], str]:
    """The triton-perf flags whose help starts "Do not" (or "Skip"): flag -> its help, whitespace made one space."""
    return {
        (command, flag): " ".join(text.split())
        for command, flag, text in _helps()
        if flag.startswith("--") and re.match(r"(Do not|Don't|Skip)\b", text.strip())
    }


def test_every_flag_whose_help_says_what_it_leaves_out_is_one_checked() -> None:
    found = set(_skips())
    assert found == set(SKIPS), f"unchecked: {sorted(found - set(SKIPS))}; gone: {sorted(set(SKIPS) - found)}"


def _left_out(help_text: str) -> list[str]:
    """The files a --no-report help says are not written: "Do not write report.md, appendix.md and the plots at the
    end" -> ["report.md", "appendix.md", "the plots"]."""
    m = re.match(r"Do not write (.+?) at the end", help_text)
    assert m is not None, help_text
    return re.split(r", | and ", m.group(1))


def _written(folder: Path, named: str) -> set[str]:
    """The files of ``folder`` a help's word names: a file name, or "the plots"/"its trade-off plot" (the .png)."""
    names = {p.name for p in folder.iterdir() if p.is_file()}
    return {n for n in names if n.endswith(".png")} if "plot" in named else {n for n in names if n == named}


def test_sweep_no_report_leaves_out_the_files_its_help_names_and_only_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    help_text = _skips()[("triton-perf sweep", "--no-report")]
    levels = {"a": (100.0, 180.0, 200.0), "b": (90.0, 150.0, 260.0)}
    fake_sweep(
        monkeypatch,
        run_result(
            [variant_result(n, [level_result(c, t, 2.0 * c) for c, t in zip((1, 2, 4), thr)]) for n, thr in levels.items()],
            run_id="r",
            settings={"latency_budget_ms": 5.0},
            finished="then",
        ),
    )
    monkeypatch.chdir(tmp_path)
    out = {}
    for name, flags in (("full", []), ("bare", ["--no-report"])):
        res = CliRunner().invoke(perf_cli, ["sweep", "--results-dir", name, "--run-id", "r", "--no-baseline", *flags])
        assert res.exit_code == 0, res.output
        out[name] = res.output.replace(str(tmp_path / name), "RUN").replace(name + "/", "RUN/")
    named_files = set()
    for named in _left_out(help_text):  # each file it names: written without the flag, not with it
        named_files |= _written(tmp_path / "full" / "r", named)
        assert _written(tmp_path / "full" / "r", named), (named, sorted(p.name for p in (tmp_path / "full" / "r").iterdir()))
        assert not _written(tmp_path / "bare" / "r", named), named
    files = {n: {p.name for p in (tmp_path / n / "r").iterdir() if not p.name.startswith(".")} for n in ("full", "bare")}
    assert files["full"] - files["bare"] == named_files  # nothing else is left out
    # what it says the console still prints: the lines from the summary table to the Recommendation, the same
    assert "the console still prints the summary table, its notes and the Recommendation line" in help_text
    full = out["full"].split("writing the report and its plots of r ...\n", 1)[1].split("\nreport: ", 1)[0]
    assert "Recommendation: best under the p99 budget of 5.00 ms" in full and "┃ variant" in full
    # the same but where the Recommendation line sends the reader: the command that writes report.md (trial 28, T28-13)
    bare = out["bare"].replace(
        "report.md's Recommendation, which `triton-perf report RUN/r` writes)", "report.md's Recommendation)"
    )
    assert bare != out["bare"]
    assert full in bare, "\n".join(difflib.unified_diff(full.splitlines(), bare.splitlines(), lineterm=""))
    assert (
        "not written (--no-report): report.md, appendix.md and the plots; `triton-perf report RUN/r` writes them" in out["bare"]
    )
    assert "`triton-perf report RUN_DIR` writes them later" in help_text


def test_colocate_no_report_leaves_out_the_files_its_help_names_and_only_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    help_text = _skips()[("triton-perf colocate", "--no-report")]
    variants = {"big_x1": 1, "small_x1": 1}
    full = invoke_faked(tmp_path / "full", monkeypatch, variants)
    bare = invoke_faked(tmp_path / "bare", monkeypatch, variants, "--no-report")
    assert full.exit_code == bare.exit_code == 0, (full.output, bare.output)
    for named in _left_out(help_text):
        assert _written(tmp_path / "full" / "results" / "r", named), named
        assert not _written(tmp_path / "bare" / "results" / "r", named), named
    # the console still prints the combination, its numbers and each model's neighbours' cost: every line but the report's
    assert "the console still prints the combination (or why none), its numbers and each model's neighbours' cost" in help_text
    full_out, bare_out = (r.output.replace(str(tmp_path / n), "ROOT") for r, n in ((full, "full"), (bare, "bare")))
    said = [ln for ln in full_out.splitlines() if ln.startswith(("combination: ", "why: ", "GPU memory "))]
    assert said and all(ln in bare_out for ln in said), (said, bare_out)
    assert "not written (--no-report): report.md and its trade-off plot; `triton-perf report " in bare.output
