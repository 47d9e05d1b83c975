"""``triton-perf report RUN --html`` names every file it wrote, not only report.md (new-user trial)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from factories import make_run

from perf.cli.main import cli
from perf.records.results import save


def test_report_prints_every_file_it_wrote(tmp_path: Path) -> None:
    save(make_run(), tmp_path)
    before = {p.name for p in tmp_path.iterdir()}
    out = CliRunner().invoke(cli, ["report", str(tmp_path), "--html"])
    assert out.exit_code == 0, out.output
    # the record of what the toolkit wrote (perf.markdown.WRITTEN_FILE, hidden: T25-17) is bookkeeping, not a file to read
    written = {p.name for p in tmp_path.iterdir() if not p.name.startswith(".")} - before
    assert {"report.md", "appendix.md", "report.html"} <= written and any(n.endswith(".png") for n in written)
    missing = [n for n in written if n not in out.output]
    assert not missing, f"written but not printed: {missing}\n{out.output}"
    # said before the work, which takes minutes on a busy host (trial 18, T18-4: 2 min 17 s of silence)
    assert out.output.startswith(f"writing the report and its plots of {tmp_path.name} ...\n"), out.output


def test_a_failed_visit_of_a_rounds_run_is_in_report_md_with_its_message(tmp_path: Path) -> None:
    """The trial: one perf_analyzer error of a rounds run showed only in results.json and flat.csv
    (the level's other rounds had numbers, so its tables and ranking showed nothing wrong)."""
    from factories import level_result, params, variant_result

    from perf.records.results import RunResult
    from perf.records.rounds import RoundsRecord
    from perf.report.write import write_report

    error = "Pass [2] cb::Error: No valid requests recorded within time interval. Please use a *larger* time window."
    levels = [level_result(c, 100.0 * c + r, 2.0 * c, trial=r) for c in (1, 2) for r in range(4)]
    levels.append(level_result(2, None, None, trial=4, error=error))
    run = RunResult("r", "now", {}, {}, [variant_result(params(1, True)["name"], levels)])
    run.rounds = RoundsRecord(seed=1)
    save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "- **Failed measurements** (1; perf_analyzer's message; the level's other rounds are kept):" in text
    assert (
        f"`{params(1, True)['name']}` c=2 b=1, round 5: Pass \\[2\\] cb::Error: No valid requests recorded within time "
        "interval. Please use a \\*larger\\* time window." in text
    )


def test_a_failed_visit_on_the_servers_state_says_it_is_not_the_repository() -> None:
    """Re-check of trial 14, NEW-3: "failed to find the requested model version" under load, the model loaded,
    was listed as a bare failure that reads like a repository or config problem; a refused input stays as it is."""
    from factories import level_result, params, variant_result

    from perf.records.levels import TRANSIENT_WORDS
    from perf.records.results import RunResult
    from perf.records.rounds import RoundsRecord
    from perf.report.sections.tables import failed_measurements

    version = "perf_analyzer reported request errors: failed to find the requested model version"
    refused = "perf_analyzer reported request errors: unexpected shape for input 'x'"
    levels = [level_result(c, 100.0 * c + r, 2.0 * c, trial=r) for c in (1, 2) for r in range(4)]
    levels += [level_result(2, None, None, trial=4, error=version), level_result(1, None, None, trial=4, error=refused)]
    run = RunResult("r", "now", {}, {}, [variant_result(params(1, True)["name"], levels)])
    run.rounds = RoundsRecord(seed=1)
    said = dict(failed_measurements(run))
    assert said[f"{params(1, True)['name']} c=2 b=1, round 5"] == f"{version} ({TRANSIENT_WORDS})"
    assert said[f"{params(1, True)['name']} c=1 b=1, round 5"] == refused


def test_a_failure_later_rounds_measured_is_no_failed_measurement(tmp_path: Path) -> None:
    """Trial 22, F-resume-stale-fail: a resume's end said "failed measurement: ... c=16 b=1, round 2: Received exit
    signal." of a level it measured in rounds 5 and 6 (the variant's best): report.md and the console list it as
    failed, then measured, with the rounds since; a level with no ok round after its failure stays a failed one."""
    from factories import level_result, params, variant_result

    from perf.records.results import RunResult
    from perf.records.rounds import RoundsRecord
    from perf.report.sections.tables import failed_measurements
    from perf.report.write import write_report

    name = params(1, True)["name"]
    levels = [level_result(c, 100.0 * c + r, 2.0 * c, trial=r) for c in (1, 16) for r in (0, 4, 5)]
    levels += [level_result(16, None, None, trial=1, error="Received exit signal.")]
    levels += [level_result(1, None, None, trial=6, error="Received exit signal.")]  # nothing after it
    run = RunResult("r", "now", {}, {}, [variant_result(name, levels)])
    run.rounds = RoundsRecord(seed=1)
    assert failed_measurements(run) == [(f"{name} c=1 b=1, round 7", "Received exit signal.")]
    assert failed_measurements(run, since=True) == [
        (f"{name} c=16 b=1, round 2", "Received exit signal; measured since in rounds 5, 6")
    ]
    save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "- **Failed measurements** (1; perf_analyzer's message; the level's other rounds are kept):" in text
    assert f"`{name}` c=1 b=1, round 7: Received exit signal." in text
    assert "- **Failed, then measured** (1; perf_analyzer's message, then the rounds that measured the level since" in text
    assert f"`{name}` c=16 b=1, round 2: Received exit signal; measured since in rounds 5, 6" in text


def test_a_failed_level_of_a_size_series_names_its_size_once(tmp_path: Path) -> None:
    """T24-4: report.md said "`segnet_ts_cpu1_nodb_mbs8` \\[H=128,W=128\\] c=1 b=1 H=128,W=128, round 2": the
    series' name (a run at one swept size) carries the size, and the level's size was added again."""
    from factories import level_result, params, variant_result

    from perf.records.results import RunResult
    from perf.records.rounds import RoundsRecord
    from perf.records.workloads import split_by_workload
    from perf.report.sections.tables import failed_measurements

    name = params(1, True)["name"]
    levels = [level_result(1, 100.0 + r, 2.0, trial=r) for r in range(3)]
    levels += [level_result(1, None, None, trial=3, error="Received exit signal.")]
    for lv in levels:
        lv.shape = "H=128,W=128"
    run = RunResult("r", "now", {}, {}, [variant_result(name, levels)])
    run.rounds = RoundsRecord(seed=1)
    assert failed_measurements(run) == [(f"{name} c=1 b=1 H=128,W=128, round 4", "Received exit signal.")]
    shown = split_by_workload(run)
    assert failed_measurements(shown) == [(f"{name} [H=128,W=128] c=1 b=1, round 4", "Received exit signal.")]
