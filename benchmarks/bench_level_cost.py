"""What one level costs, in wall time and in accuracy, at each measurement setting: the numbers
behind the README's "Make it faster / shorter".

Usage::

    .venv/bin/python benchmarks/bench_level_cost.py                    # mlp, onnx, c=4, 6 repeats
    .venv/bin/python benchmarks/bench_level_cost.py --repeats 3 --concurrency 8

One build of the demo model (one ONNX variant: 1 CPU instance, dynamic batching 500 µs), one
bundled server, one level measured ``--repeats`` times at each setting, the settings in rotating
order so that the host's moments are shared among them:

- a **round visit** (:func:`perf.measure.level.measure_visit`: one perf_analyzer run of 3
  windows, kept whatever their spread) at round windows of 100, 300 (the default and the demo's)
  and 1000 ms;
- a **sequential level** (:func:`perf.measure.level.measure_level`: perf_analyzer until 3
  windows agree within 10 %, a retry with doubled windows, a re-measurement on a busy host) at
  the defaults (2000 ms windows, at most 10, 1 retry) and at the settings ``make demo`` used
  before the rounds design (1500 ms, at most 5, no retry).

Printed and written as JSON per setting: wall seconds per level (median, max), the throughput's
spread over the repeats (min-max as % of the median, the accuracy a single level has at that
setting), the same for p99, and how many repeats were flagged unstable or host busy. The host is
this (shared, noisy) machine at this moment: compare the rows of one run. Nothing asserts a speed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: ``name -> (kind, MeasureSettings fields)``.
SETTINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "round visit, 100 ms windows": ("visit", {"measurement_interval_ms": 100}),
    "round visit, 300 ms windows (default, demo)": ("visit", {"measurement_interval_ms": 300}),
    "round visit, 1000 ms windows": ("visit", {"measurement_interval_ms": 1000}),
    "sequential, defaults (2000 ms, <= 10 windows, 1 retry)": ("level", {}),
    "sequential, old demo (1500 ms, <= 5 windows, 0 retries)": (
        "level",
        {"measurement_interval_ms": 1500, "max_trials": 5, "unstable_retries": 0},
    ),
}


def spread_pct(values: list[float]) -> float | None:
    """(max - min) / median of ``values``, in %; ``None`` with fewer than 2."""
    return round((max(values) - min(values)) / statistics.median(values) * 100, 1) if len(values) > 1 else None


def summary(name: str, kind: str, done: list[tuple[float, Any]]) -> dict[str, Any]:
    """One row: wall time per level and the spread of the repeats' numbers."""
    ok = [lv for _, lv in done if lv.ok]
    walls = [w for w, _ in done]
    thr = [lv.throughput_infer_per_s for lv in ok]
    p99 = [lv.latency_p99_ms for lv in ok if lv.latency_p99_ms is not None]
    return {
        "setting": name,
        "kind": kind,
        "repeats": len(done),
        "wall_s_median": round(statistics.median(walls), 2),
        "wall_s_max": round(max(walls), 2),
        "throughput_median": round(statistics.median(thr), 1) if thr else None,
        "throughput_spread_pct": spread_pct(thr),
        "p99_ms_median": round(statistics.median(p99), 2) if p99 else None,
        "p99_spread_pct": spread_pct(p99),
        "unstable": sum(1 for lv in ok if not lv.stable),
        "host_busy": sum(1 for lv in ok if lv.host_busy),
        "failed": len(done) - len(ok),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mlp", help="built-in model (default mlp, the demo's)")
    p.add_argument("--concurrency", type=int, default=4, help="the level's concurrency (default 4)")
    p.add_argument("--repeats", type=int, default=6, help="levels per setting (default 6)")
    p.add_argument("--out", type=Path, default=Path("results/bench_level_cost.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from builders.repository.view import Repository
    from clients.infer import make_client, model_io
    from clients.server import ServerOptions, TritonServer
    from core.cli import print_table
    from perf.measure import analyzer
    from perf.measure.inputs import input_args
    from perf.measure.level import Load, measure_level, measure_visit
    from perf.records.settings import MeasureSettings

    load_before = os.getloadavg()
    pa = analyzer.find_perf_analyzer()
    done: dict[str, list[tuple[float, Any]]] = {name: [] for name in SETTINGS}
    with tempfile.TemporaryDirectory(prefix="bench_level_cost_") as tmp:
        root = Path(tmp)
        repo = root / "repo"
        res = build(
            BuildOptions(
                args.model,
                formats=("onnx",),
                repository=repo,
                build_dir=root / "builds",
                grid=VariantGrid(counts=(1,), queue_delays_us=(500,), max_batch_sizes=(64,)),
            )
        )
        name = res.manifest["variants"][0]
        run_dir = root / "run"
        (run_dir / "raw").mkdir(parents=True)
        with TritonServer(ServerOptions(repo, runtime="bundled", log_file=root / "server.log", start_timeout_s=120)) as srv:
            srv.load(name)
            with contextlib.closing(make_client(srv.http_url, "http")) as client:
                config = model_io(client, name, "http")
            in_args = input_args(config, Repository(repo).variant(name).served_spec, run_dir)
            names = list(SETTINGS)
            for rep in range(args.repeats):
                for setting in names[rep % len(names) :] + names[: rep % len(names)]:
                    kind, fields = SETTINGS[setting]
                    m = MeasureSettings(**fields)
                    measure = measure_visit if kind == "visit" else measure_level
                    start = time.monotonic()
                    lv = measure(pa, srv, Load(name, args.concurrency, 1, rep), in_args, m, run_dir, lambda *_: None)
                    done[setting].append((time.monotonic() - start, lv))
    rows = [summary(n, SETTINGS[n][0], d) for n, d in done.items()]
    table = Table(title=f"One level of {args.model} onnx cpu1 db500 at c={args.concurrency}, {args.repeats} repeats per setting")
    for col in ("setting", "wall s (median / max)", "infer/s", "spread %", "p99 ms", "p99 spread %", "unstable", "host busy"):
        table.add_column(col, justify="left" if col == "setting" else "right")
    for r in rows:
        table.add_row(
            r["setting"],
            f"{r['wall_s_median']} / {r['wall_s_max']}",
            str(r["throughput_median"]),
            str(r["throughput_spread_pct"]),
            str(r["p99_ms_median"]),
            str(r["p99_spread_pct"]),
            f"{r['unstable']}/{r['repeats']}",
            f"{r['host_busy']}/{r['repeats']}",
        )
    print_table(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "model": args.model,
        "concurrency": args.concurrency,
        "repeats": args.repeats,
        "cpu_count": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "rows": rows,
    }
    args.out.write_text(json.dumps(record, indent=2))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
