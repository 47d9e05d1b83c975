"""One rule for CPU % in every output (core.units.ONE_CORE, ALL_CORES): a process's CPU (the host-busy flags'
"other processes used 92 % ...") in % of one core, the host's (Triton's nv_cpu_utilization) in % of all its cores,
each said beside its number. Trial 23, T23-13: report.md's "host CPU (%)" column (0-100 of the whole host) stood
beside flags in "% of a core" (50-138 %), the column's base not said; the plots' axis said "host CPU (%)" too.
"""

from __future__ import annotations

import re
from pathlib import Path

from factories import make_run

from core.units import ALL_CORES, ONE_CORE
from perf.analysis.stats.points import run_points
from perf.markdown import CPU_MEASURES
from perf.report.phrases import Facts, say
from perf.report.sections.tables import level_tables

ROOT = Path(__file__).resolve().parents[3]


def test_the_host_cpu_column_and_axis_say_all_cores() -> None:
    label, unit, _, what = CPU_MEASURES["cpu_utilization_pct"]
    assert unit == ALL_CORES and "100 % = every core busy" in what
    table = "\n".join(level_tables(run_points(make_run())))
    assert f"host CPU ({ALL_CORES})" in table and "host CPU (%)" not in table


def test_prose_of_the_host_cpu_says_all_cores() -> None:
    said = say("contrast", Facts(host_cpu_pct=97.0)) + say("contrast", Facts(host_cpu_pct=12.0))
    assert f"(97 {ALL_CORES}, perf_analyzer included)" in said and f"(12 {ALL_CORES})" in said


def test_no_source_says_a_cpu_percent_of_a_core_in_other_words() -> None:
    """Every "% of ... core" the code writes is ONE_CORE's words (a source scan): not "% of a core", "% of 1 core"."""
    other = re.compile(r"%%? of (a|1|the) cores?\b")
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for top in ("perf", "clients", "core", "builders")
        for p in (ROOT / top).rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if other.search(line)
    ]
    assert not found, found
    assert ONE_CORE == "% of one core"
