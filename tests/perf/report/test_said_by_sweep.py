"""A run that an older toolkit swept is re-reported with its saved sentences apart and labelled (issue 26,
trial 17: `triton-perf report` of an old run re-printed the sweep's saved notes — "not verified here", a
tie set, "group 0" — word for word beside a ranking re-derived by today's rules, so the report contradicted
itself). What can be re-derived is (the rounds a group measured, a cut's recorded need, a ladder's rule and
level); the sentences themselves are said only under "Said by the sweep when it ran", with the toolkit and
date that said them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from perf.cli.report import report
from perf.records import results
from perf.records.provenance import TOOLKIT_KEY, code_id, stamp, written_by_today
from perf.records.rounds import BudgetRecord, Cut, LoadGroup, RoundRecord, RoundsRecord, Visit
from perf.records.search import SearchDecision, SearchRecord
from perf.report.sections.said import TITLE

NAMES = ("lead", "slow")
THR = {"lead": [1000, 1010, 990], "slow": [100, 90, 110]}
#: Sentences only the sweep that ran could say (trial 17's words, as saved then).
GROUP_ENDED = "ranking decided, assuming `slow`'s p99 over the budget, not verified here (every round host busy), holds"
FINAL = "after the rounds: 79 s left fit `cut` with the tie set `lead`, `slow`; not loaded: measured together in group 0 already"
CUT = "not measured: measuring it with the tie set `lead`, `slow` in a final group needs about 109 s"
#: The cut as said: its "not measured" once, in the label (trial 25, T25-10)
CUT_SAID = "variant not measured (`cut`): measuring it with the tie set `lead`, `slow` in a final group needs about 109 s"
PRUNED = "`lead` vs `slow`: too uneven for 3 rounds to tell, p 0.0091"
SAID = (GROUP_ENDED, FINAL, CUT, PRUNED, "group 0", "tie set `lead`, `slow`")


def _run(folder: Path, toolkit: list[str]) -> Path:
    variants = [variant_result(n, [level_result(4, t, 5.0, trial=r) for r, t in enumerate(THR[n])]) for n in NAMES]
    variants.append(variant_result("cut", [], status="skipped", error=f"cut for time: {CUT}"))
    rounds = [RoundRecord(r, 0, r, "now", 1.0, [Visit(n, 4) for n in NAMES]) for r in range(3)]
    rec = RoundsRecord(
        seed=1,
        groups=[LoadGroup(0, list(NAMES), "every contender fits", load_s=51.9, ended=GROUP_ENDED), LoadGroup(1, [], FINAL)],
        rounds=rounds,
        budget=BudgetRecord(180.0, 1.25, 5.0, 160.0, 6, spent_s=102.0),
        cuts=[Cut("variant", CUT, variant="cut", need_s=109.1)],
        ended=GROUP_ENDED,
    )
    search = SearchRecord("prune", True, order=list(NAMES), decisions=[SearchDecision("slow", "pruned", 4, PRUNED, measured=[4])])
    env = {TOOLKIT_KEY: toolkit or []}
    run = run_result(
        variants, created="2026-12-03T21:18:48+0000", environment=env, settings={"design": "rounds"}, rounds=rec, search=search
    )
    if not toolkit:  # a run saved before the toolkit was recorded: no key at all
        del run.environment[TOOLKIT_KEY]  # type: ignore[misc]
    folder.mkdir(parents=True)
    results.save(run, folder)
    return folder


def _apart(text: str) -> tuple[str, str]:
    """(the report without the Said section, the Said section)."""
    head, sep, rest = text.partition(f"## {TITLE}")
    said, _, tail = rest.partition("\n## ")
    return head + tail, sep + said


def test_an_older_toolkits_sentences_are_said_apart_with_who_said_them(tmp_path: Path) -> None:
    for toolkit, who in (([], "toolkit not recorded"), (["sha256:0123456789abcdef"], "toolkit sha256:0123456789abcdef")):
        folder = _run(tmp_path / (who.split()[-1]), toolkit)
        res = CliRunner().invoke(report, [str(folder)])
        assert res.exit_code == 0, res.output
        text = (folder / "report.md").read_text()
        rest, said = _apart(text)
        for words in SAID:  # the saved sentences: only in their own section, never beside today's verdicts
            assert words not in rest, words
        assert all(w in said for w in (GROUP_ENDED, FINAL, CUT_SAID, PRUNED)), said
        assert f"said by the sweep when it ran ({who}, started 2026-12-03T21:18:48+0000; today's is {code_id()})" in said
        # what the measurements still tell is said where it was: the group's rounds and load, the cut's need, the rule
        assert "- Group 1 (`lead`, `slow`): loaded and prepared in 51.9 s; 3 rounds measured (why it was loaded and why" in rest
        assert "variant not measured (`cut`): about 109 s needed; the sweep's words: in" in rest
        assert "`slow`: pruned at concurrency 4 (the sweep's words: in" in rest
        assert all(w in (folder / "appendix.md").read_text() for w in (GROUP_ENDED, FINAL, CUT_SAID, PRUNED))
        assert f"in {TITLE!r}; every verdict printed here is re-derived by today's rules" in " ".join(res.output.split())


def test_todays_own_sentences_are_said_in_place(tmp_path: Path) -> None:
    folder = _run(tmp_path / "today", [code_id()])
    res = CliRunner().invoke(report, [str(folder)])
    assert res.exit_code == 0, res.output
    text = (folder / "report.md").read_text()
    assert TITLE not in text and "the sweep's words" not in text and "re-derived by today's rules" not in res.output
    assert "every contender fits; loaded and prepared in 51.9 s" in text and CUT_SAID in text


def test_each_sessions_toolkit_is_recorded_and_a_resume_by_other_code_is_not_today(tmp_path: Path) -> None:
    run = run_result()
    del run.environment[TOOLKIT_KEY]  # type: ignore[misc]
    assert not written_by_today(run)  # saved before the toolkit was recorded
    stamp(run)
    stamp(run)  # a resume by the same code: recorded once
    assert run.environment[TOOLKIT_KEY] == [code_id()] and written_by_today(run)  # type: ignore[typeddict-item]
    results.save(run, tmp_path)
    assert written_by_today(results.load(tmp_path))  # kept in results.json
    older = run_result(environment={TOOLKIT_KEY: ["sha256:0123456789abcdef"]})
    stamp(older)  # resumed by today's code: its first session's words are still the older code's
    assert older.environment[TOOLKIT_KEY] == ["sha256:0123456789abcdef", code_id()]  # type: ignore[typeddict-item]
    assert not written_by_today(older)


def test_the_sweep_stamps_each_session() -> None:
    """The sweep's every session records its toolkit where it records the rest of its environment."""
    source = (Path(__file__).resolve().parents[3] / "perf/sweep/run.py").read_text()
    at = source.index("self.run.environment.update(")
    assert "stamp(self.run)" in source[at : at + 200]
