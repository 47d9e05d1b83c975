"""A message names a server log where the toolkit keeps one: the log of a server it started (in the run folder);
for a --url server, that the toolkit did not start it, and where its log is (re-check 18: a `--url` sweep whose
server did not answer said "results/srvdown keeps the server log"; the folder held flat.csv, raw/ and results.json)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import colocation_source as cs

from clients.runtimes.host import HeldPorts, not_ours
from perf.colocate.resume import SERVER_FAILED, server_failed
from perf.deploy.combination import no_pick_advice

ROOT = Path(__file__).resolve().parents[3]


def _refusing() -> HeldPorts:
    """A port that refuses connections for as long as the test keeps this: held, never listening (a port closed
    after its choice could be another test's server by the time the sweep asks it)."""
    return HeldPorts([0])


def _repository(tmp_path: Path) -> Path:
    """A repository of one model folder (never loaded: no server answers)."""
    repo = tmp_path / "repo" / "m"
    (repo / "1").mkdir(parents=True)
    (repo / "1" / "model.onnx").write_bytes(b"")
    (repo / "config.pbtxt").write_text(
        'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    return repo


def test_a_url_sweep_whose_server_does_not_answer_says_no_log_is_kept_in_its_run_folder(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    held = _refusing()
    url = f"127.0.0.1:{held.ports[0]}"
    argv = [str(ROOT / "perf/run_sweep.sh"), "--url", url, "-r", str(repo.parent), "--run-id", "srvdown"]
    res = subprocess.run(
        [*argv, "--time-budget", "20s", "--no-baseline"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert res.returncode == 1, res.stdout + res.stderr
    said = " ".join(res.stderr.split())
    assert f"no Triton server answers at http://{url}" in said, said
    assert "keeps the server log" not in said and "server log" not in said, said
    # "by this command": the toolkit's own launcher may have started it, in another terminal (s17c)
    assert f"the server at http://{url} was not started by this command, so no log of it is kept here" in said, said
    assert "`kubectl logs POD`); the same --run-id starts over in results/srvdown" in said, said
    assert not list((tmp_path / "results" / "srvdown").glob("*.log"))  # and indeed none is there


def test_a_co_location_s_failed_server_is_said_where_its_log_is() -> None:
    mine, theirs = server_failed(()), server_failed(("h:8000",))
    assert mine == f"{SERVER_FAILED} (see its log in the run folder)"
    assert "run folder" not in theirs and not_ours("h:8000") in theirs and theirs.startswith(SERVER_FAILED)
    assert "the servers at http://a:1, http://b:1 were not started by this command" in not_ours("a:1", "b:1")


def test_export_combination_of_a_run_whose_server_failed_sends_a_url_server_s_owner_to_its_own_log() -> None:
    """s17c: the advice said "see the server's log in the run folder" beside a reason that says no log of a --url
    server is kept there."""
    rec = cs.record(0)
    rec.pick, rec.pick_reason = None, server_failed(("h:8000",))
    rec.environment = {"server": {"runtime": "remote", "command": ""}}
    assert no_pick_advice(rec).startswith("see the server's own log, where it runs, fix what it names")
    rec.environment = {"server": {"runtime": "bundled", "command": "tritonserver ..."}}
    rec.pick_reason = server_failed(())
    assert no_pick_advice(rec).startswith("see the server's log in the run folder")


def test_on_a_terminal_the_error_starts_its_own_line_after_the_progress_bar(tmp_path: Path) -> None:
    """Re-check 18 saw "exportingerror (gpu): ..." in one terminal: a second build ran there at the same time (its
    status line, then the other command's error). Within one command, the bar is closed before the error is said:
    this reads a real sweep's bytes on a pseudo-terminal (its bar drawn, then the --url error)."""
    import os
    import re

    held = _refusing()
    url = f"127.0.0.1:{held.ports[0]}"
    repo = _repository(tmp_path)
    main, tty = os.openpty()
    argv = [str(ROOT / "perf/run_sweep.sh"), "--url", url, "-r", str(repo.parent), "--time-budget", "20s", "--no-baseline"]
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm"}
    proc = subprocess.Popen(argv, stdin=tty, stdout=tty, stderr=tty, cwd=tmp_path, env=env)
    os.close(tty)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's other end closed: the command ended
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=120) == 1
    os.close(main)
    text = out.decode(errors="replace")
    assert "reaching tritonserver" in text, text  # the bar was drawn
    before = text[: text.index("error (server)")]
    last = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", before.split("\r")[-1].split("\n")[-1])  # what the line holds before it
    assert last == "", repr(before[-200:])
