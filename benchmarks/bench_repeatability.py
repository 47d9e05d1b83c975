"""Repeatability: two identical sweeps of the demo grid back to back; do the peaks agree?

Usage::

    .venv/bin/python benchmarks/bench_repeatability.py                  # the demo grid (make demo)
    .venv/bin/python benchmarks/bench_repeatability.py --model tiny --formats onnx --counts 1 \\
        --concurrency 1,4 --interval-ms 300 --out results/bench_repeatability_small.json

The grid is built once (default: the demo's, ``mlp`` in TorchScript and ONNX, KIND_CPU x1 and
x2, dynamic batching off and 500 µs, max_batch_size 64, concurrency 1,2,4,8, 1,500 ms
windows), then swept twice with the same settings. Per variant it prints the peak of each
sweep as the recommendation ranks it (:func:`perf.analysis.stats.trials.rank`: stable levels
first), each peak's stated spread (:func:`perf.analysis.stats.trials.spread`: trial min–max,
perf_analyzer's window spread, or the stability tolerance when neither is known or the
level is unstable) and whether the two peaks agree: ``|peak 1 - peak 2| <= max(spread 1,
spread 2)``. It also counts the levels each sweep flagged (unstable, host busy). On a
shared, noisy host disagreement is the expected finding; nothing here asserts a speed.
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


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mlp", help="built-in model (default mlp, as make demo)")
    p.add_argument("--formats", default="torchscript,onnx", help="export formats (default torchscript,onnx)")
    p.add_argument("--counts", default="1,2", help="instance counts (default 1,2)")
    p.add_argument("--queue-delays", default="off,500", help="dynamic batching: off and/or delays in µs (default off,500)")
    p.add_argument("--max-batch-size", type=int, default=64, help="max_batch_size (default 64)")
    p.add_argument("--concurrency", default="1,2,4,8", help="concurrency levels (default 1,2,4,8)")
    p.add_argument("--interval-ms", type=int, default=1500, help="perf_analyzer window, ms (default 1500)")
    p.add_argument("--max-trials", type=int, default=5, help="perf_analyzer windows before unstable (default 5)")
    p.add_argument("--host-busy-threshold", type=float, default=None, help="%% of one core (default: the sweep's)")
    p.add_argument("--out", type=Path, default=Path("results/bench_repeatability.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from clients.server import ServerOptions
    from perf.analysis.recommendation.recommend import rank, spread
    from perf.analysis.stats.points import THROUGHPUT, run_points
    from perf.records.settings import MeasureSettings
    from perf.sweep.run import SweepOptions, run_sweep

    delays = tuple(None if d == "off" else int(d) for d in args.queue_delays.split(",") if d)
    levels = _ints(args.concurrency)
    measure = MeasureSettings(measurement_interval_ms=args.interval_ms, max_trials=args.max_trials, unstable_retries=0)
    extra = {} if args.host_busy_threshold is None else {"host_busy_threshold_pct": args.host_busy_threshold}
    with tempfile.TemporaryDirectory(prefix="bench_repeat_") as tmp:
        root = Path(tmp)
        build(
            BuildOptions(
                args.model,
                formats=tuple(args.formats.split(",")),
                repository=root / "repo",
                build_dir=root / "builds",
                grid=VariantGrid(counts=_ints(args.counts), queue_delays_us=delays, max_batch_sizes=(args.max_batch_size,)),
            )
        )
        sweeps = []
        for i in (1, 2):
            t0 = time.perf_counter()
            run, _ = run_sweep(
                SweepOptions(
                    ServerOptions(root / "repo", runtime="bundled"),
                    concurrency=levels,
                    measure=measure,
                    design="sequential",  # its measure settings are the sequential design's (a rounds sweep refuses them)
                    results_dir=root / "results",
                    run_id=f"sweep{i}",
                    **extra,
                )
            )
            sweeps.append((run, time.perf_counter() - t0))

    tol = measure.stability_pct
    rows = []
    for v in sweeps[0][0].variants:
        picks = []
        for run, _ in sweeps:
            pts = run_points(run)[v.name]
            best, why = rank(pts, tol)
            flagged = sum(1 for lv in run.variant(v.name).levels if lv.status not in ("ok", "failed"))
            picks.append(
                {
                    "concurrency": best.concurrency if best else None,
                    "throughput_infer_per_s": round(best.get(THROUGHPUT), 1) if best else None,
                    "spread_infer_per_s": round(spread(best, tol), 1) if best else None,
                    "status": best.status if best else "failed",
                    "why": why,
                    "flagged_levels": flagged,
                    "host_busy_pct": [
                        None if lv.host_busy_pct is None else round(lv.host_busy_pct) for lv in run.variant(v.name).levels
                    ],
                }
            )
        a, b = picks
        agree = None
        if a["throughput_infer_per_s"] is not None and b["throughput_infer_per_s"] is not None:
            diff = abs(a["throughput_infer_per_s"] - b["throughput_infer_per_s"])
            agree = diff <= max(a["spread_infer_per_s"], b["spread_infer_per_s"])
        rows.append(
            {
                "variant": v.name,
                "sweep1": a,
                "sweep2": b,
                "agree_within_spread": agree,
                "difference_pct": None
                if agree is None
                else round((b["throughput_infer_per_s"] - a["throughput_infer_per_s"]) / a["throughput_infer_per_s"] * 100, 1),
            }
        )

    report = {
        "benchmark": "bench_repeatability",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {
            "machine": platform.machine(),
            "cpu_count": sweeps[0][0].environment.get("cpu_count"),
            "cpu": sweeps[0][0].environment.get("cpu"),
        },
        "grid": {
            "model": args.model,
            "formats": args.formats.split(","),
            "counts": list(_ints(args.counts)),
            "queue_delays_us": list(delays),
            "max_batch_size": args.max_batch_size,
            "concurrency": list(levels),
            "measurement_interval_ms": args.interval_ms,
            "max_trials": args.max_trials,
            "host_busy_threshold_pct": sweeps[0][0].settings.get("host_busy_threshold_pct"),
        },
        "sweep_s": [round(s, 1) for _, s in sweeps],
        "variants": rows,
        "agree": sum(1 for r in rows if r["agree_within_spread"]),
        "disagree": sum(1 for r in rows if r["agree_within_spread"] is False),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    table = Table(
        title=f"two sweeps of {len(rows)} variants: {report['agree']} agree, {report['disagree']} disagree "
        f"(sweeps {report['sweep_s'][0]} s, {report['sweep_s'][1]} s)"
    )
    for col in ("variant", "peak 1 (c) ± spread", "peak 2 (c) ± spread", "diff %", "agree", "flagged 1/2"):
        table.add_column(col)

    def cell(x: dict) -> str:
        if x["throughput_infer_per_s"] is None:
            return "—"
        mark = "" if x["status"] == "ok" else f" † {x['status']}"
        return f"{x['throughput_infer_per_s']:,.0f} (c={x['concurrency']}) ± {x['spread_infer_per_s']:,.0f}{mark}"

    for r in rows:
        table.add_row(
            r["variant"],
            cell(r["sweep1"]),
            cell(r["sweep2"]),
            "—" if r["difference_pct"] is None else f"{r['difference_pct']:+.1f}",
            {True: "yes", False: "NO", None: "—"}[r["agree_within_spread"]],
            f"{r['sweep1']['flagged_levels']}/{r['sweep2']['flagged_levels']}",
        )
    Console(width=140).print(table)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
