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


def test_a_folder_the_build_made_and_left_bare_is_removed_with_its_lock_file(tmp_path: Path) -> None:
    """Trial 30, F12: a Ctrl-C'd build of a new model left ``builds/dae2/`` holding only ``.build.lock`` while it
    said nothing of the build was written."""
    out = tmp_path / "builds" / "new"
    with pytest.raises(KeyboardInterrupt), build_folder_lock(out, "new"):
        raise KeyboardInterrupt
    assert not out.exists() and (tmp_path / "builds").is_dir()


def test_a_folder_that_was_there_or_holds_more_than_the_lock_stays(tmp_path: Path) -> None:
    earlier = tmp_path / "builds" / "earlier"
    earlier.mkdir(parents=True)
    with build_folder_lock(earlier, "earlier"):
        pass
    assert [p.name for p in earlier.iterdir()] == [LOCK]  # not this build's to remove
    written = tmp_path / "builds" / "written"
    with build_folder_lock(written, "written"):
        (written / "manifest.json").write_text("{}")
    assert sorted(p.name for p in written.iterdir()) == [LOCK, "manifest.json"]


def test_a_build_that_locked_a_lock_file_removed_under_it_stops(tmp_path: Path) -> None:
    out = tmp_path / "builds" / "gone"
    out.mkdir(parents=True)
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)  # opened as the other build removed it
    try:
        (out / LOCK).unlink()
        (out / LOCK).write_text("")  # and a third one made a new file of the name
        from builders.repository import build_lock

        assert not build_lock._still_there(fd, out / LOCK)
    finally:
        os.close(fd)
