"""``scripts/demo.sh`` run with a fake Python that records each command (no build, no server):
what ``DEMO_*`` passes (issue 26: ``DEMO_MODEL=kwspot.py:kwspot make demo`` failed at step 1
with "pass --spec", which make demo could not pass, and would have checked ``kwspot.py:kwspot_*``)."""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _demo(tmp_path: Path, **env: str) -> list[str]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.txt"
    picked = 'case "$*" in *perf.cli.demo_variants*) echo "$3_a,$3_b";; esac'  # the build's variants, made up
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$*" >> {log}\n{picked}\n')
    (venv / "bin" / "python").chmod(0o755)
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env={**os.environ, "VENV": str(venv), **env},
        check=True,
        capture_output=True,
        timeout=60,
    )
    # the settings check first; the variants of step 1's build read between steps 1 and 2
    return [c for c in log.read_text().splitlines() if "perf.cli.demo_settings" not in c and "perf.cli.demo_variants" not in c]


def test_a_factory_model_gets_its_spec_and_its_variants_are_named_after_the_factory(tmp_path: Path) -> None:
    build, check, sweep, *_ = _demo(tmp_path, DEMO_MODEL="kwspot.py:kwspot", DEMO_SPEC="spec.json")
    assert build.startswith("-m builders.cli.main build --model kwspot.py:kwspot --spec spec.json --format torchscript")
    assert check.endswith("--variants kwspot_a,kwspot_b") and "--variants kwspot_a,kwspot_b " in sweep


def test_the_check_and_the_sweep_take_the_variants_of_the_demos_own_build(tmp_path: Path) -> None:
    """Trial 13, T13-11: the demo checked and swept every `detr_*` variant of the repository (an earlier
    build's fp16/bf16 ones too: 20, the check 4 min 16 s); both steps take the list perf.cli.demo_variants
    printed after step 1 (the build's own variants, or DEMO_VARIANTS'), nothing else."""
    build, check, sweep, *_ = _demo(tmp_path, DEMO_MODEL="/m/detr.py:detr", DEMO_SPEC="spec.json")
    assert check.split("--variants ")[1] == "detr_a,detr_b"
    assert sweep.split("--variants ")[1].split()[0] == "detr_a,detr_b" and "detr_*" not in check + sweep


def test_the_default_demo_passes_no_spec(tmp_path: Path) -> None:
    build, check, sweep, *_ = _demo(tmp_path)
    assert "--spec" not in build and check.endswith("--variants mlp_a,mlp_b") and "--variants mlp_a,mlp_b " in sweep


def test_the_traces_step_says_what_it_did(tmp_path: Path) -> None:
    """Trial 9, F1: step 3b printed its header and nothing else (its output went to /dev/null); it
    keeps the baseline command's last line (:func:`perf.cli.baseline.profile_line`) and names the report."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$*" >> {tmp_path / "calls.txt"}\n{_PROFILE_FAKE}')
    (venv / "bin" / "python").chmod(0o755)
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env={**os.environ, "VENV": str(venv)},
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    step = out.split("== 3b/4")[1].split("== 4/4")[0]
    assert "traces: 3 of 3 written" in step and "table" not in step and "report.md (again" in step


#: A fake python for step 3b: the baseline prints a table, a progress line (stderr) and its last line; the demo's
#: translation copies its input; step 3b's share of the budget is 30s; the deployment names the sweep's flag.
_PROFILE_FAKE = """case "$*" in
  *--profile-only*) echo table; echo "progress: a longer \\`--time-budget\\` measures them" >&2; echo "traces: 3 of 3 written";;
  *--as-demo*) cat;;
  *"main report"*) echo "report caveat: a longer \\`--time-budget\\` measures them" >&2;;
  *--profile-budget*) echo 30s;;
  *export-deployment*) echo "caveat: a longer \\`--time-budget\\` measures them";;
