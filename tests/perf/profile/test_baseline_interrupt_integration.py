"""Ctrl-C in ``triton-perf baseline`` (a real process, the real tiny build): the rounds timed whole are
shown and kept (baseline.json), the model cut is named with the command that measures it, exit 130
(issue 26: it ended in a bare "aborted", nothing measured shown or kept)."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import interruptible
import pytest

from perf.profile.timing import ROUNDS

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def _baseline_interrupted(repo: Path, out: Path, at_line: str, *more: str) -> tuple[int, str, str]:
    """``triton-perf baseline REPO --out OUT`` of one variant and its eager model (``more``: further flags),
    Ctrl-C when stderr says ``at_line``."""
    cmd = [sys.executable, "-m", "perf.cli.main", "baseline", str(repo), "--out", str(out)]
    cmd += ["--variants", "tiny_onnx_cpu1_nodb_mbs8", "--min-run-time", "10", *more]
    cmd += [] if "--profile-only" in more else ["--warmup", "0.2"]  # only the baseline reads it (else refused)
    proc = interruptible.start(cmd)  # Python's own SIGINT handler, even in a background suite
    lines: list[str] = []
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if at_line in line:
                break
        proc.send_signal(signal.SIGINT)
        stdout, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, stdout, "".join(lines) + rest


def test_ctrl_c_in_the_third_round_keeps_the_two_rounds_timed(tiny_repo: Path, tmp_path: Path):
    out = tmp_path / "bl"
    rc, stdout, err = _baseline_interrupted(tiny_repo, out, "tiny: round 3 of")
    assert rc == 130, stdout + err
    assert "aborted" not in err and "Traceback" not in err, err
    assert "In-process baseline" in stdout + err, stdout + err  # the table
    said = " ".join(err.split())
    assert (  # trial 31, F11: "1 of 1 model measured ... not measured or cut short: tiny" of a model timed in 2 rounds
        "interrupted (Ctrl-C): in-process baseline of 0 of 1 model measured in full; `tiny` timed in only 2 of its "
        f"{ROUNDS} rounds (cut short: interrupted (Ctrl-C)); what it timed (the table above) is kept in {out}/baseline.json; "
        "the same command with --replace measures every variant again"
    ) in said, said
    kept = json.loads((out / "baseline.json").read_text())
    points = kept["points"]
    assert points and all(len(p["rounds_ms"]) == 2 for p in points), points  # the two rounds timed whole, not the third
    assert any("`tiny`: timed in 2 of " in n and "interrupted (Ctrl-C)" in n for n in kept["notes"]), kept["notes"]


def test_ctrl_c_before_the_first_round_ends_keeps_nothing_and_says_so(tiny_repo: Path, tmp_path: Path):
    out = tmp_path / "bl"
    rc, stdout, err = _baseline_interrupted(tiny_repo, out, "tiny: round 1 of")
    assert rc == 130, stdout + err
    assert "aborted" not in err and "Traceback" not in err, err
    said = " ".join(err.split())
    assert "interrupted (Ctrl-C): in-process baseline of 0 of 1 model measured in full; not measured: tiny; nothing kept" in said
    assert "nothing kept; the same command measures it" in said
    assert not (out / "baseline.json").exists()


def test_ctrl_c_in_the_precision_study_keeps_the_traces_written_before_it(tiny_repo: Path, tmp_path: Path):
    """The traces written before the Ctrl-C are kept and named, the study's rows marked interrupted with the command
    that measures them (issue 26: the traces already written were dropped, "stored nothing")."""
    out = tmp_path / "bl"
    more = ("--profile-only", "--trace", "--precision", "fp32,bf16")
    rc, stdout, err = _baseline_interrupted(tiny_repo, out, "precision study on cpu", *more)
    assert rc == 130, stdout + err
    assert "aborted" not in err and "Traceback" not in err, err
    said = " ".join(err.split())
    assert (
        f"interrupted (Ctrl-C): the traces and the precision study: 2 of 4 trace or precision rows measured before it, "
        f"kept in {out}/profile.json (the trace files in {out}/traces), shown above; 2 marked 'interrupted (Ctrl-C)'"
    ) in said, err
    kept = json.loads((out / "profile.json").read_text())
    assert [t["status"] for t in kept["traces"]] == ["measured", "measured"], kept["traces"]
    assert all((out / t["file"]).is_file() for t in kept["traces"])
    again = f"`triton-perf baseline {tiny_repo} --out {out} --profile-only --trace --precision fp32,bf16 --replace` measures it"
    for row in kept["precision"]:
        assert row["status"] == "interrupted (Ctrl-C)" and row["reason"].endswith(again), row
    assert "Ctrl-C came during this model's study (its rows dropped)" in kept["precision"][0]["reason"]
