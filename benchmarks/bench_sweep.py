"""Time a sweep of a fixed grid on the bundled server and write the figures to JSON.

Usage::

    .venv/bin/python benchmarks/bench_sweep.py                    # tiny model, 4 variants, c = 1,2,4
    .venv/bin/python benchmarks/bench_sweep.py --model mlp --concurrency 1,4,16 --out results/bench_sweep_mlp.json

The grid is fixed so runs are comparable: ONNX, KIND_CPU x1 and x2, dynamic batching off
and 500 µs, max_batch_size 8, client batch 1, 500 ms windows. Printed and saved: the wall
time of the build, of the whole sweep and per variant (s), and per level the throughput
(infer/s), p99 (ms) and whether it was stable. The timings are this machine at this
moment (shared and noisy): compare runs as ratios within one run, never against a fixed
number. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="tiny", help="built-in model (default tiny)")
    p.add_argument("--concurrency", default="1,2,4", help="concurrency levels (default 1,2,4)")
    p.add_argument("--interval-ms", type=int, default=500, help="perf_analyzer window (ms, default 500)")
    p.add_argument("--out", type=Path, default=Path("results/bench_sweep.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from clients.server import ServerOptions
    from core.cli import print_table
    from perf.records.settings import MeasureSettings
    from perf.sweep.run import SweepOptions, run_sweep

    levels = tuple(int(c) for c in args.concurrency.split(","))
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        res = build(
            BuildOptions(
                args.model,
                formats=("onnx",),
                repository=root / "repo",
                build_dir=root / "builds",
                grid=VariantGrid(counts=(1, 2), queue_delays_us=(None, 500), max_batch_sizes=(8,)),
            )
        )
        build_s = time.perf_counter() - t0
        per_variant: dict[str, float] = {}
        marks: dict[str, float] = {}

        def progress(e: dict) -> None:
            if e["event"] == "level_start":
                marks.setdefault(e["variant"], time.perf_counter())
            elif e["event"] == "level_done":
                per_variant[e["variant"]] = time.perf_counter() - marks[e["variant"]]

        t1 = time.perf_counter()
        run, run_dir = run_sweep(
            SweepOptions(
                ServerOptions(root / "repo", runtime="bundled"),
                concurrency=levels,
                measure=MeasureSettings(measurement_interval_ms=args.interval_ms, max_trials=5, unstable_retries=0),
                design="sequential",  # its measure settings are the sequential design's (a rounds sweep refuses them)
                results_dir=root / "results",
            ),
            progress,
        )
        sweep_s = time.perf_counter() - t1

    rows = [
        {
            "variant": v.name,
            "concurrency": lv.concurrency,
            "throughput_infer_per_s": lv.throughput_infer_per_s,
            "latency_p99_ms": lv.latency_p99_ms,
            "stable": lv.stable,
            "error": lv.error,
        }
        for v in run.variants
        for lv in v.levels
    ]
    report = {
        "benchmark": "bench_sweep",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"machine": platform.machine(), "cpu_count": run.environment.get("cpu_count"), "cpu": run.environment.get("cpu")},
        "grid": {
            "model": args.model,
            "variants": res.manifest["variants"],
            "concurrency": list(levels),
            "measurement_interval_ms": args.interval_ms,
        },
        "build_s": round(build_s, 2),
        "sweep_s": round(sweep_s, 2),
        "variant_s": {k: round(v, 2) for k, v in per_variant.items()},
        "levels": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    table = Table(
        title=f"sweep of {len(run.variants)} variants x {len(levels)} levels: build {build_s:.1f} s, sweep {sweep_s:.1f} s"
    )
    for col in ("variant", "variant s", "c", "infer/s", "p99 ms", "stable"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["variant"],
            f"{per_variant.get(r['variant'], 0):.1f}",
            str(r["concurrency"]),
            f"{r['throughput_infer_per_s']:.0f}" if r["throughput_infer_per_s"] else "—",
            f"{r['latency_p99_ms']:.2f}" if r["latency_p99_ms"] else "—",
            "yes" if r["stable"] else "no",
        )
    print_table(table)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
