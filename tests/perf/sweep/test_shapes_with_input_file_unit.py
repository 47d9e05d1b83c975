"""--shapes beside a file of the user's inputs is refused before anything starts (break test of
trial 12's fixes, B6): `--shapes time=400 --input-data d.json` swept the file's 120-sample entries
and labelled every number time=400. A folder of raw files and perf_analyzer's random/zero take
--shapes (the sizes are theirs to be given)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import FlagError
from perf.sweep.preflight import check_mixed


@pytest.mark.parametrize("name", ["d.json", "d.npz", "d.npy"])
def test_fixed_shapes_with_a_file_of_inputs_are_refused(tmp_path: Path, name: str) -> None:
    data = tmp_path / name
    data.write_text("{}")
    with pytest.raises(FlagError) as err:
        check_mixed({"time": (400,)}, (1,), data)
    said = str(err.value)
    assert "--shapes time=400" in said and str(data) in said and "what is sent" in said
    assert "drop --shapes" in (err.value.hint or "")


def test_shapes_with_generated_or_folder_inputs_are_taken(tmp_path: Path) -> None:
    for data in ("random", "zero", tmp_path, None):
        check_mixed({"time": (400, 1600)}, (1,), data)  # nothing raised: the sizes are the ones sent
    check_mixed({}, (1,), tmp_path / "d.json")  # a file alone: its shapes, nothing to refuse
