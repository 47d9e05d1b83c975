"""A pick made while the time budget cut variants before they were measured is not deployed unasked, and a bundle of
the run's recommendation that a resume no longer picks is said to be of an earlier pick (perf.deploy.pick_state).

Trial 22, F-demo-cut-winner: ``make demo``'s step 4 bundled the best of 7 of the 8 variants as "the run's
recommendation"; the cut one, measured by the resume the demo printed, beat it 1.85x. F-stale-bundle: after that
resume, the bundle's README still said "The run's recommendation" and neither the resume's end nor report.md said
the run folder held a bundle of a variant no longer picked."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from core.errors import PerfError
from perf.cli.main import cli
from perf.deploy.choose import choose_variant
from perf.deploy.pick_state import ALLOW_CUT
from perf.deploy.readme import readme
from perf.deploy.stale import current_pick, recommended_variant, stale_bundles
from perf.records import results
from perf.records.rounds import Cut, RoundsRecord

WHY = "cut for time: 8 variants need about 188 s for the 6 rounds a verdict needs, over the 179 s left"


def _run(cut_measured: bool = False):
    """Two variants measured (``fast`` the pick), ``cut_a`` cut for time: before it was measured, or after its first
    round (``cut_measured``: its numbers are in the ranking)."""
    measured = [
        variant_result(n, [level_result(c, thr * c, 2.0 * c, trial=r, spread=True) for c in (1, 2) for r in range(3)])
        for n, thr in (("fast", 300.0), ("slow", 100.0))
    ]
    levels = [level_result(1, 50.0, 2.0, trial=0)] if cut_measured else []
    cut = variant_result("cut_a", levels, status="skipped", error=WHY)
    run = run_result([*measured, cut], settings={"latency_budget_ms": 25.0}, finished="x")
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", f"not measured: {WHY}", "cut_a")])
    return run


def test_the_pick_of_some_variants_is_deployed_only_when_asked() -> None:
    run = _run()
    with pytest.raises(PerfError) as refused:
        choose_variant(run)
    said = str(refused.value)
    assert said.startswith(
        "nothing deployed unasked: the pick is the best of 2 of the 3 variants; not measured (cut for time): `cut_a`"
    )
    assert "measures it" in said and ALLOW_CUT in said and "--variant NAME" in said
    asked = choose_variant(run, allow_cut=True)
    assert asked.variant == "fast" and (asked.unmeasured or "").startswith("The pick is the best of 2 of the 3")
    assert choose_variant(run, "slow").variant == "slow"  # named on purpose: not "the run's pick"
    # a variant cut after its first round is in the ranking with its numbers: said by the caveat, not refused
    assert choose_variant(_run(cut_measured=True)).variant == "fast"


def test_export_deployment_refuses_it_and_writes_no_bundle(tmp_path: Path) -> None:
    results.save(_run(), tmp_path)
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path)], env={"COLUMNS": "200"})
    assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output  # main() prints it, no traceback
    assert "nothing deployed unasked: the pick is the best of 2 of the 3 variants" in str(res.exception)
    assert ALLOW_CUT in str(res.exception) and not list(tmp_path.glob("deployment-*"))
    helped = CliRunner().invoke(cli, ["export-deployment", "--help"], env={"COLUMNS": "300"})
    assert ALLOW_CUT in helped.output


def _bundle_folder(run_dir: Path, variant: str, why: str) -> Path:
    folder = run_dir / f"deployment-{variant}"
    folder.mkdir()
    (folder / "README.md").write_text(f"# Deployment bundle: `{variant}`\n\nWritten by ...\n\n## Why this variant\n\n{why}\n")
    return folder


def test_a_bundle_of_an_earlier_pick_is_said_wherever_the_pick_is(tmp_path: Path) -> None:
    run = _run(cut_measured=True)  # a resume measured what was cut: the pick is fast
    results.save(run, tmp_path)
    _bundle_folder(tmp_path, "slow", "The run's recommendation: the best level within the p99 budget of 25.00 ms.")
    _bundle_folder(tmp_path, "fast", "The run's recommendation: the best level within the p99 budget of 25.00 ms.")
    _bundle_folder(tmp_path, "cut_a", "Named with --variant: its best level within the p99 budget of 25.00 ms.")
    (tmp_path / "deployment-slow.previous-1").mkdir()  # replaced: its name says so
    said = stale_bundles(tmp_path, run)
    assert said == [  # the pick's bundle is there already: said, not "writes its bundle" (break-it F7)
        "`deployment-slow` was written for an earlier pick (`slow`); the run's pick under its own p99 budget of 25.00 ms is now `fast`, "
        "whose bundle `deployment-fast` is there too"
    ]
    shutil.rmtree(tmp_path / "deployment-fast")
    said = stale_bundles(tmp_path, run)
    assert said == [
        "`deployment-slow` was written for an earlier pick (`slow`); the run's pick under its own p99 budget of 25.00 ms is now `fast`: "
        f"`triton-perf export-deployment {tmp_path}` writes its bundle"
    ]
    res = CliRunner().invoke(cli, ["report", str(tmp_path)], env={"COLUMNS": "200"})  # a resume's end prints this too
    assert res.exit_code == 0, res.output
    assert said[0] in " ".join(res.output.split())
    report = (tmp_path / "report.md").read_text()
    assert f"- **A bundle of an earlier pick**: {said[0]}." in report


def test_the_command_a_stale_bundle_line_advises_is_one_export_deployment_takes(tmp_path: Path) -> None:
    """Break-it F7: the line advised the bare command for a run whose pick it refuses (variants cut unmeasured)."""
    run = _run()  # cut_a, cut_b never measured: export-deployment RUN alone refuses it
    results.save(run, tmp_path)
    pick = current_pick(run, tmp_path)
    other = next(v.name for v in run.variants if v.name != pick and v.levels)
    _bundle_folder(tmp_path, other, "The run's recommendation: the best level within the p99 budget of 25.00 ms.")
    said = stale_bundles(tmp_path, run)
    command = f"triton-perf export-deployment {tmp_path} --allow-cut"
    assert len(said) == 1 and f"`{command}` writes its bundle" in said[0], said
    # what export-deployment decides with exactly those flags: the pick (without them: refused)
    assert choose_variant(run, None, None, False, tmp_path.parent, allow_cut=True).variant == pick
    with pytest.raises(PerfError, match="nothing deployed unasked"):
        choose_variant(run, None, None, False, tmp_path.parent)


def test_a_bundle_of_the_runs_recommendation_says_a_resume_may_change_it_and_is_read_back(tmp_path: Path) -> None:
    run = _run(cut_measured=True)
    chosen = choose_variant(run)
    plan = SimpleNamespace(
        name="triton-fast", claim="c", loader="l", image="img", storage_bytes=1000, resources=SimpleNamespace(why=["1 core"])
    )
    bundle = SimpleNamespace(
        plan=plan, chosen=chosen, folder=tmp_path, files_check=None, serving_note=None, differences=[], renamed=(),
        previous=None, release_check=None, input_sizes=None,
    )  # fmt: skip
    lines = readme(bundle, run, tmp_path)
    assert any("a later `--resume` of run" in ln and "of an earlier pick" in ln for ln in lines)
    (tmp_path / "README.md").write_text("\n".join(lines))
    assert recommended_variant(tmp_path) == "fast"
    named = readme(SimpleNamespace(**{**vars(bundle), "chosen": choose_variant(run, "slow")}), run, tmp_path)
    (tmp_path / "README.md").write_text("\n".join(named))
    assert recommended_variant(tmp_path) is None and not any("a later `--resume`" in ln for ln in named)


@pytest.mark.parametrize("flag", ["--allow-cut", "--allow-unfinished"])
def test_the_allowances_of_the_runs_pick_are_refused_beside_a_named_variant(tmp_path: Path, flag: str) -> None:
    """Break-it F5: `export-deployment RUN --variant V --allow-cut` accepted and ignored the flag (a named variant is
    deployed without it)."""
    results.save(_run(), tmp_path)
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--variant", "fast", flag], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    said = " ".join(res.output.split())
    assert f"{flag} would be ignored: they let the run's own pick be deployed" in said and f"drop {flag}" in said
    assert not list(tmp_path.glob("deployment-*"))
