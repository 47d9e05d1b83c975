"""A message names the flag the user typed, never the options field behind it (trial 9, F19: a
resume after ``--round-window 200`` warned "round_window_ms 200 ignored")."""

from __future__ import annotations

from pathlib import Path

from clients.runtimes.options import ServerOptions
from core.flag_words import flag_name, flag_words
from perf.records.settings import MeasureSettings
from perf.sweep.options import SweepOptions


def test_a_field_is_named_by_its_flag_with_the_value_as_typed():
    assert flag_words(SweepOptions, "round_window_ms", 200) == "--round-window 200"
    assert flag_words(SweepOptions, "concurrency", (1, 4)) == "--concurrency 1,4"
    assert flag_words(SweepOptions, "host_busy_threshold_pct", 20.0) == "--host-busy-threshold 20"
    assert flag_words(SweepOptions, "sweep_axes", {"time": (16, 512)}) == "--shapes time=16,512"
    assert flag_words(SweepOptions, "shapes", {"series": (4, 64)}) == "--shape series:4,64"
    assert flag_words(SweepOptions, "baseline", False) == "--no-baseline"
    assert flag_words(MeasureSettings, "stability_pct", 5.0) == "--stability-percentage 5"
    assert flag_words(ServerOptions, "max_upload_bytes", 64 * 2**20) == "--max-upload-mb 64"
    assert flag_words(ServerOptions, "repository", Path("repo")) == "--repository repo"
    assert flag_name(SweepOptions, "latency_budget_ms") == "--latency-budget-ms"


def test_every_resume_warning_names_flags_not_fields(caplog):
    """Every setting a resume can ignore is warned about by its flag: no field name is left in the message."""
    import dataclasses

    from perf.sweep.resuming import resumed_options, run_settings

    saved = run_settings(SweepOptions(ServerOptions(Path("/somewhere/repo")), round_window_ms=300), ["v"], "prune")
    given = SweepOptions(
        ServerOptions(Path("other"), runtime="local"),
        round_window_ms=200,
        host_busy_threshold_pct=30.0,
        measure=MeasureSettings(stability_pct=5.0),
        resume=True,
        given=frozenset({"round_window_ms", "host_busy_threshold_pct", "measure", "server", "runtime", "repository"}),
    )
    with caplog.at_level("WARNING"):
        resumed_options(dataclasses.replace(given), saved)
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "--round-window 200 ignored" in said and "--host-busy-threshold 30 ignored" in said
    assert "--stability-percentage 5 ignored" in said and "--runtime local" in said and "--repository other ignored" in said
    for field in ("round_window_ms", "host_busy_threshold_pct", "stability_pct", "runtime=", "repository other"):
        assert field not in said.replace("--repository other", "")
