"""The demo grid swept on a quiet host and then 3 times while two CPU burners run, back to back.

Usage::

    .venv/bin/python benchmarks/bench_busy_host.py                        # mlp demo grid, the default time budget
    .venv/bin/python benchmarks/bench_busy_host.py --time-budget 3m --out results/bench_busy_host.json

The grid is ``make demo``'s (mlp, TorchScript + ONNX, KIND_CPU x1/x2, dynamic batching off /
500 µs, max_batch_size 64: 8 variants), swept with the default design (interleaved rounds,
``--concurrency auto``) on the bundled server, without the in-process baseline. The first run
is "quiet" (nothing started by this script; other processes on the host are whatever they are,
and their load average is recorded); each loaded run starts two **CPU burners** first (plain
busy-loop Python processes, each ending by itself after the run's time budget plus a margin)
and stops them when its sweep ends. Printed and saved per run: the pick (best peak, or best
under ``--latency-budget-ms`` when given), its tie set, what backs it (the paired rule: what
it beats, or the tie), the rounds, the wall time, and whether it agrees with the quiet run: its
pick is in the quiet run's tie set (the quiet pick itself, or a variant the quiet rounds could
not separate from it), or its tie set holds the quiet pick. The numbers are this host at this moment; nothing here asserts a result.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: Extra seconds a burner may outlive its run's budget before it ends by itself.
BURNER_MARGIN_S = 120.0
BURNER = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


def start_burners(n: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """``n`` busy-loop processes, each ending by itself after ``seconds``."""
    return [subprocess.Popen([sys.executable, "-c", BURNER.format(seconds=seconds)]) for _ in range(n)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def summary(run: Any, budget_ms: float | None, wall_s: float) -> dict[str, Any]:
    """The pick of one run and what backs it."""
    from perf.analysis.recommendation.recommend import recommend

    rec = recommend(run, budget_ms)
    choice = rec.best_under_budget if budget_ms is not None else rec.best_peak
    rr = run.rounds
    return {
        "pick": choice.variant if choice else None,
        "concurrency": choice.concurrency if choice else None,
        "throughput_infer_per_s": choice.throughput_infer_per_s if choice else None,
        "tie_set": choice.tie_set if choice else [],
        "beats": choice.beats if choice else [],
        "confidence": choice.verdict() if choice and choice.confidence is not None else None,
        # within the budget only on its quieter rounds (perf.analysis.ranking.budget_latency), else None
        "judged_on": choice.judged_on if choice else None,
        "rounds": len(rr.rounds) if rr else None,
        "ended": rr.ended if rr else None,
        "cuts": [f"{c.kind}: {c.reason}" for c in rr.cuts] if rr else [],
        "host_busy_levels": sum(lv.host_busy for v in run.variants for lv in v.levels),
        "levels": sum(len(v.levels) for v in run.variants),
        "wall_s": round(wall_s, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mlp", help="built-in model (default mlp, the demo's)")
    p.add_argument("--time-budget", default=None, help="each sweep's --time-budget (default: the sweep's default)")
    p.add_argument("--latency-budget-ms", type=float, default=None, help="pick under this p99 budget (default: best peak)")
    p.add_argument("--loaded-runs", type=int, default=3, help="runs with two CPU burners (default 3)")
    p.add_argument("--burners", type=int, default=2, help="CPU burners per loaded run (default 2)")
    p.add_argument("--out", type=Path, default=Path("results/bench_busy_host.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from clients.server import ServerOptions
    from perf.search.budget import parse_duration
    from perf.sweep.options import DEFAULT_TIME_BUDGET_S
    from perf.sweep.run import SweepOptions, run_sweep

    budget_s = parse_duration(args.time_budget) if args.time_budget else DEFAULT_TIME_BUDGET_S
    work = Path(tempfile.mkdtemp(prefix="bench_busy_host_"))
    grid = VariantGrid(counts=(1, 2), queue_delays_us=(None, 500), max_batch_sizes=(64,))
    build(
        BuildOptions(
            args.model,
            formats=("torchscript", "onnx"),
            grid=grid,
            repository=work / "model_repository",
            build_dir=work / "builds",
        )
    )
    plan = [("quiet", 0)] + [(f"loaded {i + 1}", args.burners) for i in range(args.loaded_runs)]
    rows: list[dict[str, Any]] = []
    for name, burners in plan:
        procs = start_burners(burners, (budget_s or 600.0) + BURNER_MARGIN_S) if burners else []
        load_before = os.getloadavg()[0]
        t0 = time.monotonic()
        try:
            opts = SweepOptions(
                ServerOptions(work / "model_repository", runtime="bundled"),
                variants=(f"{args.model}_*",),
                latency_budget_ms=args.latency_budget_ms,
                results_dir=work / "results",
                run_id=name.replace(" ", "-"),
                baseline=False,
                time_budget_s=budget_s,
            )
            run, _ = run_sweep(opts)
        finally:
            stop(procs)
        row = {
            "run": name,
            "burners": burners,
            "load_avg_1m_before": round(load_before, 2),
            **summary(run, args.latency_budget_ms, time.monotonic() - t0),
        }
        row["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
        rows.append(row)
    quiet, quiet_ties = rows[0]["pick"], set(rows[0]["tie_set"] or [rows[0]["pick"]])
    for r in rows:  # the quiet answer is its tie set: a loaded pick inside it, or a loaded tie set holding its pick, agrees
        r["holds_quiet_pick"] = quiet is not None and (r["pick"] in quiet_ties or quiet in r["tie_set"])
    table = Table(
        title=f"Demo grid ({args.model}, 8 variants), quiet then {args.loaded_runs} runs with {args.burners} CPU burners"
    )
    for col in ("run", "pick", "tie set", "confidence", "rounds", "wall s", "agrees with quiet", "load avg"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["run"],
            f"{r['pick']} @c={r['concurrency']}" if r["pick"] else "none",
            ", ".join(r["tie_set"][1:]) or "—",
            r["confidence"] or "—",
            str(r["rounds"]),
            f"{r['wall_s']:.0f}",
            "yes" if r["holds_quiet_pick"] else "no",
            f"{r['load_avg_1m_before']:.1f} → {r['load_avg_1m_after']:.1f}",
        )
    Console(width=200).print(table)
    out = {
        "host": platform.node(),
        "cpu_count": os.cpu_count(),
        "model": args.model,
        "time_budget_s": budget_s,
        "latency_budget_ms": args.latency_budget_ms,
        "work_dir": str(work),
        "runs": rows,
        "loaded_over_quiet_wall": [round(r["wall_s"] / rows[0]["wall_s"], 2) for r in rows[1:]],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
