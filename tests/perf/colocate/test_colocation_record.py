"""colocation.json: the co-location record round-trips, is versioned and names a bad field."""

from __future__ import annotations

import json
from pathlib import Path

import colocation_source as cs
import pytest

from core.errors import RecordError
from perf.colocate.search import CoordinateSearch
from perf.records import colocation
from perf.records.colocation import COLOCATION_FILE, COLOCATION_KIND, COLOCATION_SCHEMA


def _run(tmp_path: Path) -> colocation.ColocationRecord:
    src = cs.SynthSource(0)
    rec = cs.record(0)
    CoordinateSearch(rec, src, clock=src.clock, save=lambda: colocation.save(rec, tmp_path)).run()
    return rec


def test_a_searched_run_round_trips_with_everything_it_decided(tmp_path: Path) -> None:
    rec = _run(tmp_path)
    saved = json.loads((tmp_path / COLOCATION_FILE).read_text())
    assert saved["schema"] == COLOCATION_SCHEMA
    assert {"models", "steps", "visits", "decisions", "pick", "pick_reason", "cuts"} <= set(saved)
    assert saved["models"][0]["concurrency"] == 4 and saved["models"][0]["weight"] == cs.WEIGHTS["big"]
    assert saved["visits"][0]["samples"][0]["latency_p99_ms"] > 0
    assert saved["decisions"][0]["reason"]
    back = colocation.load(tmp_path)
    assert back == rec
    assert colocation.find(tmp_path) == rec
    assert colocation.find(tmp_path / "elsewhere") is None


def test_a_newer_or_broken_file_is_refused_naming_the_field(tmp_path: Path) -> None:
    rec = _run(tmp_path)
    data = COLOCATION_KIND.dump(rec)
    (tmp_path / COLOCATION_FILE).write_text(json.dumps({**data, "schema": COLOCATION_SCHEMA + 1}))
    with pytest.raises(RecordError, match="newer than this toolkit reads"):
        colocation.load(tmp_path)
    data["visits"][0]["samples"][0]["throughput_infer_per_s"] = "fast"
    (tmp_path / COLOCATION_FILE).write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"visits\[0\]\.samples\[0\]\.throughput_infer_per_s"):
        colocation.load(tmp_path)
