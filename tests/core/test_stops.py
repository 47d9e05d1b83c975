"""SIGTERM and SIGHUP stop a command as Ctrl-C does (trial 22, F-sigterm: a sweep killed with ``kill -TERM``
exited 143 without a line): the command's own interrupt words, naming the signal, and exit 128 + its number.
Each command runs in a subprocess of its own and is sent the signal for real."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A long command made with core.cli.run_cli: its Ctrl-C handler says what it kept; "ready" once it waits.
LONG = textwrap.dedent(
    """
    import sys, time, click
    from core.cli import EXIT_INTERRUPTED, run_cli
    from core.console import ignore_further_interrupts
    from core.console import stop_name

    PAUSE = float(sys.argv.pop(1))

    @click.command()
    def long():
        try:
            print("ready", flush=True)
            time.sleep(60)
        except KeyboardInterrupt:
            ignore_further_interrupts()
            print("saving", flush=True)
            time.sleep(PAUSE)
            print(f"interrupted ({stop_name()}): kept 3 visits; continue with --resume r1", flush=True)
            raise SystemExit(EXIT_INTERRUPTED) from None

    run_cli(long, prog_name="long")
    """
)


def _start(code: str, *args: str, **kw) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "support")])}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=kw.pop("cwd", ROOT),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **kw,
    )


def _wait_for(proc: subprocess.Popen[str], word: str, limit_s: float = 60) -> list[str]:
    """The lines ``proc`` printed up to the one that holds ``word``."""
    lines: list[str] = []
    end = time.monotonic() + limit_s
    assert proc.stdout is not None
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if word in line:
            return lines
    proc.kill()
    raise AssertionError(f"{word!r} never came: {''.join(lines)}")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_stop_signal_says_what_was_kept_and_exits_128_plus_its_number(sig: signal.Signals, code: int) -> None:
    proc = _start(LONG, "0")
    _wait_for(proc, "ready")
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    name = "Ctrl-C" if sig == signal.SIGINT else sig.name
    assert f"interrupted ({name}): kept 3 visits; continue with --resume r1" in out, out
    assert proc.returncode == code, out


def test_a_second_sigterm_while_it_says_what_it_kept_cuts_nothing() -> None:
    """``docker stop`` and CI runners may send SIGTERM again: the first one's words are still said whole."""
    proc = _start(LONG, "1.5")
    _wait_for(proc, "ready")
    proc.send_signal(signal.SIGTERM)
    _wait_for(proc, "saving")
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert "interrupted (SIGTERM): kept 3 visits" in out and proc.returncode == 143, out


