"""What ``triton-perf baseline RUN`` and a sweep's resume say and measure of a run whose in-process baseline some
variants owe (:func:`perf.analysis.baseline_owed.baseline_owed`): the words match what the command would do (s24b)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from click.testing import CliRunner

from perf.analysis.baseline_owed import baseline_owed
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile.baseline import BaselineOptions
from perf.profile.stopped import BaselineInterrupted
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineTarget
from perf.records.results import load, save
from perf.sweep.baseline_step import BaselineStep
from tests.perf.profile.test_baseline_owed import NEW, OLD, _baseline, _run


def test_variants_of_an_old_record_s_unmeasurable_variant_say_it_cannot_be_measured(tmp_path):
    """A record from before ``unmeasurable``: `--variants B` of a variant the baseline cannot run was planned, said
    "not measurable in-process" in a warning, then refused as the run "has its in-process baseline", which B has not
    (the s23s fix read only the record's ``unmeasurable``, which such a record does not hold)."""
    run_dir, _run_ = _run(tmp_path)  # NEW: no target; its config names no artifact the toolkit runs
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", NEW])
    assert res.exit_code == 1, res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert "has its in-process baseline" not in text and "has the in-process baseline" not in text, text
    assert f"`{NEW}` cannot be measured in-process (`{NEW}`: no build record or no artifact the toolkit runs)" in text


def test_a_ctrl_c_of_a_run_s_first_baseline_names_the_command_that_adds_what_it_lacks(tmp_path, monkeypatch):
    """A Ctrl-C of `baseline RUN` on a run without a baseline filed what it measured as the run's; the variants it did
    not reach then lack it, and `baseline RUN` (without --replace) measures only those, keeping the rest: the words
    advised `--replace`, which measures every variant again (s23s fixed the owed path only)."""
    run_dir, run = _run(tmp_path)
    run.baseline = None
    save(run, run_dir)

    def stopped(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        part = _baseline("2026-12-05T10:50:00", OLD, "onnx")
        part.targets.append(BaselineTarget(NEW, BaselineKey("other", "torchscript", threads=1)))
        part.notes.append("`other`: not measured: interrupted (Ctrl-C)")
        raise BaselineInterrupted(part)

    monkeypatch.setattr(api, "run_baseline", stopped)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 130, res.output
    assert baseline_owed(load(run_dir)) == [NEW]
    said = " ".join(res.output.split())
    assert f"; `triton-perf baseline {run_dir}` measures the baseline the run lacks (`{NEW}`), keeping the rest" in said
    assert "--replace" not in said, said


def test_a_model_timed_in_fewer_rounds_is_measured_again_only_by_replace(tmp_path):
    """A model a stop or the budget cut after some rounds has its points (not owed): `baseline RUN` does not time it
    again, `--replace` does; both are said, each of what it measures."""
    from perf.profile.replacing import rest_words

    run_dir, run = _run(tmp_path)
    assert run.baseline is not None
    rounds = run.baseline.settings.rounds
    run.baseline.points[0].rounds_ms = [1.0] * (rounds - 1)
    said = rest_words(run, run_dir)
    assert said == (
        f"`triton-perf baseline {run_dir}` measures the baseline the run lacks (`{NEW}`), keeping the rest; "
        f"`triton-perf baseline {run_dir} --replace` measures every variant again, the models timed in fewer rounds too "
        f"(`cnn` in {rounds - 1} of {rounds} rounds; the baseline it replaces kept beside it in results.json)"
    )
    run.baseline.points[0].rounds_ms = [1.0] * rounds
    run.baseline.targets.append(BaselineTarget(NEW, run.baseline.points[0].key))
    assert rest_words(run, run_dir) is None  # it lacks nothing


def test_a_resume_measures_the_baseline_of_the_variants_the_run_lacks_only(tmp_path, monkeypatch, caplog):
    """s24b: a sweep's resume of a run whose baseline some variants lacked measured every variant's again (the whole
    baseline filed over it, the earlier kept beside), as `baseline RUN --replace` would; now the owed ones only, added
    to the run's as `baseline RUN` adds them, and said; one whose baseline the run has whole measures nothing."""
    run_dir, run = _run(tmp_path)
    asked: list[Any] = []

    def measured(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        asked.append(list(opts.variants))
        return _baseline("2026-12-05T10:50:00", NEW, "torchscript")

    monkeypatch.setattr(api, "run_baseline", measured)
    # its estimate and plan count the owed variants only (they counted every variant with numbers)
    assert BaselineStep.baseline_names(SimpleNamespace(run=run), []) == [NEW]  # type: ignore[arg-type]
    with caplog.at_level("INFO"):
        api.measure_after_sweep(run, run_dir, Path(run.settings["repository"]))
    assert asked == [[NEW]]
    saved = load(run_dir)
    assert saved.baseline is not None and [t.variant for t in saved.baseline.targets] == [OLD, NEW]
    assert saved.baseline.created == "2026-12-05T10:37:07" and not saved.replaced_baselines
    assert f"measuring the in-process baseline of {NEW}, which the run lacks; keeping the one of {OLD}" in caplog.text
    api.measure_after_sweep(saved, run_dir, Path(run.settings["repository"]))  # nothing owed: nothing measured
    assert asked == [[NEW]]
    assert BaselineStep.baseline_names(SimpleNamespace(run=saved), [OLD]) == []  # type: ignore[arg-type]


def test_a_resume_times_a_model_cut_short_again_and_keeps_the_earlier_points_beside(tmp_path, monkeypatch):
    """A model the budget cut after some rounds is timed again by a resume (its variants are not kept), its new points
    in place of the earlier ones, which stay in replaced_baselines; the earlier notes of the models timed now go."""
    from perf.analysis.baseline_owed import baseline_kept

    run_dir, run = _run(tmp_path)
    assert run.baseline is not None
    rounds = run.baseline.settings.rounds
    short_key = BaselineKey("short", "torchscript", threads=1)
    run.baseline.targets.append(BaselineTarget(NEW, short_key))
    run.baseline.points.append(
        BaselinePoint(short_key, 1, throughput_infer_per_s=700.0, latency_p50_ms=1.2, rounds_ms=[1.2] * (rounds - 2))
    )
    run.baseline.notes += [f"`short`: timed in {rounds - 2} of {rounds} rounds: the sweep's time budget ran out"]
    save(run, run_dir)
    assert baseline_owed(run) == [] and NEW not in baseline_kept(run)

    def measured(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        assert list(opts.variants) == [NEW]
        new = _baseline("2026-12-05T10:50:00", NEW, "torchscript")
        new.targets = [BaselineTarget(NEW, short_key)]
        new.points = [BaselinePoint(short_key, 1, throughput_infer_per_s=650.0, latency_p50_ms=1.3, rounds_ms=[1.3] * rounds)]
        return new

    monkeypatch.setattr(api, "run_baseline", measured)
    api.measure_after_sweep(run, run_dir, Path(run.settings["repository"]))
    saved = load(run_dir)
    assert saved.baseline is not None and not saved.baseline.cut_short()
    assert [p.latency_p50_ms for p in saved.baseline.points] == [1.0, 1.3]  # OLD's kept, `short`'s timed again
    assert not any(n.startswith("`short`:") for n in saved.baseline.notes), saved.baseline.notes
    (before,) = saved.replaced_baselines
    assert [p.latency_p50_ms for p in before.points] == [1.0, 1.2]
