"""flat.csv's rounds are numbered as the console numbers them (trial 27, T27-16: its ``trial`` column held the round's
0-based index in a rounds run, ``trial`` 0 the console's "round 1", while ``--trials`` means sequential repeats). A
``round`` column, last, says the round as the console does; ``trial`` and every column before stay as they were."""

from __future__ import annotations

import csv
from pathlib import Path

from factories import make_run

from perf.records.results import ROUND_COLUMN, write_flat_csv
from perf.records.rounds import RoundsRecord


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_rounds_runs_rows_say_the_round_as_the_console_numbers_it(tmp_path: Path) -> None:
    run = make_run()
    run.rounds = RoundsRecord(seed=1)
    run.variants[0].levels[0].trial = 2  # the console's "round 3"
    write_flat_csv(run, tmp_path / "flat.csv")
    header = (tmp_path / "flat.csv").read_text().splitlines()[0].split(",")
    assert header[-2:] == ["level_status", ROUND_COLUMN] and "trial" in header  # older readers' columns kept
    first = _rows(tmp_path / "flat.csv")[0]
    assert (first["trial"], first[ROUND_COLUMN]) == ("2", "3")


def test_a_run_without_rounds_leaves_the_round_empty(tmp_path: Path) -> None:
    run = make_run()
    run.rounds = None
    write_flat_csv(run, tmp_path / "flat.csv")
    assert {r[ROUND_COLUMN] for r in _rows(tmp_path / "flat.csv")} == {""}
