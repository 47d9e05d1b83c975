"""Trial 17, T17-9: two builds of one model at once shared ``builds/<model>/.staging``; the one that
failed removed the other's staging folder, which then died in a FileNotFoundError traceback. A build
now holds ``builds/<model>/.build.lock``: a second one meets it and stops with one error naming the
first's pid, changing nothing; the first's staging folder is untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders.repository.build_lock import LOCK, build_folder_lock, holder
from core.errors import BuildBusyError

_HOLD = """
import sys
from pathlib import Path
from builders.repository.build_lock import build_folder_lock
out = Path(sys.argv[1])
with build_folder_lock(out, "tiny"):
    (out / ".staging").mkdir()
    (out / ".staging" / "reference.npz").write_text("the first build's")
    print("held", flush=True)
    sys.stdin.read()  # until the test closes stdin
"""


def _hold(out: Path) -> subprocess.Popen[str]:
    """A real process holding ``out`` as a build at work does, its staging folder written."""
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    p = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


def test_a_second_lock_of_one_build_folder_names_the_first_ones_pid(tmp_path: Path) -> None:
    out = tmp_path / "builds" / "tiny"
    first = _hold(out)
    try:
        assert holder(out) == str(first.pid)
        with pytest.raises(BuildBusyError, match=rf"^another build of tiny is at work in {out} \(pid {first.pid}\)"):
            with build_folder_lock(out, "tiny"):
                pytest.fail("the lock was taken twice")
        assert (out / ".staging" / "reference.npz").read_text() == "the first build's"
    finally:
        first.communicate("")
    assert holder(out) is None and (out / LOCK).read_text() == ""  # released, its pid gone with it
    with build_folder_lock(out, "tiny"):
        assert holder(out) == str(os.getpid())


@pytest.mark.slow  # a real `builders build` process (loads torch)
def test_a_real_second_build_stops_with_one_error_and_leaves_the_first_alone(tmp_path: Path) -> None:
    """The trial's sequence: `builders build` of a model whose build is at work."""
    out = tmp_path / "builds" / "tiny"
    first = _hold(out)
    try:
        cmd = [sys.executable, "-m", "builders.cli.main", "build", "--model", "tiny", "--format", "onnx"]
        cmd += ["--build-dir", str(tmp_path / "builds"), "--repository", str(tmp_path / "repo")]
        cmd += ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
        env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        assert res.returncode == 1, res.stderr
        assert f"error (build): another build of tiny is at work in {out} (pid {first.pid})" in res.stderr
        assert "Traceback" not in res.stderr
        assert (out / ".staging" / "reference.npz").read_text() == "the first build's"
        assert sorted(p.name for p in out.iterdir()) == [".build.lock", ".staging"]
        assert not (tmp_path / "repo").exists()
    finally:
        first.communicate("")