esac
"""


def test_step_3b_runs_within_its_share_of_the_demos_budget_and_demo_profile_0_skips_it(tmp_path: Path) -> None:
    """Trial 14, T14-9: step 3b took 373 s outside any budget, silent, with no override to skip it."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$*" >> {tmp_path / "calls.txt"}\n{_PROFILE_FAKE}')
    (venv / "bin" / "python").chmod(0o755)
    run = functools.partial(
        subprocess.run, ["bash", str(ROOT / "scripts" / "demo.sh")], capture_output=True, text=True, timeout=60
    )
    done = run(env={**os.environ, "VENV": str(venv), "DEMO_TIME_BUDGET": "2m"}, check=True)
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert any(c.startswith("-m perf.cli.demo_settings --profile-budget 2m") for c in calls)
    (baseline,) = [c for c in calls if "--profile-only" in c]
    assert baseline.endswith("--time-budget 30s")
    assert "within 30s (a quarter of DEMO_TIME_BUDGET; DEMO_PROFILE=0 skips it)" in done.stdout
    (tmp_path / "calls.txt").unlink()
    skipped = run(env={**os.environ, "VENV": str(venv), "DEMO_PROFILE": "0"}, check=True)
    assert not any("--profile-only" in c for c in (tmp_path / "calls.txt").read_text().splitlines())
    assert "== 3b/4 traces and precision study: skipped (DEMO_PROFILE=0)" in skipped.stdout
    refused = run(env={**os.environ, "VENV": str(venv), "DEMO_PROFILE": "no"})
    assert refused.returncode == 2 and "make demo: DEMO_PROFILE=no: not 0 or 1" in refused.stderr


def test_every_later_step_says_the_sweeps_flags_as_the_demos_variables(tmp_path: Path) -> None:
    """Trial 14's side note: after the demo's own "a longer DEMO_TIME_BUDGET ... measures them", steps 3b and 4
    repeated the sweep's "a longer `--time-budget` measures them"."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    real = f'  *--as-demo*) exec {sys.executable} "$@";;\n'  # the demo's own translation, the rest faked
    (venv / "bin" / "python").write_text(f'#!/bin/sh\ncase "$*" in\n{real}esac\n{_PROFILE_FAKE}')
    (venv / "bin" / "python").chmod(0o755)
    env = {**os.environ, "VENV": str(venv), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    later = done.stdout.split("== 3b/4")[1] + done.stderr
    assert "progress: a longer DEMO_TIME_BUDGET (`DEMO_TIME_BUDGET=... make demo`) measures them" in later  # 3b's stderr
    assert "caveat: a longer DEMO_TIME_BUDGET (`DEMO_TIME_BUDGET=... make demo`) measures them" in later  # step 4
    # 3b's report call (trial 17, T17-12: its stderr was not translated)
    assert "report caveat: a longer DEMO_TIME_BUDGET (`DEMO_TIME_BUDGET=... make demo`) measures them" in later
    assert "`--time-budget`" not in later


def test_the_demos_translation_says_each_line_as_make_demo_takes_it() -> None:
    from perf.cli.demo_settings import profile_budget, translate

    knobs = [("--time-budget", "DEMO_TIME_BUDGET")]
    said = list(translate(knobs, ["cut: a longer `--time-budget` measures them\n", "traces: 2 of 2\n"]))
    assert said == ["cut: a longer DEMO_TIME_BUDGET (`DEMO_TIME_BUDGET=... make demo`) measures them\n", "traces: 2 of 2\n"]
    assert (profile_budget("6m"), profile_budget("2m"), profile_budget("none")) == ("90s", "30s", "none")


def test_a_flag_with_its_value_is_said_as_the_make_demo_command() -> None:
    """Trial 16, T16-20: "or --latency-budget-ms 31" became "or DEMO_BUDGET_MS 31", which is no command."""
    from perf.cli.demo_settings import as_demo

    knobs = [("--latency-budget-ms", "DEMO_BUDGET_MS"), ("--time-budget", "DEMO_TIME_BUDGET")]
    assert as_demo("or --latency-budget-ms 31", knobs) == "or `DEMO_BUDGET_MS=31 make demo`"
    assert as_demo("try `--time-budget 4m`", knobs) == "try `DEMO_TIME_BUDGET=4m make demo`"
    assert as_demo("a longer --time-budget measures them", knobs) == "a longer DEMO_TIME_BUDGET measures them"


#: export-deployment refuses (nothing within the budget) with advice naming its own flags.
_DEPLOY_REFUSES = """case "$*" in
  *export-deployment*) echo "  -> deploy one over the budget by naming it: --variant v_a (the lowest p99); or --latency-budget-ms 31"; exit 1;;
