"""Serving efficiency of the demo mlp and the built-in encoder on the bundled server: served
throughput ÷ in-process throughput at the batch the server formed, written to JSON.

Usage::

    .venv/bin/python benchmarks/bench_serving_efficiency.py
    .venv/bin/python benchmarks/bench_serving_efficiency.py --models mlp --concurrency 1,8,32 --out results/eff.json

For each model: build ONNX with one KIND_CPU instance, dynamic batching 500 µs and
max_batch_size 64 (``mlp_onnx_cpu1_db500_mbs64``, ``encoder_onnx_...``), sweep it with
perf_analyzer (client batch 1), and let the sweep measure its in-process baseline
(:mod:`perf.profile.baseline`). Printed and saved per level: the batch the server formed, served and
in-process infer/s at that batch (measured or interpolated, said), their ratio, the server's
compute-infer time per request against the in-process time of the same batch, and the
difference (serving overhead). The numbers are this machine at this moment (shared and
noisy); nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="mlp,encoder", help="built-in models (default mlp,encoder)")
    p.add_argument("--concurrency", default="1,4,16", help="concurrency levels (default 1,4,16)")
    p.add_argument("--interval-ms", type=int, default=1000, help="perf_analyzer window (ms, default 1000)")
    p.add_argument("--out", type=Path, default=Path("results/bench_serving_efficiency.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from clients.server import ServerOptions
    from core.cli import print_table
    from perf.analysis.efficiency import efficiency_rows
    from perf.markdown import fmt
    from perf.records.settings import MeasureSettings
    from perf.report.sections.efficiency_table import ratio_text
    from perf.sweep.run import SweepOptions, run_sweep

    levels = tuple(int(c) for c in args.concurrency.split(","))
    rows: list[dict] = []
    baselines: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench_eff_") as tmp:
        root = Path(tmp)
        for model in args.models.split(","):
            build(
                BuildOptions(
                    model,
                    formats=("onnx",),
                    repository=root / "repo",
                    build_dir=root / "builds",
                    grid=VariantGrid(counts=(1,), queue_delays_us=(500,), max_batch_sizes=(64,)),
                )
            )
            run, _ = run_sweep(
                SweepOptions(
                    ServerOptions(root / "repo", runtime="bundled"),
                    variants=(f"{model}_*",),
                    concurrency=levels,
                    measure=MeasureSettings(measurement_interval_ms=args.interval_ms, max_trials=6, unstable_retries=0),
                    design="sequential",  # its measure settings are the sequential design's (a rounds sweep refuses them)
                    results_dir=root / "results",
                    run_id=model,
                )
            )
            assert run.baseline is not None
            baselines[model] = {
                "settings": dataclasses.asdict(run.baseline.settings),
                "points": [
                    {
                        "format": pt.key.format,
                        "threads": pt.key.threads,
                        "batch_size": pt.batch_size,
                        "status": pt.status,
                        "latency_median_ms": pt.latency_median_ms,
                        "latency_p50_ms": pt.latency_p50_ms,
                        "latency_p99_ms": pt.latency_p99_ms,
                        "spread_pct": pt.spread_pct,
                        "throughput_infer_per_s": pt.throughput_infer_per_s,
                    }
                    for pt in run.baseline.points
                ],
            }
            for r in efficiency_rows(run):
                rows.append(
                    {
                        "model": model,
                        "variant": r.variant,
                        "concurrency": r.point.concurrency,
                        "status": r.point.status,
                        "server_batch": r.server_batch,
                        "served_infer_per_s": r.served_infer_per_s,
                        "in_process_infer_per_s": r.in_process.throughput_infer_per_s if r.in_process else None,
                        "in_process_how": r.in_process.how_text if r.in_process else None,
                        "ratio": r.ratio,
                        "compute_infer_us": r.compute_infer_us,
                        "in_process_us": r.in_process_us,
                        "overhead_us": r.overhead_us,
                        "overhead_pct": r.overhead_pct,
                        "threads": r.target.key.threads,
                        "host_cpu_pct": r.point.get("cpu_utilization_pct"),
                    }
                )
    report = {
        "benchmark": "bench_serving_efficiency",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "concurrency": list(levels),
        "measurement_interval_ms": args.interval_ms,
        "levels": rows,
        "baselines": baselines,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")

    table = Table(title="Served ÷ in-process at the batch the server formed (ONNX, 1 instance, dynamic batching 500 µs)")
    for col in (
        "model",
        "c",
        "status",
        "server batch",
        "served infer/s",
        "in-process infer/s",
        "ratio",
        "compute µs",
        "in-process µs",
        "overhead µs",
    ):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["model"],
            str(r["concurrency"]),
            r["status"],
            fmt(r["server_batch"], 2),
            fmt(r["served_infer_per_s"]),
            fmt(r["in_process_infer_per_s"]),
            ratio_text(r["ratio"]),
            fmt(r["compute_infer_us"], 0),
            fmt(r["in_process_us"], 0),
            fmt(r["overhead_us"], 0) + (f" ({r['overhead_pct']:+.0f} %)" if r["overhead_pct"] is not None else ""),
        )
    print_table(table)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
