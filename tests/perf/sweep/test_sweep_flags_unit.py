"""Sweep flags that take effect or are refused as usage errors (issue 26): ``--round-window`` was
never applied (every visit measured 3 windows of the default 300 ms), and ``--shapes`` naming an
axis no build has only warned per variant and measured every variant at its own shape. No server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.view import Repository
from clients.server import ServerOptions
from core.errors import FlagError, PerfError
from perf.cli import main as perf_cli
from perf.sweep.design_flags import DESIGN_ONLY, flag_of
from perf.sweep.run import Sweep, SweepOptions

SPEC = ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 49)),), (TensorSpec("y", "float32", (4,)),), {"seq": (1, 24, 128)})


def _repo(root: Path, names: list[str]) -> Path:
    for n in names:
        (root / n).mkdir(parents=True)
        (root / n / "config.pbtxt").write_text(
            f'name: "{n}"\nbackend: "python"\nmax_batch_size: 8\n'
            'input [ { name: "ids" data_type: TYPE_INT64 dims: [ -1 ] } ]\n'
            'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    return root


@pytest.fixture()
def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Two variants whose builds' specs have the dynamic axis ``seq``."""
    monkeypatch.setattr(
        Repository,
        "variant",  # its folder: the in-process baseline's estimate reads each config there
        lambda self, name: type(
            "V", (), {"spec": SPEC, "served_spec": SPEC, "entry": None, "folder": tmp_path / "repo" / name}
        )(),
    )
    return _repo(tmp_path / "repo", ["enc_a", "enc_b"])


def _opts(repo: Path, tmp_path: Path, **kw: Any) -> SweepOptions:
    return SweepOptions(ServerOptions(repo, runtime="bundled"), concurrency=(1,), results_dir=tmp_path / "results", **kw)


def test_the_round_window_is_the_window_the_rounds_measure(built: Path, tmp_path: Path) -> None:
    sw = Sweep(_opts(built, tmp_path, round_window_ms=150, run_id="w"))
    assert sw.run.rounds is not None and sw.run.rounds.rules.window_ms == 150
    assert Sweep(_opts(built, tmp_path, run_id="d")).run.rounds.rules.window_ms == 300  # type: ignore[union-attr]


def test_a_shapes_axis_no_build_has_is_a_usage_error(built: Path, tmp_path: Path) -> None:
    with pytest.raises(
        FlagError,
        match=r"^'sq' \(did you mean 'seq'\?\) names no dynamic axis of the builds of this sweep's variants; "
        r"the dynamic axes of the builds of this sweep's variants: seq",
    ):
        Sweep(_opts(built, tmp_path, sweep_axes={"sq": (16, 64)}, run_id="s"))
    sw = Sweep(_opts(built, tmp_path, sweep_axes={"seq": (16, 64)}, run_id="ok"))  # a known axis: swept
    assert sw.plans["enc_a"].shapes == ("seq=16", "seq=64")
    res = CliRunner().invoke(
        perf_cli.cli,
        ["sweep", "--repository", str(built), "--shapes", "sq=16,64", "--results-dir", str(tmp_path / "r"), "--no-report"],
    )
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "Invalid value for --shapes: 'sq' (did you mean 'seq'?) names no dynamic axis" in text
    assert "the dynamic axes of the builds of this sweep's variants: seq" in text
    assert "Traceback" not in res.output