esac
"""


def test_the_deploy_steps_advice_keeps_export_deployments_flags_and_names_its_command(tmp_path: Path) -> None:
    """Trial 16, T16-20: export-deployment's own --latency-budget-ms was said as DEMO_BUDGET_MS, and its --variant
    with no command that takes it."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    real = f'  *--as-demo*) exec {sys.executable} "$@";;\n'
    (venv / "bin" / "python").write_text(f'#!/bin/sh\ncase "$*" in\n{real}esac\n{_DEPLOY_REFUSES}')
    (venv / "bin" / "python").chmod(0o755)
    env = {**os.environ, "VENV": str(venv), "PYTHONPATH": str(ROOT), "DEMO_PROFILE": "0"}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    step = done.stdout.split("== 4/4")[1]
    assert "--variant v_a (the lowest p99); or --latency-budget-ms 31" in step and "DEMO_BUDGET_MS" not in step
    assert f"`{venv}/bin/triton-perf export-deployment results/demo-" in step and "--variant NAME`" in step


def test_the_demos_knobs_are_read_as_demo_sh_writes_them_and_a_malformed_one_is_named() -> None:
    from perf.cli.demo_settings import knob_pairs

    assert knob_pairs(["time-budget:DEMO_TIME_BUDGET:6m", "concurrency:DEMO_CONCURRENCY"]) == [
        ("--time-budget", "DEMO_TIME_BUDGET"),
        ("--concurrency", "DEMO_CONCURRENCY"),
    ]
    with pytest.raises(ValueError, match="'time-budget' is not FLAG:VARIABLE:DEFAULT"):
        knob_pairs(["time-budget"])  # was an IndexError from split(":")[1]


def test_the_baseline_commands_last_line_says_what_it_wrote_ran_and_how_long() -> None:
    from perf.cli.baseline import profile_line
    from perf.records.profile import PrecisionRow, ProfileRecord, TraceRecord

    traces = [TraceRecord(format=f, profiler="p", device="cpu", batch_size=1, file=f"traces/{f}.json") for f in ("onnx", "eager")]
    rows = [
        PrecisionRow(
            runtime="torch", device=d, precision="fp16", method="m", status="measured" if d == "cpu" else "not run on this host"
        )
        for d in ("cpu", "cuda")
    ]
    line = profile_line(ProfileRecord(traces, rows), Path("results/r/results.json"), 12.4, trace=True, precision=True)
    assert line == (
        "traces: 2 of 2 written to results/r/traces; precision study: 1 of 2 rows measured (1 not run on this host); "
        "12 s; stored in results/r/results.json"
    )
    # the rest of a count is said by status, so the counts add up (trial 19, T19-13's kind)
    traces += [
        TraceRecord(format="trt", profiler="p", device="cuda", batch_size=1, status="not run on this host", reason="no GPU"),
        TraceRecord(format="ts", profiler="p", device="cpu", batch_size=1, status="failed", reason="x"),
    ]
    line = profile_line(ProfileRecord(traces, []), Path("results/r/results.json"), 3.0, trace=True, precision=False)
    assert line.startswith("traces: 2 of 4 written to results/r/traces (1 not run on this host, 1 failed); ")
    line = profile_line(ProfileRecord(traces[2:], []), Path("results/r/results.json"), 3.0, trace=True, precision=False)
    assert line.startswith("traces: none of 2 written (1 not run on this host, 1 failed); ")


