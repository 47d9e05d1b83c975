"""Where the report's latency budget came from (perf.analysis.recommendation.budget_origin).

``--latency-budget-ms`` has no default (``triton-perf sweep --help``: ``[default: none]``): a run swept without one
names no budget. Break-it F15's report part: a budget given on a ``--resume`` of a run swept without one made report.md
say "Best under the p99 budget of 5.00 ms" of ladders that never ran under it, with no word of it. Each session now
records the budget it ran under (Session.budget) and the report and the console say where the run's came from.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from factories import make_run

from perf.analysis.recommendation.budget_origin import FROM_VARIABLE, NO_BUDGET, budget_from, session_budget
from perf.analysis.recommendation.recommend import recommend
from perf.cli import main as perf_cli
from perf.cli.summary import summary
from perf.records import results
from perf.records.results import RunResult, Session
from perf.report.write import write_report

NOTE = "Budget given on a resume: the p99 5 ms budget was given on session 2's `--resume`"


def _run(*budgets: str | None, ms: float | None = 5.0) -> RunResult:
    run = make_run()
    run.settings["latency_budget_ms"] = ms
    run.sessions = [Session(f"2026-12-0{i}T00:00:00+0000", "finished", budget=b) for i, b in enumerate(budgets, 1)]
    return run


def test_a_budget_given_on_a_resume_says_the_session_that_ran_without_it(tmp_path: Path) -> None:
    run = _run(NO_BUDGET, session_budget(5.0, 99))
    rec = recommend(run, 5.0)
    said = next((n for n in rec.notes if n.startswith(NOTE)), None)
    assert (
        said is not None
        and "session 1 ran without a latency budget, so its ladders were not stopped at this budget" in said
        and "has no default" in said
    )
    assert any(n.startswith(NOTE) for n in summary(run).notes)  # the console's notes under the table
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert f"- {NOTE}" in text and "Best under the p99 budget of 5.00 ms" in text


def test_no_word_where_every_session_ran_under_it_or_none_was_recorded() -> None:
    for run in (_run(session_budget(5.0, 99), session_budget(5.0, 99)), _run(None, None)):
        assert not any("Budget given on a resume" in n for n in recommend(run, 5.0).notes)


def test_a_run_swept_without_a_budget_names_none(tmp_path: Path) -> None:
    run = _run(NO_BUDGET, ms=None)
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "No latency budget given" in text and "budget of" not in text.split("## Recommendation")[1].split("\n- ")[1]
    res = CliRunner().invoke(perf_cli.cli, ["sweep", "--help"])
    assert "[default: none]" in " ".join(res.output.split())  # the help the words match


def test_session_budget_words() -> None:
    assert session_budget(None, 99) == NO_BUDGET and session_budget(5.0, 95) == "p95 5 ms"


def test_a_budget_a_script_set_for_the_user_says_it_is_that_scripts_default(monkeypatch, tmp_path: Path) -> None:
    """make demo passes --latency-budget-ms 25 (DEMO_BUDGET_MS's default) for a user who typed no budget: its report
    said "Best under the p99 budget of 25.00 ms" as if given. scripts/demo.sh names itself in TRITON_PERF_BUDGET_FROM,
    each session records it (Session.budget_from) and the report and the console say so."""
    monkeypatch.setenv(FROM_VARIABLE, "make demo's default (DEMO_BUDGET_MS unset)")
    assert budget_from(25.0) == "make demo's default (DEMO_BUDGET_MS unset)" and budget_from(None) is None
    run = _run(session_budget(25.0, 99), ms=25.0)
    run.sessions[0].budget_from = budget_from(25.0)
    said = "Budget: the p99 25 ms budget is make demo's default (DEMO_BUDGET_MS unset), not typed"
    assert any(n.startswith(said) for n in recommend(run, 25.0).notes)
    assert any(n.startswith(said) for n in summary(run).notes)
    results.save(run, tmp_path)
    assert said in write_report(tmp_path).read_text()
    monkeypatch.delenv(FROM_VARIABLE)
    assert budget_from(25.0) is None  # typed by the user: no word
    demo = (Path(__file__).resolve().parents[3] / "scripts" / "demo.sh").read_text()
    assert f'{FROM_VARIABLE}="$BUDGET_FROM" perf/run_sweep.sh' in demo


def test_a_budget_the_user_set_through_the_demos_variable_is_said_as_theirs(monkeypatch, tmp_path: Path) -> None:
    """Trial 28, T28-10: `DEMO_BUDGET_MS=10 make demo` said "the p99 10 ms budget is make demo's DEMO_BUDGET_MS, not
    typed": the user chose it. scripts/demo.sh records the variable and its value (NAME=VALUE), said "set by"."""
    import subprocess

    demo = Path(__file__).resolve().parents[3] / "scripts" / "demo.sh"
    line = next(ln for ln in demo.read_text().splitlines() if ln.startswith('if [ -n "${DEMO_BUDGET_MS:-}" ]'))
    for value, recorded in (("10", "DEMO_BUDGET_MS=10"), ("", "make demo's default (DEMO_BUDGET_MS unset)")):
        env = {"PATH": "/usr/bin:/bin", "DEMO_BUDGET_MS": value}
        got = subprocess.run(["bash", "-c", f'{line}\necho "$BUDGET_FROM"'], env=env, capture_output=True, text=True)
        assert got.stdout.strip() == recorded, got
    monkeypatch.setenv(FROM_VARIABLE, "DEMO_BUDGET_MS=10")
    run = _run(session_budget(10.0, 99), ms=10.0)
    run.sessions[0].budget_from = budget_from(10.0)
    said = [n for n in recommend(run, 10.0).notes if n.startswith("Budget: ")]
    assert said == ["Budget: the p99 10 ms budget is set by DEMO_BUDGET_MS=10"], said
    results.save(run, tmp_path)
    report = write_report(tmp_path).read_text()
    assert "set by DEMO_BUDGET_MS=10" in report and "not typed" not in report


def test_the_demos_budget_words_say_its_default_once_and_never_that_its_variable_has_none(tmp_path: Path) -> None:
    """Trial 26, T26-12: `make demo` printed "the p99 25 ms budget is make demo's default (DEMO_BUDGET_MS unset), not
    typed (DEMO_BUDGET_MS (`DEMO_BUDGET_MS=... make demo`) itself has no default)": the sweep's "(`--latency-budget-ms`
    itself has no default)" said with the demo's variable. The words name no flag the demo says as its variable: the
    sweep prints them, the demo's translation (perf.cli.demo_settings.as_demo, advice) leaves them as they are."""
    import re

    from perf.cli.demo_settings import advice, as_demo, knob_pairs

    no_default = "the sweep itself has no default budget"
    demo = (Path(__file__).resolve().parents[3] / "scripts" / "demo.sh").read_text()
    knobs = knob_pairs(re.search(r"KNOBS=\(([^)]*)\)", demo).group(1).split())  # type: ignore[union-attr]
    assert ("--latency-budget-ms", "DEMO_BUDGET_MS") in knobs
    recorded = re.findall(r'\bBUDGET_FROM="([^"]+)"', demo)  # what demo.sh records: its variable given, its default
    assert recorded == ["DEMO_BUDGET_MS=$DEMO_BUDGET_MS", "make demo's default (DEMO_BUDGET_MS unset)"]
    for by in ("DEMO_BUDGET_MS=25", recorded[1]):
        run = _run(session_budget(25.0, 99), ms=25.0)
        run.sessions[0].budget_from = by
        said = [n for n in summary(run).notes if n.startswith("Budget: ")]
        words = "set by DEMO_BUDGET_MS=25" if "=" in by else f"{by}, not typed ({no_default})"
        assert said == [f"Budget: the p99 25 ms budget is {words}"], said
        assert [as_demo(n, knobs) for n in said] == said  # the demo says it as the sweep does
        results.save(run, tmp_path)
        assert not [a for a in advice(tmp_path, knobs) if "budget" in a.lower()]  # and not again, rewritten
    resumed = _run(NO_BUDGET, session_budget(5.0, 99))  # the resume's words: the same clause, the same translation
    note = next(n for n in recommend(resumed, 5.0).notes if n.startswith(NOTE))
    assert f"({no_default})" in note and as_demo(note, knobs) == note
