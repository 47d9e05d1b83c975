"""What ``triton-perf baseline RUN`` and a sweep's resume say and measure of a run whose in-process baseline some
variants owe (:func:`perf.analysis.baseline_owed.baseline_owed`): the words match what the command would do (s24b)."""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner

from perf.analysis.baseline_owed import baseline_owed
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile.baseline import BaselineOptions
from perf.profile.stopped import BaselineInterrupted
from perf.records.baseline import BaselineKey, BaselineResult, BaselineTarget
from perf.records.results import load, save
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
        f"(`cnn` in {rounds - 1} of {rounds} rounds; the earlier baseline kept beside it)"
    )
    run.baseline.points[0].rounds_ms = [1.0] * rounds
    run.baseline.targets.append(BaselineTarget(NEW, run.baseline.points[0].key))
    assert rest_words(run, run_dir) is None  # it lacks nothing
