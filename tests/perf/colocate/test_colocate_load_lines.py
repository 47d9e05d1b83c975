"""Colocate says each variant it loads as the sweep does (trial 21, T21-2: ~70 s of silence while it started the
server and loaded 8 variants on a busy host; the sweep prints "loaded X in N s" for each). One function
(perf.search.events.loaded_words) gives both commands' line; colocate's seconds are the ones its plan prices a load by
(its inputs made and its warm-up included), so the line says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_colocation_server import invoke_faked

from perf.search.events import loaded_words


def test_loaded_words_is_the_sweeps_line() -> None:
    assert loaded_words("v", 3.44) == "loaded v in 3.4 s"
    assert loaded_words("v", 3.44, "with more") == "loaded v in 3.4 s (with more)"


def test_colocate_says_each_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perf.colocate.source import LOAD_HOLDS
    from perf.records import colocation

    got = invoke_faked(tmp_path, monkeypatch, {"big_x1": 1, "big_x2": 2, "small_x1": 1})
    assert got.exit_code == 0, got.output
    out = " ".join(got.output.split())  # the console wraps long lines
    rec = colocation.load(tmp_path / "results" / "r")
    timed = sum(len(s.load_s) for s in rec.steps)
    assert timed and out.count("loaded ") >= timed, got.output  # one line per load the record timed
    for v in ("big_x1", "big_x2", "small_x1"):
        assert f"loaded {v} in " in out, got.output
    assert f"({LOAD_HOLDS})" in out, got.output
