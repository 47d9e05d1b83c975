"""A bundle of the run's pick whose README opens with caveats the pick no longer carries is said wherever stale bundles
are (perf.deploy.stale.outdated_caveats; break-it F8: written with --allow-cut --allow-unfinished, it still opened "Not a
finished run's pick" and "The pick is the best of 2 of the 4 variants" after a resume finished the run, measured every
variant and kept the pick, and nothing said so)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from perf.cli.main import cli
from perf.deploy.choose import choose_variant
from perf.deploy.readme import first_lines
from perf.deploy.stale import stale_bundles
from perf.records import results
from tests.perf.deploy.test_pick_state import _run


def _bundle(run_dir: Path, chosen: object) -> None:
    folder = run_dir / "deployment-fast"
    folder.mkdir(exist_ok=True)
    lines = ["# Deployment bundle: `fast`", "", "Written by `triton-perf export-deployment` from run `r`.", *first_lines(chosen)]
    lines += ["", "## Why this variant", "", "The run's recommendation: the best level within the p99 budget of 25.00 ms."]
    (folder / "README.md").write_text("\n".join(lines) + "\n")


def _chosen(run: object) -> object:
    return choose_variant(run, None, None, True, None, allow_refused_flags=True, allow_cut=True)  # type: ignore[arg-type]


def test_a_bundle_of_the_pick_with_caveats_it_no_longer_carries_is_said(tmp_path: Path) -> None:
    then = _run()  # unfinished, cut_a never measured: exported with --allow-unfinished --allow-cut
    then.finished = None
    _bundle(tmp_path, _chosen(then))
    now = _run(cut_measured=True)  # a resume finished it and measured cut_a: the pick stays fast
    results.save(now, tmp_path)
    said = stale_bundles(tmp_path, now)
    assert said == [
        '`deployment-fast` (of the run\'s pick, `fast`) opens its README with "Not a finished run\'s pick" and "The pick is '
        "the best of 2 of the 3 variants\", which the run's pick no longer carries; "
        f"`triton-perf export-deployment {tmp_path}` writes it again (keeping this one beside it)"
    ]
    res = CliRunner().invoke(cli, ["report", str(tmp_path)], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert said[0] in " ".join(res.output.split())
    assert f"- **A bundle of the pick, out of date**: {said[0]}." in (tmp_path / "report.md").read_text()
    _bundle(tmp_path, _chosen(now))  # written again: its caveats are the pick's
    assert stale_bundles(tmp_path, now) == []


def test_a_what_if_report_names_the_budget_of_the_pick_it_says(tmp_path: Path) -> None:
    """Break-it F12: under `report RUN --latency-budget-ms 0.1`, "the pick is now X" followed "No level meets the p99
    budget of 0.10 ms": the stale line's pick is the run's under its own budget, and says which."""
    from tests.perf.deploy.test_pick_state import _bundle_folder

    run = _run(cut_measured=True)
    results.save(run, tmp_path)
    _bundle_folder(tmp_path, "slow", "The run's recommendation: the best level within the p99 budget of 25.00 ms.")
    res = CliRunner().invoke(cli, ["report", str(tmp_path), "--latency-budget-ms", "0.1"], env={"COLUMNS": "300"})
    said = " ".join(res.output.split())
    assert res.exit_code == 0 and "the run's pick under its own p99 budget of 25.00 ms is now `fast`" in said, said
    run.settings.pop("latency_budget_ms")
    assert "the run's pick by its best peak (it has no latency budget) is now `fast`" in stale_bundles(tmp_path, run)[0]
