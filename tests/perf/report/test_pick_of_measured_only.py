"""A pick made among only some of the variants (the others cut for time before they were measured)
says so in every place the pick is stated, in the same sentence (perf.analysis.recommendation.cuts.unmeasured_caveat):
report.md's Recommendation, the console summary, export-deployment's console and the bundle README
(trial 8, F22: report.md said "5 of the 8 variants were not measured", the deploy step and the
bundle did not; trial 9, F26: said only as a "note:" below the pick, and the README's note ended
"measures them.."). A cut variant takes one short row in the console table, its long reason said
once in report.md (trial 8: 9 wrapped lines per cut variant drowned the 3 measured rows)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.cuts import cut_notes, unmeasured_caveat
from perf.cli.main import cli
from perf.deploy import bundle as bundle_module
from perf.deploy.choose import choose_variant
from perf.deploy.readme import readme
from perf.records import results
from perf.records.rounds import Cut, RoundsRecord

WHY = (
    "cut for time: after the rounds 4 s of the time budget were left; measuring it with 1 more promising cut variant and "
    "the tie set in a final group needs about 124 s for the 6 rounds a verdict needs (measured: 1.42 s a visit)"
)
CAVEAT = (
    "The pick is the best of 2 of the 4 variants; not measured (cut for time): `cut_a`, `cut_b`; a longer "
    "`--time-budget` measures them."
)


def _run():
    measured = [
        variant_result(n, [level_result(c, thr * c, 2.0 * c, trial=r, spread=True) for c in (1, 2) for r in range(3)])
        for n, thr in (("fast", 300.0), ("slow", 100.0))
    ]
    cut = [variant_result(n, status="skipped", error=WHY) for n in ("cut_a", "cut_b")]
    run = run_result([*measured, *cut], settings={"latency_budget_ms": 25.0}, finished="x")
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", f"not measured: {WHY}", n) for n in ("cut_a", "cut_b")])
    return run


def test_the_caveat_is_one_sentence_said_by_the_report_and_the_deployment():
    run = _run()
    assert unmeasured_caveat(run) == CAVEAT
    assert cut_notes(run) == [CAVEAT]  # report.md's Recommendation
    chosen = choose_variant(run, allow_cut=True)  # asked for: deployed unasked it is refused (test_pick_state)
    assert chosen.variant == "fast" and chosen.unmeasured == CAVEAT  # export's console and the bundle README
    assert CAVEAT not in chosen.caveats  # said once, first: not one more note below the pick
    assert choose_variant(run, "slow").unmeasured is None  # a variant named on purpose is not "the pick"
    run.rounds = RoundsRecord(seed=1)
    assert unmeasured_caveat(run) is None and choose_variant(run).unmeasured is None  # no cut: deployed unasked


def _bundle(chosen, folder: Path) -> SimpleNamespace:
    """What the README and the command's output read of a bundle (perf.deploy.bundle.Bundle)."""
    plan = SimpleNamespace(
        name="triton-fast", claim="c", loader="l", image="img", storage_bytes=1000, resources=SimpleNamespace(why=["1 core"])
    )
    return SimpleNamespace(
        plan=plan,
        chosen=chosen,
        folder=folder,
        files_check=None,
        serving_note=None,
        differences=[],
        renamed=(),
        previous=None,
        release_check=None,
        input_sizes=None,
    )


def test_the_bundle_says_it_first_in_its_readme_and_right_below_the_pick_on_the_console(tmp_path: Path, monkeypatch):
    run = _run()
    lines = readme(_bundle(choose_variant(run, allow_cut=True), tmp_path), run, tmp_path)
    head = lines[: lines.index("## Why this variant")]
    assert f"**{CAVEAT}** (exported with `--allow-cut`)" in head  # before the Why, not a note below it
    assert not any(".." in ln for ln in lines if "measures them" in ln)
    monkeypatch.setattr(
        bundle_module, "export_deployment", lambda *a, **k: _bundle(choose_variant(run, allow_cut=k["allow_cut"]), tmp_path)
    )
    results.save(run, tmp_path)
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path), "--allow-cut"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    out = [ln for ln in res.output.splitlines() if ln.strip()]
    assert out[0].startswith("variant: fast ") and out[1] == CAVEAT  # right below the pick, not a "note:"
    assert not any(ln.startswith("note: The pick") for ln in out)


def test_the_console_summary_gives_a_cut_variant_one_short_row_and_says_the_caveat_once(tmp_path: Path):
    results.save(_run(), tmp_path)
    res = CliRunner().invoke(cli, ["report", str(tmp_path)], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    table = res.output.split("┡", 1)[1].split("└", 1)[0].splitlines()[1:]
    for name in ("cut_a", "cut_b"):  # one line each: no wrapped reason on a line after it
        row = next(i for i, ln in enumerate(table) if f"│ {name} " in ln)
        assert "cut for time (see report.md)" in table[row]
        assert row + 1 == len(table) or table[row + 1].split("│")[1].strip()  # the next line is the next variant's
    assert "needs about" not in res.output and "skipped" not in "".join(table)
    assert " ".join(res.output.split()).count(CAVEAT) == 1  # below the table, once


def test_a_variant_cut_in_two_sessions_is_counted_once_and_one_cut_is_said_in_the_singular():
    """The reviewer's case: a resume cuts a variant again (its reason carries that session's numbers);
    the caveat said "2 of the 3 variants were not measured (cut for time: `c`, `c`)"."""
    run = _run()
    run.rounds.cuts.append(Cut("variant", "not measured: the next session's reason", "cut_a"))
    assert unmeasured_caveat(run) == CAVEAT
    run.rounds.cuts = [c for c in run.rounds.cuts if c.variant == "cut_a"]
    assert (unmeasured_caveat(run) or "").startswith(
        "The pick is the best of 2 of the 4 variants; not measured (cut for time): `cut_a`;"
    )


def test_with_no_level_within_the_budget_the_caveat_does_not_name_a_pick() -> None:
    """Trial 22: a what-if report at 1 ms said "The pick is the best of 7 of the 8 variants" above "No level meets the
    p99 budget of 1.00 ms": the caveat names what IS the best of the measured ones (the best peak), or none."""
    from perf.analysis.recommendation.cuts import NO_PICK_SUBJECT, caveat_subject
    from perf.analysis.recommendation.recommend import recommend
    from perf.cli.summary import summary

    run = _run()
    rec = recommend(run, 1.0)
    assert rec.best_under_budget is None and rec.best_peak is not None
    peak = CAVEAT.replace("The pick is", "The best peak is")
    assert peak in rec.notes and CAVEAT not in rec.notes
    assert summary(run, 1.0).notes[0] == peak  # the console says the same sentence
    assert recommend(run, 25.0).notes.count(CAVEAT) == 1  # a pick under the budget: the pick
    assert caveat_subject(None, None, 1.0) == NO_PICK_SUBJECT
    assert (unmeasured_caveat(run, NO_PICK_SUBJECT) or "").startswith("These results are of 2 of the 4 variants; not measured")
