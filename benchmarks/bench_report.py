"""Time ``triton-perf report`` on synthetic 48- and 200-variant runs built from the real demo run's levels.

Usage::

    .venv/bin/python benchmarks/bench_report.py                 # 48 x 4 and 200 x 8, plain and --html
    .venv/bin/python benchmarks/bench_report.py --repeat 3 --out results/bench_report.json

The runs come from ``tests/support/synthetic_runs.py`` (the demo grid's real levels, parameters
varied, throughput perturbed with a fixed seed), so every run of this benchmark reports on
the same data. Printed and saved per case: wall and CPU time of ``write_report`` (s; best of
``--repeat``), the lines of ``report.md`` and ``appendix.md``, and the plots written. Issue 18's
targets: under 15 s and about 250 lines at 200 variants x 8 levels. The host is shared: wall
time varies with its load, CPU time much less. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=1, help="runs per case; the best is kept (default 1)")
    p.add_argument("--out", type=Path, default=None, help="JSON output file (default: none)")
    args = p.parse_args(argv)

    from rich.console import Console
    from rich.table import Table
    from synthetic_runs import CONCURRENCY_8, GRID_48, GRID_200, synthetic_run

    from perf.records.results import save
    from perf.report.write import write_report

    cases = [
        ("48 x 4", GRID_48, (1, 2, 4, 8), False),
        ("200 x 8", GRID_200, CONCURRENCY_8, False),
        ("200 x 8 --html", GRID_200, CONCURRENCY_8, True),
    ]
    rows = []
    for label, grid, conc, html in cases:
        run = synthetic_run(grid, conc)
        best: dict | None = None
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as d:
                save(run, Path(d))
                wall, cpu = time.perf_counter(), time.process_time()
                path = write_report(Path(d), html=html)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                row = {
                    "case": label,
                    "variants": len(run.variants),
                    "levels": len(conc),
                    "wall_s": round(wall, 2),
                    "cpu_s": round(cpu, 2),
                    "report_lines": len(path.read_text().splitlines()),
                    "appendix_lines": len((Path(d) / "appendix.md").read_text().splitlines()),
                    "plots": len(list(Path(d).glob("*.png"))),
                }
                if best is None or row["wall_s"] < best["wall_s"]:
                    best = row
        assert best is not None
        rows.append(best)

    view = Table(title=f"triton-perf report on synthetic runs ({platform.node()}, best of {args.repeat})")
    for col in rows[0]:
        view.add_column(col, justify="left" if col == "case" else "right")
    for r in rows:
        view.add_row(*(str(v) for v in r.values()))
    Console().print(view)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"host": platform.node(), "cases": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