def _run_demo(tmp_path: Path, python: str, **env: str) -> subprocess.CompletedProcess[str]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(python)
    (venv / "bin" / "python").chmod(0o755)
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env={**os.environ, "VENV": str(venv), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_sweep_step_says_which_demo_variable_sets_each_flag_it_passes(tmp_path: Path) -> None:
    """Trial 10, F5: the sweep's advice named `--time-budget`, which `make demo` cannot be given; the
    step names each flag it passes with the DEMO_* variable that sets it, from the one list it passes."""
    log = tmp_path / "calls.txt"
    done = _run_demo(tmp_path, f'#!/bin/sh\necho "$*" >> {log}\n', DEMO_TIME_BUDGET="3m", DEMO_BUDGET_MS="40")
    assert done.returncode == 0, done.stderr
    sweep = next(c for c in log.read_text().splitlines() if "sweep_script" in c)
    said = next(ln for ln in done.stdout.splitlines() if "make demo's settings" in ln)
    for flag, var in [
        ("--concurrency", "DEMO_CONCURRENCY"),
        ("--round-window", "DEMO_WINDOW_MS"),
        ("--time-budget", "DEMO_TIME_BUDGET"),
        ("--latency-budget-ms", "DEMO_BUDGET_MS"),
    ]:
        value = sweep.split(f"{flag} ")[1].split()[0]
        assert f"{flag} {value} is {var}" in said
    assert "--time-budget 3m is DEMO_TIME_BUDGET" in said and "--latency-budget-ms 40 is DEMO_BUDGET_MS" in said


@pytest.mark.parametrize("rc", [130, 143])
def test_a_ctrl_c_in_the_sweep_says_what_make_demo_does_next_and_stops(tmp_path: Path, rc: int) -> None:
    """Trial 10, F33: a Ctrl-C of the demo's sweep advised the sweep's own `--run-id`; the demo says that
    `make demo` starts a new run and how this one goes on, exits 130 and runs no later step. A sweep stopped
    by SIGTERM (143: it says what Ctrl-C says; trial 22, F-sigterm) alike."""
    log = tmp_path / "calls.txt"
    fake = f'#!/bin/sh\necho "$*" >> {log}\ncase "$*" in *sweep_script*) exit {rc};; esac\n'
    done = _run_demo(tmp_path, fake)
    assert done.returncode == rc
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("== make demo stopped")]
    assert "`make demo` starts a new run" in line and "perf.cli.main" not in line
    # trial 13, T13-19: the README's spelling, the command `make setup` installs; no --run-id offered for make demo
    assert f"`{tmp_path}/venv/bin/triton-perf export-deployment results/demo-" in line and "takes no --run-id" in line
    # step 3b as it runs, its precision study too (trial 27, T27-14: the advice left out --precision)
    assert " --profile-only --trace --precision fp32,fp16,bf16` and " in line, line
    assert not any("baseline" in c or "export-deployment" in c for c in log.read_text().splitlines())


def test_every_demo_setting_is_checked_before_step_1_naming_its_variable(tmp_path: Path) -> None:
    """Trial 12, F18: DEMO_TIME_BUDGET=2min was refused at step 3, after ~1.5 min of build and check, as
    "--time-budget". The settings are parsed by the sweep's own flags before anything runs; here every
    other command of the fake Python fails, so a check that comes later is seen as that failure."""
    import sys

    fake = f'#!/bin/sh\ncase "$*" in *perf.cli.demo_settings*) PYTHONPATH={ROOT} exec {sys.executable} "$@";; esac\nexit 1\n'
    done = _run_demo(tmp_path, fake, DEMO_TIME_BUDGET="2min", DEMO_BUDGET_MS="25x", DEMO_SPEC=str(tmp_path / "nope.json"))
    assert done.returncode == 2 and "== 1/4" not in done.stdout, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert any(ln.startswith("make demo: DEMO_TIME_BUDGET=2min: time budget '2min' is not a duration") for ln in lines)
    assert any(ln.startswith("make demo: DEMO_BUDGET_MS=25x: ") for ln in lines)
    assert any(ln.startswith(f"make demo: DEMO_SPEC={tmp_path / 'nope.json'}: the spec file ") for ln in lines)
    assert "--time-budget" not in done.stderr and "--latency-budget-ms" not in done.stderr