def test_a_sighup_its_parent_ignores_stays_ignored() -> None:
    """``nohup`` sets SIGHUP to be ignored: a command started so is not stopped by it."""
    proc = _start(LONG, "0", preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    _wait_for(proc, "ready")
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "interrupted (SIGTERM)" in out, out


#: ``triton-perf sweep`` for real, its measuring faked (tests/perf/sweep/test_sweep_cli_unit.py's FakeSweep):
#: the run is saved, then it waits as a sweep measuring a level does.
SWEEP = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv.pop(1))
    import perf.sweep.run
    from perf.records import results
    from test_sweep_cli_unit import FakeSweep, _run
    from perf.cli.main import main

    class Waits(FakeSweep):
        def run_all(self):
            results.save(self.run, self.run_dir)
            print("ready", flush=True)
            time.sleep(60)

    Waits.run_result = _run("ok")
    perf.sweep.run.Sweep = Waits
    sys.argv = ["triton-perf", "sweep", "--no-report", "--results-dir", "runs", "--run-id", "r7"]
    main()
    """
)


def test_a_sweep_sent_sigterm_says_what_it_kept_and_how_to_continue(tmp_path: Path) -> None:
    proc = _start(SWEEP, str(ROOT / "tests" / "perf" / "sweep"), cwd=tmp_path)
    _wait_for(proc, "ready")
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    text = " ".join(out.split())
    assert "interrupted (SIGTERM): it holds" in text and "--resume r7" in text, out  # break-it F4: the signal named
    assert proc.returncode == 143, out


#: A command that ends at once; after run_cli returns, the process sends itself SIGTERM, as one that lands while
#: the interpreter exits does (break-it F24).
ENDS = textwrap.dedent(
    """
    import os, signal, time, click
    from core.cli import run_cli

    @click.command()
    def short():
        print("done", flush=True)

    run_cli(short, prog_name="short")
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.3)
    print("exiting", flush=True)
    """
)


def test_a_sigterm_once_the_command_has_ended_prints_no_traceback() -> None:
    """A SIGTERM that came once the command's body returned (a build that had written its last line) raised
    ``KeyboardInterrupt`` during the interpreter's exit: "Exception ignored in ... KeyboardInterrupt: SIGTERM"
    and a traceback. Its work is done and said: the signal is ignored."""
    proc = _start(ENDS)
    out, _ = proc.communicate(timeout=60)
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "done" in out and "exiting" in out and proc.returncode == 0, out


#: A command that ends at once, and an object that sends the process a stop signal when the interpreter's exit tears
#: it down: after Python's own signal handling has ended and put back each signal's default action (break-it F24's
#: SIGTERM landed earlier, in the exit's Python code). A Ctrl-C then ended a complete build with exit 130 and not a
#: line (trial 28, T28-12: torch's modules take a while to tear down).
IN_THE_EXIT = textwrap.dedent(
    """
    import os, signal, sys, time, click
    from core.cli import run_cli

    SIG = signal.Signals[sys.argv.pop(1)]

    class Late:
        def __del__(self):
            os.kill(os.getpid(), SIG)
            time.sleep(0.3)
            os.write(1, b"torn down\\n")

    late = Late()

    @click.command()
    def short():
        print("done", flush=True)

    run_cli(short, prog_name="short")
    """
)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_interpreter_exits_is_ignored(sig: signal.Signals) -> None:
    """README: a stop "that comes once the command has ended is ignored": the command exits as it ended (0)."""
    proc = _start(IN_THE_EXIT, sig.name)
    out, _ = proc.communicate(timeout=60)
    assert "done" in out and "torn down" in out and proc.returncode == 0, (proc.returncode, out)


#: A command whose body drops an object with a weakref callback (as an import drops its module lock) that a SIGTERM
#: lands in; the body then goes on for 30 s unless the stop reaches it.
IN_A_FINALIZER = textwrap.dedent(
    """
    import os, signal, time, weakref, click
    from core.cli import EXIT_INTERRUPTED, run_cli
    from core.console import interrupted_words

    class Held:
        pass

    def dropped():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):
            pass

    @click.command()
    def body():
        try:
            held = Held()
            weakref.finalize(held, dropped)
            del held
            time.sleep(30)
            print("went on", flush=True)
        except KeyboardInterrupt:
            print(f"{interrupted_words()}: kept what it had", flush=True)
            raise SystemExit(EXIT_INTERRUPTED) from None

    run_cli(body, prog_name="body")
    """
)


def test_a_sigterm_inside_a_finalizer_still_stops_the_command() -> None:
    """Break-it F24's second case: a SIGTERM that landed while a finalizer or weakref callback ran raised
    KeyboardInterrupt there, which Python only prints ("Exception ignored in ..."): the command went on as if nothing
    happened. The stop is delivered again, as a signal that also ends the wait the command is in (its 30 s sleep, as
    a wait on a child's output): the command says its words and exits 143, with no traceback."""
    began = time.monotonic()
    proc = _start(IN_A_FINALIZER)
    out, _ = proc.communicate(timeout=60)
    assert "interrupted (SIGTERM): kept what it had" in out and proc.returncode == 143, out
    assert time.monotonic() - began < 25, out  # not at the end of the wait
    assert "went on" not in out and "Traceback" not in out and "Exception ignored" not in out, out
