"""Throughput and latency in words are in the tables' format (trial 25, T25-20: a hint said "29.1 vs 1.07e+03
infer/s" where the tables said "1,065.6"): never a ``:g``/``:.3g``/``:e`` format, which turns to scientific
notation from a million (``:g``) or a thousand (``:.3g``). The table format: :func:`core.units.thousands` for
infer/s, :func:`perf.markdown.fmt` for measured ms, :func:`perf.markdown.fmt_given` for a number the user gave
(a budget, a request rate). A source scan, as tests/perf/report/test_cpu_units.py."""

from __future__ import annotations

import re
from pathlib import Path

from perf.analysis.effects.thread_hint import fast_words
from perf.profile.precision_study import _secs

ROOT = Path(__file__).resolve().parents[2]
#: An f-string field with a general/exponent presentation (``{x:g}``, ``{x:.3g}``, ``{x:,.6g}``, ``{x:.2e}``),
#: with what follows it.
FIELD = re.compile(r"\{([^{}:!]+?)(?:![rsa])?:([^{}]*?[gGeE])\}(?=(.{0,12}))")
#: A field about a throughput or a latency: by its name, or by the unit written after it.
QUANTITY = re.compile(r"p\d\d\b|latency|_ms\b|\bms\b|throughput|\bthr\b|infer|\bfast\b|\bslow\b|request_rate|\brate\b")
UNIT_AFTER = re.compile(r"^\}?\)?'?\s*(infer/s|ms\b|/s\b|requests/s|µs)")
#: Not words: a file name's tag and perf_analyzer's own arguments, which take a plain number.
MACHINE = {
    ("perf/measure/level.py", 'tag = f"r{load.request_rate:g}"'),
    ("perf/measure/analyzer.py", '["--request-rate-range", f"{request_rate:g}:{request_rate:g}"]'),
    ("perf/report/layout.py", 'f"budget{latency_budget_ms:g}ms"'),
}


def test_no_throughput_or_latency_is_written_in_scientific_notation() -> None:
    found = []
    for top in ("perf", "clients", "core", "builders"):
        for p in sorted((ROOT / top).rglob("*.py")):
            rel = str(p.relative_to(ROOT))
            for i, line in enumerate(p.read_text().splitlines(), 1):
                if any(rel == f and snippet in line for f, snippet in MACHINE):
                    continue
                for m in FIELD.finditer(line):
                    expr, _spec, after = m.groups()
                    if QUANTITY.search(expr) or UNIT_AFTER.search(after):
                        found.append(f"{rel}:{i}: {m.group(0)}")
    assert not found, found


def test_the_thread_hint_and_a_first_call_are_said_as_the_tables_say_them() -> None:
    assert fast_words(29.1, 1065.6) == "29.1 vs 1,065.6 infer/s"  # was "29.1 vs 1.07e+03 infer/s"
    assert _secs(150.0) == "150.00 s" and _secs(0.35) == "350.0 ms" and "e" not in _secs(1e-7)