def _refusals(tmp_path: Path, **env: str) -> list[list[str]]:
    """``make demo``'s refusals of ``env`` (the settings check run for real, every other command failing),
    each as its lines: ``make demo: VARIABLE=VALUE: what is wrong`` and the lines after it."""
    import sys
    import tempfile

    fake = f'#!/bin/sh\ncase "$*" in *perf.cli.demo_settings*) PYTHONPATH={ROOT} exec {sys.executable} "$@";; esac\nexit 1\n'
    done = _run_demo(Path(tempfile.mkdtemp(dir=tmp_path)), fake, **env)
    assert done.returncode == 2 and "== 1/4" not in done.stdout, done.stdout + done.stderr
    said: list[list[str]] = []
    for line in done.stderr.splitlines()[:-1]:  # the last line: nothing was built or started
        if line.startswith("make demo: "):
            said.append([line])
        else:
            said[-1].append(line)
    return said


def test_each_demo_refusal_names_its_variable_what_was_wrong_and_what_is_expected(tmp_path: Path) -> None:
    """Break tests B10, B17: ``DEMO_SPEC=/missing`` was one run-on line listing /'s unrelated JSON file,
    ``DEMO_WINDOW_MS=0`` got click's "0 is not in the range x>=50.", and a bad ``DEMO_MODEL`` was found only
    in step 1, as ``--model``. Each refusal is ``VARIABLE=VALUE: what is wrong`` with what is expected on
    its own ``->`` line, before step 1."""
    (tmp_path / "unrelated_info.json").write_text("{}")
    model = tmp_path / "net.py"
    model.write_text("import torch\n\ndef make():\n    return torch.nn.Linear(2, 2)\n")
    spec = tmp_path / "missing"
    said = _refusals(tmp_path, DEMO_WINDOW_MS="0", DEMO_SPEC=str(spec), DEMO_MODEL=f"{model}:mak")
    by_var = {lines[0].split(": ")[1].split("=")[0]: lines for lines in said}
    assert set(by_var) == {"DEMO_WINDOW_MS", "DEMO_SPEC", "DEMO_MODEL"}, said
    for lines in by_var.values():
        assert len(lines) == 2 and lines[1].startswith("  -> "), lines  # what is wrong, then what is expected
    assert by_var["DEMO_WINDOW_MS"] == [
        "make demo: DEMO_WINDOW_MS=0: 0 is below 50",
        "  -> set DEMO_WINDOW_MS to a whole number of milliseconds, at least 50",
    ]
    assert by_var["DEMO_SPEC"][0] == f"make demo: DEMO_SPEC={spec}: the spec file {spec} does not exist"
    assert by_var["DEMO_MODEL"][0] == (
        f"make demo: DEMO_MODEL={model}:mak: {model} defines no 'mak' (did you mean 'make'?); its top-level functions: make"
    )


def test_a_demo_model_is_checked_before_step_1(tmp_path: Path) -> None:
    """Break test B17: a DEMO_MODEL that is no built-in, a factory without its file, or a model of yours
    without DEMO_SPEC, each failed only in step 1 (``builders build``), naming ``--model``."""
    (first,) = _refusals(tmp_path, DEMO_MODEL="mlpp")
    assert first[0] == "make demo: DEMO_MODEL=mlpp: 'mlpp' is no built-in model (did you mean mlp?)"
    assert first[1].startswith("  -> set DEMO_MODEL to a built-in model (cnn, encoder, mlp, tiny), or your model's factory")
    (first,) = _refusals(tmp_path, DEMO_MODEL="nope.py:make")
    assert first[0] == "make demo: DEMO_MODEL=nope.py:make: its file nope.py does not exist"
    model = tmp_path / "net.py"
    model.write_text("from torch.nn import Linear as make\n")  # defined by an import: read as text, taken
    (first,) = _refusals(tmp_path, DEMO_MODEL=f"{model}:make")
    assert first[0] == f"make demo: DEMO_MODEL={model}:make: a model of yours needs its input spec, and DEMO_SPEC is not set"


def test_demo_variants_is_checked_before_step_1(tmp_path: Path) -> None:
    """T13-11: DEMO_VARIANTS is parsed by the sweep's --variants before anything runs, a refusal naming it."""
    (first,) = _refusals(tmp_path, DEMO_VARIANTS="detr onnx")
    assert first[0].startswith("make demo: DEMO_VARIANTS=detr onnx: ") and "--variants" not in "\n".join(first)


