"""``triton-perf report RUN`` (and ``compare``) of a run another command is still writing (a sweep holding it:
perf.records.run_lock) is refused with one error, exit 1, and writes nothing (re-check of trial 18, NEW-1: it wrote the
live run's report, its "also written" line listed files the sweep changed meanwhile, and it advised a --resume the lock
refused). The other process here is a real one holding the lock."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from factories import make_run
from held_run import held_by_another_process

from core.errors import PerfError
from perf.cli.main import cli
from perf.records.results import save


def test_report_and_compare_of_a_run_still_written_are_refused_and_write_nothing(tmp_path: Path) -> None:
    live, done = tmp_path / "live", tmp_path / "done"
    save(make_run(), live)
    save(make_run(), done)
    before = sorted(p.name for p in live.iterdir())
    with held_by_another_process(live):
        res = CliRunner().invoke(cli, ["report", str(live)])
        assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output  # a problem found, not a typo
        said = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
        assert f"run folder {live} is being written: a sweep" in said and "its report was not written" in said, said
        assert "run this again when that command ends" in said, said
        assert sorted(p.name for p in live.iterdir()) == before  # no report.md, no plots
        res = CliRunner().invoke(cli, ["compare", str(done), str(live)])
        assert res.exit_code == 1 and "the comparison was not written" in str(res.exception), res.output
        assert sorted(p.name for p in live.iterdir()) == before
    res = CliRunner().invoke(cli, ["report", str(live)])  # the other process ended: reported as before
    assert res.exit_code == 0 and (live / "report.md").is_file(), res.output


def test_export_deployment_of_a_run_still_written_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    """Re-check 19, NEW-4: it advised a --resume the lock refused, and with --allow-unfinished wrote a bundle of a
    run still being measured."""
    live = tmp_path / "live"
    save(make_run(), live)
    before = sorted(p.name for p in live.iterdir())
    with held_by_another_process(live):
        for extra in ([], ["--allow-unfinished"]):
            out = tmp_path / f"bundle{len(extra)}"
            res = CliRunner().invoke(cli, ["export-deployment", str(live), "--out", str(out), *extra])
            assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output
            assert "its deployment bundle was not written" in str(res.exception), str(res.exception)
            assert not out.exists() and sorted(p.name for p in live.iterdir()) == before
