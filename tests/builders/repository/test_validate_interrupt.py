"""Ctrl-C in ``builders validate --load-artifacts`` (a real process, TorchScript archives loaded one model folder at a
time): it shows what the folders checked whole found, names those not checked, and exits 130 (issue 26: it ended in a
bare "aborted", the seconds of checks done said nowhere)."""

from __future__ import annotations

import sys
from pathlib import Path

import interruptible
import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid


@pytest.mark.slow  # a real TorchScript build, then a real `builders validate --load-artifacts` process
def test_ctrl_c_during_validate_load_artifacts_keeps_and_names_what_was_checked(tmp_path: Path) -> None:
    grid = VariantGrid(counts=(1, 2), queue_delays_us=(None, 500), max_batch_sizes=(4, 8))
    repo = tmp_path / "repo"
    build(BuildOptions("tiny", formats=("torchscript",), serving="native", grid=grid, repository=repo, build_dir=tmp_path / "b"))
    names = sorted(p.name for p in repo.iterdir() if p.is_dir())
    assert len(names) == 8
    cmd = [sys.executable, "-m", "builders.cli.main", "validate", str(repo), "--load-artifacts"]
    # two folders checked whole, the third loading: its loader waits to be killed (a condition, not a time: under
    # load the test read "checking 3/8" after the command had checked further, or ended, and failed twice)
    held = interruptible.holding_loader(tmp_path / "hold", names[2])
    rc, out = interruptible.interrupt_at(cmd, "checking 3/8", env=held)
    assert rc == 130, out
    said = " ".join(out.split())
    assert "aborted" not in out and "Traceback" not in out, out
    line = said[said.index("interrupted (Ctrl-C) while checking ") :]
    stopped_at = line.split("while checking ")[1].split(":")[0]
    checked = names[: names.index(stopped_at)]
    assert stopped_at == names[2] and len(checked) == 2, out
    assert f"{len(checked)} of 8 model folders checked ({', '.join(checked)}): no problem found in them;" in line, out
    assert f"not checked: {', '.join(names[len(checked) :])}" in line, out
    assert "8 models checked" not in said  # no summary of a whole check