#: The report (step 3b) and export-deployment (step 4) name a sweep flag make demo has no setting for.
_NO_KNOB = """case "$*" in
  *"main report"*) echo "note: -> measure a mix as clients send it: --shapes time=1000..16000" >&2;;
  *export-deployment*) echo "  -> measure it again with --trials 3; or --latency-budget-ms 31"; exit 1;;
  *--profile-budget*) echo 30s;;
esac
"""


def test_a_sweep_flag_without_a_demo_setting_is_said_as_the_demos_own_sweep_command(tmp_path: Path) -> None:
    """Trial 17, T17-12: "--shapes time=400..16000" after make demo, which cannot pass --shapes."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    real = f'  *--as-demo*) exec {sys.executable} "$@";;\n'
    picked = '  *perf.cli.demo_variants*) echo "$3_a,$3_b"; exit 0;;\n'
    (venv / "bin" / "python").write_text(f'#!/bin/sh\ncase "$*" in\n{real}{picked}esac\n{_NO_KNOB}')
    (venv / "bin" / "python").chmod(0o755)
    env = {**os.environ, "VENV": str(venv), "PYTHONPATH": str(ROOT), "DEMO_TIME_BUDGET": "2m"}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    sweep = "perf/run_sweep.sh --runtime bundled --repository model_repository --variants mlp_a,mlp_b --concurrency auto"
    sweep += " --round-window 300 --time-budget 2m --latency-budget-ms 25"
    assert f"measure a mix as clients send it: `{sweep} --shapes time=1000..16000`" in done.stderr
    # step 4: the sweep's --trials as the sweep command, export-deployment's own --latency-budget-ms as it is
    assert f"-> measure it again with `{sweep} --trials 3`; or --latency-budget-ms 31" in done.stdout


def test_the_builds_batch_size_and_flags_are_demo_settings(tmp_path: Path) -> None:
    """Trial 18, T18-10: a segmentation model could not get through make demo's build: verification at its fixed
    --max-batch-sizes 64 took 10 min a format, and its argmax output needed an --rtol make demo could not pass."""
    build, *_ = _demo(tmp_path)
    assert build.endswith("--max-batch-sizes 64")  # the default as before
    build, *_ = _demo(tmp_path / "own", DEMO_MAX_BATCH_SIZES="8", DEMO_BUILD_FLAGS="--rtol mask=1e-3 --atol 1e-5")
    assert build.endswith("--max-batch-sizes 8 --rtol mask=1e-3 --atol 1e-5"), build


def test_a_build_flag_the_build_refuses_is_said_with_the_variable_that_set_it(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    refuse = 'case "$*" in *builders.cli.main\\ build*) echo "error: no such option: --rtl" >&2; exit 2;; esac'
    (venv / "bin" / "python").write_text(f"#!/bin/sh\n{refuse}\n")
    (venv / "bin" / "python").chmod(0o755)
    env = {**os.environ, "VENV": str(venv), "DEMO_BUILD_FLAGS": "--rtl mask=1"}
    res = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res.stdout + res.stderr
    assert (
        "make demo's build settings: --max-batch-sizes 64 is DEMO_MAX_BATCH_SIZES; DEMO_BUILD_FLAGS adds: --rtl mask=1"
        in res.stdout
    )
    assert "the build refused a flag above: DEMO_MAX_BATCH_SIZES (64) and DEMO_BUILD_FLAGS (--rtl mask=1)" in res.stderr
    assert "== 2/4" not in res.stdout  # nothing after the build


def test_a_demo_variable_make_demo_does_not_read_is_refused_before_step_1() -> None:
    """Trial 21 kind K1 (a setting accepted and ignored): ``DEMO_TIMEBUDGET=2m make demo`` ran the 6-minute
    default without a word. The variables demo.sh reads are perf.cli.demo_settings.DEMO_VARIABLES, no more, no less."""
    import re

    from perf.cli.demo_settings import DEMO_VARIABLES

    read = set(re.findall(r"\bDEMO_[A-Z_]+\b", (ROOT / "scripts" / "demo.sh").read_text()))
    assert read == set(DEMO_VARIABLES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEMO_")}
    settings = [sys.executable, "-m", "perf.cli.demo_settings", "DEMO_TIME_BUDGET", "--time-budget", "6m"]
    run = functools.partial(subprocess.run, settings, capture_output=True, text=True, timeout=120, check=False)
    out = run(env={**env, "DEMO_TIMEBUDGET": "2m", "DEMO_BUDGET_MS": "30"})
    assert out.returncode == 2
    assert "DEMO_TIMEBUDGET is set, but make demo reads no such variable (did you mean DEMO_TIME_BUDGET?)" in out.stderr
    assert "DEMO_BUDGET_MS" not in out.stderr.splitlines()[0]
    ok = run(env={**env, "DEMO_BUDGET_MS": "30"})
    assert ok.returncode == 0, ok.stderr


#: The sweep cut v_b before measuring it: the caveat as make demo says it (perf.cli.demo_settings --cut-caveat).
_CUT = "The pick is the best of 1 of the 2 variants; not measured (cut for time): `v_b`; `DEMO_TIME_BUDGET=4m make demo` measures it."


def test_step_4_writes_no_bundle_of_a_pick_the_time_budget_made_among_some_variants(tmp_path: Path) -> None:
    """Trial 22, F-demo-cut-winner: DEMO_TIME_BUDGET=3m cut the variant that won every other run before measuring it,
    and step 4 bundled the best of the others as "the run's recommendation" (the cut one beat it 1.85x once measured).
    Step 4 says why it writes none, what measures the cut variants (as make demo takes it) and the command after."""
    log = tmp_path / "calls.txt"
    fake = f'#!/bin/sh\necho "$*" >> {log}\ncase "$*" in *--cut-caveat*) echo "{_CUT.replace("`", chr(92) + "`")}";; esac\n'
    done = _run_demo(tmp_path, fake, DEMO_PROFILE="0")
    assert done.returncode == 0, done.stderr
    (line,) = [ln for ln in done.stdout.split("== 4/4")[1].splitlines() if ln.startswith("== no deployment bundle")]
    assert "cut variants before they were measured" in line and _CUT in line and "--allow-cut" in line
    assert f"`{tmp_path}/venv/bin/triton-perf export-deployment results/demo-" in line
    calls = log.read_text().splitlines()
    assert not any("export-deployment" in c for c in calls)
    (asked,) = [c for c in calls if "--cut-caveat" in c]
    assert "results/demo-" in asked and "time-budget:DEMO_TIME_BUDGET:6m" in asked and " -- --runtime bundled" in asked


def test_the_cut_caveat_names_the_demo_setting_or_the_demos_resume_that_measures_them(tmp_path: Path) -> None:
    from factories import level_result, run_result, variant_result

    from perf.cli.demo_settings import cut_caveat, knob_pairs
    from perf.records import results
    from perf.records.rounds import Cut, RoundsRecord

    knobs = knob_pairs(["time-budget:DEMO_TIME_BUDGET:6m", "latency-budget-ms:DEMO_BUDGET_MS:25"])
    sweep = ["--runtime", "bundled", "--variants", "v_a,v_b", "--time-budget", "3m", "--latency-budget-ms", "25"]
    run = run_result([variant_result("v_a", [level_result(1, 100.0, 2.0)]), variant_result("v_b", status="skipped")])
    run.settings["latency_budget_ms"] = 25.0
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: cut for time", "v_b", need_s=188.0)])
    results.save(run, tmp_path)
    said = cut_caveat(tmp_path, knobs, sweep) or ""
    assert said.startswith("The pick is the best of 1 of the 2 variants; not measured (cut for time): `v_b`")
    assert "`DEMO_TIME_BUDGET=4m make demo` measures it" in said
    # priced as a final group after the rounds: the run's resume measures it
    run.rounds.cuts = [dataclasses.replace(run.rounds.cuts[0], final=True)]
    results.save(run, tmp_path)
    said = cut_caveat(tmp_path, knobs, sweep) or ""
    assert (
        f"`perf/run_sweep.sh --runtime bundled --variants v_a,v_b --time-budget 4m --latency-budget-ms 25 --resume {run.run_id}`"
        in said
    )
    run.rounds.cuts = []
    results.save(run, tmp_path)
    assert cut_caveat(tmp_path, knobs, sweep) is None
