"""A Ctrl-C'd ``triton-perf coldstart`` says each variant in one group, so its counts add up: measured,
failed (the table says why), not measured (trial 19, T19-13's kind: a cold start that failed to load was
counted among the "measured")."""

from __future__ import annotations

from types import SimpleNamespace

from perf.cli.coldstart import interrupted_line


def test_a_failed_cold_start_is_not_counted_as_measured():
    records = [SimpleNamespace(variant="a", measured=True), SimpleNamespace(variant="b", measured=False)]
    line = interrupted_line(["a", "b", "c", "d"], records, ["c", "d"])
    assert line.startswith("interrupted (Ctrl-C): 1 of 4 variants measured (the table above); 1 failed: b (the table says why)")
    assert "; not measured: c, d; to measure them, run the same command with --variants c,d" in line
