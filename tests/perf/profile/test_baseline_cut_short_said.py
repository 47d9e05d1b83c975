"""Trial 31, F11: a Ctrl-C of ``triton-perf baseline RUN`` after 2 of a model's 8 rounds said "in-process baseline of 1
of 1 model measured ...; not measured or cut short: multitask" (measured and not, in one sentence) and "the earlier
baseline kept beside it" of a run that had none (swept with --no-baseline); the next ``baseline RUN`` was refused as
"has its in-process baseline (measured ...: 14 of 14 points)", the 2 rounds unsaid, which are the reason to pass
--replace. Each now says the model was timed in only 2 of its 8 rounds, cut short by the Ctrl-C."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from core.errors import PerfError
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile.baseline import BaselineOptions, baseline_settings
from perf.profile.stopped import BaselineInterrupted, stopped_notes
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, load, save

NAME = "cnn_onnx_cpu1_db500_mbs8"


def _run(tmp_path: Path) -> Path:
    """A run swept with --no-baseline: no baseline at all."""
    repo = tmp_path / "repo"
    (repo / NAME).mkdir(parents=True)
    (repo / NAME / "config.pbtxt").write_text(f'name: "{NAME}"\n')
    run = RunResult("r3", "now", settings={"repository": str(repo), "concurrency": [4]})
    run.variants = [VariantResult(NAME, {"model": "cnn"}, status="ok", levels=[LevelResult(4, throughput_infer_per_s=9.0)])]
    save(run, tmp_path / "run")
    return tmp_path / "run"


def _cut_short() -> BaselineResult:
    """What a Ctrl-C in the third of 8 rounds leaves: every point timed in the 2 rounds timed whole."""
    settings = baseline_settings(BaselineOptions(Path(".")))
    key = BaselineKey("cnn", "onnx", threads=1)
    point = BaselinePoint(key, 1, throughput_infer_per_s=9.0, latency_p50_ms=1.0, rounds_ms=[1.0, 1.1])
    notes = stopped_notes(["cnn"], 2, settings.rounds)
    return BaselineResult("2026-12-05T14:46:10", settings, [BaselineTarget(NAME, key)], [point], notes)


def test_a_ctrl_c_after_two_rounds_says_the_model_was_cut_short_and_the_next_baseline_says_so_too(tmp_path, monkeypatch):
    run_dir = _run(tmp_path)
    rounds = baseline_settings(BaselineOptions(Path("."))).rounds

    def stopped(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        raise BaselineInterrupted(_cut_short())

    monkeypatch.setattr(api, "run_baseline", stopped)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 130, res.output
    said = " ".join(res.output.split())
    assert (
        f"in-process baseline of 0 of 1 model measured in full; `cnn` timed in only 2 of its {rounds} rounds (cut short: "
        f"interrupted (Ctrl-C)); what it timed (the table above) is kept in {run_dir}/results.json"
    ) in said, said
    assert f"min_run_time 0.2 s per point; `cnn` timed in only 2 of its {rounds} rounds" in said  # the table's caption
    assert "1 of 1 model measured" not in said and "not measured or cut short" not in said
    assert "earlier baseline" not in said and "the baseline it replaces kept beside it in results.json" in said
    assert load(run_dir).replaced_baselines == []  # there was none to keep

    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert (
        "run r3 has its in-process baseline (measured 2026-12-05 14:46:10: 1 of 1 points; `cnn` timed in only 2 of its "
        f"{rounds} rounds (cut short: interrupted (Ctrl-C)))"
    ) in text, text
    assert "`--replace` measures again (times `cnn` in all its rounds) and keeps the earlier one" in text
