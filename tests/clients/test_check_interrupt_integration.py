"""Ctrl-C in ``clients check`` on the real bundled server: it says at once how it stops, prints the
rows of the variants already checked, names those it did not check, and exits 130 (trial 17, T17-16:
17 s of silence, then "aborted", and the rows checked were lost). A second Ctrl-C while it stops
keeps them too (re-check of trial 17: two Ctrl-C 0.4 s apart dropped the rows and said "before any
variant was checked")."""

from __future__ import annotations

from pathlib import Path

import interruptible
import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("again_after_s", [None, 0.4], ids=["once", "twice"])
def test_ctrl_c_after_the_first_variant_keeps_its_rows_and_names_the_rest(tiny_repo, tiny_build, tmp_path, again_after_s):
    names = tiny_build.manifest["variants"][:3]
    rc, out, err, said_after = interruptible.check_interrupted(tiny_repo, names, tmp_path / "s.log", again_after_s)
    assert rc == 130, out + err
    assert said_after < 5, out  # at once, not after the server's stop
    assert f"stopping (Ctrl-C): {names[1]} left unfinished; stopping tritonserver, which unloads it (up to" in out
    rows = [ln for ln in out.splitlines() if "│" in ln and "pass" in ln]
    assert len(rows) == 2 and all(names[0] in r for r in rows), out  # its http and grpc rows
    assert "2 of 2 rows passed" in out and "1 of 1 variant passed over http and grpc" in out, out
    assert f"interrupted (Ctrl-C): 1 of 3 variants checked (the table above); not checked: {names[1]}, {names[2]}" in out
    assert f"--variants {names[1]},{names[2]}" in out
    assert f"{names[0]}: checked: passed over http, grpc" in out  # said as each variant ends
    assert "before any variant was checked" not in out
    assert "Traceback" not in err and "aborted" not in err, err