def test_shapes_outside_the_range_are_told_the_range_that_holds_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--shapes below min and above max: one hint, the flag widened at both ends (trial 9, F11)."""
    spec = ModelSpec(SPEC.inputs, SPEC.outputs, {"seq": (16, 24, 128)})
    monkeypatch.setattr(
        Repository, "variant", lambda self, name: type("V", (), {"spec": spec, "served_spec": spec, "entry": None})()
    )
    repo = _repo(tmp_path / "repo", ["enc_a"])
    with pytest.raises(PerfError, match=r"--shapes seq=8,64,200: \[8, 200\] outside the axis's range 16\.\.128") as e:
        Sweep(_opts(repo, tmp_path, sweep_axes={"seq": (8, 64, 200)}, run_id="s"))
    assert "to sweep 8 and 200, rebuild with a wider range: builders build ... --dynamic-axis seq=8,24,200 " in (
        e.value.hint or ""
    )


def test_one_axis_named_by_two_shapes_flags_is_a_usage_error() -> None:
    """``--shapes seq=16 --shapes seq=64`` swept 64 only: the first flag was silently replaced."""
    from perf.sweep.flags import sweep_axes_flags

    assert sweep_axes_flags(("seq=16,64", "img=32")) == {"seq": (16, 64), "img": (32,)}
    with pytest.raises(click.BadParameter, match=r"--shapes seq given twice \(16 and 64\).*--shapes seq=16,64"):
        sweep_axes_flags(("seq=16", "seq=64"))


def test_a_flag_the_design_ignores_is_refused_saying_what_that_design_uses(built: Path, tmp_path: Path) -> None:
    """The README's remote example passed --max-trials 4 --unstable-retries 0 (sequential-only) to a
    rounds sweep, which warned; trial 14, T14-6: --measurement-interval 2000 (the default's value) was
    taken by a rounds sweep without a word. Now every design-only flag is refused under the other design."""
    from perf.records.settings import MeasureSettings

    with pytest.raises(FlagError) as e:
        Sweep(_opts(built, tmp_path, measure=MeasureSettings(max_trials=4, unstable_retries=0), run_id="r"))
    assert e.value.flag == "--max-trials"
    assert e.value.message.startswith("--max-trials 4 sets the windows a sequential level may take to find 3 that agree; ")
    assert "--unstable-retries 0 sets the sequential design's retries" in e.value.message
    assert e.value.hint == "drop --max-trials, or --design sequential; drop --unstable-retries, or --design sequential"
    with pytest.raises(FlagError) as e:
        Sweep(_opts(built, tmp_path, design="sequential", round_window_ms=150, run_id="s"))
    assert e.value.message == (
        "--round-window 150 sets the windows of a rounds visit (ms); a sequential sweep's window is "
        "--measurement-interval (default 2000 ms)"
    )
    assert e.value.hint == "give --measurement-interval 150, or --design rounds"
    assert not (tmp_path / "results" / "s").exists()
    Sweep(_opts(built, tmp_path, run_id="d"))  # defaults: nothing to refuse
    Sweep(_opts(built, tmp_path, design="sequential", trials=2, measure=MeasureSettings(max_trials=4), run_id="q"))


@pytest.mark.parametrize("field", sorted(DESIGN_ONLY))
def test_each_design_only_flag_given_is_refused_by_the_other_design_even_at_its_default(
    built: Path, tmp_path: Path, field: str
) -> None:
    """Told given by click's ParameterSource (``given``), not by a value other than the default:
    ``--measurement-interval 2000`` is the default's value (trial 14, T14-6)."""
    import dataclasses

    from perf.records.settings import MeasureSettings

    d = DESIGN_ONLY[field]
    other = next(x for x in ("rounds", "sequential") if x != d.design)
    name = field.rpartition(".")[2]
    opts = _opts(built, tmp_path, design=other, run_id="g", given=frozenset({name}))
    if d.value is not None:  # only that value is the design's own: the default, typed, is taken
        Sweep(dataclasses.replace(opts, run_id="t"))
        opts = dataclasses.replace(opts, measure=MeasureSettings(**{name: d.value}))
    with pytest.raises(FlagError) as e:
        Sweep(opts)
    assert e.value.flag == flag_of(field) and e.value.message.startswith(f"{flag_of(field)} ")
    assert e.value.hint is not None and e.value.hint.endswith(f"or --design {d.design}")
    Sweep(dataclasses.replace(opts, design=d.design, run_id="h"))  # the design that reads it takes it


def test_the_measurement_interval_on_a_rounds_sweep_names_the_round_window_with_its_value(built: Path, tmp_path: Path) -> None:
    args = ["sweep", "--repository", str(built), "--measurement-interval", "2000", "--results-dir", str(tmp_path)]
    res = CliRunner().invoke(perf_cli.cli, [*args, "--run-id", "x", "--no-report"])
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said  # a usage error, the flag named once
    assert (
        "--measurement-interval 2000 sets the sequential design's perf_analyzer windows (ms); a rounds sweep's window "
        "is --round-window (default 300 ms) -> give --round-window 2000, or --design sequential" in said
    ), said
    assert "Invalid value" not in said and not (tmp_path / "x").exists()


def test_count_windows_on_a_rounds_sweep_is_refused_with_its_request_count(built: Path, tmp_path: Path) -> None:
    """Re-check of trial 14, NEW-1: a rounds visit passed --measurement-mode count_windows on to perf_analyzer,
    the sweep swapping in only the round window's length: --round-window was ignored without a word and the
    time estimate (windows of --round-window) wrong; --measurement-request-count is read in count_windows only."""
    args = ["sweep", "--repository", str(built), "--results-dir", str(tmp_path), "--run-id", "x", "--no-report"]
    res = CliRunner().invoke(perf_cli.cli, [*args, "--measurement-mode", "count_windows", "--measurement-request-count", "100"])
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said
    assert (
        "--measurement-mode count_windows sets the sequential design's windows by request count "
        "(--measurement-request-count each); a rounds visit's windows are time windows of --round-window (default "
        "300 ms); --measurement-request-count 100 sets the requests of each count_windows window" in said
    ), said
    assert "-> drop --measurement-mode, or --design sequential; drop --measurement-request-count" in said, said
    assert not (tmp_path / "x").exists()


def test_the_stability_percentage_says_how_each_design_reads_it() -> None:
    """Both designs read it (not refused): sequential as perf_analyzer's -s, a rounds visit to flag its 3
    windows' spread (re-check of trial 14, NEW-1 took the visit's '-s 1e+06' for the flag ignored)."""
    from core.options import fields
    from perf.records.settings import MeasureSettings

    assert not any(k.endswith("stability_pct") for k in DESIGN_ONLY)
    text = next(f.description for f in fields(MeasureSettings) if f.name == "stability_pct") or ""
    assert "--design sequential gives it to perf_analyzer (-s" in text and "a rounds visit" in text, text


def test_a_rounds_visit_is_flagged_unstable_by_the_stability_percentage(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the help above says a rounds visit does with --stability-percentage (perf_analyzer's -s off)."""
    import dataclasses

    from perf.measure import level as level_mod
    from perf.records.levels import LevelResult
    from perf.records.settings import MeasureSettings

    sent: list[MeasureSettings] = []

    def once(*a: Any) -> LevelResult:
        sent.append(a[4])
        return LevelResult(1, throughput_infer_per_s=100.0, throughput_window_spread_pct=8.0, host_busy_pct=0.0)

    monkeypatch.setattr(level_mod, "_measure_once", once)
    load, srv = level_mod.Load("m", 1), None

    def visit(pct: float) -> LevelResult:
        m = dataclasses.replace(MeasureSettings(), stability_pct=pct)
        return level_mod.measure_visit(Path("pa"), srv, load, [], m, Path("."), lambda *_: None)  # type: ignore[arg-type]

    assert visit(5.0).status == "unstable" and visit(10.0).status == "ok"
    assert {m.stability_pct for m in sent} == {1e6}  # perf_analyzer's own test is off in a visit


def test_each_design_only_flag_says_in_its_help_which_design_reads_it() -> None:
    from core.options import fields
    from perf.records.rounds import NOT_IN_ROUNDS, READ_BY
    from perf.records.settings import MeasureSettings

    for field, d in DESIGN_ONLY.items():
        owner, _, name = field.rpartition(".")
        f = next(x for x in fields(MeasureSettings if owner else SweepOptions) if x.name == name)
        assert READ_BY[d.design] in (f.description or ""), field
    sequential_only = {k.rpartition(".")[2] for k, d in DESIGN_ONLY.items() if d.design == "sequential" and d.value is None}
    assert set(NOT_IN_ROUNDS) == sequential_only


def _design_only_flags_passed(words: list[str]) -> list[str]:
    """The design-only flags in ``words`` their design ignores (a :attr:`DesignOnly.value` entry: at that value)."""
    design = words[words.index("--design") + 1] if "--design" in words else "rounds"
    pairs = [(w.partition("=")[0], w.partition("=")[2] or nxt) for w, nxt in zip(words, [*words[1:], ""])]
    return [
        f"{flag} {value}"
        for field, d in DESIGN_ONLY.items()
        if d.design != design
        for flag, value in pairs
        if flag == flag_of(field) and d.value in (None, value)
    ]


def test_the_design_only_flag_finder_reads_a_value_entry() -> None:
    assert _design_only_flags_passed(["--measurement-mode=count_windows", "--seed", "3"]) == ["--measurement-mode count_windows"]
    assert _design_only_flags_passed(["--measurement-mode", "time_windows", "--max-trials", "4"]) == ["--max-trials 4"]
    assert not _design_only_flags_passed(["--design", "sequential", "--measurement-mode", "count_windows"])


def test_the_readme_passes_no_flag_its_design_ignores() -> None:
    import re
    import shlex

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    found = []
    for block in blocks:
        for cmd in re.split(r"\n(?=\S)", block.replace("\\\n", " ")):
            if "run_sweep.sh" not in cmd and "perf sweep" not in cmd:
                continue
            found += _design_only_flags_passed(shlex.split(cmd, comments=True))
    assert not found, f"README sweeps pass flags their design ignores: {found}"


def test_the_demo_passes_no_flag_its_design_ignores() -> None:
    """scripts/demo.sh's sweep flags (its KNOBS: FLAG:VARIABLE:DEFAULT) and the flags of its sweep line."""
    import re

    demo = (Path(__file__).resolve().parents[3] / "scripts" / "demo.sh").read_text()
    knobs = re.search(r"KNOBS=\((.*?)\)", demo, re.S)
    assert knobs is not None
    words = [w for k in knobs.group(1).split() for w in (f"--{k.split(':')[0]}", k.split(":")[2])]
    sweep = next(ln for ln in demo.splitlines() if re.match(r"(\w+=\S+ )*perf/run_sweep.sh ", ln))  # env settings first (ebfccb7)
    assert "--design" not in sweep and not _design_only_flags_passed(words + sweep.split()), words


def test_a_time_budget_that_fits_no_round_is_refused_without_leaving_a_run_folder(built: Path, tmp_path: Path) -> None:
    """The trial's `--time-budget 5s`: a server was started, nothing measured, and results/tiny5 was
    left behind with a server log and a results.json of skipped variants."""
    sw = Sweep(_opts(built, tmp_path, time_budget_s=5.0, run_id="tiny5"))
    started: list[bool] = []
    sw.servers.start_all = lambda: started.append(True)  # type: ignore[method-assign]
    with pytest.raises(FlagError, match=r"the time budget of 5 s does not fit one round of 2 variants \(estimated \d+ s") as e:
        sw.run_all()
    assert "no run folder was left" in str(e.value) and e.value.flag == "--time-budget"
    assert e.value.hint is not None and e.value.hint.startswith("give --time-budget ")
    assert not started and not (tmp_path / "results" / "tiny5").exists()


def test_the_refusal_is_a_usage_error_of_the_time_budget_flag(built: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(
        perf_cli.cli,
        ["sweep", "--repository", str(built), "--runtime", "bundled", "--concurrency", "1", "--time-budget", "5s"]
        + ["--results-dir", str(tmp_path / "results"), "--run-id", "tiny5", "--no-report"],
    )
    assert res.exit_code == 2, res.output
    assert "--time-budget" in res.output and "does not fit one round" in res.output and "give --time-budget" in res.output
    assert not (tmp_path / "results" / "tiny5").exists()


def _saved_run(built: Path, tmp_path: Path, budget_s: float | None, spent_s: float) -> None:
    from perf.records.rounds import BudgetRecord

    sw = Sweep(_opts(built, tmp_path, time_budget_s=budget_s, run_id="r120"))
    sw.run.settings = sw._settings()  # type: ignore[assignment]
    assert sw.run.rounds is not None
    sw.run.rounds.budget = BudgetRecord(budget_s, 1.2, 2.0, 100.0, 7, spent_s=spent_s, baseline_s=None)
    sw._save()
    sw.close()  # its run folder, free for the resume (perf.records.run_lock)


def test_a_resume_plans_against_what_is_left_of_the_runs_own_budget(built: Path, tmp_path: Path) -> None:
    """The trial: a 120 s run resumed planned against the default 6 minutes and spent 128 s more."""
    from perf.sweep.opening import opening_lines

    _saved_run(built, tmp_path, 120.0, 80.0)
    sw = Sweep(_opts(built, tmp_path, run_id="r120", resume=True, given=frozenset()))
    assert sw.opts.time_budget_s == 40.0 and sw.recorded_budget_s == 120.0
    said = " ".join(opening_lines(sw, frozenset()))
    assert (
        "within what is left of the run's own 120 s time budget: 40 s after the 80 s it spent (--time-budget gives a new one)"
        in said
    )
    sw.close()
    again = Sweep(_opts(built, tmp_path, run_id="r120", resume=True, time_budget_s=300.0, given=frozenset({"time_budget_s"})))
    assert again.opts.time_budget_s == 300.0 and "within a time budget of 300 s (estimate below)" in " ".join(
        opening_lines(again, frozenset({"time_budget_s"}))
    )


@pytest.mark.parametrize("visits", [0, 1])
def test_a_session_stopped_during_its_loads_spends_none_of_the_runs_time_budget(built: Path, tmp_path: Path, visits: int) -> None:
    """Trial 13, T13-19: a demo sweep interrupted 21 s in, before its first measurement, was resumed with
    those 21 s (its loads, which the resume redid) taken off its 90 s, where the README says "a run stopped
    before its first round keeps its whole --time-budget". A session that measured a visit spent its time."""
    import time

    from perf.records.rounds import RoundRecord, Visit

    sw = Sweep(_opts(built, tmp_path, time_budget_s=90.0, run_id="r90"))
    sw.run.settings = sw._settings()  # type: ignore[assignment]

    def stop(*_: Any, **__: Any) -> None:
        assert sw.run.rounds is not None
        if visits:
            sw.run.rounds.rounds.append(RoundRecord(0, 0, 1, "now", order=[Visit("enc_a", 1, 1, wall_s=1.0)]))
        raise KeyboardInterrupt

    sw.run_rounds = stop  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        sw._rounds(time.monotonic() - 21.0, time.monotonic() + 69.0)  # 21 s of loads
    sw._save()
    assert sw.run.rounds is not None and sw.run.rounds.budget is not None
    assert sw.run.rounds.budget.session_spent_s is not None and sw.run.rounds.budget.session_spent_s >= 21.0
    sw.close()
    again = Sweep(_opts(built, tmp_path, run_id="r90", resume=True, given=frozenset()))
    if visits:
        assert again.opts.time_budget_s is not None and again.opts.time_budget_s <= 69.0
    else:
        assert again.opts.time_budget_s == 90.0


def test_a_killed_sweeps_folder_holds_the_time_its_rounds_spent(built: Path, tmp_path: Path) -> None:
    """Trial 27, T27-11: after ``kill -9`` of a sweep 30 s in, its resume said "120 s after the 0 s it spent" beside
    6 measured visits: the time spent was written only when the rounds ended (Ctrl-C, the end), never by a kill. Every
    save during the rounds (each visit's) now writes it: the folder as the kill leaves it is what the resume reads."""
    import time

    from perf.records import results
    from perf.records.rounds import RoundRecord, Visit
    from perf.sweep.opening import opening_lines

    sw = Sweep(_opts(built, tmp_path, time_budget_s=120.0, run_id="killed"))
    sw.run.settings = sw._settings()  # type: ignore[assignment]
    left: dict[str, bytes] = {}

    def visit_then_kill(*_: Any, **__: Any) -> None:
        assert sw.run.rounds is not None
        sw.run.rounds.rounds.append(RoundRecord(0, 0, 1, "now", order=[Visit("enc_a", 1, 1, wall_s=1.0)]))
        sw._save()  # the engine's save after a visit
        left["results"] = (sw.run_dir / results.RESULTS_FILE).read_bytes()  # what kill -9 leaves: nothing after
        raise KeyboardInterrupt

    sw.run_rounds = visit_then_kill  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        sw._rounds(time.monotonic() - 25.0, time.monotonic() + 95.0)  # 25 s of server start and loads
    sw.close()
    (sw.run_dir / results.RESULTS_FILE).write_bytes(left["results"])  # the folder as the kill left it
    saved = results.load(sw.run_dir).rounds
    assert saved is not None and saved.budget is not None and saved.budget.spent_s is not None
    assert saved.budget.spent_s >= 25.0
    again = Sweep(_opts(built, tmp_path, run_id="killed", resume=True, given=frozenset()))
    assert again.opts.time_budget_s is not None and again.opts.time_budget_s <= 95.0
    said = " ".join(opening_lines(again, frozenset()))
    assert "after the 0 s it spent" not in said and "s after the 25 s it spent" in said
    again.close()
